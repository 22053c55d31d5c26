/* Time-slice aggregation (eq. 2), spatial aggregation at a hierarchy level
 * (eq. 3) and category selection; the JSON form shared with tally view. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trace/aggregate.h"
#include "util/vec.h"

void trace_resource_average(const struct trace *t, int resource, double from, double to,
                            double *capacity, double *usage)
{
    const struct trace_resource *res = &t->resources[resource];
    double end = t->containers[res->container].end;
    double width = to - from;
    *capacity = width > 0 ? trace_signal_integral(&res->capacity, from, to, end) / width
                          : trace_signal_value_at(&res->capacity, from);
    for (size_t c = 0; c < t->n_categories; c++)
        usage[c] = width > 0 ? trace_signal_integral(&res->usage[c], from, to, end) / width
                             : trace_signal_value_at(&res->usage[c], from);
}

/* Groups of one container are chained (head[container], next[group]) so that
 * finding a resource's group does not scan every group. */
struct group_index {
    int *head;   /* [trace.n_containers], -1 = none */
    int *next;   /* [capacity of groups] */
};

static struct trace_group *group_for(struct trace_aggregation *a, size_t *cap,
                                     struct group_index *ix, int container, const char *kind,
                                     size_t n_categories)
{
    for (int i = ix->head[container]; i >= 0; i = ix->next[i])
        if (a->groups[i].kind == kind)
            return &a->groups[i];
    if (vec_reserve_parallel(cap, a->n_groups + 1, VEC_ARRAY(a->groups), VEC_ARRAY(ix->next), NULL) < 0)
        return NULL;
    ix->next[a->n_groups] = ix->head[container];
    ix->head[container] = (int)a->n_groups;
    struct trace_group *g = &a->groups[a->n_groups];
    memset(g, 0, sizeof *g);
    g->usage = calloc(n_categories ? n_categories : 1, sizeof *g->usage);
    if (!g->usage)
        return NULL;
    g->container = container;
    g->kind = kind;
    a->n_groups++;
    return g;
}

static int by_container_then_kind(const void *x, const void *y)
{
    const struct trace_group *a = x, *b = y;
    if (a->container != b->container)
        return a->container < b->container ? -1 : 1;
    return strcmp(a->kind, b->kind);
}

int trace_aggregate(const struct trace *t, const struct trace_aggregate_options *opts,
                    struct trace_aggregation *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    double from = opts->from, to = opts->to;
    if (!(from < to)) {
        from = t->start;
        to = t->end;
    }
    out->from = from;
    out->to = to;
    out->n_categories = t->n_categories;
    out->categories = opts->categories;
    int level = -1; /* root */
    const char *lname = opts->level ? opts->level : "root";
    if (strcasecmp(lname, "root") != 0) {
        level = trace_find_type(t, lname);
        if (level < 0) {
            size_t n = (size_t)snprintf(why, why_size, "unknown level '%s' (types:", lname);
            for (size_t i = 1; i < t->n_types && n < why_size; i++)
                n += (size_t)snprintf(why + n, why_size - n, " %s", t->types[i].name);
            if (n < why_size)
                snprintf(why + n, why_size - n, ", root)");
            return -1;
        }
        out->level = t->types[level].name;
    } else {
        out->level = "root";
    }
    size_t cap = 0;
    struct group_index ix = {malloc((t->n_containers ? t->n_containers : 1) * sizeof(int)), NULL};
    double *usage = calloc(t->n_categories ? t->n_categories : 1, sizeof *usage);
    if (!usage || !ix.head)
        goto oom;
    for (size_t c = 0; c < t->n_containers; c++)
        ix.head[c] = -1;
    for (size_t r = 0; r < t->n_resources; r++) {
        const struct trace_resource *res = &t->resources[r];
        if (opts->kind && strcmp(opts->kind, res->kind) != 0)
            continue;
        int g_container = level < 0 ? 0 : trace_ancestor_of_type(t, res->container, level);
        if (g_container < 0)
            continue;
        struct trace_group *g = group_for(out, &cap, &ix, g_container, res->kind, t->n_categories);
        if (!g)
            goto oom;
        double capacity;
        trace_resource_average(t, (int)r, from, to, &capacity, usage);
        g->n_resources++;
        g->capacity += capacity;
        for (size_t c = 0; c < t->n_categories; c++)
            g->usage[c] += usage[c];
    }
    free(usage);
    free(ix.head);
    free(ix.next);
    for (size_t i = 0; i < out->n_groups; i++) {
        struct trace_group *g = &out->groups[i];
        const struct trace_container *ct = &t->containers[g->container];
        g->name = ct->name;
        g->type = g->container == 0 ? "root" : t->types[ct->type].name;
        g->used = 0;
        for (size_t c = 0; c < t->n_categories; c++)
            if (!opts->categories || opts->categories[c])
                g->used += g->usage[c];
        g->idle = g->capacity - g->used;
    }
    if (out->n_groups > 1)
        qsort(out->groups, out->n_groups, sizeof *out->groups, by_container_then_kind);
    return 0;
oom:
    free(usage);
    free(ix.head);
    free(ix.next);
    trace_aggregation_free(out);
    snprintf(why, why_size, "out of memory");
    return -1;
}

