/* The trace model: building containers, resources and signals, the integral
 * index behind fast slices, lookups, and freeing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "trace/strings.h"
#include "trace/trace.h"
#include "util/vec.h"

void trace_init(struct trace *t)
{
    memset(t, 0, sizeof *t);
    t->strings = trace_strings_new();
    t->start = INFINITY;
    t->end = -INFINITY;
}

const char *trace_intern(struct trace *t, const char *s, size_t len)
{
    return trace_strings_intern(t->strings, s, len);
}

int trace_add_type(struct trace *t, const char *name, int parent)
{
    struct trace_container_type *ty = VEC_PUSH(t->types, t->n_types, t->cap_types);
    if (!ty)
        return -1;
    ty->name = trace_intern(t, name, strlen(name));
    ty->parent = parent;
    return (int)t->n_types - 1;
}

int trace_add_container(struct trace *t, const char *name, const char *alias, int type, int parent,
                        double start)
{
    if (VEC_RESERVE(t->containers, t->cap_containers, t->n_containers + 1) < 0)
        return -1;
    int id = (int)t->n_containers;
    struct trace_container *c = &t->containers[id];
    memset(c, 0, sizeof *c);
    c->name = trace_intern(t, name, strlen(name));
    c->alias = alias ? trace_intern(t, alias, strlen(alias)) : c->name;
    c->type = type;
    c->parent = parent;
    c->start = start;
    c->end = INFINITY;
    c->depth = 0;
    if (parent >= 0) {
        struct trace_container *p = &t->containers[parent];
        int *child = VEC_PUSH(p->children, p->n_children, p->cap_children);
        if (!child)
            return -1;
        *child = id;
        c->depth = p->depth + 1;
    }
    t->n_containers++;
    return id;
}

int trace_add_category(struct trace *t, const char *name)
{
    int found = trace_find_category(t, name);
    if (found >= 0)
        return found;
    if (VEC_RESERVE(t->categories, t->cap_categories, t->n_categories + 1) < 0)
        return -1;
    t->categories[t->n_categories] = trace_intern(t, name, strlen(name));
    /* every resource gets a usage slot for the new category */
    for (size_t r = 0; r < t->n_resources; r++) {
        struct trace_resource *res = &t->resources[r];
        if (VEC_RESERVE(res->usage, res->cap_usage, t->n_categories + 1) < 0)
            return -1;
        memset(&res->usage[t->n_categories], 0, sizeof *res->usage);
    }
    return (int)t->n_categories++;
}

int trace_resource_for(struct trace *t, int container, const char *kind)
{
    const char *k = trace_intern(t, kind, strlen(kind));
    for (size_t r = 0; r < t->n_resources; r++)
        if (t->resources[r].container == container && t->resources[r].kind == k)
            return (int)r;
    if (VEC_RESERVE(t->resources, t->cap_resources, t->n_resources + 1) < 0)
        return -1;
    struct trace_resource *res = &t->resources[t->n_resources];
    memset(res, 0, sizeof *res);
    res->container = container;
    res->kind = k;
    res->cap_usage = t->n_categories ? t->n_categories : 1;
    res->usage = calloc(res->cap_usage, sizeof *res->usage);
    if (!res->usage)
        return -1;
    return (int)t->n_resources++;
}

struct trace_signal *trace_usage_signal(struct trace *t, int resource, int category)
{
    return &t->resources[resource].usage[category];
}

int trace_activity_for(struct trace *t, int container, const char *category)
{
    const char *name = trace_intern(t, category, strlen(category));
    if (!name)
        return -1;
    for (size_t i = 0; i < t->n_activities; i++)
        if (t->activities[i].container == container && t->activities[i].category == name)
            return (int)i;
    struct trace_activity *a = VEC_PUSH(t->activities, t->n_activities, t->cap_activities);
    if (!a)
        return -1;
    *a = (struct trace_activity){.container = container, .category = name};
    return (int)t->n_activities - 1;
}

void trace_add_edge(struct trace *t, int a, int b)
{
    if (a == b || a < 0 || b < 0)
        return;
    if (a > b) {
        int x = a;
        a = b;
        b = x;
    }
    struct trace_edge *e = VEC_PUSH(t->edges, t->n_edges, t->cap_edges);
    if (e)
        *e = (struct trace_edge){a, b};
}

