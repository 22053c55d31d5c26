/* Temporal (eq. 2), spatial (eq. 3) and category aggregation of a trace over
 * one time slice at one level of the container hierarchy (seed 000, 2.2).
 *
 * For a slice [from, to] and a level (a container type, or "root"), every
 * resource is assigned to its ancestor of that type (its group); per group and
 * resource kind we report the time-averaged capacity, the time-averaged usage
 * of each category summed over the group's resources, and idle = capacity -
 * sum of usage. A group holding resources of several kinds (e.g. the root of
 * a SimGrid trace: cpu in flop/s and bandwidth in byte/s) yields one entry per
 * kind, never a sum of different units. Cost: O(resources x categories x log n). */
#ifndef TALLY_TRACE_AGGREGATE_H
#define TALLY_TRACE_AGGREGATE_H

#include <jansson.h>
#include <stdbool.h>

#include "trace/trace.h"

struct trace_group {
    int container;         /* the group's container (index into trace.containers) */
    const char *name;      /* its name */
    const char *type;      /* its type name ("root" for the root) */
    const char *kind;      /* resource kind aggregated in this entry */
    size_t n_resources;    /* resources summed */
    double capacity;       /* time-averaged, summed over resources */
    double *usage;         /* [trace.n_categories], time-averaged, summed */
    double used;           /* sum of usage over the selected categories */
    double idle;           /* capacity - used */
};

struct trace_aggregate_options {
    double from, to;            /* the slice; from >= to means the whole trace */
    const char *level;          /* container type name (case-insensitive) or "root"; NULL = root */
    const bool *categories;     /* [trace.n_categories] selection, NULL = all */
    const char *kind;           /* only resources of this kind, NULL = all kinds */
};

struct trace_aggregation {
    double from, to;
    const char *level;          /* the level's type name as in the trace, or "root" */
    struct trace_group *groups; /* ordered by container index, then kind */
    size_t n_groups;
    size_t n_categories;        /* = trace.n_categories (usage arrays' length) */
    const bool *categories;     /* the selection used (NULL = all) */
};

/* Aggregates; returns -1 with a reason in err (e.g. unknown level). */
int trace_aggregate(const struct trace *t, const struct trace_aggregate_options *opts,
                    struct trace_aggregation *out, char *why, size_t why_size);
void trace_aggregation_free(struct trace_aggregation *a);

/* Average of one resource over [from, to]: capacity and usage per category
 * (usage must have trace.n_categories entries). */
void trace_resource_average(const struct trace *t, int resource, double from, double to,
                            double *capacity, double *usage);

/* Parses "c1,c2" into a selection array of trace.n_categories (caller frees).
 * Returns NULL and a reason in err when a category is not in the trace. */
bool *trace_category_selection(const struct trace *t, const char *list, char *why, size_t why_size);

/* The JSON of `tally trace aggregate --format json`:
 * {"from","to","level","categories":[...],"groups":[{"name","type","kind","capacity",
 *  "usage":{cat: v},"idle"}], "violations":[{"resource","kind","from","to","usage","capacity"}]}
 * where violations are the eq. 1 breaks overlapping the slice in the aggregated groups. */
json_t *trace_aggregation_to_json(const struct trace *t, const struct trace_aggregation *a);

#endif
