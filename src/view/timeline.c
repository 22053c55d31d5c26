/* Computes the timeline chart's data for one group; see timeline.h. */
#include "view/timeline.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The group's container and type (-1 for the root level), or -1 with a reason. */
static int find_group(const struct trace *t, const struct view_timeline_request *rq, int *type,
                      char *why, size_t why_size)
{
    *type = -1;
    if (!rq->level || !strcasecmp(rq->level, "root"))
        return 0;
    *type = trace_find_type(t, rq->level);
    if (*type < 0) {
        snprintf(why, why_size, "level '%s': no such container type in the trace", rq->level);
        return -1;
    }
    for (size_t c = 0; c < t->n_containers && rq->group; c++)
        if (t->containers[c].type == *type && !strcmp(t->containers[c].name, rq->group))
            return (int)c;
    snprintf(why, why_size, "group '%s': no container of type %s with that name",
             rq->group ? rq->group : "", t->types[*type].name);
    return -1;
}

static json_t *values_json(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

json_t *view_timeline_json(const struct trace *t, const struct view_timeline_request *rq, char *why,
                           size_t why_size)
{
    double from = rq->from, to = rq->to;
    if (!(from < to))
        from = t->start, to = t->end;
    if (!(from < to)) {
        snprintf(why, why_size, "the trace spans no time");
        return NULL;
    }
    if (rq->steps < 1 || rq->steps > VIEW_TIMELINE_MAX_STEPS) {
        snprintf(why, why_size, "steps: expected 1 to %d", VIEW_TIMELINE_MAX_STEPS);
        return NULL;
    }
    if (!rq->kind || !*rq->kind) {
        snprintf(why, why_size, "kind: missing (capacities of different kinds do not add up)");
        return NULL;
    }
    int type;
    int group = find_group(t, rq, &type, why, why_size);
    if (group < 0)
        return NULL;
    size_t steps = rq->steps, n_cat = t->n_categories;
    double *capacity = calloc(steps, sizeof *capacity);
    double *usage = calloc(steps * (n_cat ? n_cat : 1), sizeof *usage);
    if (!capacity || !usage) {
        free(capacity);
        free(usage);
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    double width = (to - from) / (double)steps;
    double *edges = malloc((steps + 1) * sizeof *edges);
    if (!edges) {
        free(capacity);
        free(usage);
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i <= steps; i++)
        edges[i] = i == steps ? to : from + width * (double)i;
    size_t n_resources = 0;
    for (size_t r = 0; r < t->n_resources; r++) { /* integrals first, one pass per signal */
        const struct trace_resource *res = &t->resources[r];
        if (strcmp(res->kind, rq->kind) ||
            (type >= 0 && trace_ancestor_of_type(t, res->container, type) != group))
            continue;
        n_resources++;
        trace_signal_add_integrals(&res->capacity, edges, steps + 1, t->end, capacity);
        for (size_t c = 0; c < n_cat; c++)
            trace_signal_add_integrals(&res->usage[c], edges, steps + 1, t->end, &usage[c * steps]);
    }
    for (size_t i = 0; i < steps; i++) { /* then the averages */
        double w = edges[i + 1] - edges[i];
        capacity[i] /= w;
        for (size_t c = 0; c < n_cat; c++)
            usage[c * steps + i] /= w;
    }
    free(edges);
    json_t *doc = NULL;
    if (n_resources == 0) {
        snprintf(why, why_size, "kind '%s': no resource of that kind in %s", rq->kind,
                 t->containers[group].name);
    } else {
        json_t *by_category = json_object();
        for (size_t c = 0; c < n_cat; c++)
            json_object_set_new(by_category, t->categories[c], values_json(&usage[c * steps], steps));
        doc = json_pack("{s:s,s:s,s:s,s:f,s:f,s:I,s:I,s:o,s:o}", "level",
                        type < 0 ? "root" : t->types[type].name, "group", t->containers[group].name,
                        "kind", rq->kind, "from", from, "to", to, "steps", (json_int_t)steps,
                        "resources", (json_int_t)n_resources, "capacity", values_json(capacity, steps),
                        "usage", by_category);
    }
    free(capacity);
    free(usage);
    return doc;
}
