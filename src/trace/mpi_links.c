/* The links between hosts of a trace from runs, from the runs' MPI link
 * series (see mpi_links.h). Each source signal becomes steps (time, change
 * of rate) on its host pair's link and category; the steps of one link and
 * category, sorted, give the summed signal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summary_read.h"
#include "trace/mpi_links.h"
#include "util/vec.h"

#define MB (1024.0 * 1024.0)

struct step {
    int resource, category;
    double time, delta;
};

struct mpi_links {
    struct step *steps;
    size_t n, cap;
};

struct mpi_links *mpi_links_new(void)
{
    return calloc(1, sizeof(struct mpi_links));
}

void mpi_links_free(struct mpi_links *m)
{
    if (m)
        free(m->steps);
    free(m);
}

static int add_step(struct mpi_links *m, int resource, int category, double time, double delta)
{
    struct step *s = VEC_PUSH(m->steps, m->n, m->cap);
    if (!s)
        return -1;
    *s = (struct step){resource, category, time, delta};
    return 0;
}

/* The container of type `type` named name in t, made (under the root) when missing. */
static int container_named(struct trace *t, const char *name, int type, double start)
{
    for (size_t c = 1; c < t->n_containers; c++)
        if (t->containers[c].type == type && !strcmp(t->containers[c].name, name))
            return (int)c;
    return trace_add_container(t, name, NULL, type, 0, start);
}

static bool has_edge(const struct trace *t, int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    for (size_t e = 0; e < t->n_edges; e++)
        if (t->edges[e].a == lo && t->edges[e].b == hi)
            return true;
    return false;
}

/* The host pair's link resource in t (container, edges and resource made when missing). */
static int link_resource(struct trace *t, const char *ha, const char *hb, double start)
{
    int host_type = trace_find_type(t, "host");
    int link_type = trace_find_type(t, "link");
    if (link_type < 0)
        link_type = trace_add_type(t, "link", 0);
    const char *lo = strcmp(ha, hb) < 0 ? ha : hb, *hi = lo == ha ? hb : ha;
    char name[300];
    snprintf(name, sizeof name, "%.140s--%.140s", lo, hi);
    int a = container_named(t, lo, host_type, start), b = container_named(t, hi, host_type, start);
    int l = link_type < 0 ? -1 : container_named(t, name, link_type, start);
    if (a < 0 || b < 0 || l < 0)
        return -1;
    if (!has_edge(t, a, l))
        trace_add_edge(t, a, l);
    if (!has_edge(t, l, b))
        trace_add_edge(t, l, b);
    int r = trace_resource_for(t, l, "bandwidth");
    if (r >= 0)
        t->resources[r].capacity_inferred = true;
    return r;
}

/* The host of a rank container of the link trace: its parent's name. */
static const char *host_of(const struct trace *mt, int rank)
{
    int p = mt->containers[rank].parent;
    return p > 0 ? mt->containers[p].name : NULL;
}

