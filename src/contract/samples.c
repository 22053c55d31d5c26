/* Readers of contract samples: JSON lines (metrics or cumulative counters)
 * and tally run outputs (see samples.h). */
#include "contract/samples.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/series_read.h"
#include "report/summary_read.h"
#include "util/text_file.h"
#include "util/vec.h"

static const char *const counter_names[SAMPLE_N_COUNTERS] = {
    "flops", "jobs", "messages", "bytes", "io_bytes", "io_ops", "instructions", "cpu_seconds",
};

const char *counter_name(enum sample_counter c)
{
    return counter_names[c];
}

static int counter_by_name(const char *name)
{
    for (int c = 0; c < SAMPLE_N_COUNTERS; c++)
        if (!strcmp(counter_names[c], name))
            return c;
    if (!strcmp(name, "iterations")) /* what a loop calls its jobs */
        return COUNTER_JOBS;
    return -1;
}

void sample_init(struct contract_sample *s)
{
    memset(s, 0, sizeof *s);
    for (int m = 0; m < CONTRACT_N_METRICS; m++)
        s->value[m] = NAN;
    s->runnable_per_core = NAN;
}

static double ratio(double num, double den)
{
    return (isnan(num) || isnan(den) || den <= 0) ? NAN : num / den;
}

void samples_derive(const double *before, const double *after, double dt, double *value)
{
    double d[SAMPLE_N_COUNTERS];
    for (int c = 0; c < SAMPLE_N_COUNTERS; c++)
        d[c] = (isnan(before[c]) || isnan(after[c])) ? NAN : after[c] - before[c];
    for (int m = 0; m < CONTRACT_N_METRICS; m++)
        value[m] = NAN;
    value[METRIC_FLOPS_PER_JOB] = ratio(d[COUNTER_FLOPS], d[COUNTER_JOBS]);
    value[METRIC_INSTRUCTIONS_PER_FLOP] = ratio(d[COUNTER_INSTRUCTIONS], d[COUNTER_FLOPS]);
    value[METRIC_MESSAGES_PER_BYTE] = ratio(d[COUNTER_MESSAGES], d[COUNTER_BYTES]);
    value[METRIC_BYTES_PER_MESSAGE] = ratio(d[COUNTER_BYTES], d[COUNTER_MESSAGES]);
    value[METRIC_IO_BYTES_PER_OP] = ratio(d[COUNTER_IO_BYTES], d[COUNTER_IO_OPS]);
    value[METRIC_FLOPS_PER_S] = ratio(d[COUNTER_FLOPS], dt);
    value[METRIC_MESSAGES_PER_S] = ratio(d[COUNTER_MESSAGES], dt);
    value[METRIC_BYTES_PER_S] = ratio(d[COUNTER_BYTES], dt);
    value[METRIC_ITERATIONS_PER_S] = ratio(d[COUNTER_JOBS], dt);
    value[METRIC_IO_BYTES_PER_S] = ratio(d[COUNTER_IO_BYTES], dt);
    value[METRIC_CPU_SHARE] = ratio(d[COUNTER_CPU_SECONDS], dt);
}

int sample_set_push(struct sample_set *set, const struct contract_sample *s)
{
    struct contract_sample *v = VEC_PUSH(set->v, set->n, set->cap);
    if (!v)
        return -1;
    *v = *s;
    return 0;
}

void sample_set_free(struct sample_set *set)
{
    free(set->v);
    memset(set, 0, sizeof *set);
}

static int by_time_then_process(const void *a, const void *b)
{
    const struct contract_sample *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    int c = strcmp(x->process, y->process);
    return c ? c : strcmp(x->host, y->host);
}

void sample_set_sort(struct sample_set *set)
{
    if (set->n > 1)
        qsort(set->v, set->n, sizeof *set->v, by_time_then_process);
}

/* The last counter snapshot of each process seen in one file. */
struct snapshot {
    char process[SAMPLE_NAME_MAX], host[SAMPLE_NAME_MAX];
    double time;
    double counter[SAMPLE_N_COUNTERS];
};

struct snapshots {
    struct snapshot *v;
    size_t n, cap;
};

