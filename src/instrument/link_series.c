/* Link volumes over time as a Paje trace (link_series.h). */
#include "instrument/link_series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/paje_writer.h"
#include "trace/trace.h"
#include "util/vec.h"

struct link_sample {
    double t;
    int from, to;
    unsigned long long bytes; /* cumulative */
    double spread_from;       /* a gathered rank: its bytes spread evenly over [spread_from, t];
                                 NAN: a sample (bytes up to t) */
};

#define MAX_HOSTS 256

struct link_series {
    struct link_sample *v;
    size_t n, cap;
    double t0;
    int have_t0;
    double last_raw, last_t; /* the previous sampling's time, as given and as kept */
    char hosts[MAX_HOSTS][64]; /* the hosts of the ranks sampled, in order of appearance */
    size_t n_hosts;
    short *rank_host;          /* [TALLY_SEG_MAX_RANKS] index into hosts, -1: not known */
};

struct link_series *link_series_new(void)
{
    return calloc(1, sizeof(struct link_series));
}

void link_series_free(struct link_series *s)
{
    if (s) {
        free(s->v);
        free(s->rank_host);
    }
    free(s);
}

/* The index of a host's name, added when new; the last place is kept for
 * "other hosts", which holds the ranks of every host beyond. */
static size_t host_place(struct link_series *s, const char *host)
{
    for (size_t h = 0; h < s->n_hosts; h++)
        if (!strncmp(s->hosts[h], host, sizeof s->hosts[h] - 1))
            return h;
    if (s->n_hosts == MAX_HOSTS - 1 && strcmp(host, "other hosts"))
        return host_place(s, "other hosts");
    snprintf(s->hosts[s->n_hosts], sizeof s->hosts[0], "%.*s", (int)sizeof s->hosts[0] - 1, host);
    return s->n_hosts++;
}

/* Notes the host of a rank (the first one said is kept). */
static void place_rank(struct link_series *s, int rank, const char *host)
{
    if (!s->rank_host) {
        if (!(s->rank_host = malloc(TALLY_SEG_MAX_RANKS * sizeof *s->rank_host)))
            return;
        for (int i = 0; i < TALLY_SEG_MAX_RANKS; i++)
            s->rank_host[i] = -1;
    }
    if (s->rank_host[rank] < 0)
        s->rank_host[rank] = (short)host_place(s, host[0] ? host : "unknown host");
}

void link_series_begin(struct link_series *s, double t)
{
    if (!s->have_t0) {
        s->t0 = t;
        s->have_t0 = 1;
    }
}

/* Whole microseconds since the origin (see link_series.h), increasing from
 * one sampling to the next: the segments of one sampling share its time. */
static double kept_time(struct link_series *s, double t)
{
    if (s->n && t == s->last_raw)
        return s->last_t;
    double q = round((t - s->t0) * 1e6) / 1e6;
    if (s->n && q <= s->last_t)
        q = s->last_t + 1e-6;
    s->last_raw = t;
    s->last_t = q;
    return q;
}

void link_series_sample(struct link_series *s, double t, const struct tally_segment *seg)
{
    link_series_begin(s, t);
    double kept = -1;
    int from = seg->d.rank;
    if (from < 0 || from >= TALLY_SEG_MAX_RANKS)
        return;
    char host[sizeof seg->d.host + 1];
    memcpy(host, seg->d.host, sizeof seg->d.host);
    host[sizeof seg->d.host] = '\0';
    place_rank(s, from, host);
    for (int to = 0; to < TALLY_SEG_MAX_RANKS; to++) {
        unsigned long long b = seg->d.links[to].bytes;
        if (!b)
            continue;
        if (kept < 0)
            kept = kept_time(s, t);
        struct link_sample *g = VEC_PUSH(s->v, s->n, s->cap);
        if (!g)
            return;
        *g = (struct link_sample){kept, from, to, b, NAN};
    }
}

void link_series_gathered(struct link_series *s, double from, double to,
                          const struct tally_segment *seg)
{
    int rank = seg->d.rank;
    if (rank < 0 || rank >= TALLY_SEG_MAX_RANKS || !s->have_t0)
        return;
    char host[sizeof seg->d.host + 1];
    memcpy(host, seg->d.host, sizeof seg->d.host);
    host[sizeof seg->d.host] = '\0';
    place_rank(s, rank, host);
    /* whole microseconds since the origin, as the samples' times */
    double a = fmax(0, round((from - s->t0) * 1e6) / 1e6), b = round((to - s->t0) * 1e6) / 1e6;
    if (b <= a)
        b = a + 1e-6;
    for (int peer = 0; peer < TALLY_SEG_MAX_RANKS; peer++) {
        unsigned long long bytes = seg->d.links[peer].bytes;
        struct link_sample *g = bytes ? VEC_PUSH(s->v, s->n, s->cap) : NULL;
        if (g)
            *g = (struct link_sample){b, rank, peer, bytes, a};
    }
}