int mpi_links_add_run(struct mpi_links *m, struct trace *t, const char *prefix, char *why,
                      size_t why_size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.summary", prefix);
    json_t *sum = summary_load(path, why, why_size);
    if (!sum)
        return -1;
    double origin = summary_number(json_object_get(sum, "mpi"), "link_series_origin", NAN);
    const char *name = json_string_value(json_object_get(sum, "category"));
    int category = name ? trace_add_category(t, name) : -1;
    json_decref(sum);
    if (!isfinite(origin) || category < 0) {
        snprintf(why, why_size, "%s: no mpi.link_series_origin (run with --mpi --time-series)", path);
        return -1;
    }
    snprintf(path, sizeof path, "%s.mpi.paje", prefix);
    struct trace mt;
    char detail[512];
    if (trace_read_file(path, NULL, &mt, detail, sizeof detail) < 0) {
        snprintf(why, why_size, "%s (run with --mpi --time-series)", detail);
        return -1;
    }
    int mpi = trace_find_category(&mt, "mpi");
    int rc = 0;
    for (size_t r = 0; r < mt.n_resources && mpi >= 0 && rc == 0; r++) {
        int link = mt.resources[r].container, ends[2], k = 0;
        for (size_t e = 0; e < mt.n_edges && k < 2; e++)
            if (mt.edges[e].a == link || mt.edges[e].b == link)
                ends[k++] = mt.edges[e].a == link ? mt.edges[e].b : mt.edges[e].a;
        const char *ha = k == 2 ? host_of(&mt, ends[0]) : NULL, *hb = k == 2 ? host_of(&mt, ends[1]) : NULL;
        const struct trace_signal *s = &mt.resources[r].usage[mpi];
        if (!ha || !hb || !strcmp(ha, hb) || s->n == 0)
            continue; /* a link within one host is no link between hosts */
        int res = link_resource(t, ha, hb, origin + s->t[0]);
        if (res < 0) {
            rc = -1;
            break;
        }
        /* each interval's bytes kept: its rate taken again over its dated bounds (epoch
         * seconds are 0.24 us apart: a short interval's duration changes when dated) */
        double prev = 0;
        for (size_t i = 0; i < s->n && rc == 0; i++) {
            double next = i + 1 < s->n ? s->t[i + 1] : mt.end;
            double from = origin + s->t[i], to = origin + next;
            double rate = to > from ? s->v[i] * (next - s->t[i]) / (to - from) / MB : 0;
            rc = add_step(m, res, category, from, rate - prev);
            prev = rate;
        }
        if (rc == 0 && prev != 0)
            rc = add_step(m, res, category, origin + mt.end, -prev);
    }
    trace_free(&mt);
    if (rc < 0)
        snprintf(why, why_size, "out of memory");
    return rc;
}

static int by_signal_then_time(const void *x, const void *y)
{
    const struct step *a = x, *b = y;
    if (a->resource != b->resource)
        return a->resource - b->resource;
    if (a->category != b->category)
        return a->category - b->category;
    return (a->time > b->time) - (a->time < b->time);
}

int mpi_links_build(struct mpi_links *m, struct trace *t)
{
    qsort(m->steps, m->n, sizeof *m->steps, by_signal_then_time);
    for (size_t i = 0; i < m->n;) {
        size_t j = i;
        double level = 0, peak = 0;
        struct trace_signal *u = trace_usage_signal(t, m->steps[i].resource, m->steps[i].category);
        for (; j < m->n && m->steps[j].resource == m->steps[i].resource &&
               m->steps[j].category == m->steps[i].category;
             j++) {
            level += m->steps[j].delta;
            if (j + 1 < m->n && m->steps[j + 1].resource == m->steps[j].resource &&
                m->steps[j + 1].category == m->steps[j].category && m->steps[j + 1].time == m->steps[j].time)
                continue; /* the other changes at the same time first */
            double v = fabs(level) < 1e-12 ? 0 : level; /* rounding of the sums */
            if (trace_signal_push(u, m->steps[j].time, v) < 0)
                return -1;
            peak = fmax(peak, v);
        }
        struct trace_resource *res = &t->resources[m->steps[i].resource];
        if (res->capacity.n == 0) { /* from the link's first step in any category */
            double first = m->steps[i].time;
            for (size_t k = i; k < m->n && m->steps[k].resource == m->steps[i].resource; k++)
                first = fmin(first, m->steps[k].time);
            if (trace_signal_push(&res->capacity, first, 0) < 0)
                return -1;
        }
        /* the capacity: the peak of the link's usage over all categories, from its first step */
        if (peak > res->capacity.v[res->capacity.n - 1])
            res->capacity.v[res->capacity.n - 1] = peak;
        if (m->steps[i].time < t->start)
            t->start = m->steps[i].time;
        if (m->steps[j - 1].time > t->end)
            t->end = m->steps[j - 1].time;
        i = j;
    }
    return 0;
}
