/* A categorized trace from 'tally run --category C --time-series' outputs
 * (see from_runs.c for how each resource is built). */
#ifndef TALLY_TRACE_FROM_RUNS_H
#define TALLY_TRACE_FROM_RUNS_H

#include <stddef.h>

#include "trace/trace.h"

/* Reads PREFIX.summary and PREFIX.series for each prefix; hierarchy_file
 * (may be NULL) groups hosts ("host site" lines). Returns -1 with a reason. */
int trace_from_runs(const char *const *prefixes, size_t n, const char *hierarchy_file,
                    struct trace *out, char *err, size_t errlen);

#endif
