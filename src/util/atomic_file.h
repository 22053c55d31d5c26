/* Files written atomically: write to a temporary file beside the target, then
 * rename over it, so readers never see a half-written report. */
#ifndef TALLY_UTIL_ATOMIC_FILE_H
#define TALLY_UTIL_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

struct atomic_sink;

struct atomic_file {
    FILE *fp;          /* write here */
    char *final_path;
    char *temp_path;
    struct atomic_sink *sink; /* the descriptor under fp and the first write error */
};

/* Opens PATH.tmp-XXXXXX for writing. Returns -1 (errno set) on failure. */
int atomic_file_open(struct atomic_file *af, const char *path);
/* Flushes, fsyncs and renames into place; frees af. Returns -1 on failure
 * (the temporary file is removed and the target left as it was) with errno
 * the error of the first write that failed (ENOSPC for a full disk, even
 * when it happened long before and errno has been overwritten since). */
int atomic_file_commit(struct atomic_file *af);
/* Discards the temporary file; frees af. */
void atomic_file_abort(struct atomic_file *af);
/* Whole-buffer convenience: open, write, commit. */
int atomic_write_file(const char *path, const void *data, size_t len);
/* Open, let write() fill the stream, commit; a write() that returns -1
 * discards the file. -1 (errno set; EIO when write() failed without one)
 * with the target left as it was. */
int atomic_write_with(const char *path, int (*write)(void *ctx, FILE *out), void *ctx);

#endif
