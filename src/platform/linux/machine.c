/* Facts about the machine a task ran on and the agent reports: CPU count,
 * load averages, uptime, memory. */
#include "platform/platform.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int machine_load_averages(double load[3])
{
    if (getloadavg(load, 3) == 3)
        return 0;
    load[0] = load[1] = load[2] = 0;
    return -1;
}

double machine_uptime(void)
{
    FILE *f = fopen("/proc/uptime", "r");
    double up = 0;
    if (f) {
        if (fscanf(f, "%lf", &up) != 1)
            up = 0;
        fclose(f);
    }
    return up;
}

double machine_meminfo_mb(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    double kb = 0;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, klen) && line[klen] == ':') {
            kb = atof(line + klen + 1);
            break;
        }
    fclose(f);
    return kb / 1024.0;
}
