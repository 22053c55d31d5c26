/* Building a categorized trace from 'tally run --category C --time-series -o
 * PREFIX' outputs gathered from many hosts (seed 000 on real tasks).
 *
 * Per host (the summary's "host"): a container of type "host", alive from
 * its first moment (first task start or host reading) to its last, holding
 * these resources:
 *   cpu     capacity = the host's cores online at each sample (host_cores;
 *           machine_cpus for a series without host columns); usage of
 *           category C = the cores its tasks used over each interval,
 *           d cpu_time / d t (so the integral is the CPU time; the "cores"
 *           column if cpu_time is absent)
 *   memory  usage = memory (MB) of C's tasks at each sample; capacity =
 *           MemTotal (host_memory_total)
 *   io      usage = disk I/O rate in MB/s of C's tasks (storage_bytes_read +
 *           storage_bytes_written; bytes_read + bytes_written, which count
 *           pipes and the page cache too, in an older series); capacity = the
 *           disk bandwidth given with --capacity, else the peak total
 *   network usage = (bytes_received + bytes_sent) rate in MB/s of C's
 *           tasks; capacity = the --capacity figure, else the link speeds
 *           the series recorded, else the peak total
 * A capacity taken from the peak is marked inferred (no saturation of it is
 * a finding). The category "other-load" holds what the host did besides the
 * monitored tasks (host_load.h). A series without host columns (tally before
 * them) gives cpu, memory and io as before: memory and io capacities are
 * the peaks then, and there is no other-load.
 * Each task's curve is turned into (time, delta) steps; steps of the same
 * host, kind and category are summed, so concurrent tasks add up (eq. 3). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report/series_read.h"
#include "report/summary_read.h"
#include "trace/from_runs.h"
#include "trace/mpi_links.h"
#include "trace/hierarchy.h"
#include "trace/host_load.h"
#include "util/vec.h"

enum { K_CPU, K_MEMORY, K_IO, K_NET, K_KINDS };
static const char *const kind_names[K_KINDS] = {"cpu", "memory", "io", "network"};

struct step {
    double time, delta;
    int host, kind, category; /* category -1: capacity */
};

struct builder {
    struct trace *t;
    struct step *steps;
    size_t n, cap;
    struct host_log *logs; /* [container] */
    size_t n_logs;         /* room in logs, all of it zeroed */
    char *why;
    size_t why_size;
};

/* The log of host container h, created (zeroed) when missing. */
static struct host_log *log_for(struct builder *b, int h)
{
    if ((size_t)h >= b->n_logs) {
        size_t had = b->n_logs;
        if (VEC_RESERVE(b->logs, b->n_logs, (size_t)h + 1) < 0)
            return NULL;
        memset(b->logs + had, 0, (b->n_logs - had) * sizeof *b->logs);
    }
    return &b->logs[h];
}

static int add_step(struct builder *b, double time, double delta, int host, int kind, int category)
{
    if (delta == 0)
        return 0;
    struct step *s = VEC_PUSH(b->steps, b->n, b->cap);
    if (!s) {
        snprintf(b->why, b->why_size, "out of memory");
        return -1;
    }
    *s = (struct step){time, delta, host, kind, category};
    return 0;
}

/* A task's piecewise-constant curve: value v[i] on [a[i], a[i+1]), 0 after the last a. */
static int add_curve(struct builder *b, const double *a, const double *v, size_t n, double end,
                     int host, int kind, int category)
{
    double prev = 0;
    for (size_t i = 0; i < n; i++) {
        if (add_step(b, a[i], v[i] - prev, host, kind, category) < 0)
            return -1;
        prev = v[i];
    }
    return add_step(b, end, -prev, host, kind, category);
}

