/* Anomaly detection over time slices (see anomalies.h). Each slice of width S
 * is aggregated per unit (a resource, or a group at --level) with eq. 2/3;
 * then:
 *  unfair      a category's share of the used capacity departs from its
 *              expected share by more than N percentage points, among the
 *              categories that used the unit in that slice (two at least);
 *  waste       idle fraction above a threshold while another unit of the same
 *              kind was working in that slice (a host's capacity ends with its
 *              life, so a host whose tasks are over has no idle time);
 * Each finding says how sure it is: 0.5 at its threshold, 1 at the end of the
 * scale (100 % idle or used, a share gap twice the threshold or more).
 *  saturation  used fraction >= threshold, of a capacity the trace gives (one
 *              inferred from the peak usage, trace_resource.capacity_inferred,
 *              is saturated by construction: never a finding); and when the
 *              most saturated unit of a kind changes from one slice to the
 *              next, "bottleneck moved";
 *  oscillation the dominant category flips and flips back over three
 *              consecutive slices (A, B, A: the paper's "blinking");
 *  slow start  a category whose peak share of the unit is at least the
 *              activity threshold, active (2 % of that peak or more) over 4
 *              slices or more, took 2 slices or more, and a quarter of its
 *              active time or more, to reach half of its peak share of the unit (section 4.2's burst project, which
 *              took 18 of its 26 hours to get half of the platform); never
 *              of other-load, the load of others, which does not start;
 *  burst then idle  a category kept the activity threshold or more of a
 *              unit's capacity busy while its server said it was idle after
 *              having been active (trace_activity: section 4.2's burst tasks
 *              that went on after the burst, wasted computation); judged on
 *              the part of each slice inside such an idle period. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/activity.h"
#include "trace/aggregate.h"
#include "trace/anomalies.h"
#include "trace/host_load.h"
#include "util/vec.h"

struct unit {
    const char *name;
    const char *kind;
    int container;
    bool inferred;   /* one of its resources' capacity was inferred from the peak */
};

/* 0.5 at the threshold, 1 at the end of the scale. */
static double sureness(double value, double threshold, double end)
{
    double x = end > threshold ? (value - threshold) / (end - threshold) : 1;
    return 0.5 + 0.5 * (x < 0 ? 0 : x > 1 ? 1 : x);
}

/* Whether a resource of kind under container c (c included) has an inferred capacity. */
static bool inferred_under(const struct trace *t, int c, const char *kind)
{
    for (size_t r = 0; r < t->n_resources; r++) {
        if (t->resources[r].kind != kind || !t->resources[r].capacity_inferred)
            continue;
        for (int p = t->resources[r].container; p >= 0; p = t->containers[p].parent)
            if (p == c)
                return true;
    }
    return false;
}

struct finder {
    const struct trace *t;
    const struct anomaly_options *o;
    double from, to; /* the window analysed (the whole trace by default) */
    struct anomaly *list;
    size_t n, cap;
};

const char *anomaly_kind_name(enum anomaly_kind k)
{
    static const char *const names[] = {"unfair",      "waste",      "saturation",
                                        "oscillation", "slow-start", "burst-then-idle"};
    return names[k];
}

void anomaly_options_defaults(struct anomaly_options *o)
{
    if (o->unfair_points <= 0)
        o->unfair_points = 10;
    if (o->waste_idle <= 0)
        o->waste_idle = 0.5;
    if (o->saturation <= 0)
        o->saturation = 0.95;
    if (o->min_activity <= 0)
        o->min_activity = 0.05;
}

static struct anomaly *add(struct finder *f, enum anomaly_kind kind, const char *resource,
                           double from, double to)
{
    struct anomaly *a = VEC_PUSH(f->list, f->n, f->cap);
    if (!a)
        return NULL;
    a->kind = kind;
    snprintf(a->resource, sizeof a->resource, "%s", resource);
    a->from = from;
    a->to = to;
    a->slices = 1;
    return a;
}

