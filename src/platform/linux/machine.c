/* Facts about the machine a task ran on: CPU count and load average. */
#include "platform/platform.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int machine_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

double machine_load_average(void)
{
    double load[1];
    return getloadavg(load, 1) == 1 ? load[0] : 0;
}