void trace_aggregation_free(struct trace_aggregation *a)
{
    for (size_t i = 0; i < a->n_groups; i++)
        free(a->groups[i].usage);
    free(a->groups);
    memset(a, 0, sizeof *a);
}

bool *trace_category_selection(const struct trace *t, const char *list, char *why, size_t why_size)
{
    bool *sel = calloc(t->n_categories ? t->n_categories : 1, sizeof *sel);
    if (!sel) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        bool found = false;
        for (size_t c = 0; c < t->n_categories; c++)
            if (strlen(t->categories[c]) == len && !strncmp(t->categories[c], p, len))
                sel[c] = found = true;
        if (!found) {
            size_t n = (size_t)snprintf(why, why_size, "unknown category '%.*s' (trace has:",
                                        (int)len, p);
            for (size_t c = 0; c < t->n_categories && n < why_size; c++)
                n += (size_t)snprintf(why + n, why_size - n, " %s", t->categories[c]);
            if (n < why_size)
                snprintf(why + n, why_size - n, ")");
            free(sel);
            return NULL;
        }
        p = end ? end + 1 : p + len;
    }
    return sel;
}

/* Does violation v fall in group g (same kind, resource under the group) and the slice? */
static bool violation_in(const struct trace *t, const struct trace_aggregation *a,
                         const struct trace_violation *v)
{
    if (!(v->from < a->to && v->to > a->from))
        return false;
    const struct trace_resource *res = &t->resources[v->resource];
    for (size_t i = 0; i < a->n_groups; i++) {
        if (a->groups[i].kind != res->kind)
            continue;
        for (int c = res->container; c >= 0; c = t->containers[c].parent)
            if (c == a->groups[i].container)
                return true;
    }
    return false;
}

json_t *trace_aggregation_to_json(const struct trace *t, const struct trace_aggregation *a)
{
    json_t *root = json_object(), *groups = json_array(), *cats = json_array(),
           *viol = json_array();
    json_object_set_new(root, "from", json_real(a->from));
    json_object_set_new(root, "to", json_real(a->to));
    json_object_set_new(root, "level", json_string(a->level));
    for (size_t c = 0; c < t->n_categories; c++)
        if (!a->categories || a->categories[c])
            json_array_append_new(cats, json_string(t->categories[c]));
    json_object_set_new(root, "categories", cats);
    for (size_t i = 0; i < a->n_groups; i++) {
        const struct trace_group *g = &a->groups[i];
        json_t *o = json_object(), *u = json_object();
        json_object_set_new(o, "name", json_string(g->name));
        json_object_set_new(o, "type", json_string(g->type));
        json_object_set_new(o, "kind", json_string(g->kind));
        json_object_set_new(o, "resources", json_integer((json_int_t)g->n_resources));
        json_object_set_new(o, "capacity", json_real(g->capacity));
        for (size_t c = 0; c < t->n_categories; c++)
            if (!a->categories || a->categories[c])
                json_object_set_new(u, t->categories[c], json_real(g->usage[c]));
        json_object_set_new(o, "usage", u);
        json_object_set_new(o, "idle", json_real(g->idle));
        json_array_append_new(groups, o);
    }
    json_object_set_new(root, "groups", groups);
    for (size_t i = 0; i < t->n_violations; i++) {
        const struct trace_violation *v = &t->violations[i];
        if (!violation_in(t, a, v))
            continue;
        const struct trace_resource *res = &t->resources[v->resource];
        json_t *o = json_object();
        json_object_set_new(o, "resource", json_string(t->containers[res->container].name));
        json_object_set_new(o, "kind", json_string(res->kind));
        json_object_set_new(o, "from", json_real(v->from));
        json_object_set_new(o, "to", json_real(v->to));
        json_object_set_new(o, "usage", json_real(v->usage));
        json_object_set_new(o, "capacity", json_real(v->capacity));
        json_array_append_new(viol, o);
    }
    json_object_set_new(root, "violations", viol);
    return root;
}
