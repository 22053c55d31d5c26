/* Builds the findings shown by the view page; see findings.h. */
#include "view/findings.h"

#include <stdlib.h>
#include <string.h>

#include "trace/anomalies.h"

json_t *view_findings_json(const struct trace *t, double anomaly_slice)
{
    json_t *anomalies = json_array(), *violations = json_array();
    size_t omitted = 0;
    struct anomaly_options o = {.slice = anomaly_slice};
    anomaly_options_defaults(&o);
    struct anomaly *found = NULL;
    size_t n = 0;
    char err[256];
    if (trace_find_anomalies(t, &o, &found, &n, err, sizeof err) == 0) {
        for (size_t i = 0; i < n; i++) {
            if (i >= VIEW_MAX_FINDINGS) {
                omitted += n - i;
                break;
            }
            json_array_append_new(anomalies,
                                  json_pack("{s:s,s:s,s:f,s:f,s:s}", "kind",
                                            anomaly_kind_name(found[i].kind), "resource",
                                            found[i].resource, "from", found[i].from, "to",
                                            found[i].to, "detail", found[i].detail));
        }
        free(found);
    }
    for (size_t i = 0; i < t->n_violations; i++) {
        if (i >= VIEW_MAX_FINDINGS) {
            omitted += t->n_violations - i;
            break;
        }
        const struct trace_violation *v = &t->violations[i];
        const struct trace_resource *r = &t->resources[v->resource];
        json_array_append_new(violations,
                              json_pack("{s:s,s:s,s:f,s:f,s:f,s:f}", "resource",
                                        t->containers[r->container].name, "kind", r->kind, "from",
                                        v->from, "to", v->to, "usage", v->usage, "capacity",
                                        v->capacity));
    }
    double width = o.slice > 0 ? o.slice : (t->end - t->start) / 20; /* as trace_find_anomalies */
    return json_pack("{s:f,s:o,s:o,s:I}", "anomalySlice", width, "anomalies", anomalies,
                     "violations", violations, "omitted", (json_int_t)omitted);
}
