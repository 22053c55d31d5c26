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

/* Since when each dimension (and the overall) of a process has been violated. */
struct process_state {
    char process[SAMPLE_NAME_MAX], host[SAMPLE_NAME_MAX];
    double since[CONTRACT_N_SPACES][CONTRACT_MAX_DIMS + 1];
};

struct contract_monitor {
    const struct contract *c;
    double threshold;
    const struct contract_factor *caps;
    size_t n_caps;
    struct process_state *states;
    size_t n_states, cap_states;
    const struct contract_rulebase *rb[CONTRACT_N_SPACES][CONTRACT_MAX_DIMS];
    char explanation[2048];
};

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

static struct process_state *state_for(struct contract_monitor *m, const struct contract_sample *s)
{
    for (size_t i = 0; i < m->n_states; i++)
        if (!strcmp(m->states[i].process, s->process) && !strcmp(m->states[i].host, s->host))
            return &m->states[i];
    if (m->n_states == m->cap_states) {
        size_t cap = m->cap_states ? m->cap_states * 2 : 64;
        struct process_state *v = realloc(m->states, cap * sizeof *v);
        if (!v)
            return NULL;
        m->states = v;
        m->cap_states = cap;
    }
    struct process_state *p = &m->states[m->n_states++];
    memset(p, 0, sizeof *p);
    snprintf(p->process, sizeof p->process, "%s", s->process);
    snprintf(p->host, sizeof p->host, "%s", s->host);
    for (int sp = 0; sp < CONTRACT_N_SPACES; sp++)
        for (int d = 0; d <= CONTRACT_MAX_DIMS; d++)
            p->since[sp][d] = NAN;
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

/* Distance to a centroid over the dimensions present in x. */
static double partial_distance(const double *x, const double *centroid, const struct contract_space_model *sm)
{
    double s = 0;
    for (int d = 0; d < sm->n_dims; d++)
        if (!isnan(x[d])) {
            double v = (x[d] - centroid[d]) / sm->dims[d].scale;
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

static long evaluate_space(struct contract_monitor *m, const struct contract_sample *s, struct process_state *st,
                           enum contract_space space, contract_level_fn fn, void *ctx)
{
    const struct contract *c = m->c;
    const struct contract_space_model *sm = &c->space[space];
    if (sm->n_dims == 0 || sm->n_clusters == 0)
        return 0;
    double x[CONTRACT_MAX_DIMS], factor[CONTRACT_MAX_DIMS];
    int present = 0;
    for (int d = 0; d < sm->n_dims; d++) {
        int known;
        enum contract_capability cap =
            space == SPACE_EXECUTION ? metric_info(sm->dims[d].metric)->capability : CAP_NONE;
        factor[d] = contract_factor_for(c, m->caps, m->n_caps, s->host, cap, &known);
        x[d] = contract_coordinate(c, space, d, s, factor[d]);
        present += !isnan(x[d]);
    }
    if (!present)
        return 0;
    /* the cluster compared to */
    const struct contract_process *bp = baseline_process(c, s);
    long best = -1;
    double best_d = INFINITY;
    int n_candidates = bp && bp->n_visits[space] ? bp->n_visits[space] : (int)sm->n_clusters;
    for (int i = 0; i < n_candidates; i++) {
        long k = bp && bp->n_visits[space] ? bp->visits[space][i] : i;
        double dd = partial_distance(x, sm->clusters[k].centroid, sm);
        if (dd < best_d) {
            best_d = dd;
            best = k;
        }
    }
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
        double dist = fabs(x[d] - cc->centroid[d]) / cc->tolerance[d];
        double level = rb ? fuzzy_evaluate1(rb->parsed, rb->in_var, dist, rb->out_var) : NAN;
        if (isnan(level))
            level = 0; /* no rule fired: the rulebase does not cover this distance */
        level = level < 0 ? 0 : level > 1 ? 1 : level;
        lv.dimension = sm->dims[d].name;
        lv.overall = 0;
        lv.level = level;
        lv.distance = dist;
        lv.value = s->value[sm->dims[d].metric];
        lv.expected = space == SPACE_EXECUTION ? cc->centroid[d] * factor[d] : cc->centroid[d];
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
    lv.dimension = "overall";
    lv.overall = 1;
    lv.level = overall;
    lv.distance = overall_distance;
    lv.value = lv.expected = NAN;
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
    for (size_t i = 0; i < n; i++) {
        struct process_state *st = state_for(m, &samples[i]);
        if (!st)
            return -1;
        for (int s = 0; s < CONTRACT_N_SPACES; s++)
            violations += evaluate_space(m, &samples[i], st, s, fn, ctx);
    }
    return violations;
}
