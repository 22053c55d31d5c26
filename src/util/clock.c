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

double clock_epoch_seconds(void)
{
    return seconds_of(CLOCK_REALTIME);
}