static int read_task(struct builder *b, const char *prefix)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.summary", prefix);
    json_t *sum = summary_load(path, b->why, b->why_size);
    if (!sum)
        return -1;
    const char *category = json_string_value(json_object_get(sum, "category"));
    const char *host = json_string_value(json_object_get(sum, "host"));
    double cpus = summary_number(sum, "machine_cpus", NAN);
    double start = summary_number(sum, "start", NAN), end = summary_number(sum, "end", NAN);
    if (!category || !host || !isfinite(cpus) || cpus <= 0 || !isfinite(start) || !isfinite(end) ||
        end < start) {
        snprintf(b->why, b->why_size,
                 "%s: needs \"category\" (run with --category), \"host\", \"machine_cpus\", "
                 "\"start\" and \"end\"",
                 path);
        json_decref(sum);
        return -1;
    }
    struct trace *t = b->t;
    int host_type = trace_find_type(t, "host");
    int h = trace_find_container(t, host);
    if (h < 0 || t->containers[h].type != host_type) /* a host named "root" or "0" is no root */
        h = trace_add_container(t, host, NULL, host_type, 0, start);
    if (!strcmp(category, HOST_OTHER_LOAD)) {
        snprintf(b->why, b->why_size,
                 "%s: category \"%s\" is the load of what tally did not run; name the task's category "
                 "otherwise",
                 path, HOST_OTHER_LOAD);
        json_decref(sum);
        return -1;
    }
    int cat = trace_add_category(t, category);
    json_decref(sum);
    struct host_log *log = h < 0 ? NULL : log_for(b, h);
    if (h < 0 || cat < 0 || !log) {
        snprintf(b->why, b->why_size, "out of memory");
        return -1;
    }
    if (start < t->start)
        t->start = start;
    if (end > t->end)
        t->end = end;
    if (log->summary_cpus == 0 || start < log->first)
        log->first = start;
    if (log->summary_cpus == 0 || end > log->last)
        log->last = end;
    if (cpus > log->summary_cpus) /* the host's cores as its summaries say (the max) */
        log->summary_cpus = cpus;

    snprintf(path, sizeof path, "%s.series", prefix);
    struct series_reader in;
    char why[160];
    if (series_reader_open(&in, path, why, sizeof why) < 0) {
        snprintf(b->why, b->why_size, "%s: %s (run with --time-series)", path, why);
        return -1;
    }
    int c_wall = -1, c_cores = -1, c_cpu = -1, c_mem = -1, c_read = -1, c_written = -1;
    int c_recv = -1, c_sent = -1, c_host[9];
    static const char *const host_columns[9] = {
        "host_cores", "host_memory_total", "host_network_bandwidth", "host_cpu_time", "host_memory_used",
        "host_disk_read", "host_disk_written", "host_received", "host_sent"};
    bool host_cols = false;
    size_t cap = 0, n = 0;
    double *wall = NULL, *cores = NULL, *cpu = NULL, *mem = NULL, *io = NULL, *net = NULL;
    int rc = -1, got;
    while ((got = series_reader_next(&in, b->why, b->why_size)) > 0) {
        unsigned long lineno = series_reader_line(&in);
        const double *vals = in.values;
        if (n == 0) { /* the first row: the header is known */
            c_wall = series_reader_column(&in, "wall_clock");
            c_cores = series_reader_column(&in, "cores");
            c_cpu = series_reader_column(&in, "cpu_time");
            c_mem = series_reader_column(&in, "memory");
            c_read = series_reader_column(&in, "storage_bytes_read");
            c_written = series_reader_column(&in, "storage_bytes_written");
            if (c_read < 0 || c_written < 0) { /* an older series: all bytes read and written */
                c_read = series_reader_column(&in, "bytes_read");
                c_written = series_reader_column(&in, "bytes_written");
            }
            c_recv = series_reader_column(&in, "bytes_received");
            c_sent = series_reader_column(&in, "bytes_sent");
            host_cols = true;
            for (int k = 0; k < 9; k++)
                host_cols &= (c_host[k] = series_reader_column(&in, host_columns[k])) >= 0;
            if (c_wall < 0 || (c_cores < 0 && c_cpu < 0)) {
                snprintf(b->why, b->why_size, "%s:%lu: header lacks wall_clock, or cpu_time and cores",
                         path, lineno);
                goto out;
            }
        }
        if (vec_reserve_parallel(&cap, n + 1, VEC_ARRAY(wall), VEC_ARRAY(cores), VEC_ARRAY(mem),
                                 VEC_ARRAY(io), VEC_ARRAY(cpu), VEC_ARRAY(net), NULL) < 0) {
            snprintf(b->why, b->why_size, "out of memory");
            goto out;
        }
        wall[n] = vals[c_wall];
        if (n > 0 && wall[n] < wall[n - 1]) {
            snprintf(b->why, b->why_size, "%s:%lu: wall_clock goes backwards", path, lineno);
            goto out;
        }
        cores[n] = c_cores >= 0 ? vals[c_cores] : 0;
        cpu[n] = c_cpu >= 0 ? vals[c_cpu] : 0;
        mem[n] = c_mem >= 0 ? vals[c_mem] : 0;
        io[n] = (c_read >= 0 ? vals[c_read] : 0) + (c_written >= 0 ? vals[c_written] : 0);
        net[n] = (c_recv >= 0 ? vals[c_recv] : 0) + (c_sent >= 0 ? vals[c_sent] : 0);
        if (host_cols) {
            struct host_row row = {
                wall[n], vals[c_host[0]], vals[c_host[1]], vals[c_host[2]], vals[c_host[3]],
                vals[c_host[4]], vals[c_host[5]] + vals[c_host[6]], vals[c_host[7]] + vals[c_host[8]]};
            if (row.cores <= 0 || row.memory_total <= 0) {
                snprintf(b->why, b->why_size, "%s:%lu: host_cores and host_memory_total must be positive",
                         path, lineno);
                goto out;
            }
            if (host_log_add(&b->logs[h], &row) < 0) {
                snprintf(b->why, b->why_size, "out of memory");
                goto out;
            }
        }
        n++;
    }
    if (got < 0)
        goto out;
    /* cpu and io as rates over each interval (previous sample, this sample]:
     * cores from d cpu_time / d t (exact integral; the "cores" column only when
     * there is no cpu_time), io from d (bytes_read + bytes_written) / d t */
    double prev_time = start, prev_cpu = 0, prev_io = 0, prev_net = 0;
    for (size_t i = 0; i < n; i++) {
        if (wall[i] <= prev_time)
            continue; /* a repeated timestamp: its increase goes into the next interval */
        double dt = wall[i] - prev_time;
        double used = c_cpu >= 0 ? (cpu[i] - prev_cpu) / dt : cores[i];
        double rate = (io[i] - prev_io) / dt, net_rate = (net[i] - prev_net) / dt;
        if (add_step(b, prev_time, used, h, K_CPU, cat) < 0 ||
            add_step(b, wall[i], -used, h, K_CPU, cat) < 0 ||
            add_step(b, prev_time, rate, h, K_IO, cat) < 0 ||
            add_step(b, wall[i], -rate, h, K_IO, cat) < 0 ||
            (host_cols && (add_step(b, prev_time, net_rate, h, K_NET, cat) < 0 ||
                           add_step(b, wall[i], -net_rate, h, K_NET, cat) < 0)))
            goto out;
        prev_time = wall[i];
        prev_cpu = cpu[i];
        prev_io = io[i];
        prev_net = net[i];
    }
    /* memory: the sampled value holds until the next sample (the last until the end) */
    if (n && add_curve(b, wall, mem, n, end > wall[n - 1] ? end : wall[n - 1], h, K_MEMORY, cat) < 0)
        goto out;
    rc = 0;
