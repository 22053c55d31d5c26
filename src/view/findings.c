/* Builds the grouped findings shown by the view page; see findings.h. */
#include "view/findings.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/anomalies.h"

/* One anomaly slice or eq. 1 interval. */
struct finding {
    const char *kind;
    char resource[160];
    double from, to;
    char detail[320];
};

/* A (kind, resource) group: findings[first .. first + n) once sorted. */
struct finding_group {
    size_t first, n;
    double duration;
};

static int by_group_then_time(const void *pa, const void *pb)
{
    const struct finding *a = pa, *b = pb;
    int c = strcmp(a->kind, b->kind);
    if (!c)
        c = strcmp(a->resource, b->resource);
    if (!c)
        c = (a->from > b->from) - (a->from < b->from);
    return c;
}

/* qsort_r comparator; sorted is the findings array the groups index. */
static int by_worst(const void *pa, const void *pb, void *sorted)
{
    const struct finding_group *a = pa, *b = pb;
    const struct finding *sorted_findings = sorted;
    if (a->duration != b->duration)
        return a->duration < b->duration ? 1 : -1;
    if (a->n != b->n)
        return a->n < b->n ? 1 : -1;
    return by_group_then_time(&sorted_findings[a->first], &sorted_findings[b->first]);
}

/* The name the anomalies give a resource: its container, ":kind" added when
 * the container holds resources of several kinds. */
static void resource_name(const struct trace *t, int resource, char *out, size_t len)
{
    const struct trace_resource *r = &t->resources[resource];
    bool several = false;
    for (size_t i = 0; i < t->n_resources && !several; i++)
        several = t->resources[i].container == r->container && strcmp(t->resources[i].kind, r->kind);
    snprintf(out, len, several ? "%s:%s" : "%s", t->containers[r->container].name, r->kind);
}

/* Every anomaly and violation as one array (NULL and *n = 0 when none or out of memory). */
static struct finding *collect(const struct trace *t, double anomaly_slice, double *slice_width,
                               size_t *n)
{
    struct anomaly_options o = {.slice = anomaly_slice};
    anomaly_options_defaults(&o);
    *slice_width = o.slice > 0 ? o.slice : (t->end - t->start) / 20; /* as trace_find_anomalies */
    struct anomaly *found = NULL;
    size_t n_found = 0;
    char why[256];
    if (trace_find_anomalies(t, &o, &found, &n_found, why, sizeof why) < 0)
        n_found = 0;
    *n = 0;
    struct finding *all = malloc((n_found + t->n_violations + 1) * sizeof *all);
    if (!all) {
        free(found);
        return NULL;
    }
    for (size_t i = 0; i < n_found; i++) {
        struct finding *f = &all[(*n)++];
        f->kind = anomaly_kind_name(found[i].kind);
        snprintf(f->resource, sizeof f->resource, "%s", found[i].resource);
        f->from = found[i].from;
        f->to = found[i].to;
        /* how sure it is goes with what it says (the page lists ranges with their t+ times) */
        snprintf(f->detail, sizeof f->detail, "%.290s (%.0f%% sure)", found[i].detail,
                 found[i].confidence * 100);
    }
    free(found);
    for (size_t i = 0; i < t->n_violations; i++) {
        const struct trace_violation *v = &t->violations[i];
        struct finding *f = &all[(*n)++];
        f->kind = "violation";
        resource_name(t, v->resource, f->resource, sizeof f->resource);
        f->from = v->from;
        f->to = v->to;
        snprintf(f->detail, sizeof f->detail, "usage %.4g above capacity %.4g (%s; eq. 1 broken)",
                 v->usage, v->capacity, t->resources[v->resource].kind);
    }
    return all;
}

/* The ranges of one group: consecutive findings (the next starting where the
 * previous ends, within a nanosecond per second of trace time) merged. */
static json_t *group_json(const struct finding *f, const struct finding_group *g, double eps)
{
    json_t *ranges = json_array();
    size_t n_ranges = 0;
    for (size_t i = g->first; i < g->first + g->n;) {
        size_t j = i + 1;
        double to = f[i].to;
        while (j < g->first + g->n && f[j].from <= to + eps) {
            if (f[j].to > to)
                to = f[j].to;
            j++;
        }
        if (n_ranges++ < VIEW_MAX_GROUP_RANGES)
            json_array_append_new(ranges, json_pack("[ffIs]", f[i].from, to, (json_int_t)(j - i),
                                                    f[i].detail));
        i = j;
    }
    json_int_t more = n_ranges > VIEW_MAX_GROUP_RANGES ? (json_int_t)(n_ranges - VIEW_MAX_GROUP_RANGES) : 0;
    return json_pack("{s:s,s:s,s:I,s:f,s:o,s:I}", "kind", f[g->first].kind, "resource",
                     f[g->first].resource, "slices", (json_int_t)g->n, "duration", g->duration,
                     "ranges", ranges, "more", more);
}

json_t *view_findings_json(const struct trace *t, double anomaly_slice)
{
    double width = 0;
    size_t n = 0;
    struct finding *all = collect(t, anomaly_slice, &width, &n);
    json_t *groups = json_array();
    struct finding_group *g = calloc(n + 1, sizeof *g);
    size_t n_groups = 0;
    if (all && g) {
        qsort(all, n, sizeof *all, by_group_then_time);
        for (size_t i = 0; i < n; i++) {
            if (i == 0 || strcmp(all[i].kind, all[i - 1].kind) || strcmp(all[i].resource, all[i - 1].resource))
                g[n_groups++] = (struct finding_group){.first = i};
            g[n_groups - 1].n++;
            g[n_groups - 1].duration += all[i].to - all[i].from;
        }
        qsort_r(g, n_groups, sizeof *g, by_worst, all);
        double eps = 1e-9 * fmax(1, fabs(t->end) + fabs(t->start));
        for (size_t i = 0; i < n_groups && i < VIEW_MAX_FINDING_GROUPS; i++)
            json_array_append_new(groups, group_json(all, &g[i], eps));
    }
    json_int_t omitted = n_groups > VIEW_MAX_FINDING_GROUPS ? (json_int_t)(n_groups - VIEW_MAX_FINDING_GROUPS) : 0;
    free(g);
    free(all);
    return json_pack("{s:f,s:I,s:o,s:I}", "anomalySlice", width, "findings", (json_int_t)n, "groups",
                     groups, "omittedGroups", omitted);
}
