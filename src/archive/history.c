/* Loading a task's history from the store (see history.h). */
#include "archive/history.h"
#include "archive/schema.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text_builder.h"
#include "util/vec.h"

/* Resources are the numeric fields that describe the task, not the clock. */
static bool is_resource(const struct summary_field *f)
{
    return strcmp(f->name, "start") && strcmp(f->name, "end");
}

const char *history_group_column(const char *field)
{
    static const char *const groupable[][2] = {
        {"name", "name"}, {"category", "category"}, {"set", "set_id"},
        {"host", "host"}, {"tool", "tool"},         {"exit_type", "exit_type"},
    };
    for (size_t i = 0; i < sizeof groupable / sizeof groupable[0]; i++)
        if (!strcmp(field, groupable[i][0]))
            return groupable[i][1];
    return NULL;
}

static char *copy_text(const struct sql_value *v)
{
    return v->type == SQL_TEXT ? strdup(v->text) : NULL;
}

/* Makes room for at least need rows: the per-row arrays grow together
 * (util/vec.h), then the values, column-major, move each column to its new
 * start. */
static int reserve(struct history *h, size_t need)
{
    size_t cap = h->capacity;
    if (need <= cap)
        return 0;
    double *values = NULL;
    if (vec_reserve_parallel(&cap, need, VEC_ARRAY(h->ids), VEC_ARRAY(h->hosts), VEC_ARRAY(h->sets),
                             VEC_ARRAY(h->groups), VEC_ARRAY(h->exit_types), NULL) < 0 ||
        (h->nresources && !(values = malloc(cap * h->nresources * sizeof *values)))) {
        h->out_of_memory = 1;
        return -1;
    }
    for (size_t k = 0; k < h->nresources && h->values; k++)
        memcpy(values + k * cap, h->values + k * h->capacity, h->rows * sizeof *values);
    free(h->values);
    h->values = values;
    h->capacity = cap;
    return 0;
}

static int add_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct history *h = ctx;
    if (h->rows == h->capacity && reserve(h, h->capacity ? h->capacity * 2 : 1024) < 0)
        return 1;
    size_t r = h->rows++;
    h->ids[r] = row[0].integer;
    h->hosts[r] = h->with_identity ? copy_text(&row[1]) : NULL;
    h->sets[r] = h->with_identity ? copy_text(&row[2]) : NULL;
    h->groups[r] = copy_text(&row[3]);
    h->exit_types[r] = h->with_identity ? copy_text(&row[4]) : NULL;
    for (size_t k = 0; k < h->nresources && 5 + k < ncols; k++) {
        bool missing = row[5 + k].type == SQL_NULL;
        h->values[k * h->capacity + r] = missing ? NAN : row[5 + k].real;
        h->present[k] += !missing;
    }
    return 0;
}

struct wanted_fields {
    const struct summary_field **fields;
    size_t n;
};

static int add_wanted_field(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct wanted_fields *w = ctx;
    const struct summary_field *f = ncols > 0 && row[0].type == SQL_TEXT
                                        ? summary_field_find(row[0].text) : NULL;
    if (f && is_resource(f))
        w->fields[w->n++] = f;
    return 0;
}

