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

#include <jansson.h>

#include "util/byte_codec.h"
#include "util/hashmap.h"
#include "util/json_real.h"
#include "util/json_string.h"
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

/* The text of a summary being written: jansson's compact form, members in
 * the order written (json_dumps(..., JSON_COMPACT | JSON_REAL_PRECISION(17))
 * of the same object gives the same bytes: what the archive's reader takes
 * without a parse tree). */
struct summary_text {
    struct byte_writer w;
    bool first; /* no member written yet in the object at hand */
};

static void put_string(struct summary_text *t, const char *s)
{
    size_t n = strlen(s);
    char small[JSON_STRING_ROOM(128)];
    char *buf = n <= 128 ? small : malloc(JSON_STRING_ROOM(n));
    if (!buf) {
        t->w.failed = true;
        return;
    }
    byte_put(&t->w, buf, json_string_text((const unsigned char *)s, n, buf));
    if (buf != small)
        free(buf);
}

/* "key": (after a comma unless it is the object's first member) */
static void put_key(struct summary_text *t, const char *key)
{
    if (!t->first)
        byte_put_byte(&t->w, ',');
    t->first = false;
    put_string(t, key);
    byte_put_byte(&t->w, ':');
}

static void put_real(struct summary_text *t, double v)
{
    char number[64];
    size_t n = json_real_text(v, "%.17g", number, sizeof number);
    if (!n)
        t->w.failed = true; /* (not finite: never given) */
    byte_put(&t->w, number, n);
}

/* "key":[v,"unit"] */
static void put_pair(struct summary_text *t, const char *key, double v, const char *unit)
{
    put_key(t, key);
    byte_put_byte(&t->w, '[');
    put_real(t, v);
    byte_put_byte(&t->w, ',');
    put_string(t, unit);
    byte_put_byte(&t->w, ']');
}

static void begin_object(struct summary_text *t)
{
    byte_put_byte(&t->w, '{');
    t->first = true;
}

static void end_object(struct summary_text *t)
{
    byte_put_byte(&t->w, '}');
    t->first = false;
}

/* Writes the summary of row r (job the row of its job, or NULL) into t
 * (emptied first). -1 and why when a field is bad (t then holds nothing
 * usable). */
static int summary_of(const struct row *r, const struct row *job, struct summary_text *t,
                      char *why, size_t why_size)
{
#define FIELD(c) (r->col[c] && *r->col[c] ? r->col[c] : job && job->col[c] && *job->col[c] ? job->col[c] : NULL)
    t->w.len = 0;
    t->w.failed = false;
    begin_object(t);
    const char *jobid = r->col[COL_JOBID];
    const char *dot = strchr(jobid, '.');
    const char *job_name = job ? job->col[COL_JOBNAME] : r->col[COL_JOBNAME];
    char name[512];
    if (dot)
        snprintf(name, sizeof name, "%s.%s", job_name && *job_name ? job_name : "job", dot + 1);
    else
        snprintf(name, sizeof name, "%s", job_name && *job_name ? job_name : "job");
    put_key(t, "name");
    put_string(t, name);
    put_key(t, "taskid");
    put_string(t, jobid);
    put_key(t, "tool");
    put_string(t, "slurm");
    put_key(t, "source");
    put_string(t, "sacct");
    static const struct {
        enum column c;
        const char *key;
    } texts[] = {{COL_PARTITION, "category"}, {COL_USER, "user"}, {COL_ACCOUNT, "account"},
                 {COL_NODELIST, "host"}, {COL_STATE, "state"}};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        const char *v = FIELD(texts[i].c);
        if (v) {
            put_key(t, texts[i].key);
            put_string(t, v);
        }
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
            put_pair(t, "cores", cores, "cores");
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
            put_pair(t, time_keys[i], s, "s");
    }
    if (bad < 0 && (v = r->col[COL_MAXRSS]) && *v) {
        double mb = sacct_megabytes(v, 1.0 / (1024 * 1024)); /* bare: bytes */
        if (mb < 0)
            bad = COL_MAXRSS;
        else
            put_pair(t, "memory", mb, "MB");
    }
    /* what was asked for: memory, wall time, cores */
    double requested_memory = NAN, requested_time = NAN;
    if (bad < 0 && (v = FIELD(COL_REQMEM))) {
        double mb = sacct_megabytes(v, 1);
        if (mb < 0)
            bad = COL_REQMEM;
        else
            requested_memory = v[strlen(v) - 1] == 'c' && isfinite(cores) ? mb * cores : mb; /* per CPU */
    }
    if (bad < 0 && (v = FIELD(COL_TIMELIMIT)) && strcmp(v, "UNLIMITED") && strcmp(v, "Partition_Limit")) {
        double s = sacct_seconds(v);
        if (s < 0)
            bad = COL_TIMELIMIT;
        else
            requested_time = s;
    }
    put_key(t, "requested");
    begin_object(t);
    if (!isnan(requested_memory))
        put_pair(t, "memory", requested_memory, "MB");
    if (!isnan(requested_time))
        put_pair(t, "wall_time", requested_time, "s");
    if (isfinite(cores))
        put_pair(t, "cores", cores, "cores");
    end_object(t);
    static const enum column dates[] = {COL_START, COL_END};
    static const char *const date_keys[] = {"start", "end"};
    for (size_t i = 0; i < 2 && bad < 0; i++) {
        double when = (v = r->col[dates[i]]) ? epoch_of(v) : NAN;
        if (isfinite(when))
            put_pair(t, date_keys[i], when, "s");
    }
    if (bad < 0 && (v = r->col[COL_EXITCODE]) && *v) {
        char *end;
        long code = strtol(v, &end, 10);
        long signal = *end == ':' ? strtol(end + 1, &end, 10) : 0;
        if (*end || code < 0 || code > 255 || signal < 0 || signal > 255) {
            bad = COL_EXITCODE;
        } else {
            char number[8];
            put_key(t, "exit_status");
            byte_put(&t->w, number, (size_t)snprintf(number, sizeof number, "%ld", code));
        }
    }
    const char *state = FIELD(COL_STATE);
    if (bad < 0 && state) {
        bool timeout = !strncmp(state, "TIMEOUT", 7), oom = !strncmp(state, "OUT_OF_ME", 9);
        const char *type = timeout || oom ? "limits" : !strncmp(state, "CANCELLED", 9) ? "signal"
                                                                                        : "normal";
        put_key(t, "exit_type");
        put_string(t, type);
        double limit = timeout ? requested_time : requested_memory;
        if ((timeout || oom) && !isnan(limit)) {
            put_key(t, "limits_exceeded");
            begin_object(t);
            if (timeout)
                put_pair(t, "wall_time", limit, "s");
            else
                put_pair(t, "memory", limit, "MB");
            end_object(t);
        }
    }
    end_object(t);
    if (bad >= 0) {
        snprintf(why, why_size, "line %zu: %s: '%s' is not a valid value", r->line,
                 column_names[bad], FIELD(bad));
        return -1;
    }
    if (t->w.failed) {
        snprintf(why, why_size, "line %zu: out of memory", r->line);
        return -1;
    }
    return 0;
