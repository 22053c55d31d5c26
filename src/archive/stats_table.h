/* Statistics of a task's resources laid out like Table 5 of the resource
 * monitoring paper (seed 002): one column per resource, rows histogram,
 * mean, std. dev., skewness, kurtosis (then min, percentiles, max) — as
 * terminal text, and as an SVG file. */
#ifndef TALLY_ARCHIVE_STATS_TABLE_H
#define TALLY_ARCHIVE_STATS_TABLE_H

#include <stdio.h>

#include "archive/stats.h"
#include "core/fields.h"

struct stats_column {
    const struct summary_field *field;
    struct resource_stats stats;
};

/* Prints title, then the columns in blocks of `per_block` (Unicode block
 * characters draw the histograms). */
void stats_table_print(FILE *out, const char *title, size_t summaries,
                       const struct stats_column *columns, size_t ncolumns, size_t per_block);

/* Writes the same table as an SVG document (histograms as bars) to path,
 * atomically. Returns -1 (errno set) on failure. */
int stats_table_write_svg(const char *path, const char *title, size_t summaries,
                          const struct stats_column *columns, size_t ncolumns);

#endif