static struct snapshot *snapshot_for(struct snapshots *s, const char *process, const char *host, int *fresh)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].process, process) && !strcmp(s->v[i].host, host)) {
            *fresh = 0;
            return &s->v[i];
        }
    struct snapshot *n = VEC_PUSH(s->v, s->n, s->cap);
    if (!n)
        return NULL;
    snprintf(n->process, sizeof n->process, "%s", process);
    snprintf(n->host, sizeof n->host, "%s", host);
    *fresh = 1;
    return n;
}

/* Counters of one snapshot into a sample (or the reference). */
static int add_counters(struct snapshots *snaps, const char *process, const char *host, double t,
                        const double *counter, struct sample_set *set, const char **why)
{
    int fresh;
    struct snapshot *prev = snapshot_for(snaps, process, host, &fresh);
    if (!prev) {
        *why = "out of memory";
        return -1;
    }
    if (!fresh) {
        if (t <= prev->time) {
            *why = "\"t\" does not increase for this process";
            return -1;
        }
        struct contract_sample s;
        sample_init(&s);
        snprintf(s.process, sizeof s.process, "%s", process);
        snprintf(s.host, sizeof s.host, "%s", host);
        s.time = t;
        s.period = t - prev->time;
        samples_derive(prev->counter, counter, s.period, s.value);
        if (sample_set_push(set, &s) < 0) {
            *why = "out of memory";
            return -1;
        }
    }
    prev->time = t;
    memcpy(prev->counter, counter, sizeof prev->counter);
    return 0;
}

/* A JSON value as a name: strings as they are, integers printed. */
static int name_of(json_t *v, char *out, size_t outlen)
{
    if (json_is_string(v) && json_string_length(v) > 0 && json_string_length(v) < outlen) {
        snprintf(out, outlen, "%s", json_string_value(v));
        return 0;
    }
    if (json_is_integer(v)) {
        snprintf(out, outlen, "%lld", (long long)json_integer_value(v));
        return 0;
    }
    return -1;
}

static int parse_line(json_t *o, struct snapshots *snaps, struct sample_set *set, const char **why)
{
    char process[SAMPLE_NAME_MAX], host[SAMPLE_NAME_MAX] = "localhost";
    if (!json_is_object(o)) {
        *why = "not a JSON object";
        return -1;
    }
    if (name_of(json_object_get(o, "process"), process, sizeof process) < 0) {
        *why = "\"process\" missing (a string or integer of at most 63 characters)";
        return -1;
    }
    json_t *h = json_object_get(o, "host");
    if (h && name_of(h, host, sizeof host) < 0) {
        *why = "\"host\" is not a string of at most 63 characters";
        return -1;
    }
    json_t *t = json_object_get(o, "t");
    if (!json_is_number(t) || !isfinite(json_number_value(t))) {
        *why = "\"t\" (end of the period, epoch seconds) missing or not a number";
        return -1;
    }
    json_t *metrics = json_object_get(o, "metrics"), *counters = json_object_get(o, "counters");
    if (!!metrics == !!counters) {
        *why = "needs exactly one of \"metrics\" and \"counters\"";
        return -1;
    }
    const char *key;
    json_t *val;
    if (counters) {
        double c[SAMPLE_N_COUNTERS];
        for (int i = 0; i < SAMPLE_N_COUNTERS; i++)
            c[i] = NAN;
        if (!json_is_object(counters)) {
            *why = "\"counters\" is not an object";
            return -1;
        }
        json_object_foreach(counters, key, val) {
            int i = counter_by_name(key);
            if (i < 0)
                continue; /* other counters of the application: not ours */
            if (!json_is_number(val) || !isfinite(json_number_value(val))) {
                *why = "a counter is not a number";
                return -1;
            }
            c[i] = json_number_value(val);
        }
        return add_counters(snaps, process, host, json_number_value(t), c, set, why);
    }
    json_t *p = json_object_get(o, "period");
    if (!json_is_number(p) || !(json_number_value(p) > 0)) {
        *why = "\"period\" (seconds, > 0) missing with \"metrics\"";
        return -1;
    }
    if (!json_is_object(metrics)) {
        *why = "\"metrics\" is not an object";
        return -1;
    }
    struct contract_sample s;
    sample_init(&s);
    snprintf(s.process, sizeof s.process, "%s", process);
    snprintf(s.host, sizeof s.host, "%s", host);
    s.time = json_number_value(t);
    s.period = json_number_value(p);
    json_t *rq = json_object_get(o, "runnable_per_core");
    if (rq && !json_is_null(rq)) {
        if (!json_is_number(rq) || !(json_number_value(rq) >= 0) || !isfinite(json_number_value(rq))) {
            *why = "\"runnable_per_core\" is not a number >= 0";
            return -1;
        }
        s.runnable_per_core = json_number_value(rq);
    }
    json_object_foreach(metrics, key, val) {
        int m = metric_by_name(key);
        if (m < 0)
            continue;
        if (json_is_null(val))
            continue;
        if (!json_is_number(val) || !isfinite(json_number_value(val))) {
            *why = "a metric is not a number";
            return -1;
        }
        s.value[m] = json_number_value(val);
    }
    if (sample_set_push(set, &s) < 0) {
        *why = "out of memory";
        return -1;
    }
    return 0;
}