/* Units: every resource, or every (group, kind) at the level. */
static int list_units(const struct trace *t, const struct anomaly_options *o, struct unit **units,
                      size_t *n, char *why, size_t why_size)
{
    if (o->level) {
        struct trace_aggregate_options ao = {.from = t->start, .to = t->end, .level = o->level};
        struct trace_aggregation a;
        if (trace_aggregate(t, &ao, &a, why, why_size) < 0)
            return -1;
        *units = calloc(a.n_groups ? a.n_groups : 1, sizeof **units);
        if (!*units) {
            trace_aggregation_free(&a);
            return -1;
        }
        for (size_t i = 0; i < a.n_groups; i++)
            (*units)[i] = (struct unit){a.groups[i].name, a.groups[i].kind, a.groups[i].container,
                                        inferred_under(t, a.groups[i].container, a.groups[i].kind)};
        *n = a.n_groups;
        trace_aggregation_free(&a);
        return 0;
    }
    *units = calloc(t->n_resources ? t->n_resources : 1, sizeof **units);
    if (!*units)
        return -1;
    for (size_t r = 0; r < t->n_resources; r++)
        (*units)[r] = (struct unit){t->containers[t->resources[r].container].name,
                                    t->resources[r].kind, t->resources[r].container,
                                    t->resources[r].capacity_inferred};
    *n = t->n_resources;
    return 0;
}

/* Display name: container name, plus ":kind" when names repeat across kinds. */
static void unit_label(const struct unit *units, size_t n, size_t i, char *buf, size_t len)
{
    bool repeated = false;
    for (size_t j = 0; j < n && !repeated; j++)
        repeated = j != i && units[j].container == units[i].container;
    if (repeated)
        snprintf(buf, len, "%s:%s", units[i].name, units[i].kind);
    else
        snprintf(buf, len, "%s", units[i].name);
}

/* Averages of every unit over one slice: cap[u], use[u * nc + c]. */
static int slice_values(const struct trace *t, const struct anomaly_options *o,
                        const struct unit *units, size_t n_units, double from, double to,
                        double *cap, double *use, char *why, size_t why_size)
{
    size_t nc = t->n_categories;
    if (!o->level) {
        for (size_t r = 0; r < n_units; r++)
            trace_resource_average(t, (int)r, from, to, &cap[r], &use[r * nc]);
        return 0;
    }
    struct trace_aggregate_options ao = {.from = from, .to = to, .level = o->level};
    struct trace_aggregation a;
    if (trace_aggregate(t, &ao, &a, why, why_size) < 0)
        return -1;
    for (size_t u = 0; u < n_units; u++) {
        cap[u] = 0;
        memset(&use[u * nc], 0, nc * sizeof *use);
        for (size_t g = 0; g < a.n_groups; g++)
            if (a.groups[g].container == units[u].container && a.groups[g].kind == units[u].kind) {
                cap[u] = a.groups[g].capacity;
                memcpy(&use[u * nc], a.groups[g].usage, nc * sizeof *use);
            }
    }
    trace_aggregation_free(&a);
    return 0;
}

/* Slow start of each (unit, category) from its slice history (see the top). */
static int slow_starts(struct finder *f, const struct unit *units, size_t n_units,
                       const double *history, size_t n_slices, double width)
{
    const struct trace *t = f->t;
    size_t nc = t->n_categories;
    char label[160];
    for (size_t u = 0; u < n_units; u++)
        for (size_t c = 0; c < nc; c++) {
#define SHARE(s) history[((s) * n_units + u) * nc + c]
            if (!strcmp(t->categories[c], HOST_OTHER_LOAD))
                continue; /* the load of others does not start: it is there */
            double peak = 0;
            for (size_t s = 0; s < n_slices; s++)
                if (SHARE(s) > peak)
                    peak = SHARE(s);
            if (peak < f->o->min_activity) /* a category that never mattered here */
                continue;
            /* active: from the first to the last slice with 2 % of its peak or more */
            size_t first = n_slices, last = 0;
            for (size_t s = 0; s < n_slices; s++)
                if (SHARE(s) >= peak * 0.02) {
                    if (first == n_slices)
                        first = s;
                    last = s;
                }
            if (first == n_slices || last - first + 1 < 4)
                continue;
            size_t half = first;
            while (SHARE(half) < peak / 2)
                half++;
            size_t ramp = half - first, active = last - first + 1;
            double frac = (double)ramp / (double)active;
            if (ramp < 2 || frac < 0.25)
                continue;
            unit_label(units, n_units, u, label, sizeof label);
            double from = f->from + width * (double)first, to = f->from + width * (double)half;
            struct anomaly *a = add(f, ANOMALY_SLOW_START, label, from, to);
            if (!a)
                return -1;
            snprintf(a->subject, sizeof a->subject, "%s", t->categories[c]);
            a->confidence = sureness(frac, 0.25, 0.75);
            a->slices = ramp;
            snprintf(a->detail, sizeof a->detail,
                     "%s took %.3g s, %.0f%% of its active time, to reach half of its peak "
                     "(%.0f%% of the %s capacity)",
                     t->categories[c], to - from, frac * 100, peak * 100, units[u].kind);
#undef SHARE
        }
    return 0;
}

