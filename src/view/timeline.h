/* The timeline chart's data: the usage over time of one group of resources
 * (a container at a level of the hierarchy, or the root) for one resource
 * kind, as the time averages (eq. 2) over consecutive equal steps of
 * capacity and of each category's usage, summed over the group's resources
 * (eq. 3). Each step's numbers are those `tally trace aggregate --from A --to
 * B --level LEVEL` gives for the group over that step. Computed by the C core
 * for `tally view --serve` (GET /timeline); the offline page computes the same
 * from its embedded signals. Cost: one pass over each signal of the group,
 * O(breakpoints + resources x categories x steps). */
#ifndef TALLY_VIEW_TIMELINE_H
#define TALLY_VIEW_TIMELINE_H

#include <jansson.h>
#include <stddef.h>

#include "trace/trace.h"

#define VIEW_TIMELINE_MAX_STEPS 10000

struct view_timeline_request {
    const char *level;  /* container type, or "root" (NULL: root) */
    const char *group;  /* container name at that level (ignored for root) */
    const char *kind;   /* resource kind summed (required: kinds have different units) */
    double from, to;    /* the range drawn; from >= to: the whole trace */
    size_t steps;       /* 1 .. VIEW_TIMELINE_MAX_STEPS */
};

/* {"level","group","kind","from","to","steps","capacity":[...],"usage":{cat:[...]}},
 * one value per step. Returns NULL with a reason in err (unknown level, group
 * or kind, bad range or step count). */
json_t *view_timeline_json(const struct trace *t, const struct view_timeline_request *rq, char *why,
                           size_t why_size);

#endif
