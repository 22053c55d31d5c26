/* Queries over archived runs' per-file rows (see file_query.h): the globs
 * turned into a LIKE prefilter the database applies, then fnmatch(3) and
 * the sums per run here. */
#include "archive/file_query.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "util/text_builder.h"
#include "util/vec.h"

#define GLOB_MAX 4096

int file_filter_parse_size(const char *text, long long *bytes, char *why, size_t why_size)
{
    double mb;
    if (units_parse(text, DIM_BYTES, NULL, &mb, why, why_size) < 0)
        return -1;
    double b = round(mb * BYTES_PER_MB);
    if (!(b >= 0 && b < 9e18)) {
        snprintf(why, why_size, "'%s' is not a size from 0 to 8 EB", text);
        return -1;
    }
    *bytes = (long long)b;
    return 0;
}

int file_filter_add_glob(struct file_filter *f, const char *glob, char *why, size_t why_size)
{
    if (!*glob) {
        snprintf(why, why_size, "an empty glob matches no file");
        return -1;
    }
    if (strlen(glob) > GLOB_MAX) {
        snprintf(why, why_size, "a glob longer than %d characters", GLOB_MAX);
        return -1;
    }
    if (f->nglobs == FILE_FILTER_MAX_GLOBS) {
        snprintf(why, why_size, "more than %d globs", FILE_FILTER_MAX_GLOBS);
        return -1;
    }
    f->globs[f->nglobs++] = glob;
    return 0;
}

bool file_filter_matches(const struct file_filter *f, const char *path)
{
    if (f->nglobs == 0)
        return true;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    for (size_t i = 0; i < f->nglobs; i++)
        if (fnmatch(f->globs[i], strchr(f->globs[i], '/') ? path : base, 0) == 0)
            return true;
    return false;
}

int file_filter_glob_like(const char *glob, char *out, size_t out_size)
{
    size_t n = 0;
#define PUT(c)                      \
    do {                            \
        if (n + 1 >= out_size)      \
            return -1;              \
        out[n++] = (c);             \
    } while (0)
    if (!strchr(glob, '/'))
        PUT('%'); /* a base name: anything before it */
    for (const char *p = glob; *p; p++) {
        if (*p == '*') {
            PUT('%');
        } else if (*p == '?') {
            PUT('_');
        } else if (*p == '[') {
            /* a bracket expression is one character; without its ']' the
             * '[' is itself (fnmatch's reading) */
            const char *q = p + 1;
            if (*q == '!' || *q == '^')
                q++;
            if (*q == ']')
                q++;
            while (*q && *q != ']') {
                /* [:alpha:], [.a.] and [=a=] hold a ']' of their own */
                if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
                    const char *end = q + 2;
                    while (*end && !(end[0] == q[1] && end[1] == ']'))
                        end++;
                    if (*end) {
                        q = end + 2;
                        continue;
                    }
                }
                q++;
            }
            if (*q == ']') {
                PUT('_');
                p = q;
            } else {
                PUT('[');
            }
        } else {
            if (*p == '\\' && p[1])
                p++; /* a quoted character is itself */
            if (*p == '%' || *p == '_' || *p == '\\')
                PUT('\\');
            PUT(*p);
        }
    }
#undef PUT
    out[n] = '\0';
    return (int)n;
}

/* The run being summed while the rows of its files come in. */
struct accumulator {
    const struct file_filter *filter;
    file_run_fn fn;
    void *ctx;
    long long id; /* 0: none yet */
    char *name, *category, *taskid;
    struct file_row sum, unlisted;
    struct file_row *files;
    size_t nfiles, cap;
    int failed, stopped;
};

static void add_counts(struct file_row *to, const struct file_row *r)
{
    to->files += r->files;
    to->bytes_read += r->bytes_read;
    to->bytes_written += r->bytes_written;
    long long *t[3] = {&to->opens, &to->reads, &to->writes};
    const long long v[3] = {r->opens, r->reads, r->writes};
    for (int k = 0; k < 3; k++)
        *t[k] = *t[k] < 0 || v[k] < 0 ? -1 : *t[k] + v[k];
}

static void clear_run(struct accumulator *a)
{
    for (size_t i = 0; i < a->nfiles; i++)
        free(a->files[i].path);
    a->nfiles = 0;
    free(a->name);
    free(a->category);
    free(a->taskid);
    a->name = a->category = a->taskid = NULL;
    memset(&a->sum, 0, sizeof a->sum);
    memset(&a->unlisted, 0, sizeof a->unlisted);
    a->id = 0;
}

static int by_bytes(const void *x, const void *y)
{
    const struct file_row *a = x, *b = y;
    long long ma = a->bytes_read + a->bytes_written, mb = b->bytes_read + b->bytes_written;
    if (ma != mb)
        return ma > mb ? -1 : 1;
    return strcmp(a->path, b->path);
}

