/* The monitoring side's view of the per-process segments
 * (include/tally/segment.h): the directory the processes register in, and
 * copies of the segments read from it (at the end, or at a window's end). */
#ifndef TALLY_INSTRUMENT_SEGMENTS_H
#define TALLY_INSTRUMENT_SEGMENTS_H

#include <stddef.h>
#include <sys/types.h>

#include "tally/segment.h"

/* Creates a fresh private directory for one run's segments (on /dev/shm,
 * else the temporary directory) into path. Returns -1 after a message. */
int segment_dir_create(char *path, size_t len);
/* Removes the directory and everything in it. */
void segment_dir_remove(const char *path);

struct segment_set {
    struct tally_segment **items; /* copies, sorted by rank then pid */
    size_t count;
};

/* Reads every registered segment of DIR (a file of the wrong size or magic
 * is skipped). Returns -1 after a message when DIR cannot be read. */
int segment_set_load(const char *dir, struct segment_set *set);
void segment_set_free(struct segment_set *set);

/* Maps DIR/PID.seg read-write (the monitor's handle to switch it); NULL when absent. */
struct tally_segment *segment_map(const char *dir, pid_t pid);
void segment_unmap(struct tally_segment *s);

#endif