/* Empty h with the resources (name_fields) of name (NULL: every field). */
static int history_begin(struct store *s, const char *name, bool with_identity,
                         struct history *h, char *why, size_t why_size)
{
    memset(h, 0, sizeof *h);
    h->with_identity = with_identity;
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    h->resources = calloc(nfields, sizeof *h->resources);
    h->present = calloc(nfields, sizeof *h->present);
    struct wanted_fields wanted = {calloc(nfields, sizeof *wanted.fields), 0};
    if (!h->resources || !h->present || !wanted.fields) {
        free(wanted.fields);
        history_free(h);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    /* only the fields the task's summaries carry */
    struct sql_value param = sql_text(name);
    if (store_query(s, name ? "SELECT DISTINCT field FROM name_fields WHERE name = ?"
                            : "SELECT DISTINCT field FROM name_fields",
                    name ? &param : NULL, name ? 1 : 0, add_wanted_field, &wanted, why,
                    why_size) < 0) {
        free(wanted.fields);
        history_free(h);
        return -1;
    }
    for (size_t i = 0; i < nfields; i++) /* in the table's order */
        for (size_t k = 0; k < wanted.n; k++)
            if (wanted.fields[k] == &fields[i])
                h->resources[h->nresources++] = &fields[i];
    free(wanted.fields);
    return 0;
}

/* Appends to h the rows whose key_column is key (NULL: all) with lowest_id
 * <= id <= highest_id. */
static int load_rows(struct store *s, const char *key_column, const char *name,
                     const char *group_column,
                     long long lowest_id, long long highest_id, struct history *h, char *why,
                     size_t why_size)
{
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return -1;
    /* group_column is one of history_group_column's fixed names, never user text */
    fprintf(b.out, "SELECT id, %s, %s, %s, %s", h->with_identity ? "host" : "NULL",
            h->with_identity ? "set_id" : "NULL", group_column ? group_column : "NULL",
            h->with_identity ? "exit_type" : "NULL");
    for (size_t k = 0; k < h->nresources; k++)
        fprintf(b.out, ", \"%s\"", h->resources[k]->name);
    /* key_column is "name" or "category" (history_load checks), never user text */
    fprintf(b.out, " FROM summaries WHERE %s%s id >= ? AND id <= ? ORDER BY %s%sid",
            name ? key_column : "", name ? " = ? AND" : "", group_column ? group_column : "",
            group_column ? ", " : "");
    char *sql = text_builder_finish(&b, why, why_size);
    if (!sql)
        return -1;
    struct sql_value params[3], *p = params;
    if (name)
        *p++ = sql_text(name);
    *p++ = sql_int(lowest_id);
    *p++ = sql_int(highest_id);
    int status = store_query(s, sql, params, (size_t)(p - params), add_row, h, why, why_size);
    free(sql);
    if (status == 0 && h->out_of_memory) {
        snprintf(why, why_size, "out of memory");
        status = -1;
    }
    return status;
}

/* Appends the rows of from to h (same resources). */
static int append_history(struct history *h, struct history *from)
{
    if (h->rows + from->rows > h->capacity && reserve(h, h->rows + from->rows) < 0)
        return -1;
    for (size_t k = 0; k < h->nresources; k++) {
        memcpy(h->values + k * h->capacity + h->rows, from->values + k * from->capacity,
               from->rows * sizeof *h->values);
        h->present[k] += from->present[k];
    }
    memcpy(h->ids + h->rows, from->ids, from->rows * sizeof *h->ids);
    memcpy(h->hosts + h->rows, from->hosts, from->rows * sizeof *h->hosts);
    memcpy(h->sets + h->rows, from->sets, from->rows * sizeof *h->sets);
    memcpy(h->groups + h->rows, from->groups, from->rows * sizeof *h->groups);
    memcpy(h->exit_types + h->rows, from->exit_types, from->rows * sizeof *h->exit_types);
    h->rows += from->rows;
    from->rows = 0; /* the strings now belong to h */
    return 0;
}

/* The upper half of the rows, read by a second thread on its own connection. */
struct half_load {
    const char *location, *key_column, *name;
    long long lowest_id, highest_id;
    struct history h;
    int status;
    char why[256];
};

static void *load_upper_half(void *arg)
{
    struct half_load *job = arg;
    struct store *s = store_open(job->location, job->why, sizeof job->why);
    job->status = s ? load_rows(s, job->key_column, job->name, NULL, job->lowest_id, job->highest_id, &job->h,
                                job->why, sizeof job->why)
                    : -1;
    store_close(s);
    return NULL;
}

struct id_range {
    long long count, lowest, highest;
};

static int read_range(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct id_range *r = ctx;
    if (ncols >= 3) {
        r->count = (long long)row[0].real;
        r->lowest = row[1].type == SQL_NULL ? 0 : (long long)row[1].real;
        r->highest = row[2].type == SQL_NULL ? 0 : (long long)row[2].real;
    }
    return 0;
}

#define PARALLEL_ROWS 20000 /* below this, a second connection costs more than it saves */

int history_load(struct store *s, const char *key_column, const char *name,
                 const char *group_column, bool with_identity, struct history *h, char *why,
                 size_t why_size)
{
    if (strcmp(key_column, "name") && strcmp(key_column, "category")) {
        snprintf(why, why_size, "runs are looked up by name or category, not '%s'", key_column);
        return -1;
    }
    bool by_name = !strcmp(key_column, "name");
    if (history_begin(s, by_name ? name : NULL, with_identity, h, why, why_size) < 0)
        return -1;
    /* how many rows, and their ids (from the index alone): the columns are
     * allocated once, and a long history is read in two halves at once */
    struct id_range range = {0, 0, 0};
    struct sql_value param = sql_text(name);
    if (store_query(s, name ? (by_name ? "SELECT count(*), min(id), max(id) FROM summaries WHERE name = ?"
                                       : "SELECT count(*), min(id), max(id) FROM summaries WHERE category = ?")
                            : "SELECT count(*), min(id), max(id) FROM summaries",
                    name ? &param : NULL, name ? 1 : 0, read_range, &range, why, why_size) < 0 ||
        (range.count > 0 && reserve(h, (size_t)range.count + 1) < 0)) {
        history_free(h);
        return -1;
    }
    long long split = range.highest; /* the main thread reads ids up to split */
    struct half_load upper = {.location = s->location, .key_column = key_column, .name = name,
                              .status = -1};
    pthread_t thread;
    bool parallel = false;
    if (!group_column && range.count >= PARALLEL_ROWS &&
        history_begin(s, by_name ? name : NULL, with_identity, &upper.h, why, why_size) == 0) {
        reserve(&upper.h, (size_t)range.count / 2 + 1024); /* a guess; add_row grows it */
        split = range.lowest + (range.highest - range.lowest) / 2;
        upper.lowest_id = split + 1;
        upper.highest_id = range.highest;
        parallel = pthread_create(&thread, NULL, load_upper_half, &upper) == 0;
        if (!parallel) {
            history_free(&upper.h);
            split = range.highest;
        }
    }
    int status = load_rows(s, key_column, name, group_column, range.lowest, split, h, why, why_size);
    if (parallel) {
        pthread_join(thread, NULL);
        if (status == 0 && upper.status < 0) {
            snprintf(why, why_size, "%s", upper.why);
            status = -1;
        }
        if (status == 0 && append_history(h, &upper.h) < 0) {
            snprintf(why, why_size, "out of memory");
            status = -1;
        }
        history_free(&upper.h);
    }
    if (status < 0)
        history_free(h);
    return status;
}

void history_free(struct history *h)
{
    for (size_t r = 0; r < h->rows; r++) {
        free(h->hosts[r]);
        free(h->sets[r]);
        free(h->groups[r]);
        free(h->exit_types[r]);
    }
    free(h->exit_types);
    free(h->hosts);
    free(h->sets);
    free(h->groups);
    free(h->ids);
    free(h->values);
    free(h->resources);
    free(h->present);
    memset(h, 0, sizeof *h);
}
