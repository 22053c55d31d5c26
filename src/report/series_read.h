/* Reading the time-series report PREFIX.series (series.h): the one reader
 * of the format ('tally trace from-runs', contract samples). The column
 * header is the last '#' line before the first row; '#' lines after it
 * change nothing. A row is whitespace-separated finite numbers, at least as
 * many as the header has columns (at most SERIES_READ_COLUMNS are read);
 * blank lines are skipped. Columns are found by name, so older series
 * (fewer columns) and newer ones (more) read alike. */
#ifndef TALLY_REPORT_SERIES_READ_H
#define TALLY_REPORT_SERIES_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "util/text_file.h"

#define SERIES_READ_COLUMNS 64
/* No bound a series of a real run reaches: its size is the run's length. */
#define SERIES_READ_MAX ((size_t)1 << 40)

struct series_reader {
    struct text_lines in;
    const char *path;                  /* for messages: "PATH:LINE: why" */
    char *header;                      /* the header line (without '#'), its words in columns */
    char *columns[SERIES_READ_COLUMNS];
    int n_columns;
    bool header_read;                  /* the first row came: columns are known */
    double values[SERIES_READ_COLUMNS]; /* the row next returned */
    int n_values;
};

/* 0, or -1 with the reason in why (text_file_open's: "No such file or
 * directory", ...). PATH must outlive the reader. */
int series_reader_open(struct series_reader *r, const char *path, char *why, size_t why_size);
/* The index of column NAME in the header, -1 when absent (or before the
 * first row). */
int series_reader_column(const struct series_reader *r, const char *name);
/* 1 with the next row in r->values (r->n_values >= r->n_columns), 0 at the
 * end, -1 with "PATH:LINE: why" in err (a word that is not a finite number,
 * too few values, a line or file too long). */
int series_reader_next(struct series_reader *r, char *why, size_t why_size);
/* The line of the row last returned. */
unsigned long series_reader_line(const struct series_reader *r);
void series_reader_close(struct series_reader *r);

#endif
