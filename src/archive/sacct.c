/* Slurm accounting records (sacct --parsable2) as archive summaries (see
 * sacct.h). */
#include "archive/sacct.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/hashmap.h"
#include "util/vec.h"

enum column {
    COL_JOBID, COL_JOBNAME, COL_USER, COL_ACCOUNT, COL_PARTITION, COL_STATE, COL_EXITCODE,
    COL_ELAPSED, COL_TOTALCPU, COL_REQMEM, COL_MAXRSS, COL_ALLOCCPUS, COL_TIMELIMIT, COL_START,
    COL_END, COL_NODELIST, COL_COUNT
};

static const char *const column_names[COL_COUNT] = {
    "JobID", "JobName", "User", "Account", "Partition", "State", "ExitCode", "Elapsed",
    "TotalCPU", "ReqMem", "MaxRSS", "AllocCPUS", "Timelimit", "Start", "End", "NodeList",
};

#define MAX_FIELDS 128

double sacct_seconds(const char *text)
{
    long days = 0, part[3];
    double seconds_fraction = 0;
    const char *p = text;
    const char *dash = strchr(text, '-');
    char *end;
    if (!*text)
        return -1;
    if (dash) {
        days = strtol(text, &end, 10);
        if (end != dash || days < 0)
            return -1;
        p = dash + 1;
    }
    size_t n = 0;
    while (n < 3) {
        if (!isdigit((unsigned char)*p))
            return -1;
        part[n++] = strtol(p, &end, 10);
        p = end;
        if (*p == ':') {
            p++;
            continue;
        }
        if (*p == '.') { /* milliseconds of the seconds field */
            char *fend;
            seconds_fraction = strtod(p, &fend);
            if (fend == p || !(seconds_fraction >= 0 && seconds_fraction < 1))
                return -1; /* ".5e999" is no fraction of a second */
            p = fend;
        }
        break;
    }
    if (*p || n < 2 || (dash && n < 3 && n != 2))
        return -1;
    double s = n == 3 ? part[0] * 3600.0 + part[1] * 60.0 + (double)part[2]
                      : part[0] * 60.0 + (double)part[1];
    return (double)days * 86400 + s + seconds_fraction;
}

double sacct_megabytes(const char *text, double bare_unit_mb)
{
    char *end;
    if (!isdigit((unsigned char)*text) && *text != '.')
        return -1;
    double v = strtod(text, &end);
    if (end == text || !isfinite(v) || v < 0)
        return -1;
    double unit = bare_unit_mb;
    switch (*end) {
    case 'K': unit = 1.0 / 1024; end++; break;
    case 'M': unit = 1; end++; break;
    case 'G': unit = 1024; end++; break;
    case 'T': unit = 1024.0 * 1024; end++; break;
    case 'P': unit = 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'c' || *end == 'n') /* per CPU or per node: the caller scales */
        end++;
    return *end ? -1 : v * unit;
}

/* Splits one line at '|' (in place); returns the field count. */
static size_t split(char *line, char **fields)
{
    size_t n = 0;
    fields[n++] = line;
    for (char *p = line; *p && n < MAX_FIELDS; p++)
        if (*p == '|') {
            *p = '\0';
            fields[n++] = p + 1;
        }
    return n;
}

struct row {
    const char *col[COL_COUNT];
    size_t line;
    bool has_steps;
    const struct row *job; /* a step's job (its JobID up to the '.'), when listed */
};

/* "2026-11-25T10:00:00" (UTC) → epoch seconds; NAN when not a date. */
static double epoch_of(const char *text)
{
    struct tm tm = {0};
    const char *end = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
    double t = end && !*end ? (double)timegm(&tm) : NAN;
    return t >= 0 ? t : NAN; /* before 1970: no run of an archive */
}

static json_t *pair(double v, const char *unit) { return json_pack("[f, s]", v, unit); }

/* The summary of row r (job the row of its job, or NULL). NULL and why when
 * a field is bad. */
