/* Reading the files people name on a command line (limits, rulebases,
 * contracts, samples, descriptions, summaries, traces), within bounds: every
 * reader here stops at a size given by its caller and says why it stopped,
 * so /dev/zero or a runaway file is refused instead of read to exhaustion,
 * and opening never blocks (a FIFO without a writer is not waited for). */
#ifndef TALLY_UTIL_TEXT_FILE_H
#define TALLY_UTIL_TEXT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Bounds used by several readers. */
#define TEXT_FILE_SMALL ((size_t)1 << 20)   /* limits, rulebases, descriptions: 1 MiB */
#define TEXT_FILE_LARGE ((size_t)256 << 20) /* contracts, samples, summaries: 256 MiB */
#define TEXT_LINE_MAX ((size_t)1 << 20)     /* one line of a line-oriented file: 1 MiB */

/* Opens PATH for reading without blocking on a FIFO, then makes the
 * descriptor blocking. A directory is refused ("Is a directory"), and so is
 * anything but a regular file when regular_only. -1 with the reason in why
 * (strerror's, or one of those). */
int text_file_open(const char *path, bool regular_only, char *why, size_t why_size);

/* The whole of PATH, NUL-terminated and malloc'd, its length in *len when
 * len is not NULL; at most MAX bytes. NULL with the reason in why: the
 * system's ("No such file or directory", "Is a directory"), "out of
 * memory", or "larger than 1 MB (the most read from such a file)". */
char *text_file_read(const char *path, size_t max, size_t *len, char *why, size_t why_size);
/* The same from an open stream (standard input). */
char *text_file_read_stream(FILE *fp, size_t max, size_t *len, char *why, size_t why_size);

/* A file read line by line within two bounds: its total size and the
 * length of one line. */
struct text_lines {
    FILE *fp;
    bool owned;            /* opened by text_lines_open: closed by text_lines_close */
    size_t max_total, max_line, total;
    unsigned long number;  /* of the line last returned */
    char *line;
    size_t cap;
    char why[160];         /* why text_lines_next returned -1 */
};

/* 0, or -1 with the reason in why (as text_file_open). */
int text_lines_open(struct text_lines *r, const char *path, size_t max_total, size_t max_line,
                    char *why, size_t why_size);
/* Reads from FP (not closed by text_lines_close). */
void text_lines_attach(struct text_lines *r, FILE *fp, size_t max_total, size_t max_line);
/* 1 with the next line in *line (NUL-terminated, without its newline; *len
 * its length, when len is not NULL), 0 at the end, -1 when a bound is passed
 * or reading failed: r->why says which ("line 3 is longer than 1 MB", "a NUL
 * byte on line 1: not a text file", "larger than 1 GB"). */
int text_lines_next(struct text_lines *r, char **line, size_t *len);
void text_lines_close(struct text_lines *r);

/* "1 MB", "64 KB", "1 GB": a bound as the messages above write it. */
void text_file_size_text(size_t bytes, char *text, size_t size);

#endif
