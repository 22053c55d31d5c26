/* When a category's server went idle after being active (section 4.2 of
 * Schnorr, Legrand and Vincent: the burst project's server is active while it
 * hands out tasks and waits for their results; work for it after that is
 * wasted computation). The activity signals come from the trace
 * (trace_activity: the Paje variable, or state type, "active.<category>"). */
#ifndef TALLY_TRACE_ACTIVITY_H
#define TALLY_TRACE_ACTIVITY_H

#include <stddef.h>

#include "trace/trace.h"

struct trace_period {
    double from, to;
};

/* The periods in which the server of `category` is idle after having been
 * active: from the end of each active period to the next start (or the
 * trace's end). The server is active while any activity signal of the
 * category (on any container) is non-zero. *out is malloc'd (NULL, *n = 0
 * when there is none: no signal, never active, or active to the end).
 * *server is the container of the category's first activity signal (-1 when
 * none). Returns -1 when out of memory. */
int trace_idle_after_active(const struct trace *t, const char *category, struct trace_period **out,
                            size_t *n, int *server);

#endif
