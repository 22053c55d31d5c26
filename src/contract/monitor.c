/* The contract monitor (see monitor.h). */
#include "contract/monitor.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contract/cluster.h"
#include "contract/fuzzy.h"
#include "util/hashmap.h"
#include "util/vec.h"

/* Since when each dimension (and the overall) of a process has been
 * violated, and its previous period's execution coordinates (live mode: the
 * window below the projection on an oversubscribed host, monitor.h). */
struct process_state {
    char process[SAMPLE_NAME_MAX], host[SAMPLE_NAME_MAX];
    double since[CONTRACT_N_SPACES][CONTRACT_MAX_DIMS + 1];
    double last_x[CONTRACT_MAX_DIMS]; /* NAN: not in the previous period */
    double last_end, last_period;     /* that period (NAN: none yet) */
};

struct contract_monitor {
    const struct contract *c;
    double threshold;
    const struct contract_factor *caps;
    size_t n_caps;
    struct process_state *states;
    size_t n_states, cap_states;
    struct hashmap index;   /* "process\0host" -> index in states */
    const struct contract_rulebase *rb[CONTRACT_N_SPACES][CONTRACT_MAX_DIMS];
    char explanation[2048];
    int live;
    /* live mode, for the current batch: service level per host and execution dimension */
    char (*svc_host)[SAMPLE_NAME_MAX];
    double (*svc)[CONTRACT_MAX_DIMS];
    double *runnable;   /* runnable tasks per core (median of the batch's samples), NAN unknown */
    size_t n_svc;
};

void contract_monitor_set_live_factors(struct contract_monitor *m, int on)
{
    m->live = on;
}

struct contract_monitor *contract_monitor_new(const struct contract *c, double threshold,
                                              const struct contract_factor *caps, size_t n_caps)
{
    struct contract_monitor *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->c = c;
    m->threshold = threshold;
    m->caps = caps;
    m->n_caps = n_caps;
    for (int s = 0; s < CONTRACT_N_SPACES; s++)
        for (int d = 0; d < c->space[s].n_dims; d++)
            m->rb[s][d] = contract_rulebase_for(c, c->space[s].dims[d].name);
    return m;
}

void contract_monitor_free(struct contract_monitor *m)
{
    if (!m)
        return;
    free(m->states);
    hashmap_free(&m->index);
    free(m->svc_host);
    free(m->svc);
    free(m->runnable);
    free(m);
}

void format_si(double v, char *buf, size_t buflen)
{
    static const struct { double f; const char *p; } prefixes[] = {
        {1e12, " T"}, {1e9, " G"}, {1e6, " M"}, {1e3, " k"},
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (fabs(v) >= prefixes[i].f) {
            snprintf(buf, buflen, "%.3g%s", v / prefixes[i].f, prefixes[i].p);
            return;
        }
    snprintf(buf, buflen, "%.3g", v);
}

/* The state of a process, created on first sight (a hash lookup: a live
 * monitor sees thousands of processes). */
static struct process_state *state_for(struct contract_monitor *m, const struct contract_sample *s)
{
    char key[2 * SAMPLE_NAME_MAX];
    size_t plen = strlen(s->process), hlen = strlen(s->host);
    memcpy(key, s->process, plen + 1);
    memcpy(key + plen + 1, s->host, hlen);
    const struct hashmap_slot *known = hashmap_find(&m->index, key, plen + 1 + hlen);
    if (known)
        return &m->states[(intptr_t)known->value];
    intptr_t id = (intptr_t)m->n_states;
    struct process_state *p = VEC_PUSH(m->states, m->n_states, m->cap_states);
    if (!p)
        return NULL;
    if (hashmap_put_bytes(&m->index, key, plen + 1 + hlen, (void *)id) < 0) {
        m->n_states--;
        return NULL;
    }
    snprintf(p->process, sizeof p->process, "%s", s->process);
    snprintf(p->host, sizeof p->host, "%s", s->host);
    for (int sp = 0; sp < CONTRACT_N_SPACES; sp++)
        for (int d = 0; d <= CONTRACT_MAX_DIMS; d++)
            p->since[sp][d] = NAN;
    for (int d = 0; d < CONTRACT_MAX_DIMS; d++)
        p->last_x[d] = NAN;
    p->last_end = p->last_period = NAN;
    return p;
}

static const struct contract_process *baseline_process(const struct contract *c, const struct contract_sample *s)
{
    for (size_t i = 0; i < c->n_processes; i++)
        if (!strcmp(c->processes[i].process, s->process) && !strcmp(c->processes[i].host, s->host))
            return &c->processes[i];
    /* the same rank on another host is still the same rank */
    for (size_t i = 0; i < c->n_processes; i++)
        if (!strcmp(c->processes[i].process, s->process))
            return &c->processes[i];
    return NULL;
}

/* Distance to a centroid on the clustering's log scale, over the dimensions
 * present in x. */
static double partial_distance(const double *x, const double *centroid, const struct contract_space_model *sm)
{
    double s = 0;
    for (int d = 0; d < sm->n_dims; d++)
        if (!isnan(x[d])) {
            double v = contract_log_coordinate(x[d], sm->dims[d].scale) -
                       contract_log_coordinate(centroid[d], sm->dims[d].scale);
            s += v * v;
        }
    return sqrt(s);
}

static void clock_text(double epoch, char *buf, size_t buflen)
{
    time_t t = (time_t)epoch;
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(buf, buflen, "%H:%M:%S", &tm);
    else
        snprintf(buf, buflen, "%.0f", epoch);
}

/* Appends to the explanation without overflowing it. */
static void append(char *buf, size_t buflen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t buflen, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= buflen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, buflen - len, fmt, ap);
    va_end(ap);
}