static json_t *summary_of(const struct row *r, const struct row *job, char *why, size_t why_size)
{
#define FIELD(c) (r->col[c] && *r->col[c] ? r->col[c] : job && job->col[c] && *job->col[c] ? job->col[c] : NULL)
    json_t *o = json_object();
    const char *jobid = r->col[COL_JOBID];
    const char *dot = strchr(jobid, '.');
    const char *job_name = job ? job->col[COL_JOBNAME] : r->col[COL_JOBNAME];
    char name[512];
    if (dot)
        snprintf(name, sizeof name, "%s.%s", job_name && *job_name ? job_name : "job", dot + 1);
    else
        snprintf(name, sizeof name, "%s", job_name && *job_name ? job_name : "job");
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "taskid", json_string(jobid));
    json_object_set_new(o, "tool", json_string("slurm"));
    json_object_set_new(o, "source", json_string("sacct"));
    static const struct {
        enum column c;
        const char *key;
    } texts[] = {{COL_PARTITION, "category"}, {COL_USER, "user"}, {COL_ACCOUNT, "account"},
                 {COL_NODELIST, "host"}, {COL_STATE, "state"}};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        const char *v = FIELD(texts[i].c);
        if (v)
            json_object_set_new(o, texts[i].key, json_string(v));
    }
    int bad = -1; /* the bad column */
    double cores = NAN;
    const char *v;
    if ((v = FIELD(COL_ALLOCCPUS))) {
        char *end;
        cores = strtod(v, &end);
        if (*end || !(cores >= 0 && cores < 1e9))
            bad = COL_ALLOCCPUS;
        else
            json_object_set_new(o, "cores", pair(cores, "cores"));
    }
    static const enum column times[] = {COL_ELAPSED, COL_TOTALCPU};
    static const char *const time_keys[] = {"wall_time", "cpu_time"};
    for (size_t i = 0; i < 2 && bad < 0; i++) {
        if (!(v = r->col[times[i]]) || !*v)
            continue;
        double s = sacct_seconds(v);
        if (s < 0)
            bad = (int)times[i];
        else
            json_object_set_new(o, time_keys[i], pair(s, "s"));
    }
    if (bad < 0 && (v = r->col[COL_MAXRSS]) && *v) {
        double mb = sacct_megabytes(v, 1.0 / (1024 * 1024)); /* bare: bytes */
        if (mb < 0)
            bad = COL_MAXRSS;
        else
            json_object_set_new(o, "memory", pair(mb, "MB"));
    }
    json_t *requested = json_object();
    if (bad < 0 && (v = FIELD(COL_REQMEM))) {
        double mb = sacct_megabytes(v, 1);
        if (mb < 0)
            bad = COL_REQMEM;
        else {
            if (v[strlen(v) - 1] == 'c' && isfinite(cores))
                mb *= cores; /* per CPU */
            json_object_set_new(requested, "memory", pair(mb, "MB"));
        }
    }
    if (bad < 0 && (v = FIELD(COL_TIMELIMIT)) && strcmp(v, "UNLIMITED") && strcmp(v, "Partition_Limit")) {
        double s = sacct_seconds(v);
        if (s < 0)
            bad = COL_TIMELIMIT;
        else
            json_object_set_new(requested, "wall_time", pair(s, "s"));
    }
    if (isfinite(cores))
        json_object_set_new(requested, "cores", pair(cores, "cores"));
    json_object_set_new(o, "requested", requested);
    static const enum column dates[] = {COL_START, COL_END};
    static const char *const date_keys[] = {"start", "end"};
    for (size_t i = 0; i < 2 && bad < 0; i++) {
        double t = (v = r->col[dates[i]]) ? epoch_of(v) : NAN;
        if (isfinite(t))
            json_object_set_new(o, date_keys[i], pair(t, "s"));
    }
    if (bad < 0 && (v = r->col[COL_EXITCODE]) && *v) {
        char *end;
        long code = strtol(v, &end, 10);
        long signal = *end == ':' ? strtol(end + 1, &end, 10) : 0;
        if (*end || code < 0 || code > 255 || signal < 0 || signal > 255)
            bad = COL_EXITCODE;
        else
            json_object_set_new(o, "exit_status", json_integer(code));
    }
    const char *state = FIELD(COL_STATE);
    if (bad < 0 && state) {
        bool timeout = !strncmp(state, "TIMEOUT", 7), oom = !strncmp(state, "OUT_OF_ME", 9);
        const char *type = timeout || oom ? "limits" : !strncmp(state, "CANCELLED", 9) ? "signal"
                                                                                        : "normal";
        json_object_set_new(o, "exit_type", json_string(type));
        json_t *limit = json_object_get(requested, timeout ? "wall_time" : "memory");
        if ((timeout || oom) && limit)
            json_object_set_new(o, "limits_exceeded",
                                json_pack("{s:O}", timeout ? "wall_time" : "memory", limit));
    }
    if (bad >= 0) {
        snprintf(why, why_size, "line %zu: %s: '%s' is not a valid value", r->line,
                 column_names[bad], FIELD(bad));
        json_decref(o);
        return NULL;
    }
    return o;
