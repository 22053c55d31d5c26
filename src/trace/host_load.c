/* A host's capacities over time and the load of everyone else on it (see
 * host_load.h). Following "Visualization and Detection of Resource Usage
 * Anomalies in Large Scale Distributed Systems" (Schnorr, Legrand, Vincent),
 * section 2.1: the capacity rho_r(t) of each resource is the host's own
 * (cores online, MemTotal, link speed), recorded at every sample, and the
 * usage none of the categories accounts for is a category of its own, so
 * that sum_c rho_{r,c}(t) <= rho_r(t) (eq. 1) tells the whole truth:
 *   other-load(t) = host-wide use - sum of the monitored tasks' use,
 * a rate over each interval between two host readings for cpu, io (disk)
 * and network, a level at each reading for memory; never below 0, and never
 * more than the capacity the tasks leave. */
#include "trace/host_load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/word_lines.h"
#include "util/vec.h"

int host_log_add(struct host_log *log, const struct host_row *row)
{
    struct host_row *r = VEC_PUSH(log->rows, log->n, log->cap);
    if (!r)
        return -1;
    *r = *row;
    return 0;
}

void host_log_free(struct host_log *log)
{
    free(log->rows);
    log->rows = NULL;
    log->n = log->cap = 0;
}

struct capacity_ctx {
    struct trace *t;
    struct host_log *logs;
};

/* One line "HOST disk=MB/s network=MB/s" of the --capacity file. */
static int capacity_line(void *ctx, char **words, size_t n, char *why, size_t why_size)
{
    struct capacity_ctx *c = ctx;
    struct trace *t = c->t;
    const char *host = words[0];
    double disk = -1, net = -1;
    for (size_t i = 1; i < n; i++) {
        char *w = words[i], *eq = strchr(w, '='), *stop = NULL;
        double v = eq ? strtod(eq + 1, &stop) : NAN;
        if (!eq || !stop || *stop || !(v > 0) || !isfinite(v)) {
            snprintf(why, why_size, "'%s' is not disk=MB/s or network=MB/s (a positive number)", w);
            return -1;
        }
        *eq = '\0';
        if (!strcmp(w, "disk"))
            disk = v;
        else if (!strcmp(w, "network"))
            net = v;
        else {
            snprintf(why, why_size, "unknown key '%s' (disk, network)", w);
            return -1;
        }
    }
    bool all = !strcmp(host, "*"), found = all;
    int host_type = trace_find_type(t, "host");
    for (size_t h = 0; h < t->n_containers; h++) {
        if (t->containers[h].type != host_type || (!all && strcmp(t->containers[h].name, host)))
            continue;
        found = true;
        if (disk > 0)
            c->logs[h].disk_bandwidth = disk;
        if (net > 0)
            c->logs[h].net_bandwidth = net;
    }
    if (!found) {
        snprintf(why, why_size, "no run was on host '%s'", host);
        return -1;
    }
    return 0;
}

int host_capacity_file(struct trace *t, struct host_log *logs, const char *path, char *why,
                       size_t why_size)
{
    struct capacity_ctx c = {t, logs};
    return word_lines_read(path, capacity_line, &c, why, why_size);
}

static int by_time(const void *x, const void *y)
{
    const struct host_row *a = x, *b = y;
    return a->time < b->time ? -1 : a->time > b->time;
}

/* Mean of a signal (no integral index yet) over [a, b), b > a. */
static double signal_mean(const struct trace_signal *s, double a, double b)
{
    double sum = 0;
    for (size_t i = 0; i < s->n; i++) {
        double from = s->t[i], to = i + 1 < s->n ? s->t[i + 1] : INFINITY;
        if (to <= a)
            continue;
        if (from >= b)
            break;
        sum += s->v[i] * ((to < b ? to : b) - (from > a ? from : a));
    }
    return sum / (b - a);
}

static double tasks_mean(const struct trace_resource *res, size_t n_tasks, double a, double b)
{
    double sum = 0;
    for (size_t c = 0; c < n_tasks; c++)
        sum += signal_mean(&res->usage[c], a, b);
    return sum;
}

static double tasks_at(const struct trace_resource *res, size_t n_tasks, double time)
{
    double sum = 0;
    for (size_t c = 0; c < n_tasks; c++)
        sum += trace_signal_value_at(&res->usage[c], time);
    return sum;
}

