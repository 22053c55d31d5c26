/* Per-file rows of an archived run (see file_rows.h): parsing a level-3
 * PREFIX.files.json into bounded rows, finding it beside a summary, and
 * storing the rows in run_files. */
#include "archive/file_rows.h"

#include <math.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/document_pack.h"
#include "util/error.h"
#include "util/text_file.h"
#include "util/vec.h"

#define ROWS_PER_STATEMENT 64
#define ROW_COLUMNS 8

static long long sat_add(long long a, long long b)
{
    long long sum;
    return __builtin_add_overflow(a, b, &sum) ? (b > 0 ? __LONG_LONG_MAX__ : -__LONG_LONG_MAX__ - 1)
                                              : sum;
}

/* Counter `name` of a file object, 0 when absent. -1 when it is not a count. */
static int counter(json_t *file, const char *name, long long *out)
{
    json_t *v = json_object_get(file, name);
    if (!v || json_is_null(v))
        return 0;
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = sat_add(*out, json_integer_value(v));
        return 0;
    }
    if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 9e18 &&
        json_real_value(v) == floor(json_real_value(v))) {
        *out = sat_add(*out, (long long)json_real_value(v));
        return 0;
    }
    return -1;
}

struct sum_of {
    const char *counters[3];
    size_t offset;
};

#define AT(member) offsetof(struct file_row, member)
static const struct sum_of sums[] = {
    {{"POSIX_BYTES_READ", "STDIO_BYTES_READ", NULL}, AT(bytes_read)},
    {{"POSIX_BYTES_WRITTEN", "STDIO_BYTES_WRITTEN", NULL}, AT(bytes_written)},
    {{"POSIX_OPENS", "STDIO_OPENS", "STDIO_FDOPENS"}, AT(opens)},
    {{"POSIX_READS", "STDIO_READS", NULL}, AT(reads)},
    {{"POSIX_WRITES", "STDIO_WRITES", NULL}, AT(writes)},
};

static long long moved(const struct file_row *r) { return sat_add(r->bytes_read, r->bytes_written); }

/* Largest bytes moved first; equal ones by path, so that the rows kept do
 * not depend on the report's order. */
static int by_bytes(const void *a, const void *b)
{
    const struct file_row *x = a, *y = b;
    long long mx = moved(x), my = moved(y);
    if (mx != my)
        return mx > my ? -1 : 1;
    return strcmp(x->path, y->path);
}

static void add_into(struct file_row *to, const struct file_row *from)
{
    to->files = sat_add(to->files, from->files);
    for (size_t k = 0; k < sizeof sums / sizeof sums[0]; k++) {
        long long *dst = (long long *)((char *)to + sums[k].offset);
        *dst = sat_add(*dst, *(const long long *)((const char *)from + sums[k].offset));
    }
}