out:
    series_reader_close(&in);
    free(wall);
    free(cores);
    free(cpu);
    free(mem);
    free(io);
    free(net);
    return rc;
}

static int by_signal_then_time(const void *x, const void *y)
{
    const struct step *a = x, *b = y;
    if (a->host != b->host)
        return a->host - b->host;
    if (a->kind != b->kind)
        return a->kind - b->kind;
    if (a->category != b->category)
        return a->category - b->category;
    return a->time < b->time ? -1 : a->time > b->time;
}

/* Sums the sorted steps into signals, then gives each host its capacities. */
static int build_signals(struct builder *b)
{
    struct trace *t = b->t;
    if (b->n) /* qsort must not be given NULL, even for no element */
        qsort(b->steps, b->n, sizeof *b->steps, by_signal_then_time);
    for (size_t i = 0; i < b->n;) {
        const struct step *first = &b->steps[i];
        int r = trace_resource_for(t, first->host, kind_names[first->kind]);
        if (r < 0)
            return -1;
        struct trace_signal *s = trace_usage_signal(t, r, first->category);
        double value = 0;
        size_t j = i;
        while (j < b->n && b->steps[j].host == first->host && b->steps[j].kind == first->kind &&
               b->steps[j].category == first->category) {
            double time = b->steps[j].time;
            while (j < b->n && b->steps[j].host == first->host && b->steps[j].kind == first->kind &&
                   b->steps[j].category == first->category && b->steps[j].time == time)
                value += b->steps[j++].delta;
            if (fabs(value) < 1e-9)
                value = 0;
            if (trace_signal_push(s, time, value) < 0)
                return -1;
        }
        i = j;
    }
    /* each host's span, capacities and other-load (host_load.h) */
    int host_type = trace_find_type(t, "host");
    for (size_t c = 0; c < t->n_containers; c++)
        if (t->containers[c].type == host_type && c < b->n_logs &&
            host_load_apply(t, (int)c, &b->logs[c]) < 0)
            return -1;
    return 0;
}

