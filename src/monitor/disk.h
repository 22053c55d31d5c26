/* The footprint of the task's directories ('disk' and 'total_files'):
 * walked (disk_walk.c) in a thread of its own (a large tree must never hold up
 * the handling of the task's process events), first half an interval after
 * the start (usage.c), then at the interval, throttled so that walking costs
 * about 1% of the run; and once more at the end (disk_measure). */
#ifndef TALLY_MONITOR_DISK_H
#define TALLY_MONITOR_DISK_H

#include <stdbool.h>
#include <stddef.h>

struct disk_usage {
    double megabytes; /* allocated blocks; a hard-linked file counts once */
    double files;     /* entries that are not directories */
};

/* Walks dirs (the current directory when count is 0). Returns the time it took, seconds. */
double disk_measure(const char *const *dirs, size_t count, struct disk_usage *out);

struct disk_watch;
/* Starts walking in the background: the first walk first_in seconds from now (0: at
 * once), then every interval (or less often, see above). NULL on failure. */
struct disk_watch *disk_watch_start(const char *const *dirs, size_t count, double interval,
                                    double first_in);
/* The latest walk's result; false when no walk has finished since the last call. */
bool disk_watch_latest(struct disk_watch *watch, struct disk_usage *out);
/* Stops and frees the watch (waits for a walk in progress). */
void disk_watch_stop(struct disk_watch *watch);

#endif