static double service_of(const struct contract_monitor *m, const char *host, int d)
{
    for (size_t i = 0; i < m->n_svc; i++)
        if (!strcmp(m->svc_host[i], host))
            return m->svc[i][d];
    return 1;
}

static double runnable_of(const struct contract_monitor *m, const char *host)
{
    for (size_t i = 0; i < m->n_svc; i++)
        if (!strcmp(m->svc_host[i], host))
            return m->runnable[i];
    return NAN;
}

/* The cluster a sample is compared to in a space (see monitor.h), with the
 * projected coordinates and factors. Returns -1 when nothing is present. */
static long compare_cluster(const struct contract_monitor *m, const struct contract_sample *s, enum contract_space space,
                            double *x, double *factor, double *dist_out)
{
    const struct contract *c = m->c;
    const struct contract_space_model *sm = &c->space[space];
    int present = 0;
    for (int d = 0; d < sm->n_dims; d++) {
        int known;
        enum contract_capability cap =
            space == SPACE_EXECUTION ? metric_info(sm->dims[d].metric)->capability : CAP_NONE;
        factor[d] = contract_factor_for(c, m->caps, m->n_caps, s->host, cap, &known);
        if (space == SPACE_EXECUTION && m->live)
            factor[d] *= service_of(m, s->host, d);
        x[d] = contract_coordinate(c, space, d, s, factor[d]);
        present += !isnan(x[d]);
    }
    if (!present || sm->n_clusters == 0)
        return -1;
    const struct contract_process *bp = baseline_process(c, s);
    long best = -1;
    double best_d = INFINITY;
    int n_candidates = bp && bp->n_visits[space] ? bp->n_visits[space] : (int)sm->n_clusters;
    size_t total = 0;
    for (int i = 0; bp && i < bp->n_visits[space]; i++)
        total += bp->visit_points[space][i];
    for (int i = 0; i < n_candidates; i++) {
        long k = bp && bp->n_visits[space] ? bp->visits[space][i] : i;
        if (bp && bp->n_visits[space] && total && (double)bp->visit_points[space][i] < CONTRACT_REGULAR_SHARE * (double)total)
            continue; /* a rare excursion of the baseline */
        double dd = partial_distance(x, sm->clusters[k].centroid, sm);
        if (dd < best_d) {
            best_d = dd;
            best = k;
        }
    }
    *dist_out = best_d;
    return best;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Live mode: per host and execution dimension, the median of value /
 * expected over the batch's processes whose expectation is not negligible. */
static int compute_service(struct contract_monitor *m, const struct contract_sample *samples, size_t n)
{
    const struct contract_space_model *sm = &m->c->space[SPACE_EXECUTION];
    free(m->svc_host);
    free(m->svc);
    free(m->runnable);
    m->n_svc = 0;
    m->svc_host = calloc(n + 1, sizeof *m->svc_host);
    m->svc = calloc(n + 1, sizeof *m->svc);
    m->runnable = calloc(n + 1, sizeof *m->runnable);
    double *ratios = calloc(n + 1, sizeof *ratios);
    if (!m->svc_host || !m->svc || !m->runnable || !ratios) {
        free(ratios);
        return -1;
    }
    int saved = m->live;
    m->live = 0; /* coordinates against the contract's own factors */
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t h = 0; h < m->n_svc; h++)
            seen |= !strcmp(m->svc_host[h], samples[i].host);
        if (seen)
            continue;
        size_t h = m->n_svc++;
        snprintf(m->svc_host[h], SAMPLE_NAME_MAX, "%s", samples[i].host);
        size_t kr = 0;
        for (size_t j = i; j < n; j++)
            if (!strcmp(samples[j].host, samples[i].host) && !isnan(samples[j].runnable_per_core))
                ratios[kr++] = samples[j].runnable_per_core;
        qsort(ratios, kr, sizeof *ratios, by_double);
        m->runnable[h] = kr == 0 ? NAN : kr % 2 ? ratios[kr / 2] : 0.5 * (ratios[kr / 2 - 1] + ratios[kr / 2]);
        for (int d = 0; d < sm->n_dims; d++) {
            size_t k = 0;
            for (size_t j = i; j < n; j++) {
                if (strcmp(samples[j].host, samples[i].host))
                    continue;
                double x[CONTRACT_MAX_DIMS], f[CONTRACT_MAX_DIMS], dist;
                long cl = compare_cluster(m, &samples[j], SPACE_EXECUTION, x, f, &dist);
                if (cl < 0 || isnan(x[d]))
                    continue;
                double cen = sm->clusters[cl].centroid[d];
                if (!(cen > 0.01 * sm->dims[d].scale))
                    continue; /* a process that hardly uses this resource says nothing of the host */
                ratios[k++] = x[d] / cen;
            }
            double level = 1;
            if (k >= LIVE_MIN_PROCESSES) {
                qsort(ratios, k, sizeof *ratios, by_double);
                level = k % 2 ? ratios[k / 2] : 0.5 * (ratios[k / 2 - 1] + ratios[k / 2]);
                if (!(level > 0))
                    level = 1;
            }
            m->svc[h][d] = level;
        }
    }
    m->live = saved;
    free(ratios);
    return 0;
}