int trace_signal_push(struct trace_signal *s, double time, double value)
{
    if (vec_reserve_parallel(&s->cap, s->n + 1, VEC_ARRAY(s->t), VEC_ARRAY(s->v), NULL) < 0)
        return -1;
    s->t[s->n] = time;
    s->v[s->n] = value;
    s->n++;
    return 0;
}

static void signal_free(struct trace_signal *s)
{
    free(s->t);
    free(s->v);
    free(s->cum);
    memset(s, 0, sizeof *s);
}

static int signal_index(struct trace_signal *s)
{
    free(s->cum);
    s->cum = malloc((s->n ? s->n : 1) * sizeof *s->cum);
    if (!s->cum)
        return -1;
    double acc = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (i > 0)
            acc += s->v[i - 1] * (s->t[i] - s->t[i - 1]);
        s->cum[i] = acc;
    }
    return 0;
}

/* Index of the last breakpoint with t[i] <= x, or -1. */
static long last_at_or_before(const struct trace_signal *s, double x)
{
    size_t lo = 0, hi = s->n; /* first index with t > x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->t[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

/* Integral from -infinity to x. */
static double primitive(const struct trace_signal *s, double x)
{
    long i = last_at_or_before(s, x);
    if (i < 0)
        return 0;
    return s->cum[i] + s->v[i] * (x - s->t[i]);
}

double trace_signal_integral(const struct trace_signal *s, double t1, double t2, double end)
{
    if (s->n == 0 || !s->cum)
        return 0;
    if (t2 > end)
        t2 = end;
    if (t1 > end)
        t1 = end;
    if (t2 <= t1)
        return 0;
    return primitive(s, t2) - primitive(s, t1);
}

void trace_signal_add_integrals(const struct trace_signal *s, const double *edges, size_t n_edges,
                                double end, double *out)
{
    if (s->n == 0 || !s->cum)
        return;
    long i = -1; /* last breakpoint at or before x, as last_at_or_before, moving forward only */
    double previous = 0;
    for (size_t k = 0; k < n_edges; k++) {
        double x = edges[k] > end ? end : edges[k];
        while ((size_t)(i + 1) < s->n && s->t[i + 1] <= x)
            i++;
        double p = i < 0 ? 0 : s->cum[i] + s->v[i] * (x - s->t[i]);
        if (k > 0)
            out[k - 1] += p - previous;
        previous = p;
    }
}

double trace_signal_value_at(const struct trace_signal *s, double t)
{
    long i = last_at_or_before(s, t);
    return i < 0 ? 0 : s->v[i];
}

static int add_violation(struct trace *t, int resource, double from, double to, double usage,
                         double capacity)
{
    if (t->n_violations > 0) {
        struct trace_violation *last = &t->violations[t->n_violations - 1];
        if (last->resource == resource && last->to == from) {
            last->to = to;
            if (usage - capacity > last->usage - last->capacity) {
                last->usage = usage;
                last->capacity = capacity;
            }
            return 0;
        }
    }
    struct trace_violation *v = VEC_PUSH(t->violations, t->n_violations, t->cap_violations);
    if (!v)
        return -1;
    *v = (struct trace_violation){resource, from, to, usage, capacity};
    return 0;
}

/* Walks the merged breakpoints of a resource's capacity and usage signals and
 * records the intervals where the usage sum exceeds the capacity (eq. 1). */
static int find_violations(struct trace *t, int r)
{
    struct trace_resource *res = &t->resources[r];
    size_t k = t->n_categories + 1;
    const struct trace_signal **sig = malloc(k * sizeof *sig);
    size_t *pos = calloc(k, sizeof *pos);
    if (!sig || !pos) {
        free(sig);
        free(pos);
        return -1;
    }
    sig[0] = &res->capacity;
    for (size_t c = 0; c < t->n_categories; c++)
        sig[c + 1] = &res->usage[c];
    double end = t->containers[res->container].end;
    int rc = 0;
    for (;;) {
        double now = INFINITY;
        for (size_t i = 0; i < k; i++)
            if (pos[i] < sig[i]->n && sig[i]->t[pos[i]] < now)
                now = sig[i]->t[pos[i]];
        if (now == INFINITY || now >= end)
            break;
        for (size_t i = 0; i < k; i++)
            while (pos[i] < sig[i]->n && sig[i]->t[pos[i]] <= now)
                pos[i]++;
        double next = end;
        for (size_t i = 0; i < k; i++)
            if (pos[i] < sig[i]->n && sig[i]->t[pos[i]] < next)
                next = sig[i]->t[pos[i]];
        double cap = pos[0] ? sig[0]->v[pos[0] - 1] : 0, used = 0;
        for (size_t i = 1; i < k; i++)
            used += pos[i] ? sig[i]->v[pos[i] - 1] : 0;
        if (next > now && used > cap + 1e-9 * fabs(cap) + 1e-12)
            if ((rc = add_violation(t, r, now, next, used, cap)) < 0)
                break;
    }
    free(sig);
    free(pos);
    return rc;
}

int trace_finish(struct trace *t)
{
    if (!(t->start <= t->end)) { /* no event carried a time */
        t->start = 0;
        t->end = 0;
    }
    for (size_t c = 0; c < t->n_containers; c++) {
        struct trace_container *ct = &t->containers[c];
        ct->depth = 0;
        for (int p = ct->parent; p >= 0; p = t->containers[p].parent)
            ct->depth++;
        if (ct->end == INFINITY || ct->end > t->end)
            ct->end = t->end;
        if (ct->start < t->start)
            ct->start = t->start;
    }
    for (size_t r = 0; r < t->n_resources; r++) {
        struct trace_resource *res = &t->resources[r];
        if (signal_index(&res->capacity) < 0)
            return -1;
        for (size_t c = 0; c < t->n_categories; c++)
            if (signal_index(&res->usage[c]) < 0)
                return -1;
        if (find_violations(t, (int)r) < 0)
            return -1;
    }
    for (size_t a = 0; a < t->n_activities; a++)
        if (signal_index(&t->activities[a].active) < 0)
            return -1;
    return 0;
}

void trace_free(struct trace *t)
{
    for (size_t c = 0; c < t->n_containers; c++)
        free(t->containers[c].children);
    for (size_t r = 0; r < t->n_resources; r++) {
        signal_free(&t->resources[r].capacity);
        for (size_t c = 0; c < t->n_categories; c++)
            signal_free(&t->resources[r].usage[c]);
        free(t->resources[r].usage);
    }
    for (size_t a = 0; a < t->n_activities; a++)
        signal_free(&t->activities[a].active);
    free(t->activities);
    free(t->types);
    free(t->containers);
    free(t->resources);
    free(t->categories);
    free(t->edges);
    free(t->violations);
    trace_strings_free(t->strings);
    memset(t, 0, sizeof *t);
}

int trace_find_type(const struct trace *t, const char *name)
{
    for (size_t i = 0; i < t->n_types; i++)
        if (!strcasecmp(t->types[i].name, name))
            return (int)i;
    return -1;
}

int trace_find_container(const struct trace *t, const char *name)
{
    for (size_t i = 0; i < t->n_containers; i++)
        if (!strcmp(t->containers[i].name, name) || !strcmp(t->containers[i].alias, name))
            return (int)i;
    return -1;
}

int trace_find_category(const struct trace *t, const char *name)
{
    for (size_t i = 0; i < t->n_categories; i++)
        if (!strcmp(t->categories[i], name))
            return (int)i;
    return -1;
}

int trace_ancestor_of_type(const struct trace *t, int c, int type)
{
    while (c >= 0) {
        if (t->containers[c].type == type)
            return c;
        c = t->containers[c].parent;
    }
    return -1;
}

void trace_format_date(double time, char *buf, size_t len)
{
    if (!(time >= 1e9 && time < 1e11)) {
        snprintf(buf, len, "%s", "");
        return;
    }
    time_t whole = (time_t)floor(time);
    struct tm tm;
    gmtime_r(&whole, &tm);
    char day[32];
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%03dZ", day, (int)((time - (double)whole) * 1000));
}
