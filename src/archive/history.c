/* Loading a task's history from the store (see history.h). */
#include "archive/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Makes room for cap rows (column-major: each column moves to its new start). */
static int reserve(struct history *h, size_t cap)
{
    double *values = malloc(cap * h->nresources * sizeof *values);
    if (values) {
        for (size_t k = 0; k < h->nresources && h->values; k++)
            memcpy(values + k * cap, h->values + k * h->capacity, h->rows * sizeof *values);
        free(h->values);
        h->values = values;
    }
    long long *ids = realloc(h->ids, cap * sizeof *ids);
    if (ids)
        h->ids = ids;
    char **hosts = realloc(h->hosts, cap * sizeof *hosts);
    if (hosts)
        h->hosts = hosts;
    char **sets = realloc(h->sets, cap * sizeof *sets);
    if (sets)
        h->sets = sets;
    char **groups = realloc(h->groups, cap * sizeof *groups);
    if (groups)
        h->groups = groups;
    if (!values || !ids || !hosts || !sets || !groups) {
        h->out_of_memory = 1;
        return -1;
    }
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
    for (size_t k = 0; k < h->nresources && 4 + k < ncols; k++) {
        bool missing = row[4 + k].type == SQL_NULL;
        h->values[k * h->capacity + r] = missing ? NAN : row[4 + k].real;
        h->present[k] += !missing;
    }
    return 0;
}

static int read_count(void *ctx, size_t ncols, const struct sql_value *row)
{
    *(long long *)ctx = ncols > 0 ? (long long)row[0].real : 0;
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

int history_load(struct store *s, const char *name, const char *group_column, bool with_identity,
                 struct history *h, char *why, size_t why_len)
{
    memset(h, 0, sizeof *h);
    h->with_identity = with_identity;
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    h->resources = calloc(nfields, sizeof *h->resources);
    h->present = calloc(nfields, sizeof *h->present);
    if (!h->resources || !h->present) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    /* only the fields the task's summaries carry (name_fields) */
    struct sql_value name_param = sql_text(name);
    struct wanted_fields wanted = {calloc(nfields, sizeof *wanted.fields), 0};
    if (!wanted.fields ||
        store_query(s, name ? "SELECT DISTINCT field FROM name_fields WHERE name = ?"
                            : "SELECT DISTINCT field FROM name_fields",
                    name ? &name_param : NULL, name ? 1 : 0, add_wanted_field, &wanted, why,
                    why_len) < 0) {
        free(wanted.fields);
        history_free(h);
        return -1;
    }
    for (size_t i = 0; i < nfields; i++) /* in the table's order */
        for (size_t k = 0; k < wanted.n; k++)
            if (wanted.fields[k] == &fields[i])
                h->resources[h->nresources++] = &fields[i];
    free(wanted.fields);
    char *sql = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&sql, &len);
    /* group_column is one of history_group_column's fixed names, never user text */
    fprintf(out, "SELECT id, %s, %s, %s", with_identity ? "host" : "NULL",
            with_identity ? "set_id" : "NULL", group_column ? group_column : "NULL");
    for (size_t k = 0; k < h->nresources; k++)
        fprintf(out, ", \"%s\"", h->resources[k]->name);
    fprintf(out, " FROM summaries%s ORDER BY %s%sid", name ? " WHERE name = ?" : "",
            group_column ? group_column : "", group_column ? ", " : "");
    fclose(out);
    struct sql_value param = sql_text(name);
    /* the count first (from the index alone), so the columns are allocated once */
    long long expected = 0;
    if (store_query(s, name ? "SELECT count(*) FROM summaries WHERE name = ?"
                            : "SELECT count(*) FROM summaries",
                    name ? &param : NULL, name ? 1 : 0, read_count, &expected, why, why_len) == 0 &&
        expected > 0 && reserve(h, (size_t)expected + 1) < 0) {
        free(sql);
        history_free(h);
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    int status = store_query(s, sql, name ? &param : NULL, name ? 1 : 0, add_row, h, why, why_len);
    free(sql);
    if (status == 0 && h->out_of_memory) {
        snprintf(why, why_len, "out of memory");
        status = -1;
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
    }
    free(h->hosts);
    free(h->sets);
    free(h->groups);
    free(h->ids);
    free(h->values);
    free(h->resources);
    free(h->present);
    memset(h, 0, sizeof *h);
}