void link_series_gathered_set(struct link_series *s, const struct segment_set *set, double now)
{
    link_series_begin(s, now);
    for (size_t i = 0; i < set->count; i++) {
        const struct tally_seg_data *d = &set->items[i]->d;
        if (!(d->flags & TALLY_SEG_MPI) || link_series_has_rank(s, d->rank))
            continue;
        uint64_t end_ns = d->t_finalize ? d->t_finalize : d->t_exit;
        double from = (double)d->t_register / 1e9, to = (double)end_ns / 1e9;
        if (!d->t_register || !end_ns || !(to > from) || to > now)
            from = link_series_origin(s), to = now;
        link_series_gathered(s, from, to, set->items[i]);
    }
}

double link_series_origin(const struct link_series *s)
{
    return s->have_t0 ? s->t0 : NAN;
}

bool link_series_has_rank(const struct link_series *s, int rank)
{
    return rank >= 0 && rank < TALLY_SEG_MAX_RANKS && s->rank_host && s->rank_host[rank] >= 0;
}

/* Samples sorted by pair (lower rank first), then time. */
static int by_pair_time(const void *a, const void *b)
{
    const struct link_sample *x = a, *y = b;
    int xa = x->from < x->to ? x->from : x->to, xb = x->from < x->to ? x->to : x->from;
    int ya = y->from < y->to ? y->from : y->to, yb = y->from < y->to ? y->to : y->from;
    if (xa != ya)
        return xa - ya;
    if (xb != yb)
        return xb - yb;
    return (x->t > y->t) - (x->t < y->t);
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Where one direction's reading stopped: its last sample at or before the
 * previous time asked ({0, 0} first: nothing before the origin). */
struct direction_cursor {
    size_t k;
    double t, bytes;
};

/* The cumulative bytes sent by rank `from` over one pair's samples v[0..n)
 * (sorted by time) at times x that increase from call to call. Between two
 * samples the bytes are spread evenly over the interval (all a sampling says
 * is how many were sent since the one before), so a breakpoint that another
 * direction puts inside the interval does not move them to its end;
 * gathered, the rank's total is spread evenly over its lifetime. */
static double direction_bytes(const struct link_sample *v, size_t n, int from, double x,
                              struct direction_cursor *c)
{
    for (; c->k < n; ++c->k) {
        const struct link_sample *g = &v[c->k];
        if (g->from != from)
            continue;
        if (!isnan(g->spread_from)) {
            double a = g->spread_from, b = g->t;
            return x >= b ? (double)g->bytes : x <= a ? 0 : (double)g->bytes * (x - a) / (b - a);
        }
        if (g->t > x) /* c->t <= x < g->t */
            return c->bytes + ((double)g->bytes - c->bytes) * (x - c->t) / (g->t - c->t);
        c->t = g->t;
        c->bytes = (double)g->bytes;
    }
    return c->bytes;
}

/* The trace's containers: the application, its hosts, their ranks. */
struct layout {
    struct trace *t;
    int host_type, rank_type;
    int *rank_index;                /* [TALLY_SEG_MAX_RANKS], -1: not made yet */
    int host_index[MAX_HOSTS + 1];  /* -1: not made yet; [MAX_HOSTS]: a rank never sampled */
};

static int rank_container(const struct link_series *s, struct layout *l, int rank)
{
    if (l->rank_index[rank] >= 0)
        return l->rank_index[rank];
    /* a rank seen only as a peer, never sampled itself, has no known host */
    int h = s->rank_host && s->rank_host[rank] >= 0 ? s->rank_host[rank] : MAX_HOSTS;
    for (size_t k = 0; h == MAX_HOSTS && k < s->n_hosts; k++)
        if (!strcmp(s->hosts[k], "unknown host"))
            h = (int)k;
    if (l->host_index[h] < 0)
        l->host_index[h] = trace_add_container(l->t, h < MAX_HOSTS ? s->hosts[h] : "unknown host",
                                               NULL, l->host_type, 0, 0);
    char name[32];
    snprintf(name, sizeof name, "rank%d", rank);
    return l->rank_index[rank] = trace_add_container(l->t, name, NULL, l->rank_type,
                                                     l->host_index[h], 0);
}

int link_series_write_paje(const struct link_series *s, const char *path, char *why, size_t why_size)
{
    struct link_sample *v = malloc((s->n ? s->n : 1) * sizeof *v);
    int *index = malloc(TALLY_SEG_MAX_RANKS * sizeof *index);
    if (!v || !index) {
        free(v);
        free(index);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    memcpy(v, s->v, s->n * sizeof *v);
    qsort(v, s->n, sizeof *v, by_pair_time);
    for (int i = 0; i < TALLY_SEG_MAX_RANKS; i++)
        index[i] = -1;
    struct trace t;
    trace_init(&t);
    int root_type = trace_add_type(&t, "application", -1);
    int host_type = trace_add_type(&t, "host", root_type);
    struct layout layout = {.t = &t, .host_type = host_type,
                            .rank_type = trace_add_type(&t, "rank", host_type), .rank_index = index};
    for (size_t h = 0; h <= MAX_HOSTS; h++)
        layout.host_index[h] = -1;
    int link_type = trace_add_type(&t, "LINK", root_type);
    trace_add_container(&t, "mpi", "0", root_type, -1, 0);
    int category = trace_add_category(&t, "mpi");
    double peak = 0, end = 0;
    int *link_resources = malloc((s->n ? s->n : 1) * sizeof *link_resources);
    size_t n_links = 0;
    for (size_t i = 0; i < s->n && link_resources;) {
        int a = v[i].from < v[i].to ? v[i].from : v[i].to, b = v[i].from < v[i].to ? v[i].to : v[i].from;
        size_t j = i;
        while (j < s->n && (v[j].from < v[j].to ? v[j].from : v[j].to) == a &&
               (v[j].from < v[j].to ? v[j].to : v[j].from) == b)
            j++;
        char name[64];
        snprintf(name, sizeof name, "%d-%d", a, b);
        int ca = rank_container(s, &layout, a), cb = rank_container(s, &layout, b);
        int cl = trace_add_container(&t, name, NULL, link_type, 0, 0);
        trace_add_edge(&t, ca < cl ? ca : cl, ca < cl ? cl : ca);
        trace_add_edge(&t, cb < cl ? cb : cl, cb < cl ? cl : cb);
        int r = trace_resource_for(&t, cl, "bandwidth");
        link_resources[n_links++] = r;
        struct trace_signal *u = trace_usage_signal(&t, r, category);
        /* both directions' cumulative bytes at each breakpoint (the samples'
         * times, a gathered direction's bounds) → total rate per interval */
        double *times = malloc((2 * (j - i) + 1) * sizeof *times);
        size_t n_times = 0;
        if (!times)
            break;
        times[n_times++] = 0;
        for (size_t k = i; k < j; k++) {
            times[n_times++] = v[k].t;
            if (!isnan(v[k].spread_from))
                times[n_times++] = v[k].spread_from;
        }
        qsort(times, n_times, sizeof *times, by_double);
        double last_t = 0, last_total = 0;
        struct direction_cursor cur_a = {0}, cur_b = {0};
        for (size_t x = 1; x < n_times; x++) {
            if (times[x] <= last_t)
                continue;
            double total = direction_bytes(v + i, j - i, a, times[x], &cur_a) +
                           direction_bytes(v + i, j - i, b, times[x], &cur_b);
            double rate = (total - last_total) / (times[x] - last_t);
            trace_signal_push(u, last_t, rate);
            if (rate > peak)
                peak = rate;
            last_t = times[x];
            last_total = total;
        }
        free(times);
        trace_signal_push(u, last_t, 0);
        if (last_t > end)
            end = last_t;
        i = j;
    }
    for (size_t k = 0; k < n_links; k++)
        trace_signal_push(&t.resources[link_resources[k]].capacity, 0, peak > 0 ? peak : 1);
    free(link_resources);
    t.start = 0; /* the first sample */
    t.end = end;
    int rc = -1;
    if (trace_finish(&t) < 0)
        snprintf(why, why_size, "out of memory");
    else
        rc = trace_write_paje(&t, path, why, why_size);
    trace_free(&t);
    free(v);
    free(index);
    return rc;
}
