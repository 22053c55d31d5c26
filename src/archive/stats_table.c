/* Table 5 layout of resource statistics, as text and SVG (see stats_table.h). */
#include "archive/stats_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomic_file.h"

#define COLUMN_WIDTH 22

static const char *const blocks[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

/* The histogram squeezed into `width` characters of block glyphs. */
static void print_sparkline(FILE *out, const struct resource_stats *s, int width)
{
    size_t bins = STATS_HISTOGRAM_BINS, peak = 0;
    for (size_t b = 0; b < bins; b++)
        if (s->histogram[b] > peak)
            peak = s->histogram[b];
    int printed = 0;
    for (size_t b = 0; b < bins && printed < width; b++, printed++) {
        size_t level = peak ? (s->histogram[b] * 8 + peak - 1) / peak : 0;
        fputs(blocks[level > 8 ? 8 : level], out);
    }
    for (; printed < width; printed++)
        fputc(' ', out);
}

static void print_number(FILE *out, double v, const char *unit)
{
    char cell[64];
    if (isnan(v))
        snprintf(cell, sizeof cell, "-");
    else if (unit)
        snprintf(cell, sizeof cell, "%.2f %s", v, unit);
    else
        snprintf(cell, sizeof cell, "%.2f", v);
    fprintf(out, "%-*s", COLUMN_WIDTH, cell);
}

static double stat_of(const struct resource_stats *s, int row)
{
    const double v[] = {s->mean, s->std, s->skewness, s->kurtosis, s->min,
                        s->p50,  s->p90, s->p95,      s->p99,      s->max};
    return v[row];
}

static const char *const row_names[] = {"mean", "std. dev.", "skewness", "kurtosis", "min",
                                        "p50",  "p90",       "p95",      "p99",      "max"};
#define NROWS (sizeof row_names / sizeof row_names[0])

/* Rows whose cells carry the resource's unit (the others are unitless or, as
 * the paper prints std. dev., bare numbers in the same unit). */
static bool row_has_unit(size_t row) { return row == 0 || row >= 4; }

static void display_name(const char *field, char *out, size_t len)
{
    snprintf(out, len, "%s", field);
    for (char *p = out; *p; p++)
        if (*p == '_')
            *p = ' ';
}

void stats_table_print(FILE *out, const char *title, size_t summaries,
                       const struct stats_column *columns, size_t ncolumns, size_t per_block)
{
    fprintf(out, "%s: %zu summaries\n", title, summaries);
    for (size_t first = 0; first < ncolumns; first += per_block) {
        size_t last = first + per_block < ncolumns ? first + per_block : ncolumns;
        fprintf(out, "\n%-11s", "resource");
        for (size_t c = first; c < last; c++) {
            char name[64];
            display_name(columns[c].field->name, name, sizeof name);
            fprintf(out, "%-*s", COLUMN_WIDTH, name);
        }
        fprintf(out, "\n%-11s", "histogram");
        for (size_t c = first; c < last; c++) {
            print_sparkline(out, &columns[c].stats, STATS_HISTOGRAM_BINS);
            fprintf(out, "%*s", COLUMN_WIDTH - STATS_HISTOGRAM_BINS, "");
        }
        for (size_t r = 0; r < NROWS; r++) {
            fprintf(out, "\n%-11s", row_names[r]);
            for (size_t c = first; c < last; c++)
                print_number(out, stat_of(&columns[c].stats, (int)r),
                             row_has_unit(r) ? columns[c].field->unit : NULL);
        }
        fprintf(out, "\n%-11s", "count");
        for (size_t c = first; c < last; c++)
            fprintf(out, "%-*zu", COLUMN_WIDTH, columns[c].stats.count);
        fputc('\n', out);
    }
}

static void svg_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else
            fputc(*s, out);
    }
}

int stats_table_write_svg(const char *path, const char *title, size_t summaries,
                          const struct stats_column *columns, size_t ncolumns)
{
    const int label_width = 90, column_width = 150, row_height = 20, hist_height = 70;
    const int top = 40, width = label_width + column_width * (int)ncolumns + 10;
    const int height = top + row_height + hist_height + row_height * (int)(NROWS + 1) + 20;
    struct atomic_file af;
    if (atomic_file_open(&af, path) < 0)
        return -1;
    FILE *out = af.fp;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"10\" y=\"22\" font-size=\"14\" font-weight=\"bold\">",
            width, height);
    svg_escaped(out, title);
    fprintf(out, ": %zu summaries</text>\n", summaries);
    int y = top + row_height - 5;
    fprintf(out, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">resource</text>\n", y);
    for (size_t c = 0; c < ncolumns; c++) {
        char name[64];
        display_name(columns[c].field->name, name, sizeof name);
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n",
                label_width + column_width * (int)c, y, name);
    }
    int hist_top = top + row_height;
    fprintf(out, "<text x=\"10\" y=\"%d\">histogram</text>\n", hist_top + hist_height / 2);
    for (size_t c = 0; c < ncolumns; c++) {
        const struct resource_stats *s = &columns[c].stats;
        size_t peak = 0;
        for (size_t b = 0; b < STATS_HISTOGRAM_BINS; b++)
            if (s->histogram[b] > peak)
                peak = s->histogram[b];
        double bar = (column_width - 20.0) / STATS_HISTOGRAM_BINS;
        int x0 = label_width + column_width * (int)c;
        fprintf(out, "<g class=\"histogram\" data-resource=\"%s\">\n", columns[c].field->name);
        for (size_t b = 0; b < STATS_HISTOGRAM_BINS && peak; b++) {
            double h = (double)s->histogram[b] / (double)peak * (hist_height - 10);
            fprintf(out,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4a7bb7\">"
                    "<title>%zu</title></rect>\n",
                    x0 + b * bar, hist_top + hist_height - 5 - h, bar - 1, h, s->histogram[b]);
        }
        fprintf(out, "</g>\n");
    }
    y = hist_top + hist_height + row_height - 5;
    for (size_t r = 0; r <= NROWS; r++, y += row_height) {
        fprintf(out, "<text x=\"10\" y=\"%d\">%s</text>\n", y, r < NROWS ? row_names[r] : "count");
        for (size_t c = 0; c < ncolumns; c++) {
            int x = label_width + column_width * (int)c;
            if (r == NROWS) {
                fprintf(out, "<text x=\"%d\" y=\"%d\">%zu</text>\n", x, y, columns[c].stats.count);
                continue;
            }
            double v = stat_of(&columns[c].stats, (int)r);
            if (isnan(v))
                fprintf(out, "<text x=\"%d\" y=\"%d\">-</text>\n", x, y);
            else
                fprintf(out, "<text x=\"%d\" y=\"%d\">%.2f%s%s</text>\n", x, y, v,
                        row_has_unit(r) ? " " : "", row_has_unit(r) ? columns[c].field->unit : "");
        }
    }
    fprintf(out, "</svg>\n");
    return atomic_file_commit(&af);
}