#undef FIELD
}

long sacct_parse(const char *text, size_t len, sacct_summary_fn on_summary,
                 sacct_error_fn on_error, void *ctx, char *why, size_t why_size)
{
    char *copy = strndup(text, len);
    if (!copy) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    /* lines */
    size_t nlines = 0, cap = 0;
    char **lines = NULL;
    bool out_of_memory = false;
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (VEC_RESERVE(lines, cap, nlines + 1) < 0) {
            out_of_memory = true;
            break;
        }
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[l - 1] = '\0';
        lines[nlines++] = line;
    }
    long given = -1;
    struct row *rows = NULL;
    if (out_of_memory) {
        snprintf(why, why_size, "out of memory");
        goto done;
    }
    if (nlines == 0) {
        snprintf(why, why_size, "empty input: want sacct --parsable2 output with its header");
        goto done;
    }
    char *fields[MAX_FIELDS];
    size_t nheader = split(lines[0], fields);
    int index[COL_COUNT];
    for (size_t c = 0; c < COL_COUNT; c++) {
        index[c] = -1;
        for (size_t k = 0; k < nheader; k++)
            if (!strcmp(fields[k], column_names[c]) ||
                (c == COL_ALLOCCPUS && !strcmp(fields[k], "NCPUS")))
                index[c] = (int)k;
    }
    if (index[COL_JOBID] < 0) {
        snprintf(why, why_size, "line 1: no JobID column: want sacct --parsable2 output with its "
                               "header (not --noheader)");
        goto done;
    }
    rows = calloc(nlines, sizeof *rows);
    if (!rows) {
        snprintf(why, why_size, "out of memory");
        goto done;
    }
    size_t nrows = 0;
    for (size_t i = 1; i < nlines; i++) {
        struct row *r = &rows[nrows];
        json_t *valid = json_string(lines[i]); /* NULL when not UTF-8 */
        if (!valid) {
            char message[128];
            snprintf(message, sizeof message, "line %zu: not UTF-8 text", i + 1);
            on_error(ctx, message);
            continue;
        }
        json_decref(valid);
        size_t n = split(lines[i], fields);
        for (size_t c = 0; c < COL_COUNT; c++)
            r->col[c] = index[c] >= 0 && (size_t)index[c] < n ? fields[index[c]] : NULL;
        r->line = i + 1;
        if (!r->col[COL_JOBID] || !*r->col[COL_JOBID]) {
            char message[128];
            snprintf(message, sizeof message, "line %zu: no JobID", i + 1);
            on_error(ctx, message);
            continue;
        }
        nrows++;
    }
    /* a step's job: the row whose JobID is the step's up to its '.' (one
     * map of the jobs' ids: a site's sacct output has millions of lines) */
    struct hashmap jobs = {0};
    for (size_t i = 0; i < nrows; i++)
        if (!strchr(rows[i].col[COL_JOBID], '.') &&
            hashmap_put_kept(&jobs, rows[i].col[COL_JOBID], strlen(rows[i].col[COL_JOBID]), &rows[i]) < 0) {
            hashmap_free(&jobs);
            snprintf(why, why_size, "out of memory");
            goto done;
        }
    for (size_t i = 0; i < nrows; i++) {
        const char *dot = strchr(rows[i].col[COL_JOBID], '.');
        struct hashmap_slot *job = dot ? hashmap_find(&jobs, rows[i].col[COL_JOBID],
                                                      (size_t)(dot - rows[i].col[COL_JOBID]))
                                       : NULL;
        if (job) {
            struct row *j = job->value;
            j->has_steps = true;
            rows[i].job = j;
        }
    }
    hashmap_free(&jobs);
    given = 0;
    for (size_t i = 0; i < nrows; i++) {
        bool step = strchr(rows[i].col[COL_JOBID], '.') != NULL;
        if (!step && rows[i].has_steps)
            continue;
        char message[512];
        json_t *s = summary_of(&rows[i], rows[i].job, message, sizeof message);
        if (!s) {
            on_error(ctx, message);
            continue;
        }
        given++;
        if (on_summary(ctx, s, rows[i].line))
            break;
    }
done:
    free(rows);
    free(lines);
    free(copy);
    return given;
}
