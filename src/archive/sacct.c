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

#include "util/byte_codec.h"
#include "util/command_line.h"
#include "util/hashmap.h"
#include "util/json_real.h"
#include "util/json_string.h"

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

/* The columns of the header line (line `number` of the input, split in
 * place): index[c] its field, or -1. -1 and why when it has no JobID
 * column. */
static int header_columns(char *line, size_t number, int index[COL_COUNT], char *why,
                          size_t why_size)
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
    snprintf(why, why_size, "line %zu: no JobID column: want sacct --parsable2 output with its "
                            "header (not --noheader)", number);
    return -1;
}

/* A job's line held until its steps can no longer come: sacct prints a
 * job's steps right after it, so a job is decided (a summary of its own
 * when no step of it came) once SACCT_JOB_WINDOW jobs' lines have come
 * after it, or at the end. */
#define SACCT_JOB_WINDOW 4096

struct held_job {
    char *text; /* the line, split in place (malloc'd); NULL: a free place */
    struct row row;
};

struct sacct_reader {
    sacct_summary_fn on_summary;
    sacct_error_fn on_error;
    void *ctx;
    int index[COL_COUNT];
    bool have_header;
    bool stopped;           /* on_summary said stop: nothing more is given */
    struct held_job *held;  /* a ring, grown up to SACCT_JOB_WINDOW */
    size_t first, count, capacity;
    struct hashmap pending; /* JobID → its held_job */
    struct hashmap stepped; /* JobIDs of steps that came without their job's line before them */
    struct summary_text summary;
    long given;
    long unfinished;        /* lines not given: their job or step had not ended */
};

struct sacct_reader *sacct_reader_new(sacct_summary_fn on_summary, sacct_error_fn on_error, void *ctx)
{
    struct sacct_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->on_summary = on_summary;
    r->on_error = on_error;
    r->ctx = ctx;
    r->summary.first = true;
    return r;
}

/* Whether a line's own State is one a job or step is still in (pending,
 * running, suspended, resizing, or requeued to run again): its usage is
 * not whole yet, and its record will change when it ends (sacct's JOB
 * STATE CODES; the others are ends). */
static bool unfinished(const char *state)
{
    static const char *const states[] = {"PENDING", "RUNNING", "SUSPENDED", "RESIZING", "REQUEUED"};
    if (!state)
        return false;
    size_t word = strcspn(state, " +");
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
        if (word == strlen(states[i]) && !strncmp(state, states[i], word))
            return true;
    return false;
}

/* The summary of row (a step's job: job, or NULL) given, or its bad field
 * said; nothing for a line not yet ended (counted). */
static void give(struct sacct_reader *r, const struct row *row, const struct row *job)
{
    if (r->stopped)
        return;
    if (unfinished(row->col[COL_STATE])) {
        r->unfinished++;
        return;
    }
    char message[512];
    if (summary_of(row, job, &r->summary, message, sizeof message) < 0) {
        r->on_error(r->ctx, message);
        return;
    }
    r->given++;
    if (r->on_summary(r->ctx, (const char *)r->summary.w.data, r->summary.w.len, row->line))
        r->stopped = true;
}

/* A held job decided: its own summary when no step of it came; its place freed. */
static void decide(struct sacct_reader *r, struct held_job *h)
{
    if (!h->row.has_steps)
        give(r, &h->row, NULL);
    struct hashmap_slot *slot = hashmap_find(&r->pending, h->row.col[COL_JOBID],
                                             strlen(h->row.col[COL_JOBID]));
    if (slot && slot->value == h)
        hashmap_remove(&r->pending, h->row.col[COL_JOBID]);
    free(h->text);
    h->text = NULL;
}

/* The oldest held job decided (and any free places before the next). */
static void decide_oldest(struct sacct_reader *r)
{
    while (r->count) {
        struct held_job *h = &r->held[r->first];
        r->first = (r->first + 1) % r->capacity;
        r->count--;
        if (h->text) {
            decide(r, h);
            return;
        }
    }
}

/* A full ring twice as large (up to SACCT_JOB_WINDOW; at that size it is
 * left full), its jobs in order from its start, their map pointing at
 * their new places. -1 when out of memory. */
static int grow_ring(struct sacct_reader *r)
{
    if (r->capacity == SACCT_JOB_WINDOW)
        return 0;
    size_t capacity = r->capacity ? 2 * r->capacity : 16;
    struct held_job *held = calloc(capacity, sizeof *held);
    if (!held)
        return -1;
    for (size_t k = 0; k < r->count; k++) {
        held[k] = r->held[(r->first + k) % r->capacity];
        if (!held[k].text)
            continue;
        const char *id = held[k].row.col[COL_JOBID];
        struct hashmap_slot *slot = hashmap_find(&r->pending, id, strlen(id));
        if (slot && slot->value == &r->held[(r->first + k) % r->capacity])
            slot->value = &held[k];
    }
    free(r->held);
    r->held = held;
    r->capacity = capacity;
    r->first = 0;
    return 0;
}

/* A data line (text: malloc'd, taken), its columns found; -1 when out of
 * memory. */