int file_rows_parse(const char *text, size_t len, size_t bound, struct file_rows *out, char *why,
                    size_t why_size)
{
    memset(out, 0, sizeof *out);
    json_error_t err;
    json_t *root = json_loadb(text, len, 0, &err);
    if (!root) {
        snprintf(why, why_size, "line %d: %s", err.line, err.text);
        return -1;
    }
    json_t *files = json_object_get(root, "files");
    if (!json_is_array(files)) {
        snprintf(why, why_size, "no \"files\" array: not a tally-files report");
        json_decref(root);
        return -1;
    }
    size_t n = json_array_size(files);
    struct file_row *all = calloc(n ? n : 1, sizeof *all);
    if (!all) {
        snprintf(why, why_size, "out of memory");
        json_decref(root);
        return -1;
    }
    size_t named = 0;
    bool incomplete = false;
    struct file_row other = {NULL, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        json_t *f = json_array_get(files, i);
        json_t *path = json_object_get(f, "path");
        if (!json_is_string(path)) {
            snprintf(why, why_size, "files[%zu]: want a \"path\" string", i);
            goto fail;
        }
        struct file_row r = {(char *)json_string_value(path), 1, 0, 0, 0, 0, 0};
        for (size_t k = 0; k < sizeof sums / sizeof sums[0]; k++)
            for (size_t c = 0; c < 3 && sums[k].counters[c]; c++)
                if (counter(f, sums[k].counters[c], (long long *)((char *)&r + sums[k].offset)) < 0) {
                    snprintf(why, why_size, "files[%zu]: %s: want a count", i, sums[k].counters[c]);
                    goto fail;
                }
        if (!strcmp(r.path, "<incomplete>")) { /* mixes files: never one file's row */
            r.files = 0;
            add_into(&other, &r);
            incomplete = true;
        } else {
            all[named++] = r;
        }
    }
    qsort(all, named, sizeof *all, by_bytes);
    for (size_t i = bound; i < named; i++)
        add_into(&other, &all[i]);
    size_t keep = named < bound ? named : bound;
    bool with_other = keep < named || incomplete;
    out->rows = calloc(keep + 1, sizeof *out->rows);
    if (!out->rows) {
        snprintf(why, why_size, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < keep; i++) {
        out->rows[i] = all[i];
        out->rows[i].path = strdup(all[i].path);
        out->count++;
        if (!out->rows[i].path) {
            snprintf(why, why_size, "out of memory");
            goto fail;
        }
    }
    if (with_other)
        out->rows[out->count++] = other;
    free(all);
    json_decref(root);
    return 0;
fail:
    free(all);
    json_decref(root);
    file_rows_free(out);
    return -1;
}

void file_rows_free(struct file_rows *rows)
{
    if (!rows)
        return;
    for (size_t i = 0; i < rows->count; i++)
        free(rows->rows[i].path);
    free(rows->rows);
    rows->rows = NULL;
    rows->count = 0;
}

char *file_rows_report_path(const char *label, json_t *summary)
{
    json_t *io = json_object_get(summary, "io");
    json_t *report = json_object_get(io, "report");
    if (!json_is_string(report))
        return NULL;
    size_t n = strlen(label);
    char *path = NULL;
    if (n > 8 && !strcmp(label + n - 8, ".summary")) {
        if (asprintf(&path, "%.*s.files.json", (int)(n - 8), label) < 0)
            path = NULL;
    } else if (json_string_value(report)[0] == '/') {
        path = strdup(json_string_value(report));
    } else {
        path = strdup(""); /* named, but relative to a place this summary does not say */
    }
    return path;
}

struct file_rows *file_rows_for_summary(const char *label, json_t *summary)
{
    char *path = file_rows_report_path(label, summary);
    if (!path)
        return NULL;
    char why[256];
    struct file_rows *rows = NULL;
    if (!*path) {
        tally_error("archive add: %s: its level-3 report '%s' is relative and the summary is not"
                    " a PREFIX.summary file: per-file rows not kept", label,
                    json_string_value(json_object_get(json_object_get(summary, "io"), "report")));
        free(path);
        return NULL;
    }
    size_t len;
    char *text = text_file_read(path, TEXT_FILE_LARGE, &len, why, sizeof why);
    rows = text ? malloc(sizeof *rows) : NULL;
    if (!text)
        tally_error("archive add: %s: %s: %s: per-file rows not kept", label, path, why);
    else if (!rows)
        tally_error("archive add: %s: out of memory: per-file rows not kept", label);
    else if (file_rows_parse(text, len, FILE_ROWS_MAX, rows, why, sizeof why) < 0) {
        tally_error("archive add: %s: %s: %s: per-file rows not kept", label, path, why);
        free(rows);
        rows = NULL;
    }
    free(text);
    free(path);
    return rows;
}

/* The INSERT of `rows` rows. */
static char *insert_sql(size_t rows)
{
    char *sql = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&sql, &len);
    if (!out)
        return NULL;
    fputs("INSERT INTO run_files (summary_id, path, files, bytes_read, bytes_written, opens, reads,"
          " writes) VALUES ", out);
    for (size_t r = 0; r < rows; r++)
        fputs(r ? ", (?, ?, ?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?, ?, ?)", out);
    if (fclose(out) != 0) {
        free(sql);
        return NULL;
    }
    return sql;
}

