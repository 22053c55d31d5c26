/* The categorized resource-usage trace model (seed 000, section 2.1).
 *
 * A trace is a hierarchy of containers (any types: site, cluster, host, link,
 * ...). Some containers hold resources; a resource is one (container, kind)
 * pair, e.g. the "cpu" of host a1 or the "bandwidth" of link l3, with its
 * capacity rho_r(t) and its usage rho_{r,c}(t) for each category c, all
 * piecewise-constant signals. Topology edges come from Paje links between
 * containers (SimGrid draws host-link and link-link edges that way).
 *
 * Every signal is indexed with the cumulative integral at each breakpoint, so
 * the time average over any slice [t1, t2] (eq. 2) costs two binary searches.
 *
 * Readers: trace_read_file() (Paje, src/trace/paje_reader.c). Writer:
 * src/trace/paje_writer.h. Aggregation: src/trace/aggregate.h. */
#ifndef TALLY_TRACE_TRACE_H
#define TALLY_TRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>

/* A piecewise-constant signal: value v[i] holds from t[i] until t[i+1] (the
 * last one until the trace end); 0 before t[0]. t is non-decreasing (equal
 * times are allowed: the later value wins). cum[i] is the integral of the
 * signal from t[0] to t[i]. */
struct trace_signal {
    size_t n;
    size_t cap;     /* allocated entries (reader's business) */
    double *t;
    double *v;
    double *cum;    /* filled by trace_finish(); NULL before */
};

/* Integral of the signal over [t1, t2] (t2 >= t1), the signal taken as
 * extending until `end` (values after end count as 0). O(log n). */
double trace_signal_integral(const struct trace_signal *s, double t1, double t2, double end);
/* The integrals over consecutive intervals [edges[k], edges[k+1]] (edges
 * non-decreasing), each as trace_signal_integral gives it, added to
 * out[0 .. n_edges - 2], in one pass: O(n + n_edges) (a time series of a
 * signal summed over many resources). */
void trace_signal_add_integrals(const struct trace_signal *s, const double *edges, size_t n_edges,
                                double end, double *out);
/* A trace time as a UTC date "2026-11-25T15:06:55.120Z" when it is epoch
 * seconds (2001 .. 5138: a trace from runs is dated), "" otherwise. */
void trace_format_date(double time, char *buf, size_t len);
/* Value at time t (0 before the first breakpoint). O(log n). */
double trace_signal_value_at(const struct trace_signal *s, double t);

struct trace_container_type {
    const char *name;   /* e.g. "HOST", "LINK", "site" (interned) */
    int parent;         /* index of the parent type, -1 for the root type */
};

struct trace_container {
    const char *name;   /* e.g. "a1" (interned) */
    const char *alias;  /* Paje alias, or name when none was given */
    int type;           /* index into trace.types */
    int parent;         /* index into trace.containers, -1 for the root */
    int *children;      /* indices into trace.containers */
    size_t n_children;
    size_t cap_children;
    double start, end;  /* lifetime: created .. destroyed (trace end if never) */
    int depth;          /* 0 for the root */
};

/* One resource: a container's capacity of one kind and its per-category usage. */
struct trace_resource {
    int container;              /* index into trace.containers */
    const char *kind;           /* "cpu", "bandwidth", "memory", ... (interned) */
    struct trace_signal capacity;
    bool capacity_inferred;     /* the capacity is the peak of the usage seen, not the
                                 * resource's own (Paje variable "K.peak-capacity"): no
                                 * saturation of it is a finding */
    struct trace_signal *usage; /* [trace.n_categories]; a category never seen has n == 0 */
    size_t cap_usage;           /* room in usage (util/vec.h) */
};

/* When the server of a category is active (section 4.2 of the paper: the
 * burst project's server is active from its first task handed out until it
 * has a result for every task). Read from the Paje variable
 * "active.<category>" of any container (a SimGrid user variable, say):
 * non-zero while active; or from Paje states of a state type of that name:
 * active while the container is in one (set or pushed), idle once popped
 * to none or reset. Work for the category after its server went idle
 * is wasted computation (anomalies.h, burst-then-idle). */
struct trace_activity {
    int container;              /* the server: index into trace.containers */
    const char *category;       /* interned; may name a category no resource uses */
    struct trace_signal active; /* > 0 while the server is active */
};

/* A topology edge between two containers (deduplicated, unordered). */
struct trace_edge {
    int a, b;   /* indices into trace.containers */
};