int samples_read_jsonl(FILE *f, const char *name, struct sample_set *set, char *why, size_t why_size)
{
    struct snapshots snaps = {0};
    struct text_lines in;
    text_lines_attach(&in, f, TEXT_FILE_LARGE, TEXT_LINE_MAX);
    char *line;
    size_t len;
    int rc = 0, got;
    while ((got = text_lines_next(&in, &line, &len)) > 0) {
        size_t i = 0;
        while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            i++;
        if (i == len || line[i] == '#')
            continue;
        json_error_t jerr;
        json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!o) {
            snprintf(why, why_size, "%s:%lu: %s", name, in.number, jerr.text);
            rc = -1;
            break;
        }
        const char *detail = NULL;
        int r = parse_line(o, &snaps, set, &detail);
        json_decref(o);
        if (r < 0) {
            snprintf(why, why_size, "%s:%lu: %s", name, in.number, detail);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && got < 0) {
        snprintf(why, why_size, "%s: %s", name, in.why);
        rc = -1;
    }
    text_lines_close(&in);
    free(snaps.v);
    return rc;
}

int samples_read_run(const char *prefix, struct sample_set *set, char *why, size_t why_size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.summary", prefix);
    json_t *sum = summary_load(path, why, why_size);
    if (!sum)
        return -1;
    char host[SAMPLE_NAME_MAX] = "localhost";
    json_t *h = json_object_get(sum, "host");
    if (json_is_string(h))
        snprintf(host, sizeof host, "%s", json_string_value(h));
    double start = summary_number(sum, "start", NAN);
    json_decref(sum);
    const char *base = strrchr(prefix, '/');
    base = base ? base + 1 : prefix;

    snprintf(path, sizeof path, "%s.series", prefix);
    struct series_reader in;
    char open_why[160];
    if (series_reader_open(&in, path, open_why, sizeof open_why) < 0) {
        snprintf(why, why_size, "%s: %s (run with --time-series)", path, open_why);
        return -1;
    }
    struct snapshots snaps = {0};
    int c_wall = -1, c_cpu = -1, c_read = -1, c_written = -1;
    bool first = true;
    int rc = 0, got;
    const char *detail = NULL;
    while ((got = series_reader_next(&in, why, why_size)) > 0) {
        const double *vals = in.values;
        if (first) { /* the first row: the header is known */
            first = false;
            c_wall = series_reader_column(&in, "wall_clock");
            c_cpu = series_reader_column(&in, "cpu_time");
            c_read = series_reader_column(&in, "bytes_read");
            c_written = series_reader_column(&in, "bytes_written");
            if (c_wall < 0 || c_cpu < 0) {
                snprintf(why, why_size, "%s:%lu: header lacks wall_clock or cpu_time", path,
                         series_reader_line(&in));
                rc = -1;
                break;
            }
            if (isfinite(start)) { /* the run starts with nothing used */
                double zero[SAMPLE_N_COUNTERS];
                for (int i = 0; i < SAMPLE_N_COUNTERS; i++)
                    zero[i] = NAN;
                zero[COUNTER_CPU_SECONDS] = 0;
                zero[COUNTER_IO_BYTES] = (c_read >= 0 || c_written >= 0) ? 0 : NAN;
                if (add_counters(&snaps, base, host, start, zero, set, &detail) < 0)
                    break;
            }
        }
        double c[SAMPLE_N_COUNTERS];
        for (int i = 0; i < SAMPLE_N_COUNTERS; i++)
            c[i] = NAN;
        c[COUNTER_CPU_SECONDS] = vals[c_cpu];
        if (c_read >= 0 || c_written >= 0)
            c[COUNTER_IO_BYTES] = ((c_read >= 0 ? vals[c_read] : 0) + (c_written >= 0 ? vals[c_written] : 0)) * 1048576.0;
        int fresh;
        struct snapshot *prev = snapshot_for(&snaps, base, host, &fresh);
        if (prev && !fresh && vals[c_wall] <= prev->time)
            continue; /* a repeated timestamp: its increase goes into the next interval */
        if (add_counters(&snaps, base, host, vals[c_wall], c, set, &detail) < 0)
            break;
    }
    if (got < 0)
        rc = -1;
    if (detail && rc == 0) {
        snprintf(why, why_size, "%s:%lu: %s", path, series_reader_line(&in), detail);
        rc = -1;
    }
    series_reader_close(&in);
    free(snaps.v);
    return rc;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int samples_load(const char *path, struct sample_set *set, char *why, size_t why_size)
{
    size_t len = strlen(path);
    if (len > 8 && !strcmp(path + len - 8, ".summary")) {
        char prefix[4096];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(len - 8), path);
        return samples_read_run(prefix, set, why, why_size);
    }
    char summary[4096];
    snprintf(summary, sizeof summary, "%s.summary", path);
    if (!exists(path) && exists(summary))
        return samples_read_run(path, set, why, why_size);
    if (!strcmp(path, "-"))
        return samples_read_jsonl(stdin, "(stdin)", set, why, why_size);
    char detail[160];
    int fd = text_file_open(path, false, detail, sizeof detail);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        snprintf(why, why_size, "%s: %s", path, fd >= 0 ? strerror(errno) : detail);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int rc = samples_read_jsonl(f, path, set, why, why_size);
    fclose(f);
    return rc;
}