/* Burst then idle for one category over one idle period of its server (see
 * the top): each slice's part inside the period, from the slice history when
 * it is the whole slice, else aggregated anew into cap and use. */
static int idle_work(struct finder *f, const struct unit *units, size_t n_units,
                     const double *history, size_t n_slices, double width, size_t c,
                     const struct trace_period *p, const char *server, double *cap, double *use,
                     char *why, size_t why_size)
{
    const struct trace *t = f->t;
    size_t nc = t->n_categories;
    char label[160];
    for (size_t s = 0; s < n_slices; s++) {
        double from = f->from + width * (double)s;
        double to = s + 1 == n_slices ? f->to : fmin(from + width, f->to);
        double a = fmax(from, p->from), b = fmin(to, p->to);
        if (b - a <= 1e-9 * (fabs(t->end) + 1))
            continue;
        bool whole = history && a == from && b == to;
        if (!whole && slice_values(t, f->o, units, n_units, a, b, cap, use, why, why_size) < 0)
            return -1;
        for (size_t u = 0; u < n_units; u++) {
            double share = whole ? history[(s * n_units + u) * nc + c]
                                 : cap[u] > 0 ? use[u * nc + c] / cap[u] : 0;
            if (share < f->o->min_activity)
                continue;
            unit_label(units, n_units, u, label, sizeof label);
            struct anomaly *an = add(f, ANOMALY_BURST_IDLE, label, a, b);
            if (!an) {
                snprintf(why, why_size, "out of memory");
                return -1;
            }
            snprintf(an->subject, sizeof an->subject, "%s", t->categories[c]);
            an->confidence = sureness(share, f->o->min_activity, 1);
            snprintf(an->detail, sizeof an->detail,
                     "%s kept %.0f%% of the %s capacity busy after its server %s went idle at "
                     "t+%.4g s (wasted computation)",
                     t->categories[c], share * 100, units[u].kind, server, p->from - t->start);
        }
    }
    return 0;
}

