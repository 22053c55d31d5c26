/* The footprint of the task's directories ('disk' and 'total_files'):
 * walked with nftw, throttled so that walking costs about 1% of the run. */
#ifndef TALLY_MONITOR_DISK_H
#define TALLY_MONITOR_DISK_H

#include <stddef.h>

struct disk_usage {
    double megabytes; /* allocated blocks; a hard-linked file counts once */
    double files;     /* entries that are not directories */
};

/* Walks dirs (the current directory when count is 0). Returns the time it took, seconds. */
double disk_measure(const char *const *dirs, size_t count, struct disk_usage *out);

#endif