#undef FIELD
}

#define NO_HEADER "empty input: want sacct --parsable2 output with its header"

/* The columns of a header line (split in place): index[c] its field, or
 * -1. -1 and why when it has no JobID column. */
static int header_columns(char *line, int index[COL_COUNT], char *why, size_t why_size)
{
    char *fields[MAX_FIELDS];
    size_t nheader = split(line, fields);
    for (size_t c = 0; c < COL_COUNT; c++) {
        index[c] = -1;
        for (size_t k = 0; k < nheader; k++)
            if (!strcmp(fields[k], column_names[c]) ||
                (c == COL_ALLOCCPUS && !strcmp(fields[k], "NCPUS")))
                index[c] = (int)k;
    }
    if (index[COL_JOBID] >= 0)
        return 0;
    snprintf(why, why_size, "line 1: no JobID column: want sacct --parsable2 output with its "
                            "header (not --noheader)");
    return -1;
}

int sacct_check_header(const char *text, size_t len, char *why, size_t why_size)
{
    len = strnlen(text, len); /* what sacct_parse reads: up to a NUL */
    size_t start = 0;
    while (start < len && text[start] == '\n')
        start++;
    if (start == len) {
        snprintf(why, why_size, "%s", NO_HEADER);
        return -1;
    }
    const char *nl = memchr(text + start, '\n', len - start);
    size_t n = nl ? (size_t)(nl - text) - start : len - start;
    char *line = strndup(text + start, n);
    if (!line) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    if (n && line[n - 1] == '\r')
        line[n - 1] = '\0';
    int index[COL_COUNT];
    int rc = header_columns(line, index, why, why_size);
    free(line);
    return rc;
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
    int index[COL_COUNT];
    if (nlines == 0 || header_columns(lines[0], index, why, why_size) < 0) {
        if (nlines == 0)
            snprintf(why, why_size, "%s", NO_HEADER);
        goto done;
    }
    char *fields[MAX_FIELDS];
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
    struct summary_text summary = {{NULL, 0, 0, false}, true};
    for (size_t i = 0; i < nrows; i++) {
        bool step = strchr(rows[i].col[COL_JOBID], '.') != NULL;
        if (!step && rows[i].has_steps)
            continue;
        char message[512];
        if (summary_of(&rows[i], rows[i].job, &summary, message, sizeof message) < 0) {
            on_error(ctx, message);
            continue;
        }
        given++;
        if (on_summary(ctx, (const char *)summary.w.data, summary.w.len, rows[i].line))
            break;
    }
    free(summary.w.data);
done:
    free(rows);
    free(lines);
    free(copy);
    return given;
}
