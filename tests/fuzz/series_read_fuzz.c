/* Fuzzes the reader of PREFIX.series (src/report/series_read.c), which
 * 'tally trace from-runs' and contract samples use. The input is the series
 * file. Beyond no crash, leak or UB: every row returned has at least as many
 * values as the header has columns, all finite; each column is found at its
 * own index; a row's line number grows; an error says why and names the
 * file. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "report/series_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file("run.series", data, size);
    char file[160];
    snprintf(file, sizeof file, "%s", path);
    struct series_reader r;
    char why[160], err[512] = "";
    if (series_reader_open(&r, file, why, sizeof why) < 0)
        abort(); /* a file just written opens */
    unsigned long last = 0;
    int got;
    while ((got = series_reader_next(&r, err, sizeof err)) > 0) {
        if (r.n_values < r.n_columns || r.n_values > SERIES_READ_COLUMNS || series_reader_line(&r) <= last)
            abort();
        last = series_reader_line(&r);
        for (int i = 0; i < r.n_values; i++)
            if (!isfinite(r.values[i]))
                abort();
        for (int i = 0; i < r.n_columns; i++) {
            int c = series_reader_column(&r, r.columns[i]);
            if (c < 0 || c > i || strcmp(r.columns[c], r.columns[i]))
                abort(); /* the first column of that name */
        }
    }
    if (got < 0 && (!err[0] || !strstr(err, file)))
        abort();
    series_reader_close(&r);
    return 0;
}