/* Whether a consumption dimension (CPU) below its projection is judged: only
 * when the sample has no production dimension in this space. A process
 * doing its projected work (its FLOP/s, bytes/s, jobs/s at the projection)
 * with less CPU needed less, it did not get less: on a busy host a master
 * handling messages in fewer, fuller wake-ups used 0.55 of its projected CPU
 * at the projected job rate. One that got less than it needed shows it in
 * the work it did, the production dimensions, which are judged as before. */
static int consumption_judged(const struct contract_space_model *sm, const double *x)
{
    for (int d = 0; d < sm->n_dims; d++)
        if (!metric_info(sm->dims[d].metric)->consumption && !isnan(x[d]))
            return 0;
    return 1;
}

/* Below the projection on an oversubscribed host (live mode), the execution
 * coordinate judged is the mean over this period and the one just before it
 * (weighted by their lengths): *window gets the seconds it covers. NAN when
 * the process has no previous period adjoining this one: it is not judged
 * below its projection yet (monitor.h, LIVE_OVERSUBSCRIBED_BELOW). */
static double windowed_below(const struct process_state *st, const struct contract_sample *s, int d, double x,
                             double *window)
{
    double start = s->time - s->period;
    if (isnan(st->last_x[d]) || !(fabs(start - st->last_end) <= 0.5 * s->period)) {
        *window = s->period;
        return NAN;
    }
    *window = s->period + st->last_period;
    return (x * s->period + st->last_x[d] * st->last_period) / *window;
}