int file_rows_store(struct store *s, long long summary_id, const struct file_rows *rows, char *why,
                    size_t why_size)
{
    struct sql_value p[ROWS_PER_STATEMENT * ROW_COLUMNS];
    for (size_t first = 0; first < rows->count; first += ROWS_PER_STATEMENT) {
        size_t n = rows->count - first < ROWS_PER_STATEMENT ? rows->count - first : ROWS_PER_STATEMENT;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            const struct file_row *r = &rows->rows[first + i];
            p[k++] = sql_int(summary_id);
            p[k++] = sql_text(r->path);
            p[k++] = sql_int(r->files);
            p[k++] = sql_int(r->bytes_read);
            p[k++] = sql_int(r->bytes_written);
            p[k++] = r->opens < 0 ? sql_null() : sql_int(r->opens);
            p[k++] = r->reads < 0 ? sql_null() : sql_int(r->reads);
            p[k++] = r->writes < 0 ? sql_null() : sql_int(r->writes);
        }
        char *sql = insert_sql(n);
        long long rc = sql ? store_exec(s, sql, p, k, why, why_size) : -1;
        if (!sql)
            snprintf(why, why_size, "out of memory");
        free(sql);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static long long member_count(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (long long)json_integer_value(v) : 0;
}

int file_rows_from_summary_io(json_t *summary, struct file_rows *out)
{
    memset(out, 0, sizeof *out);
    json_t *io = json_object_get(summary, "io");
    json_t *top = json_object_get(io, "top_files");
    if (!json_is_array(top))
        return 0;
    out->rows = calloc(json_array_size(top) + 1, sizeof *out->rows);
    if (!out->rows)
        return -1;
    long long files = member_count(io, "files");
    struct file_row other = {NULL, files, 0, 0, -1, -1, -1};
    static const char *const modules[] = {"posix", "stdio"};
    for (size_t m = 0; m < 2; m++) {
        json_t *totals = json_object_get(io, modules[m]);
        other.bytes_read = sat_add(other.bytes_read, member_count(totals, "bytes_read"));
        other.bytes_written = sat_add(other.bytes_written, member_count(totals, "bytes_written"));
    }
    size_t i;
    json_t *f;
    json_array_foreach(top, i, f) {
        json_t *path = json_object_get(f, "path");
        if (!json_is_string(path))
            continue;
        struct file_row r = {strdup(json_string_value(path)), 1, member_count(f, "bytes_read"),
                             member_count(f, "bytes_written"), -1, -1, -1};
        if (!r.path) {
            file_rows_free(out);
            return -1;
        }
        out->rows[out->count++] = r;
        other.files--;
        other.bytes_read -= r.bytes_read < other.bytes_read ? r.bytes_read : other.bytes_read;
        other.bytes_written -= r.bytes_written < other.bytes_written ? r.bytes_written
                                                                     : other.bytes_written;
    }
    if (other.files > 0)
        out->rows[out->count++] = other;
    return 0;
}

struct ids {
    long long *id;
    size_t count, cap;
};

static int take_id(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct ids *ids = ctx;
    if (ncols < 1)
        return 0;
    long long *id = VEC_PUSH(ids->id, ids->count, ids->cap);
    if (!id)
        return 1;
    *id = sql_integer_of(&row[0]);
    return 0;
}

int file_rows_migrate(struct store *s, char *why, size_t why_size)
{
    if (store_exec(s, "CREATE TABLE run_files (summary_id BIGINT NOT NULL, path TEXT, files BIGINT"
                      " NOT NULL, bytes_read BIGINT NOT NULL, bytes_written BIGINT NOT NULL,"
                      " opens BIGINT, reads BIGINT, writes BIGINT)", NULL, 0, why, why_size) < 0 ||
        store_exec(s, "CREATE INDEX run_files_summary ON run_files (summary_id)", NULL, 0, why,
                   why_size) < 0)
        return -1;
    struct ids ids = {NULL, 0, 0};
    if (store_query(s, "SELECT id FROM summaries WHERE level = 3 ORDER BY id", NULL, 0, take_id,
                    &ids, why, why_size) < 0) {
        free(ids.id);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < ids.count && rc == 0; i++) {
        json_t *doc = document_load(s, ids.id[i], false, why, why_size);
        struct file_rows rows;
        if (!doc)
            continue; /* an unreadable document has no rows to give */
        if (file_rows_from_summary_io(doc, &rows) < 0) {
            snprintf(why, why_size, "out of memory");
            rc = -1;
        } else {
            rc = file_rows_store(s, ids.id[i], &rows, why, why_size);
        }
        file_rows_free(&rows);
        json_decref(doc);
    }
    free(ids.id);
    return rc;
}