/* The first container with a signal value that is not finite (finite inputs
 * can give one: a rate over samples 1e-300 s apart, sums near 1e308), or -1. */
static int container_with_infinite_value(const struct trace *t)
{
    for (size_t r = 0; r < t->n_resources; r++) {
        const struct trace_resource *res = &t->resources[r];
        for (size_t c = 0; c <= t->n_categories; c++) {
            const struct trace_signal *s = c == t->n_categories ? &res->capacity : &res->usage[c];
            for (size_t i = 0; i < s->n; i++)
                if (!isfinite(s->v[i]))
                    return res->container;
        }
    }
    return -1;
}

static void free_logs(struct builder *b)
{
    for (size_t i = 0; i < b->n_logs; i++)
        host_log_free(&b->logs[i]);
    free(b->logs);
    free(b->steps);
}

/* --mpi: every run's links between hosts (mpi_links.h). */
static int add_mpi_links(struct trace *t, const char *const *prefixes, size_t n, char *why,
                         size_t why_size)
{
    struct mpi_links *m = mpi_links_new();
    int rc = m ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = mpi_links_add_run(m, t, prefixes[i], why, why_size);
    if (rc == 0 && mpi_links_build(m, t) < 0)
        rc = -1, snprintf(why, why_size, "out of memory");
    if (!m)
        snprintf(why, why_size, "out of memory");
    mpi_links_free(m);
    return rc;
}

int trace_from_runs(const char *const *prefixes, size_t n, const struct from_runs_options *opts,
                    struct trace *out, char *why, size_t why_size)
{
    const char *hierarchy_file = opts ? opts->hierarchy_file : NULL;
    trace_init(out);
    struct builder b = {.t = out, .why = why, .why_size = why_size};
    int root_type = trace_add_type(out, "root", -1);
    int host_type = trace_add_type(out, "host", root_type);
    if (root_type < 0 || host_type < 0 || trace_add_container(out, "root", "0", root_type, -1, 0) < 0) {
        snprintf(why, why_size, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++)
        if (read_task(&b, prefixes[i]) < 0)
            goto fail;
    bool readings = false;
    for (size_t i = 0; i < b.n_logs; i++)
        readings |= b.logs[i].n > 0;
    if (readings && trace_add_category(out, HOST_OTHER_LOAD) < 0) {
        snprintf(why, why_size, "out of memory");
        goto fail;
    }
    if (opts && opts->capacity_file &&
        host_capacity_file(out, b.logs, opts->capacity_file, why, why_size) < 0)
        goto fail;
    if (build_signals(&b) < 0) {
        snprintf(why, why_size, "out of memory");
        goto fail;
    }
    if (opts && opts->mpi && add_mpi_links(out, prefixes, n, why, why_size) < 0)
        goto fail;
    int bad = container_with_infinite_value(out);
    if (bad >= 0) {
        snprintf(why, why_size,
                 "host %s: its series give a value too large to represent (samples too close "
                 "together, or values out of range)",
                 out->containers[bad].name);
        goto fail;
    }
    out->containers[0].start = out->start;
    out->n_events = b.n;
    if (hierarchy_file && trace_apply_hierarchy(out, hierarchy_file, why, why_size) < 0)
        goto fail;
    if (trace_finish(out) < 0) {
        snprintf(why, why_size, "out of memory");
        goto fail;
    }
    free_logs(&b);
    return 0;
fail:
    free_logs(&b);
    trace_free(out);
    return -1;
}
