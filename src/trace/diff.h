/* Comparing two traces of the same workflow or application ('tally trace
 * diff A B'): per resource (matched by container name and kind), category
 * (matched by name) and time phase (both traces aligned by their starts,
 * phases of equal width in t+ seconds), how much more or less of the
 * resource each category took. Changes are neighbouring phases of one
 * (resource, category) that moved the same way, ranked by their size in
 * capacity-seconds (resource-seconds over the resource's mean capacity, so
 * that cores, MB and MB/s compare), then said in words. */
#ifndef TALLY_TRACE_DIFF_H
#define TALLY_TRACE_DIFF_H

#include <jansson.h>
#include <stddef.h>

#include "trace/trace.h"

/* One (resource, category) in one phase, in both traces. */
struct diff_cell {
    double a, b;        /* resource-seconds in A and in B over the phase */
};

/* One (resource, category) pair present in either trace. */
struct diff_row {
    char container[128], kind[64], category[128];
    double capacity;    /* mean capacity over both traces (0 when none) */
    double active_a, active_b;  /* the category's active span on the container (s) */
    struct diff_cell *cells;    /* [n_phases] */
};

/* A change: phases [first, last] of one row where B - A has one sign. */
struct diff_change {
    size_t row, first, last;
    double delta;       /* resource-seconds, B - A */
    double weight;      /* |delta| / capacity: the ranking */
    char text[512];     /* said in words */
};

struct trace_diff {
    double phase;                /* phase width, s */
    size_t n_phases;
    double span_a, span_b;
    char start_a[64], start_b[64];  /* UTC dates, "" for undated traces */
    struct diff_row *rows;
    size_t n_rows;
    struct diff_change *changes; /* ranked, largest first */
    size_t n_changes;
};

/* phase <= 0: a tenth of the longer trace. Changes below min_share of a
 * capacity-second are left out. Returns -1 with a reason. */
int trace_diff(const struct trace *a, const struct trace *b, double phase, double min_share,
               struct trace_diff *out, char *why, size_t why_size);
void trace_diff_free(struct trace_diff *d);
json_t *trace_diff_to_json(const struct trace_diff *d);

#endif