static int take_row(struct sacct_reader *r, char *text, size_t number)
{
    char *fields[MAX_FIELDS];
    struct row row = {0};
    size_t n = split(text, fields);
    for (size_t c = 0; c < COL_COUNT; c++)
        row.col[c] = r->index[c] >= 0 && (size_t)r->index[c] < n ? fields[r->index[c]] : NULL;
    row.line = number;
    const char *id = row.col[COL_JOBID];
    if (!id || !*id) {
        char message[128];
        snprintf(message, sizeof message, "line %zu: no JobID", number);
        r->on_error(r->ctx, message);
        free(text);
        return 0;
    }
    const char *dot = strchr(id, '.');
    if (dot) { /* a step: given now, with its job when that is held */
        size_t job_len = (size_t)(dot - id);
        struct hashmap_slot *job = hashmap_find(&r->pending, id, job_len);
        int rc = 0;
        if (job) {
            struct held_job *h = job->value;
            h->row.has_steps = true;
        } else if (!hashmap_find(&r->stepped, id, job_len)) {
            rc = hashmap_put_bytes(&r->stepped, id, job_len, NULL);
        }
        give(r, &row, job ? &((struct held_job *)job->value)->row : NULL);
        free(text);
        return rc;
    }
    /* a job: held; the same JobID held before (a requeued job) decided first */
    struct hashmap_slot *same = hashmap_find(&r->pending, id, strlen(id));
    if (same)
        decide(r, same->value);
    if (r->count == r->capacity && grow_ring(r) < 0) {
        free(text);
        return -1;
    }
    if (r->count == r->capacity)
        decide_oldest(r);
    struct held_job *h = &r->held[(r->first + r->count) % r->capacity];
    h->text = text;
    h->row = row;
    struct hashmap_slot *early = hashmap_find(&r->stepped, id, strlen(id));
    if (early) { /* its steps came before it */
        h->row.has_steps = true;
        hashmap_remove(&r->stepped, id);
    }
    r->count++;
    if (hashmap_put(&r->pending, h->row.col[COL_JOBID], h) < 0)
        return -1;
    return 0;
}

int sacct_reader_line(struct sacct_reader *r, const char *line, size_t len, size_t number,
                      char *why, size_t why_size)
{
    if (r->stopped)
        return 1;
    if (len && line[len - 1] == '\r')
        len--;
    if (len == 0)
        return 0;
    char *text = strndup(line, len);
    if (!text) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    if (!r->have_header) {
        int rc = header_columns(text, number, r->index, why, why_size);
        free(text);
        r->have_header = rc == 0;
        return rc;
    }
    if (!command_line_is_utf8(text)) { /* what jansson refuses too: a summary's text stays JSON */
        char message[128];
        snprintf(message, sizeof message, "line %zu: not UTF-8 text", number);
        r->on_error(r->ctx, message);
        free(text);
        return 0;
    }
    if (take_row(r, text, number) < 0) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    return r->stopped ? 1 : 0;
}

bool sacct_reader_has_header(const struct sacct_reader *r) { return r->have_header; }

long sacct_reader_given(const struct sacct_reader *r) { return r->given; }

long sacct_reader_unfinished(const struct sacct_reader *r) { return r->unfinished; }

long sacct_reader_finish(struct sacct_reader *r, char *why, size_t why_size)
{
    if (!r->have_header) {
        snprintf(why, why_size, "%s", NO_HEADER);
        return -1;
    }
    while (r->count)
        decide_oldest(r);
    return r->given;
}

void sacct_reader_free(struct sacct_reader *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->capacity; i++)
        free(r->held[i].text);
    free(r->held);
    hashmap_free(&r->pending);
    hashmap_free(&r->stepped);
    free(r->summary.w.data);
    free(r);
}

static int ignore_summary(void *ctx, const char *summary, size_t len, size_t line)
{
    (void)ctx, (void)summary, (void)len, (void)line;
    return 1;
}

static void ignore_error(void *ctx, const char *why) { (void)ctx, (void)why; }

/* The lines of text (len bytes, up to a NUL) given to r, up to its header
 * only when header_only. 0, 1 when r stopped, -1 and why. */
static int feed(struct sacct_reader *r, const char *text, size_t len, bool header_only, char *why,
                size_t why_size)
{
    len = strnlen(text, len);
    size_t number = 0;
    for (size_t at = 0; at < len && !(header_only && r->have_header);) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - text) - at : len - at;
        int rc = sacct_reader_line(r, text + at, n, ++number, why, why_size);
        if (rc != 0)
            return rc;
        at += n + 1;
    }
    return 0;
}

int sacct_check_header(const char *text, size_t len, char *why, size_t why_size)
{
    struct sacct_reader *r = sacct_reader_new(ignore_summary, ignore_error, NULL);
    if (!r) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    int rc = feed(r, text, len, true, why, why_size);
    if (rc == 0 && !r->have_header) {
        snprintf(why, why_size, "%s", NO_HEADER);
        rc = -1;
    }
    sacct_reader_free(r);
    return rc < 0 ? -1 : 0;
}

long sacct_parse(const char *text, size_t len, sacct_summary_fn on_summary,
                 sacct_error_fn on_error, void *ctx, char *why, size_t why_size)
{
    struct sacct_reader *r = sacct_reader_new(on_summary, on_error, ctx);
    if (!r) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    long given = feed(r, text, len, false, why, why_size) < 0 ? -1 : sacct_reader_finish(r, why, why_size);
    sacct_reader_free(r);
    return given;
}