static long evaluate_space(struct contract_monitor *m, const struct contract_sample *s, struct process_state *st,
                           enum contract_space space, contract_level_fn fn, void *ctx)
{
    const struct contract *c = m->c;
    const struct contract_space_model *sm = &c->space[space];
    if (sm->n_dims == 0 || sm->n_clusters == 0)
        return 0;
    double x[CONTRACT_MAX_DIMS], factor[CONTRACT_MAX_DIMS], best_d;
    long best = compare_cluster(m, s, space, x, factor, &best_d);
    if (best < 0)
        return 0;
    const struct contract_cluster *cc = &sm->clusters[best];
    struct contract_level lv = {.process = s->process, .host = s->host, .time = s->time, .period = s->period,
                                .space = space, .cluster = best, .cluster_distance = best_d};
    double overall = 0, overall_distance = 0;
    long violations = 0;
    char *ex = m->explanation;
    snprintf(ex, sizeof m->explanation, "process %s (host %s) %s:", s->process, s->host, space_name(space));
    int first = 1;
    for (int d = 0; d < sm->n_dims; d++) {
        if (isnan(x[d]))
            continue;
        const struct contract_rulebase *rb = m->rb[space][d];
        /* live factors replace the projection factor's spread in the tolerance */
        double tol = m->live && cc->tolerance_live[d] > 0 ? cc->tolerance_live[d] : cc->tolerance[d];
        double rq = m->live && space == SPACE_EXECUTION ? runnable_of(m, s->host) : NAN;
        double shown = x[d], judged = x[d]; /* what is reported, what the distance is of */
        lv.window = s->period;
        if (rq > 1 && x[d] > cc->centroid[d]) { /* above the projection on an oversubscribed host */
            tol = fmax(tol, LIVE_OVERSUBSCRIBED_TOLERANCE * (rq - 1) * fabs(cc->centroid[d]));
        } else if (rq > 1 && x[d] < cc->centroid[d]) { /* below it: a fixed bound, not growing with rq, */
            tol = fmax(tol, LIVE_OVERSUBSCRIBED_BELOW * fabs(cc->centroid[d]));
            double mean = windowed_below(st, s, d, x[d], &lv.window); /* over two periods */
            shown = isnan(mean) ? x[d] : mean;
            judged = isnan(mean) || mean > cc->centroid[d] ? cc->centroid[d] : mean; /* not below over it */
        }
        if (sm->dims[d].metric == METRIC_FLOPS_PER_JOB) { /* known to one job in the period's */
            double jobs = s->value[METRIC_ITERATIONS_PER_S] * s->period;
            if (jobs >= 1)
                tol = fmax(tol, JOB_RESOLUTION_TOLERANCE * fabs(cc->centroid[d]) / jobs);
        }
        double dist = fabs(judged - cc->centroid[d]) / tol;
        double level = rb ? fuzzy_evaluate1(rb->parsed, rb->in_var, dist, rb->out_var) : NAN;
        if (isnan(level))
            level = 0; /* no rule fired: the rulebase does not cover this distance */
        if (space == SPACE_EXECUTION && metric_info(sm->dims[d].metric)->consumption &&
            x[d] < cc->centroid[d] && !consumption_judged(sm, x))
            level = 0; /* spent less on the projected work */
        level = level < 0 ? 0 : level > 1 ? 1 : level;
        lv.dimension = sm->dims[d].name;
        lv.overall = 0;
        lv.level = level;
        lv.distance = dist;
        lv.value = shown == x[d] ? s->value[sm->dims[d].metric] : shown * factor[d];
        lv.expected = space == SPACE_EXECUTION ? cc->centroid[d] * factor[d] : cc->centroid[d];
        lv.service = space == SPACE_EXECUTION && m->live ? service_of(m, s->host, d) : 1;
        double *since = &st->since[space][d];
        lv.onset = 0;
        if (level >= m->threshold) {
            violations++;
            if (isnan(*since)) {
                *since = s->time - s->period;
                lv.onset = 1;
            }
        } else {
            *since = NAN;
        }
        lv.since = *since;
        lv.explanation = NULL;
        fn(ctx, &lv);
        overall = fmax(overall, level);
        overall_distance = fmax(overall_distance, dist);
        append(ex, sizeof m->explanation, "%s %s %.2f", first ? "" : ";", lv.dimension, level);
        first = 0;
        if (level >= m->threshold) {
            char got[32], want[32], when[32];
            format_si(lv.expected, want, sizeof want);
            format_si(lv.value, got, sizeof got);
            clock_text(*since, when, sizeof when);
            double rel = lv.expected != 0 ? (lv.value - lv.expected) / fabs(lv.expected) : INFINITY;
            if (isfinite(rel))
                append(ex, sizeof m->explanation, " (%s %.0f%% %s the %s %s since %s)", metric_info(sm->dims[d].metric)->label,
                       fabs(rel) * 100, rel < 0 ? "below" : "above",
                       space == SPACE_EXECUTION ? "projected" : "contract's", want, when);
            else
                append(ex, sizeof m->explanation, " (%s %s where the contract expects %s, since %s)",
                       metric_info(sm->dims[d].metric)->label, got, want, when);
        }
    }
    if (space == SPACE_EXECUTION) {
        for (int d = 0; d < sm->n_dims; d++)
            st->last_x[d] = x[d];
        st->last_end = s->time;
        st->last_period = s->period;
    }
    lv.dimension = "overall";
    lv.overall = 1;
    lv.window = s->period;
    lv.level = overall;
    lv.distance = overall_distance;
    lv.value = lv.expected = NAN;
    lv.service = 1;
    double *since = &st->since[space][CONTRACT_MAX_DIMS];
    lv.onset = 0;
    if (overall >= m->threshold) {
        if (isnan(*since)) {
            *since = s->time - s->period;
            lv.onset = 1;
        }
    } else {
        *since = NAN;
    }
    lv.since = *since;
    lv.explanation = ex;
    fn(ctx, &lv);
    return violations;
}

long contract_monitor_feed(struct contract_monitor *m, const struct contract_sample *samples, size_t n,
                           contract_level_fn fn, void *ctx)
{
    long violations = 0;
    if (m->live && compute_service(m, samples, n) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct process_state *st = state_for(m, &samples[i]);
        if (!st)
            return -1;
        for (int s = 0; s < CONTRACT_N_SPACES; s++)
            violations += evaluate_space(m, &samples[i], st, s, fn, ctx);
    }
    return violations;
}
