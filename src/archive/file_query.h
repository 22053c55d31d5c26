/* Queries over the per-file rows of archived level-3 runs (run_files,
 * file_rows.h): the runs whose files matching some globs moved more than
 * given amounts, e.g. the tasks that read more than 1 GB from *.bam files
 * ('tally archive files', src/cli/archive_files.c). */
#ifndef TALLY_ARCHIVE_FILE_QUERY_H
#define TALLY_ARCHIVE_FILE_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "archive/file_rows.h"
#include "archive/query.h"
#include "archive/store.h"

#define FILE_FILTER_MAX_GLOBS 16

/* Which files and how much. A glob without '/' matches a file's base name
 * (as find's -name), one with '/' its whole path (as find's -path: '*'
 * matches '/' too); fnmatch(3) syntax: * ? [...] and \ quoting. No glob:
 * every file kept by name. */
struct file_filter {
    const char *globs[FILE_FILTER_MAX_GLOBS];
    size_t nglobs;
    bool has_read, has_written;
    long long read_more_than, written_more_than; /* bytes, strictly more than */
};

/* A size as people write it ("1GB", "500 MiB", "2.5"; a bare number is MB,
 * as everywhere in tally; powers of 1024) → bytes. 0, or -1 with a reason. */
int file_filter_parse_size(const char *text, long long *bytes, char *why, size_t why_size);
/* Adds a glob: 0, or -1 with a reason (empty, too many, longer than 4096). */
int file_filter_add_glob(struct file_filter *f, const char *glob, char *why, size_t why_size);
/* Whether path matches one of the globs (or there are none). */
bool file_filter_matches(const struct file_filter *f, const char *path);
/* A LIKE pattern (escape character '\') that every path the glob matches
 * also matches (a superset: the globs are applied after). Returns the
 * length written, or -1 when out does not hold it (4 * strlen(glob) + 2
 * always does). */
int file_filter_glob_like(const char *glob, char *out, size_t out_size);

/* One run that matched: its identity, the sums over its matching files,
 * the files themselves, and what was not kept by name (unlisted: a run
 * past FILE_ROWS_MAX files, whose matching files may hide there). */
struct file_run {
    long long id;
    const char *name, *category, *taskid;
    struct file_row sum;             /* opens/reads/writes -1: some not known */
    const struct file_row *files;    /* the matching rows, by bytes moved */
    size_t nfiles;
    struct file_row unlisted;        /* files 0: nothing unlisted */
};

typedef int (*file_run_fn)(void *ctx, const struct file_run *run);

/* Calls fn for each run, in archive id order, among the summaries
 * matching where (a compiled 'archive query' condition; NULL: all), whose
 * matching files moved more than the filter's amounts. 0, or -1 with the
 * database's reason. */
int file_query(struct store *s, const struct file_filter *f, const struct compiled_query *where,
               file_run_fn fn, void *ctx, char *why, size_t why_size);

#endif
