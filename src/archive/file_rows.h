/* Per-file rows of an archived run: what a level-3 run's PREFIX.files.json
 * says of each file (path, bytes read and written, opens, reads, writes),
 * bounded per run, found beside a summary being archived and stored in the
 * archive's run_files table (schema version 6) with the summary's id. */
#ifndef TALLY_ARCHIVE_FILE_ROWS_H
#define TALLY_ARCHIVE_FILE_ROWS_H

#include <jansson.h>
#include <stddef.h>

#include "archive/store.h"

/* Files kept per run: the FILE_ROWS_MAX that moved the most bytes (read +
 * written), then one row with path NULL summing all the others (and the
 * helper's "<incomplete>" record, which mixes files past its bound). */
#define FILE_ROWS_MAX 100

struct file_row {
    char *path;           /* NULL: the row of the files not kept by name */
    long long files;      /* 1, or how many the NULL row sums */
    long long bytes_read, bytes_written;
    long long opens, reads, writes; /* -1: not known (rows of a migration, below) */
};

struct file_rows {
    struct file_row *rows; /* the named rows by bytes moved, largest first;
                            * the NULL row, when any, last */
    size_t count;
};

/* Reads a PREFIX.files.json document (text, len bytes) into at most
 * bound + 1 rows. Bytes read = POSIX_BYTES_READ + STDIO_BYTES_READ, written
 * likewise; opens = POSIX_OPENS + STDIO_OPENS + STDIO_FDOPENS; reads =
 * POSIX_READS + STDIO_READS; writes likewise (a counter a file lacks is 0).
 * 0, or -1 and a reason naming the bad part ("files[3]: POSIX_BYTES_READ:
 * want a count"). */
int file_rows_parse(const char *text, size_t len, size_t bound, struct file_rows *out, char *why,
                    size_t why_size);
void file_rows_free(struct file_rows *rows);

/* The PREFIX.files.json of a summary being archived: beside it when label
 * (the summary's file name) ends in ".summary", else the summary's
 * io.report when that is an absolute path. NULL when the summary has no
 * io.report (no level-3 report to look for); else a malloc'd path. */
char *file_rows_report_path(const char *label, json_t *summary);

/* The rows of the summary `label` holds in `summary`: NULL when it has no
 * level-3 report; when it names one that cannot be read or parsed, NULL
 * after a one-line message on stderr (the summary is still archived). */
struct file_rows *file_rows_for_summary(const char *label, json_t *summary);

/* Stores rows for the archive id summary_id (inside the caller's
 * transaction). 0, or -1 with the database's reason. */
int file_rows_store(struct store *s, long long summary_id, const struct file_rows *rows,
                    char *why, size_t why_size);

/* The rows of a summary archived before schema version 6, from what its
 * document kept (the summary's io: the top_files by bytes, without opens,
 * reads or writes, and the totals, whose remainder is the NULL row). 0 with
 * no rows when the document has no io; -1 when out of memory. */
int file_rows_from_summary_io(json_t *summary, struct file_rows *out);

/* Schema version 6's migration: the run_files table, filled for the level-3
 * summaries already archived by file_rows_from_summary_io. */
int file_rows_migrate(struct store *s, char *why, size_t why_size);

#endif
