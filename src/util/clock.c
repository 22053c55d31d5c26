/* Seconds as doubles (see clock.h). */
#include "util/clock.h"

#include <time.h>

static double seconds_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double clock_monotonic_seconds(void)
{
    return seconds_of(CLOCK_MONOTONIC);
}

unsigned long long clock_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

double clock_epoch_seconds(void)
{
    return seconds_of(CLOCK_REALTIME);
}