/* Burst then idle of every category whose server's activity the trace gives. */
static int burst_then_idle(struct finder *f, const struct unit *units, size_t n_units,
                           const double *history, size_t n_slices, double width, double *cap,
                           double *use, char *why, size_t why_size)
{
    const struct trace *t = f->t;
    for (size_t c = 0; c < t->n_categories; c++) {
        struct trace_period *idle = NULL;
        size_t n_idle = 0;
        int server = -1;
        if (trace_idle_after_active(t, t->categories[c], &idle, &n_idle, &server) < 0) {
            snprintf(why, why_size, "out of memory");
            return -1;
        }
        int rc = 0;
        for (size_t i = 0; i < n_idle && rc == 0; i++)
            rc = idle_work(f, units, n_units, history, n_slices, width, c, &idle[i],
                           t->containers[server].name, cap, use, why, why_size);
        free(idle);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int trace_find_anomalies(const struct trace *t, const struct anomaly_options *opts,
                         struct anomaly **out, size_t *n_out, char *why, size_t why_size)
{
    struct anomaly_options o = *opts;
    anomaly_options_defaults(&o);
    struct finder f = {.t = t, .o = &o, .from = t->start, .to = t->end};
    if (o.from < o.to) {
        f.from = fmax(o.from, t->start);
        f.to = fmin(o.to, t->end);
    }
    double span = f.to - f.from;
    double width = o.slice > 0 ? o.slice : span / 20;
    size_t n_slices = width > 0 && span > 0 ? (size_t)ceil(span / width - 1e-9) : 1;
    if (n_slices == 0)
        n_slices = 1;
    if (n_slices > 1000000) {
        snprintf(why, why_size, "--slice %g makes %zu slices (at most 1000000)", width, n_slices);
        return -1;
    }
    size_t nc = t->n_categories;
    struct unit *units = NULL;
    size_t n_units = 0;
    if (list_units(t, &o, &units, &n_units, why, why_size) < 0)
        return -1;
    double *expected = calloc(nc ? nc : 1, sizeof *expected);
    double *cap = calloc(n_units ? n_units : 1, sizeof *cap);
    double *use = calloc(n_units * nc > 0 ? n_units * nc : 1, sizeof *use);
    int *dominant = malloc(2 * (n_units ? n_units : 1) * sizeof *dominant); /* [prev2|prev1] */
    int *prev_dom = dominant + (n_units ? n_units : 1);
    int *bottleneck_kind_prev = NULL;
    double *history = NULL; /* [slice][unit][category] used share of capacity, for slow start */
    char label[160];
    int rc = -1;
    if (!expected || !cap || !use || !dominant)
        goto oom;
    double wsum = 0;
    for (size_t c = 0; c < nc; c++)
        wsum += o.shares ? o.shares[c] : 1;
    for (size_t c = 0; c < nc; c++)
        expected[c] = wsum > 0 ? (o.shares ? o.shares[c] : 1) / wsum : 0;
    for (size_t u = 0; u < n_units; u++)
        dominant[u] = prev_dom[u] = -1;
    /* distinct kinds, for waste and bottlenecks */
    const char *kinds[64];
    size_t n_kinds = 0;
    for (size_t u = 0; u < n_units; u++) {
        size_t k = 0;
        while (k < n_kinds && kinds[k] != units[u].kind)
            k++;
        if (k == n_kinds && n_kinds < 64)
            kinds[n_kinds++] = units[u].kind;
    }
    bottleneck_kind_prev = malloc((n_kinds ? n_kinds : 1) * sizeof *bottleneck_kind_prev);
    if (!bottleneck_kind_prev)
        goto oom;
    size_t n_history = n_slices * n_units * nc;
    if (n_history <= 50u * 1000 * 1000) /* else: no slow-start finding */
        history = calloc(n_history > 0 ? n_history : 1, sizeof *history);
    for (size_t k = 0; k < n_kinds; k++)
        bottleneck_kind_prev[k] = -1;
    for (size_t s = 0; s < n_slices; s++) {
        double from = f.from + width * (double)s;
        double to = s + 1 == n_slices ? f.to : from + width;
        if (to > f.to)
            to = f.to;
        if (slice_values(t, &o, units, n_units, from, to, cap, use, why, why_size) < 0)
            goto out;
        if (history)
            for (size_t u = 0; u < n_units; u++)
                for (size_t c = 0; c < nc; c++)
                    history[(s * n_units + u) * nc + c] = cap[u] > 0 ? use[u * nc + c] / cap[u] : 0;
        for (size_t k = 0; k < n_kinds; k++) {
            int most = -1;
            double most_frac = 0;
            size_t working = 0;
            for (size_t u = 0; u < n_units; u++) {
                if (units[u].kind != kinds[k])
                    continue;
                double used = 0;
                for (size_t c = 0; c < nc; c++)
                    used += use[u * nc + c];
                if (cap[u] > 0 && used / cap[u] >= o.min_activity)
                    working++;
            }
            for (size_t u = 0; u < n_units; u++) {
                if (units[u].kind != kinds[k] || cap[u] <= 0)
                    continue;
                double used = 0;
                for (size_t c = 0; c < nc; c++)
                    used += use[u * nc + c];
                double frac = used / cap[u];
                bool active = frac >= o.min_activity;
                unit_label(units, n_units, u, label, sizeof label);
                struct anomaly *a;
                /* saturation */
                if (frac >= o.saturation && !units[u].inferred) {
                    if (!(a = add(&f, ANOMALY_SATURATION, label, from, to)))
                        goto oom;
                    a->confidence = sureness(frac, o.saturation, 1);
                    snprintf(a->detail, sizeof a->detail, "%.0f%% of its %s capacity used",
                             frac * 100, units[u].kind);
                    if (frac > most_frac) {
                        most_frac = frac;
                        most = (int)u;
                    }
                }
                /* waste */
                if (1 - frac > o.waste_idle && working > (active ? 1u : 0u)) {
                    size_t others = working - (active ? 1 : 0);
                    if (!(a = add(&f, ANOMALY_WASTE, label, from, to)))
                        goto oom;
                    a->confidence = sureness(1 - frac, o.waste_idle, 1);
                    snprintf(a->detail, sizeof a->detail,
                             "%.0f%% idle while %zu other %s resource%s worked", (1 - frac) * 100,
                             others, units[u].kind, others > 1 ? "s" : "");
                }
                /* unfair sharing and dominance (only when the unit did work) */
                int dom = -1; /* the dominant category, for oscillation */
                if (active && nc > 1)
                    for (size_t c = 0; c < nc; c++)
                        if (dom < 0 || use[u * nc + c] > use[u * nc + dom])
                            dom = (int)c;
                /* Shares are judged among the categories that used the unit in
                 * the slice (a category with no work there is not wronged), with
                 * their expected shares renormalised over them. */
                size_t competing = 0;
                double expected_sum = 0;
                for (size_t c = 0; c < nc; c++)
                    if (use[u * nc + c] > 0)
                        competing++, expected_sum += expected[c];
                if (active && competing > 1 && expected_sum > 0) {
                    int worst = -1;
                    double worst_gap = 0;
                    for (size_t c = 0; c < nc; c++) {
                        if (use[u * nc + c] <= 0)
                            continue;
                        double share = use[u * nc + c] / used;
                        double gap = (share - expected[c] / expected_sum) * 100;
                        if (fabs(gap) > fabs(worst_gap)) {
                            worst_gap = gap;
                            worst = (int)c;
                        }
                    }
                    if (worst >= 0 && fabs(worst_gap) > o.unfair_points) {
                        if (!(a = add(&f, ANOMALY_UNFAIR, label, from, to)))
                            goto oom;
                        snprintf(a->subject, sizeof a->subject, "%s", t->categories[worst]);
                        a->confidence = sureness(fabs(worst_gap), o.unfair_points, 2 * o.unfair_points);
                        snprintf(a->detail, sizeof a->detail,
                                 "%s got %.0f%% of the used %s, expected %.0f%% (%+.0f points)",
                                 t->categories[worst], use[u * nc + worst] / used * 100,
                                 units[u].kind, expected[worst] / expected_sum * 100, worst_gap);
                    }
                }
                /* oscillation: A, B, A over three slices */
                if (dom >= 0 && prev_dom[u] >= 0 && dominant[u] >= 0 && dom == prev_dom[u] &&
                    dominant[u] != dom) {
                    struct anomaly *last = NULL;
                    for (size_t i = f.n; i-- > 0;)
                        if (f.list[i].kind == ANOMALY_OSCILLATION && !strcmp(f.list[i].resource, label)) {
                            last = &f.list[i];
                            break;
                        }
                    double start = from - 2 * width;
                    if (last && last->to >= start + width - 1e-9 * width) {
                        last->to = to; /* still blinking: extend, surer with each flip */
                        last->slices++;
                        last->confidence = last->confidence + 0.1 > 1 ? 1 : last->confidence + 0.1;
                    } else {
                        if (!(a = add(&f, ANOMALY_OSCILLATION, label, start, to)))
                            goto oom;
                        a->confidence = 0.5; /* one flip and back: the least that counts */
                        a->slices = 3;
                        snprintf(a->detail, sizeof a->detail,
                                 "dominant category flips %s -> %s -> %s (blinking)",
                                 t->categories[dom], t->categories[dominant[u]], t->categories[dom]);
                    }
                }
                if (dom >= 0 || !active) {
                    prev_dom[u] = dominant[u];
                    dominant[u] = dom;
                }
            }
            /* bottleneck moves */
            if (most >= 0 && bottleneck_kind_prev[k] >= 0 && bottleneck_kind_prev[k] != most) {
                char from_label[160];
                unit_label(units, n_units, (size_t)bottleneck_kind_prev[k], from_label,
                           sizeof from_label);
                unit_label(units, n_units, (size_t)most, label, sizeof label);
                struct anomaly *a = add(&f, ANOMALY_SATURATION, label, from, to);
                if (!a)
                    goto oom;
                a->event = true;
                a->confidence = sureness(most_frac, o.saturation, 1);
                snprintf(a->detail, sizeof a->detail, "bottleneck moved from %.90s to %.90s (%.30s)",
                         from_label, label, kinds[k]);
            }
            bottleneck_kind_prev[k] = most;
        }
    }
    if (history && slow_starts(&f, units, n_units, history, n_slices, width) < 0)
        goto oom;
    if (burst_then_idle(&f, units, n_units, history, n_slices, width, cap, use, why, why_size) < 0)
        goto out;
    rc = 0;
    goto out;
oom:
    snprintf(why, why_size, "out of memory");
out:
    free(units);
    free(expected);
    free(cap);
    free(use);
    free(dominant);
    free(bottleneck_kind_prev);
    free(history);
    if (rc < 0) {
        free(f.list);
        return -1;
    }
    *out = f.list;
    *n_out = f.n;
    return 0;
}

static int by_group_then_start(const void *pa, const void *pb)
{
    const struct anomaly *a = pa, *b = pb;
    int c = (int)a->kind - (int)b->kind;
    if (!c)
        c = strcmp(a->resource, b->resource);
    if (!c)
        c = strcmp(a->subject, b->subject);
    if (!c)
        c = (int)a->event - (int)b->event;
    if (!c)
        c = (a->from > b->from) - (a->from < b->from);
    return c;
}

static int by_start(const void *pa, const void *pb)
{
    const struct anomaly *a = pa, *b = pb;
    int c = (a->from > b->from) - (a->from < b->from);
    return c ? c : (a->to > b->to) - (a->to < b->to);
}

size_t anomalies_group(struct anomaly *list, size_t n)
{
    if (n < 2)
        return n;
    qsort(list, n, sizeof *list, by_group_then_start);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        struct anomaly *g = kept ? &list[kept - 1] : NULL;
        const struct anomaly *a = &list[i];
        double tolerance = 1e-9 * (fabs(a->from) + 1);
        if (g && !g->event && !a->event && g->kind == a->kind && !strcmp(g->resource, a->resource) &&
            !strcmp(g->subject, a->subject) && a->from <= g->to + tolerance && a->from >= g->from) {
            if (a->confidence > g->confidence) {
                memcpy(g->detail, a->detail, sizeof g->detail);
                g->confidence = a->confidence;
            }
            if (a->to > g->to)
                g->to = a->to;
            g->slices += a->slices;
            continue;
        }
        if (kept != i)
            list[kept] = *a;
        kept++;
    }
    qsort(list, kept, sizeof *list, by_start);
    return kept;
}

json_t *anomalies_to_json(const struct anomaly *a, size_t n)
{
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, json_pack("{s:s,s:s,s:f,s:f,s:s,s:f,s:I}", "kind",
                                              anomaly_kind_name(a[i].kind), "resource",
                                              a[i].resource, "from", a[i].from, "to", a[i].to,
                                              "detail", a[i].detail, "confidence", a[i].confidence,
                                              "slices", (json_int_t)a[i].slices));
    return list;
}