/* Where eq. 1 breaks: total usage above capacity on one resource over [from, to). */
struct trace_violation {
    int resource;       /* index into trace.resources */
    double from, to;
    double usage, capacity;  /* the largest excess seen in that interval */
};

struct trace_strings;   /* string interning (private) */

struct trace {
    struct trace_container_type *types;
    size_t n_types;
    struct trace_container *containers;  /* containers[0] is the root */
    size_t n_containers;
    struct trace_resource *resources;
    size_t n_resources;
    const char **categories;             /* interned names, in order of first appearance */
    size_t n_categories;
    struct trace_edge *edges;
    size_t n_edges;
    struct trace_activity *activities;   /* servers' activity, per (container, category) */
    size_t n_activities;
    struct trace_violation *violations;  /* computed by trace_finish() */
    size_t n_violations;
    double start, end;                   /* time bounds of the trace */
    size_t n_events;                     /* events read (all kinds) */
    size_t n_states, n_links, n_point_events;  /* non-variable events, counted */
    struct trace_strings *strings;
    /* internal capacities */
    size_t cap_types, cap_containers, cap_resources, cap_categories, cap_edges, cap_violations,
           cap_activities;
};

/* How variable names map to resources. A rule says: the variable named
 * `capacity` (times `multiplier` if that variable exists, else 1) is the
 * capacity of a resource of kind `kind`, and every other variable of the same
 * container whose name starts with `usage_prefix` is the usage of category
 * name-without-prefix. With no rules given, the defaults understand SimGrid and
 * tally itself:
 *   kind cpu:       capacity speed (or power) x core_count, usage p<cat>
 *   kind bandwidth: capacity bandwidth, usage b<cat>
 *   kind K:         capacity "K.capacity", usage "K.<cat>" (tally's own traces);
 *                   "K.peak-capacity" is a capacity inferred from the peak usage */
struct trace_map_rule {
    char kind[64];
    char capacity[64];
    char multiplier[64];     /* "" for none */
    char usage_prefix[64];
};

#define TRACE_MAX_MAP_RULES 16
struct trace_read_options {
    struct trace_map_rule rules[TRACE_MAX_MAP_RULES];
    size_t n_rules;          /* 0: the defaults above */
    const char *hierarchy_file;  /* optional "child parent [parent-type]" lines regrouping containers */
};

/* Parses one --map value ("capacity=power,usage-prefix=u[,multiplier=cores][,kind=cpu]")
 * into a rule appended to opts. Returns -1 and a reason in err on error. */
int trace_map_parse(struct trace_read_options *opts, const char *text, char *why, size_t why_size);

/* Reads a Paje trace from path, maps variables to resources, indexes the
 * signals and checks eq. 1. opts may be NULL (defaults). On error returns -1
 * with "FILE:LINE: why" in err (no "tally:" prefix) and leaves *out empty. */
int trace_read_file(const char *path, const struct trace_read_options *opts, struct trace *out,
                    char *why, size_t why_size);
void trace_free(struct trace *t);

/* Lookups (NULL / -1 when absent). Type names compare case-insensitively. */
int trace_find_type(const struct trace *t, const char *name);
int trace_find_container(const struct trace *t, const char *name);
int trace_find_category(const struct trace *t, const char *name);
/* The ancestor of container c (c itself included) whose type is `type`, or -1. */
int trace_ancestor_of_type(const struct trace *t, int c, int type);

/* --- building a trace (used by the readers and by from-runs) --- */
void trace_init(struct trace *t);
const char *trace_intern(struct trace *t, const char *s, size_t len);
int trace_add_type(struct trace *t, const char *name, int parent);
int trace_add_container(struct trace *t, const char *name, const char *alias, int type, int parent,
                        double start);
int trace_add_category(struct trace *t, const char *name);
/* The resource of (container, kind), created when missing. */
int trace_resource_for(struct trace *t, int container, const char *kind);
struct trace_signal *trace_usage_signal(struct trace *t, int resource, int category);
/* The activity of category's server on container, created when missing; -1
 * when out of memory. */
int trace_activity_for(struct trace *t, int container, const char *category);
/* Appends an edge (stored with a < b); callers add each edge once. */
void trace_add_edge(struct trace *t, int a, int b);
/* Appends a breakpoint (times must not decrease). Returns -1 on allocation failure. */
int trace_signal_push(struct trace_signal *s, double time, double value);
/* Builds the integral index of every signal, fixes the time bounds and finds
 * eq. 1 violations. Call once after all signals are pushed. */
int trace_finish(struct trace *t);

#endif