/* The peak of the total usage of res, at any category's breakpoint. */
static double peak_total(const struct trace *t, const struct trace_resource *res)
{
    double peak = 0;
    for (size_t c = 0; c < t->n_categories; c++)
        for (size_t k = 0; k < res->usage[c].n; k++) {
            double total = tasks_at(res, t->n_categories, res->usage[c].t[k]);
            if (total > peak)
                peak = total;
        }
    return peak;
}

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* cpu_time of a live process is read in clock ticks (10 ms), so d cpu_time / d t
 * over a short interval can exceed the host's cores by that resolution. Such an
 * excess is moved back to the preceding intervals of the same categories, where
 * the late ticks belong (each category's CPU-seconds are conserved), so that
 * eq. 1 holds; an excess that cannot be absorbed stays and is reported. */
static int absorb_tick_excess(struct trace *t, struct trace_resource *res)
{
    size_t total = 0, nc = t->n_categories;
    for (size_t c = 0; c < nc; c++)
        total += res->usage[c].n;
    if (total == 0 || res->capacity.n == 0)
        return 0;
    double *times = malloc(total * sizeof *times);
    double *values = malloc(total * nc * sizeof *values);
    double *carry = calloc(nc, sizeof *carry);
    int rc = -1;
    if (!times || !values || !carry)
        goto out;
    size_t n = 0;
    for (size_t c = 0; c < nc; c++)
        for (size_t k = 0; k < res->usage[c].n; k++)
            times[n++] = res->usage[c].t[k];
    qsort(times, n, sizeof *times, compare_doubles);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (m == 0 || times[k] != times[m - 1])
            times[m++] = times[k];
    for (size_t k = 0; k < m; k++)
        for (size_t c = 0; c < nc; c++)
            values[k * nc + c] = res->usage[c].n ? trace_signal_value_at(&res->usage[c], times[k]) : 0;
    for (size_t k = m - 1; k-- > 0;) { /* interval [times[k], times[k+1]), latest first */
        double dt = times[k + 1] - times[k], cap = trace_signal_value_at(&res->capacity, times[k]);
        double sum = 0;
        for (size_t c = 0; c < nc; c++) {
            double *v = &values[k * nc + c];
            if (*v > 0 || carry[c] > 0) /* only where the category was running */
                *v += carry[c] / dt, carry[c] = 0;
            sum += *v;
        }
        if (sum > cap && cap > 0)
            for (size_t c = 0; c < nc; c++) {
                double *v = &values[k * nc + c], kept = *v * cap / sum;
                carry[c] = (*v - kept) * dt;
                *v = kept;
            }
    }
    for (size_t c = 0; c < nc; c++) { /* what found no room goes back where it was seen */
        if (carry[c] > 0 && m > 1)
            values[c] += carry[c] / (times[1] - times[0]);
        if (res->usage[c].n == 0)
            continue;
        res->usage[c].n = 0;
        for (size_t k = 0; k < m; k++)
            if (trace_signal_push(&res->usage[c], times[k], values[k * nc + c]) < 0)
                goto out;
    }
    rc = 0;
out:
    free(times);
    free(values);
    free(carry);
    return rc;
}

enum { CAP_CPU, CAP_MEMORY, CAP_NET };

static double row_capacity(const struct host_row *r, int which, const struct host_log *log)
{
    switch (which) {
    case CAP_CPU: return r->cores;
    case CAP_MEMORY: return r->memory_total;
    default: return log->net_bandwidth > 0 ? log->net_bandwidth : r->net_bandwidth;
    }
}

/* The capacity of a kind from the rows, from the host's first moment. */
static int capacity_from_rows(struct trace_signal *cap, const struct host_log *log, int which)
{
    cap->n = 0;
    for (size_t k = 0; k < log->n; k++) {
        double v = row_capacity(&log->rows[k], which, log);
        if (k > 0 && v == cap->v[cap->n - 1])
            continue;
        if (trace_signal_push(cap, k == 0 ? log->first : log->rows[k].time, v) < 0)
            return -1;
    }
    return 0;
}

static double row_counter(const struct host_row *r, const char *kind)
{
    return !strcmp(kind, "cpu") ? r->cpu : !strcmp(kind, "io") ? r->disk : r->net;
}

/* Pushes other-load value v over [a, b), less where the tasks leave less
 * room than v under the capacity (the tasks' breakpoints inside split it). */
static int push_within_room(struct trace_signal *s, const struct trace_resource *res,
                            size_t n_tasks, double a, double b, double v, double **cuts, size_t *cap)
{
    size_t n = 0;
    for (size_t c = 0; c < n_tasks; c++)
        for (size_t i = 0; i < res->usage[c].n; i++) {
            double x = res->usage[c].t[i];
            if (x <= a || x >= b)
                continue;
            double *p = VEC_PUSH(*cuts, n, *cap);
            if (!p)
                return -1;
            *p = x;
        }
    if (n)
        qsort(*cuts, n, sizeof **cuts, compare_doubles);
    for (size_t j = 0; j <= n; j++) {
        double from = j == 0 ? a : (*cuts)[j - 1];
        double room = res->capacity.n && !res->capacity_inferred
                          ? trace_signal_value_at(&res->capacity, from) - tasks_at(res, n_tasks, from)
                          : INFINITY;
        double w = v < room ? v : room;
        if (trace_signal_push(s, from, w > 1e-9 ? w : 0) < 0)
            return -1;
    }
    return 0;
}

/* other-load of a rate (cpu, io, network) over each interval between readings */
static int other_rate(struct trace *t, int r, int other, const struct host_log *log)
{
    struct trace_resource *res = &t->resources[r];
    size_t n_tasks = (size_t)other; /* other-load is the last category */
    struct trace_signal *s = &res->usage[other];
    double *cuts = NULL;
    size_t cap = 0;
    int rc = 0;
    for (size_t k = 0; k + 1 < log->n && rc == 0; k++) {
        double a = log->rows[k].time, b = log->rows[k + 1].time;
        double rate = (row_counter(&log->rows[k + 1], res->kind) - row_counter(&log->rows[k], res->kind)) / (b - a);
        double v = rate - tasks_mean(res, n_tasks, a, b);
        rc = push_within_room(s, res, n_tasks, a, b, v > 0 ? v : 0, &cuts, &cap);
    }
    free(cuts);
    if (rc == 0 && log->n > 1)
        rc = trace_signal_push(s, log->rows[log->n - 1].time, 0);
    return rc;
}

/* other-load of memory: a level at each reading, held until the next */
static int other_memory(struct trace *t, int r, int other, const struct host_log *log)
{
    struct trace_resource *res = &t->resources[r];
    struct trace_signal *s = &res->usage[other];
    double *cuts = NULL;
    size_t cap = 0;
    int rc = 0;
    for (size_t k = 0; k < log->n && rc == 0; k++) {
        const struct host_row *row = &log->rows[k];
        double v = row->memory_used - tasks_at(res, (size_t)other, row->time);
        double b = k + 1 < log->n ? log->rows[k + 1].time : INFINITY;
        rc = push_within_room(s, res, (size_t)other, row->time, b, v > 0 ? v : 0, &cuts, &cap);
    }
    free(cuts);
    return rc;
}

/* An inferred capacity: the peak of the total, from the host's first moment. */
static int inferred_capacity(struct trace *t, struct trace_resource *res, double first)
{
    res->capacity.n = 0;
    res->capacity_inferred = true;
    return trace_signal_push(&res->capacity, first, peak_total(t, res));
}

int host_load_apply(struct trace *t, int h, struct host_log *log)
{
    struct trace_container *c = &t->containers[h];
    if (log->n) { /* readings in time order, one per moment (the last one wins) */
        qsort(log->rows, log->n, sizeof *log->rows, by_time);
        size_t m = 0;
        for (size_t k = 0; k < log->n; k++) {
            if (m && log->rows[m - 1].time == log->rows[k].time)
                m--;
            log->rows[m++] = log->rows[k];
        }
        log->n = m;
        if (log->rows[0].time < log->first)
            log->first = log->rows[0].time;
        if (log->rows[m - 1].time > log->last)
            log->last = log->rows[m - 1].time;
    }
    c->start = log->first;
    c->end = log->last; /* a host's capacity ends with its last moment: no idle after it */
    int cpu = trace_resource_for(t, h, "cpu"), mem = trace_resource_for(t, h, "memory");
    int io = trace_resource_for(t, h, "io");
    int net = log->n ? trace_resource_for(t, h, "network") : -1;
    if (cpu < 0 || mem < 0 || io < 0 || (log->n && net < 0))
        return -1;
    if (log->n) {
        if (capacity_from_rows(&t->resources[cpu].capacity, log, CAP_CPU) < 0 ||
            capacity_from_rows(&t->resources[mem].capacity, log, CAP_MEMORY) < 0)
            return -1;
    } else if (trace_signal_push(&t->resources[cpu].capacity, log->first, log->summary_cpus) < 0)
        return -1;
    if (absorb_tick_excess(t, &t->resources[cpu]) < 0)
        return -1;
    if (log->n) {
        int other = trace_find_category(t, HOST_OTHER_LOAD);
        struct trace_resource *n = &t->resources[net];
        bool net_known = log->net_bandwidth > 0;
        for (size_t k = 0; k < log->n && !net_known; k++)
            net_known = log->rows[k].net_bandwidth > 0;
        if (net_known && capacity_from_rows(&n->capacity, log, CAP_NET) < 0)
            return -1;
        if (log->disk_bandwidth > 0 &&
            trace_signal_push(&t->resources[io].capacity, log->first, log->disk_bandwidth) < 0)
            return -1;
        t->resources[io].capacity_inferred = !(log->disk_bandwidth > 0);
        n->capacity_inferred = !net_known;
        if (other_rate(t, cpu, other, log) < 0 || other_memory(t, mem, other, log) < 0 ||
            other_rate(t, io, other, log) < 0 || other_rate(t, net, other, log) < 0)
            return -1;
        if (!net_known && inferred_capacity(t, &t->resources[net], log->first) < 0)
            return -1;
        if (!(log->disk_bandwidth > 0) && inferred_capacity(t, &t->resources[io], log->first) < 0)
            return -1;
        return 0;
    }
    /* an old series: memory and io capacities inferred from the peaks */
    if (inferred_capacity(t, &t->resources[mem], log->first) < 0 ||
        inferred_capacity(t, &t->resources[io], log->first) < 0)
        return -1;
    return 0;
}
