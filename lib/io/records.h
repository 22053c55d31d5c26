/* Internal to libtally-io: the files of this process image and their
 * counters (records.c), above region.h. */
#ifndef TALLY_LIB_IO_RECORDS_H
#define TALLY_LIB_IO_RECORDS_H

#include "region.h"

/* The record of PATH (relative to DIRFD as openat takes it), taken at its
 * first sight; the incomplete record when the table is full. 1-based. */
int32_t io_record_for(int dirfd, const char *path);
/* A descriptor the helper did not see opened (inherited across exec, as
 * `prog > out.txt` gives): its file's record, looked up once through
 * /proc/self/fd; 0 for a pipe, a socket or anything not a path. */
int32_t io_record_of_inherited(int fd, struct io_fd *slot);
/* The record of an absolute, already normal path. */
int32_t io_record_for_abs(const char *abs);
static inline struct tally_io_record *io_rec(int32_t rec)
{
    return tally_io_record_at(io_region, (uint32_t)(rec - 1));
}
/* Forgets the path → record table (a forked child rebuilds it). */
void io_records_reset(void);
/* The current directory changed (chdir, fchdir). */
void io_cwd_changed(void);

/* Counter updates, each under the record's lock. */
enum io_op { IO_READ = 1, IO_WRITE = 2 };
void io_count_rw(int32_t rec, bool stdio, enum io_op op, int64_t offset, int64_t bytes,
                 uint64_t t0, uint64_t t1);
/* COUNTER += 1, meta time += t1 - t0; open/close also set their timestamps. */
enum io_meta { IO_META_OPEN, IO_META_CLOSE, IO_META_OTHER };
void io_count_meta(int32_t rec, bool stdio, int counter, enum io_meta kind, uint64_t t0, uint64_t t1);
/* Bytes on a descriptor not opened under the helper. */
void io_count_other_fd(enum io_op op, int64_t bytes);

#endif
