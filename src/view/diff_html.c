/* The diff page (see diff_html.h): the ranked changes in words, then for each
 * resource and category two strips of phases, A on the left and B on the
 * right, each phase's bar the share of the capacity the category took (so a
 * change reads as a bar that grew or shrank at the same place). Self-contained:
 * inline SVG, no script. */
#include "view/diff_html.h"

#include <math.h>
#include <string.h>

static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
}

/* One strip: a bar per phase, its height the share of the capacity used. */
static void strip(FILE *out, const struct trace_diff *d, const struct diff_row *r, int side)
{
    const double w = 300, h = 40, bw = w / (double)d->n_phases;
    double full = (r->capacity > 0 ? r->capacity : 1) * d->phase;
    fprintf(out, "<svg width=\"%.0f\" height=\"%.0f\" class=\"strip\"><rect width=\"%.0f\" height=\"%.0f\" "
                 "class=\"frame\"/>", w, h, w, h);
    for (size_t k = 0; k < d->n_phases; k++) {
        double v = side ? r->cells[k].b : r->cells[k].a, share = v / full;
        if (!(share > 0))
            continue;
        if (share > 1)
            share = 1;
        fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><title>t+%.3g s: %.4g "
                     "(%.0f %% of capacity)</title></rect>",
                (double)k * bw, h * (1 - share), bw > 1 ? bw - 0.5 : bw, h * share, d->phase * (double)k, v,
                share * 100);
    }
    fputs("</svg>", out);
}

int diff_html_write(const struct trace_diff *d, const char *name_a, const char *name_b, FILE *out)
{
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tally trace diff</title><style>"
          "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
          "td,th{padding:2px 8px;text-align:left;vertical-align:middle}"
          ".strip rect{fill:#4a7fb0}.strip rect.frame{fill:#f4f4f4;stroke:#ccc}"
          "ol li{margin:2px 0}</style></head><body>\n<h1>tally trace diff</h1>\n<p>A: ",
          out);
    put_escaped(out, name_a);
    fprintf(out, " (%.4g s%s%s) &nbsp; B: ", d->span_a, d->start_a[0] ? ", t+0 = " : "", d->start_a);
    put_escaped(out, name_b);
    fprintf(out, " (%.4g s%s%s); aligned by their starts, phases of %.4g s.</p>\n", d->span_b,
            d->start_b[0] ? ", t+0 = " : "", d->start_b, d->phase);
    fputs("<h2>Changes, largest first (capacity-seconds)</h2>\n<ol id=\"changes\">\n", out);
    for (size_t i = 0; i < d->n_changes; i++) {
        fputs("<li>", out);
        put_escaped(out, d->changes[i].text);
        fputs("</li>\n", out);
    }
    if (!d->n_changes)
        fputs("<li>no change</li>\n", out);
    fputs("</ol>\n<h2>Side by side</h2>\n<table id=\"side\"><tr><th>resource</th><th>category</th><th>A</th>"
          "<th>B</th></tr>\n",
          out);
    for (size_t i = 0; i < d->n_rows; i++) {
        const struct diff_row *r = &d->rows[i];
        fputs("<tr><td>", out);
        put_escaped(out, r->container);
        fputc(' ', out);
        put_escaped(out, r->kind);
        fputs("</td><td>", out);
        put_escaped(out, r->category);
        fputs("</td><td>", out);
        strip(out, d, r, 0);
        fputs("</td><td>", out);
        strip(out, d, r, 1);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n</body></html>\n", out);
    return ferror(out) ? -1 : 0;
}
