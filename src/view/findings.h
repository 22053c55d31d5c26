/* What tally found in a trace, for the view page to list next to the slices
 * it belongs to: the anomalies of `tally trace anomalies` (unfair sharing,
 * waste, saturation, oscillation, slow start, burst then idle;
 * src/trace/anomalies.h, default options) and
 * the places where usage exceeds capacity (eq. 1 of seed 000, found by the
 * reader), grouped so that a person reads them at a glance:
 *  - one group per (kind, resource), with the number of anomaly slices (or
 *    eq. 1 intervals) it holds and the time they cover;
 *  - inside a group, consecutive slices merged into one time range;
 *  - the worst group first: the most time covered, then the most slices. */
#ifndef TALLY_VIEW_FINDINGS_H
#define TALLY_VIEW_FINDINGS_H

#include <jansson.h>

#include "trace/trace.h"

#define VIEW_MAX_FINDING_GROUPS 2000 /* groups embedded; the rest counted in "omittedGroups" */
#define VIEW_MAX_GROUP_RANGES 200    /* ranges embedded per group; the rest counted in "more" */

/* {"anomalySlice": S, "findings": N (slices and intervals in all),
 *  "groups": [{"kind", "resource", "slices", "duration",
 *              "ranges": [[from, to, slices, "detail of its first slice"], ...],
 *              "more": ranges not embedded}],
 *  "omittedGroups": N}
 * kind is an anomaly kind name or "violation" (eq. 1). anomaly_slice <= 0
 * means the default of tally trace anomalies. */
json_t *view_findings_json(const struct trace *t, double anomaly_slice);

#endif