static void finish_run(struct accumulator *a)
{
    const struct file_filter *f = a->filter;
    if (a->id && a->nfiles > 0 && !a->stopped &&
        (!f->has_read || a->sum.bytes_read > f->read_more_than) &&
        (!f->has_written || a->sum.bytes_written > f->written_more_than)) {
        qsort(a->files, a->nfiles, sizeof *a->files, by_bytes);
        struct file_run run = {a->id, a->name, a->category, a->taskid, a->sum, a->files, a->nfiles,
                               a->unlisted};
        if (a->fn(a->ctx, &run))
            a->stopped = 1;
    }
    clear_run(a);
}

static char *copy_text(const struct sql_value *v) { return v->type == SQL_TEXT ? strdup(v->text) : NULL; }

static long long count_of(const struct sql_value *v)
{
    return v->type == SQL_INT ? v->integer : v->type == SQL_REAL ? (long long)v->real : -1;
}

/* Row: summary_id, name, category, taskid, path, files, bytes_read,
 * bytes_written, opens, reads, writes. */
static int take_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct accumulator *a = ctx;
    if (ncols != 11)
        return a->failed = 1;
    long long id = count_of(&row[0]);
    if (id != a->id) {
        finish_run(a);
        if (a->stopped)
            return 1;
        a->id = id;
        a->name = copy_text(&row[1]);
        a->category = copy_text(&row[2]);
        a->taskid = copy_text(&row[3]);
    }
    struct file_row r = {NULL, count_of(&row[5]), count_of(&row[6]), count_of(&row[7]),
                         count_of(&row[8]), count_of(&row[9]), count_of(&row[10])};
    if (row[4].type != SQL_TEXT) {
        add_counts(&a->unlisted, &r);
        return 0;
    }
    if (!file_filter_matches(a->filter, row[4].text))
        return 0;
    r.path = strdup(row[4].text);
    struct file_row *slot = r.path ? VEC_PUSH(a->files, a->nfiles, a->cap) : NULL;
    if (!slot) {
        free(r.path);
        return a->failed = 1;
    }
    *slot = r;
    add_counts(&a->sum, &r);
    return 0;
}

int file_query(struct store *s, const struct file_filter *f, const struct compiled_query *where,
               file_run_fn fn, void *ctx, char *why, size_t why_size)
{
    struct sql_value params[QUERY_MAX_PARAMS + FILE_FILTER_MAX_GLOBS];
    char *likes[FILE_FILTER_MAX_GLOBS] = {NULL};
    size_t np = 0;
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return -1;
    /* the condition on summaries in a subquery of its own: run_files has
     * columns of the same names as some fields (bytes_read) */
    fputs("SELECT f.summary_id, s.name, s.category, s.taskid, f.path, f.files, f.bytes_read,"
          " f.bytes_written, f.opens, f.reads, f.writes FROM run_files f JOIN summaries s"
          " ON s.id = f.summary_id WHERE", b.out);
    if (where) {
        fprintf(b.out, " f.summary_id IN (SELECT id FROM summaries WHERE %s) AND", where->where);
        for (size_t i = 0; i < where->nparams; i++)
            params[np++] = where->params[i];
    }
    fputs(" (f.path IS NULL", b.out);
    if (f->nglobs == 0)
        fputs(" OR 1 = 1", b.out);
    for (size_t i = 0; i < f->nglobs; i++) {
        size_t cap = 4 * strlen(f->globs[i]) + 2;
        likes[i] = malloc(cap);
        if (!likes[i] || file_filter_glob_like(f->globs[i], likes[i], cap) < 0) {
            free(text_builder_finish(&b, why, why_size));
            for (size_t k = 0; k <= i; k++)
                free(likes[k]);
            snprintf(why, why_size, "out of memory");
            return -1;
        }
        fputs(" OR f.path LIKE ? ESCAPE '\\'", b.out);
        params[np++] = sql_text(likes[i]);
    }
    /* a run's rows together (its files are sorted by bytes moved here) */
    fputs(") ORDER BY f.summary_id", b.out);
    char *sql = text_builder_finish(&b, why, why_size);
    if (!sql) {
        for (size_t i = 0; i < f->nglobs; i++)
            free(likes[i]);
        return -1;
    }
    struct accumulator a = {.filter = f, .fn = fn, .ctx = ctx};
    int rc = store_query(s, sql, params, np, take_row, &a, why, why_size);
    if (rc == 0 && a.failed) {
        snprintf(why, why_size, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        finish_run(&a);
    clear_run(&a);
    free(a.files);
    free(sql);
    for (size_t i = 0; i < f->nglobs; i++)
        free(likes[i]);
    return rc;
}
