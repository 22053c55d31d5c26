/* Unit tests for the series reader (src/report/series_read.c): the header
 * is the last '#' line before the first row, columns by name, blank lines
 * skipped, comments after the data ignored, and each bad row named by its
 * line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/series_read.h"
#include "test.h"

static char path[] = "/tmp/series_read_testXXXXXX";

static void write_series(const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* Reads the whole file; the error of the first bad row in err ("" when none). */
static int read_all(double *sum_cpu, char *why, size_t why_size)
{
    struct series_reader r;
    char detail[160];
    why[0] = '\0';
    if (series_reader_open(&r, path, detail, sizeof detail) < 0) {
        snprintf(why, why_size, "open: %s", detail);
        return -1;
    }
    int rows = 0, got;
    *sum_cpu = 0;
    while ((got = series_reader_next(&r, why, why_size)) > 0) {
        rows++;
        *sum_cpu += r.values[series_reader_column(&r, "cpu_time")];
    }
    series_reader_close(&r);
    return got < 0 ? -1 : rows;
}

int main(void)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    char why[256];
    double cpu;

    write_series("# tally series\n#wall_clock cpu_time memory\n100 0.5 10\n\n101 1.5 12 99\n# a note\n102 2 13\n");
    CHECK_INT(read_all(&cpu, why, sizeof why), 3);
    CHECK_NEAR(cpu, 4.0, 1e-12);
    CHECK_STR(why, "");

    struct series_reader r;
    char detail[160];
    CHECK_INT(series_reader_open(&r, path, detail, sizeof detail), 0);
    CHECK_INT(series_reader_column(&r, "cpu_time"), -1); /* no row yet: columns unknown */
    CHECK_INT(series_reader_next(&r, why, sizeof why), 1);
    CHECK_INT(r.n_columns, 3);
    CHECK_INT(series_reader_column(&r, "wall_clock"), 0);
    CHECK_INT(series_reader_column(&r, "memory"), 2);
    CHECK_INT(series_reader_column(&r, "absent"), -1);
    CHECK_INT((int)series_reader_line(&r), 3);
    series_reader_close(&r);

    write_series("#wall_clock cpu_time\n100 0.5\n101 x\n");
    CHECK_INT(read_all(&cpu, why, sizeof why), -1);
    CHECK_CONTAINS(why, ":3: bad number 'x'");
    write_series("#wall_clock cpu_time\n100 inf\n");
    CHECK_INT(read_all(&cpu, why, sizeof why), -1);
    CHECK_CONTAINS(why, ":2: bad number 'inf'");
    write_series("#wall_clock cpu_time memory\n100 0.5\n");
    CHECK_INT(read_all(&cpu, why, sizeof why), -1);
    CHECK_CONTAINS(why, ":2: 2 values, header has 3 columns");

    unlink(path);
    CHECK_INT(read_all(&cpu, why, sizeof why), -1);
    CHECK_STR(why, "open: No such file or directory");
    return test_done();
}