void samples_write_jsonl(FILE *f, const struct contract_sample *s)
{
    json_t *metrics = json_object();
    for (int m = 0; m < CONTRACT_N_METRICS; m++)
        if (!isnan(s->value[m]))
            json_object_set_new(metrics, metric_info(m)->name, json_real(s->value[m]));
    json_t *o = json_pack("{s:s,s:s,s:f,s:f,s:o}", "process", s->process, "host", s->host, "t", s->time,
                          "period", s->period, "metrics", metrics);
    if (o && !isnan(s->runnable_per_core))
        json_object_set_new(o, "runnable_per_core", json_real(s->runnable_per_core));
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    if (text)
        fprintf(f, "%s\n", text);
    free(text);
    json_decref(o);
}

/* ---- live snapshots (tally contract watch) ---- */

struct counter_history {
    struct snapshots snaps;
};

int sample_counter_by_name(const char *name)
{
    return counter_by_name(name);
}

struct counter_history *counter_history_new(void)
{
    return calloc(1, sizeof(struct counter_history));
}

int counter_history_add(struct counter_history *h, const char *process, const char *host, double t,
                        const double *counter, struct sample_set *set, char *why, size_t why_size)
{
    const char *detail = NULL;
    if (add_counters(&h->snaps, process, host, t, counter, set, &detail) < 0) {
        snprintf(why, why_size, "process %s (host %s): %s", process, host, detail);
        return -1;
    }
    return 0;
}

void counter_history_free(struct counter_history *h)
{
    if (!h)
        return;
    free(h->snaps.v);
    free(h);
}
