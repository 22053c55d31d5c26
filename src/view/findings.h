/* What tally found in a trace, for the view page to show next to the slice it
 * belongs to: the anomalies of `tally trace anomalies` (unfair sharing, waste,
 * saturation, oscillation; src/trace/anomalies.h, default options) and the
 * places where usage exceeds capacity (eq. 1 of seed 000, found by the reader). */
#ifndef TALLY_VIEW_FINDINGS_H
#define TALLY_VIEW_FINDINGS_H

#include <jansson.h>

#include "trace/trace.h"

#define VIEW_MAX_FINDINGS 5000 /* per list; the rest is counted in "omitted" */

/* {"anomalySlice": S, "anomalies": [{"kind","resource","from","to","detail"}],
 *  "violations": [{"resource","kind","from","to","usage","capacity"}], "omitted": N}.
 * anomaly_slice <= 0 means the default of tally trace anomalies. */
json_t *view_findings_json(const struct trace *t, double anomaly_slice);

#endif
