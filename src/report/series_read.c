/* Reading PREFIX.series (see series_read.h). */
#include "report/series_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int series_reader_open(struct series_reader *r, const char *path, char *why, size_t why_size)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    return text_lines_open(&r->in, path, SERIES_READ_MAX, TEXT_LINE_MAX, why, why_size);
}

int series_reader_column(const struct series_reader *r, const char *name)
{
    for (int i = 0; i < r->n_columns; i++)
        if (!strcmp(r->columns[i], name))
            return i;
    return -1;
}

/* The words of the header (none when the series has no '#' line). */
static void read_header(struct series_reader *r)
{
    r->header_read = true;
    char *save = NULL;
    for (char *w = r->header ? strtok_r(r->header, " \t\n", &save) : NULL; w && r->n_columns < SERIES_READ_COLUMNS;
         w = strtok_r(NULL, " \t\n", &save))
        r->columns[r->n_columns++] = w;
}

int series_reader_next(struct series_reader *r, char *why, size_t why_size)
{
    char *line;
    int got;
    while ((got = text_lines_next(&r->in, &line, NULL)) > 0) {
        if (line[0] == '#') {
            if (!r->header_read) { /* comments after the data do not change the columns */
                free(r->header);
                if (!(r->header = strdup(line + 1))) {
                    snprintf(why, why_size, "out of memory");
                    return -1;
                }
            }
            continue;
        }
        r->n_values = 0;
        char *save = NULL;
        for (char *w = strtok_r(line, " \t\n", &save); w && r->n_values < SERIES_READ_COLUMNS;
             w = strtok_r(NULL, " \t\n", &save)) {
            char *stop;
            double v = strtod(w, &stop);
            if (*stop || !isfinite(v)) { /* "inf", "nan", 1e999: no reader can use them */
                snprintf(why, why_size, "%s:%lu: bad number '%s'", r->path, r->in.number, w);
                return -1;
            }
            r->values[r->n_values++] = v;
        }
        if (r->n_values == 0)
            continue;
        if (!r->header_read) /* the last comment before the data is the header */
            read_header(r);
        if (r->n_values < r->n_columns) {
            snprintf(why, why_size, "%s:%lu: %d values, header has %d columns", r->path, r->in.number,
                     r->n_values, r->n_columns);
            return -1;
        }
        return 1;
    }
    if (got < 0) {
        snprintf(why, why_size, "%s: %s", r->path, r->in.why);
        return -1;
    }
    return 0;
}

unsigned long series_reader_line(const struct series_reader *r)
{
    return r->in.number;
}

void series_reader_close(struct series_reader *r)
{
    text_lines_close(&r->in);
    free(r->header);
    r->header = NULL;
}
