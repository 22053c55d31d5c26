/* A categorized trace from 'tally run --category C --time-series' outputs
 * (see from_runs.c for how each resource is built). */
#ifndef TALLY_TRACE_FROM_RUNS_H
#define TALLY_TRACE_FROM_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "trace/trace.h"

struct from_runs_options {
    const char *hierarchy_file; /* "host site" lines grouping hosts, or NULL */
    const char *capacity_file;  /* "HOST disk=MB/s network=MB/s" lines, or NULL */
    bool mpi;                   /* the links between hosts from each PREFIX.mpi.paje (mpi_links.h) */
};

/* Reads PREFIX.summary and PREFIX.series for each prefix; opts may be NULL.
 * Returns -1 with a reason. */
int trace_from_runs(const char *const *prefixes, size_t n, const struct from_runs_options *opts,
                    struct trace *out, char *why, size_t why_size);

#endif
