/* The monitoring side's copies of libtally-io's regions
 * (include/tally/io_segment.h): one per process image, read from the
 * run's directory once the task has ended. Strings from the processes are
 * terminated here; record counts are bounded by the capacity. */
#ifndef TALLY_INSTRUMENT_IO_SEGMENTS_H
#define TALLY_INSTRUMENT_IO_SEGMENTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tally/io_segment.h"

struct io_image {
    struct tally_io_header header;
    struct tally_io_record *records; /* the taken ones, then the incomplete
                                      * record when something was summed in it;
                                      * only during the load's callback */
    uint32_t count;
    uint64_t order;                  /* claim order: the slot, or past the slots a file's N */
};

struct io_image_set {
    struct io_image *items;          /* sorted by pid, then image (numbered in claim order) */
    size_t count;
    size_t unreadable;               /* files of the wrong size, magic or version */
};

/* Reads DIR/io.slots and DIR/io.PID.N, handing each image with its records to each(ctx, img)
 * (one at a time: the records of a large tree are never all in memory),
 * then keeping its header. Returns -1 after a message when DIR cannot be read. */
int io_image_set_load(const char *dir, struct io_image_set *set,
                      void (*each)(void *ctx, const struct io_image *img), void *ctx);
/* The same for the images of process pid alone: the others' records are
 * not read (the agent's answer for one process). */
int io_image_set_load_pid(const char *dir, pid_t pid, struct io_image_set *set,
                          void (*each)(void *ctx, const struct io_image *img), void *ctx);
void io_image_set_free(struct io_image_set *set);

#endif
