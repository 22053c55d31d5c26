/* Aggregates in the store (see aggregate_store.h). */
#include "archive/aggregate_store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/rows_statement.h"
#include "archive/start_day.h"
#include "core/fields.h"
#include "util/ordered_worker.h"
#include "util/text_builder.h"

struct entry {
    enum aggregate_kind kind;
    char *key;
    long long day;
    struct aggregate agg;
};

/* Open addressing on (kind, key, day); grows at half full. The slots point
 * to the entries (2.4 KB each), so that growing the table moves pointers,
 * and a table of a few hundred days is not a fresh multi-megabyte block
 * (page faults) at each batch. */
struct aggregate_table {
    struct entry **slots;
    size_t capacity, used;
};

struct aggregate_table *aggregate_table_new(void)
{
    struct aggregate_table *t = calloc(1, sizeof *t);
    if (t && !(t->slots = calloc(t->capacity = 64, sizeof *t->slots))) {
        free(t);
        return NULL;
    }
    return t;
}

static void clear(struct aggregate_table *t)
{
    for (size_t i = 0; i < t->capacity; i++)
        if (t->slots[i]) {
            free(t->slots[i]->key);
            aggregate_free(&t->slots[i]->agg);
            free(t->slots[i]);
            t->slots[i] = NULL;
        }
    t->used = 0;
}

void aggregate_table_free(struct aggregate_table *t)
{
    if (!t)
        return;
    clear(t);
    free(t->slots);
    free(t);
}

static size_t hash_of(enum aggregate_kind kind, const char *key, long long day)
{
    size_t h = 1469598103934665603u ^ (size_t)kind ^ ((size_t)day * 1099511628211u);
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    return h;
}

static struct entry **find_slot(struct entry **slots, size_t capacity, enum aggregate_kind kind,
                                const char *key, long long day)
{
    size_t i = hash_of(kind, key, day) & (capacity - 1);
    while (slots[i] &&
           !(slots[i]->kind == kind && slots[i]->day == day && !strcmp(slots[i]->key, key)))
        i = (i + 1) & (capacity - 1);
    return &slots[i];
}

static struct aggregate *entry_for(struct aggregate_table *t, enum aggregate_kind kind,
                                   const char *key, long long day)
{
    if (2 * (t->used + 1) > t->capacity) {
        size_t capacity = 2 * t->capacity;
        struct entry **slots = calloc(capacity, sizeof *slots);
        if (!slots)
            return NULL;
        for (size_t i = 0; i < t->capacity; i++)
            if (t->slots[i])
                *find_slot(slots, capacity, t->slots[i]->kind, t->slots[i]->key, t->slots[i]->day) =
                    t->slots[i];
        free(t->slots);
        t->slots = slots;
        t->capacity = capacity;
    }
    struct entry **slot = find_slot(t->slots, t->capacity, kind, key, day);
    if (!*slot) {
        struct entry *e = malloc(sizeof *e);
        if (!e || !(e->key = strdup(key))) {
            free(e);
            return NULL;
        }
        e->kind = kind;
        e->day = day;
        aggregate_init(&e->agg);
        *slot = e;
        t->used++;
    }
    return &(*slot)->agg;
}

int aggregate_table_add_run(struct aggregate_table *t, const char *name, const char *category,
                            long long day, const double *values, const bool *present,
                            long long id, bool stopped)
{
    int32_t bins[FIELD_COUNT];
    aggregate_bins_of(values, present, bins);
    struct aggregate *a = entry_for(t, AGGREGATE_BY_NAME, name, day);
    if (!a || aggregate_add_binned(a, values, present, bins, id, stopped) < 0)
        return -1;
    if (!category)
        return 0;
    a = entry_for(t, AGGREGATE_BY_CATEGORY, category, day);
    return a && aggregate_add_binned(a, values, present, bins, id, stopped) == 0 ? 0 : -1;
}

long long aggregate_day(bool has_start, double start, double archived_at)
{
    long long day = summary_start_day(has_start && isfinite(start), start);
    return day != SUMMARY_NO_START_DAY ? day : (long long)floor(archived_at / 86400);
}

int aggregate_table_settle(struct aggregate_table *t)
{
    for (size_t i = 0; i < t->capacity; i++)
        if (t->slots[i] && aggregate_settle(&t->slots[i]->agg) < 0)
            return -1;
    return 0;
}

/* Up to ROWS_STATEMENT_CHUNK entries of a table flushed together: each
 * one's merged copy (the table's aggregate + the stored one: the table
 * stays as it was, for a transaction run again) and encoded form. */
struct flush_chunk {
    struct entry *entry[ROWS_STATEMENT_CHUNK];
    struct aggregate merged[ROWS_STATEMENT_CHUNK];
    unsigned char *data[ROWS_STATEMENT_CHUNK];
    size_t length[ROWS_STATEMENT_CHUNK];
    size_t n;
    long long unreadable; /* position + 1 of a stored row that could not be read */
};

/* A stored row of the chunk's keys (position, data): merged into its copy. */
static int merge_stored(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct flush_chunk *c = ctx;
    long long at = ncols >= 2 && row[0].type == SQL_INT ? row[0].integer : -1;
    if (at < 0 || (size_t)at >= c->n || row[1].type != SQL_BLOB ||
        aggregate_decode_merge(&c->merged[at], (const unsigned char *)row[1].text, row[1].length) < 0) {
        c->unreadable = at + 1 > 0 ? at + 1 : 1;
        return 1;
    }
    return 0;
}

/* The chunk's keys as parameters, 3 a row: (kind, key, day). */
static void key_params(const struct flush_chunk *c, struct sql_value *p)
{
    for (size_t i = 0; i < c->n; i++) {
        p[3 * i] = sql_int(c->entry[i]->kind);
        p[3 * i + 1] = sql_text(c->entry[i]->key);
        p[3 * i + 2] = sql_int(c->entry[i]->day);
    }
}

/* The chunk's stored rows read and merged into its copies. */
static int read_chunk(struct flush_chunk *c, struct store *s, char *why, size_t why_size)
{
    struct sql_value p[3 * ROWS_STATEMENT_CHUNK];
    key_params(c, p);
    /* the casts type PostgreSQL's parameters, which a VALUES list leaves unknown */
    char *sql = rows_statement("WITH wanted (position, kind, key, day) AS (VALUES",
                               "#, CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS BIGINT)", c->n,
                               ") SELECT w.position, a.data FROM wanted w JOIN aggregates a"
                               " ON a.kind = w.kind AND a.key = w.key AND a.day = w.day",
                               why, why_size);
    int rc = sql && store_query(s, sql, p, 3 * c->n, merge_stored, c, why, why_size) == 0 ? 0 : -1;
    free(sql);
    if (rc == 0 && c->unreadable) {
        const struct entry *e = c->entry[c->unreadable - 1];
        snprintf(why, why_size, "the stored aggregate of '%s' for day %lld cannot be read", e->key, e->day);
        return -1;
    }
    return rc;
}

/* The chunk's merged rows encoded (in the encoding thread, or in the
 * writing one when there is none): 0, or -1 when out of memory. */
static int encode_chunk(struct flush_chunk *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (!(c->data[i] = aggregate_encode(&c->merged[i], &c->length[i])))
            return -1;
    return 0;
}

static int encode_item(void *chunks, size_t k)
{
    return encode_chunk(((struct flush_chunk **)chunks)[k]);
}

/* The chunk's encoded rows sent to be written back, without waiting
 * (store_send). */
static int send_chunk(const struct flush_chunk *c, struct store *s, char *why, size_t why_size)
{
    struct sql_value p[4 * ROWS_STATEMENT_CHUNK];
    for (size_t i = 0; i < c->n; i++) {
        p[4 * i] = sql_int(c->entry[i]->kind);
        p[4 * i + 1] = sql_text(c->entry[i]->key);
        p[4 * i + 2] = sql_int(c->entry[i]->day);
        p[4 * i + 3] = sql_blob(c->data[i], c->length[i]);
    }
    char *sql = rows_statement("INSERT INTO aggregates (kind, key, day, data) VALUES", "?, ?, ?, ?", c->n,
                               " ON CONFLICT (kind, key, day) DO UPDATE SET data = excluded.data", why,
                               why_size);
    int rc = sql && store_send(s, sql, p, 4 * c->n, why, why_size) == 0 ? 0 : -1;
    free(sql);
    return rc;
}

static void chunk_clear(struct flush_chunk *c)
{
    for (size_t i = 0; i < c->n; i++) {
        aggregate_free(&c->merged[i]);
        free(c->data[i]);
        c->data[i] = NULL;
    }
    c->n = 0;
    c->unreadable = 0;
}

/* The chunks' memory; the array stays, empty. */
static void chunks_free(struct flush_chunk **chunks, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        chunk_clear(chunks[i]);
        free(chunks[i]);
        chunks[i] = NULL;
    }
}

/* The chunks' rows, read and merged, written back: each chunk's encoding
 * taken from the encoding thread (which worked on it while this one read
 * and merged the chunks after it, and wrote those before), or done here
 * without one, while the server writes the chunk before (its statement sent
 * without waiting), so that the encoding, most of the work at a
 * transaction's end, no longer adds to the reads and the upserts. */
static int write_chunks(struct flush_chunk **chunks, size_t nchunks, struct ordered_worker *encoder,
                        struct store *s, char *why, size_t why_size)
{
    bool outstanding = false;
    int rc = 0;
    for (size_t k = 0; k < nchunks && rc == 0; k++) {
        if ((encoder ? ordered_worker_wait(encoder, k) : encode_chunk(chunks[k])) < 0) {
            snprintf(why, why_size, "out of memory");
            rc = -1;
        }
        if (outstanding) { /* the chunk before, written meanwhile: its outcome, then its memory */
            char waited[256];
            if (store_wait(s, waited, sizeof waited) < 0 && rc == 0) {
                snprintf(why, why_size, "%s", waited);
                rc = -1;
            }
            outstanding = false;
            chunk_clear(chunks[k - 1]);
        }
        if (rc == 0)
            outstanding = (rc = send_chunk(chunks[k], s, why, why_size)) == 0;
    }
    if (outstanding && store_wait(s, why, why_size) < 0)
        rc = -1;
    return rc;
}

/* Chunks held at once, read before any is written (4,096 day rows: a
 * transaction's, or a bounded part of a migration's rebuild). Their merged
 * rows are held decoded meanwhile: the second half of the bench's 10^6
 * into PostgreSQL peaked at 314 MB of resident memory, 274 MB with one
 * chunk held at a time. */
#define FLUSH_WINDOW 16

/* The window's chunk k has been read and merged: the encoding thread may
 * take it (started with the window's first; none when it cannot start). */
static void hand_to_encoder(struct ordered_worker **encoder, struct flush_chunk **chunks, size_t k)
{
    if (!*encoder && k == 0)
        *encoder = ordered_worker_start(encode_item, chunks);
    if (*encoder)
        ordered_worker_hand(*encoder, k + 1);
}

/* The window's chunks written, its encoding thread stopped, their memory
 * freed. */
static int write_window(struct flush_chunk **chunks, size_t *nchunks, struct ordered_worker **encoder,
                        bool write, struct store *s, char *why, size_t why_size)
{
    int rc = write ? write_chunks(chunks, *nchunks, *encoder, s, why, why_size) : -1;
    ordered_worker_stop(*encoder);
    *encoder = NULL;
    chunks_free(chunks, *nchunks);
    *nchunks = 0;
    return rc;
}

static int by_key_and_day(const void *a, const void *b)
{
    const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->day > y->day) - (x->day < y->day);
}

/* t's entries in the order of their rows' key (kind, key, day), NULL when
 * out of memory. Written in that order, a transaction's new day rows of a
 * name or category lie side by side in the file (SQLite gives rowids, and
 * PostgreSQL heap places, in the order of insertion), not one between each
 * of the others': a question over a long window, out of the cache, reads a
 * few pages per transaction of the key instead of one per day. */
static struct entry **sorted_entries(const struct aggregate_table *t)
{
    struct entry **sorted = malloc((t->used ? t->used : 1) * sizeof *sorted);
    size_t n = 0;
    for (size_t i = 0; sorted && i < t->capacity; i++)
        if (t->slots[i])
            sorted[n++] = t->slots[i];
    if (sorted)
        qsort(sorted, n, sizeof *sorted, by_key_and_day);
    return sorted;
}

int aggregate_table_flush(const struct aggregate_table *t, struct store *s, const long long *ids,
                          size_t nids, char *why, size_t why_size)
{
    struct flush_chunk *chunks[FLUSH_WINDOW] = {NULL}, *c = NULL;
    struct ordered_worker *encoder = NULL;
    size_t nchunks = 0;
    struct entry **sorted = sorted_entries(t);
    int rc = 0;
    if (!sorted) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < t->used && rc == 0; i++) {
        struct entry *e = sorted[i];
        if (!c || c->n == ROWS_STATEMENT_CHUNK) {
            if (c && (rc = read_chunk(c, s, why, why_size)) < 0)
                break;
            if (c)
                hand_to_encoder(&encoder, chunks, nchunks - 1);
            if (nchunks == FLUSH_WINDOW && (rc = write_window(chunks, &nchunks, &encoder, true, s, why,
                                                              why_size)) < 0)
                break;
            if (!(c = chunks[nchunks] = calloc(1, sizeof *c))) {
                snprintf(why, why_size, "out of memory");
                rc = -1;
                break;
            }
            nchunks++;
        }
        struct aggregate *merged = &c->merged[c->n];
        aggregate_init(merged);
        c->entry[c->n++] = e;
        if (aggregate_settle(&e->agg) < 0 || aggregate_merge(merged, &e->agg) < 0) {
            snprintf(why, why_size, "out of memory");
            rc = -1;
        } else if (ids) {
            aggregate_renumber(merged, ids, nids);
        }
    }
    if (rc == 0 && nchunks && chunks[nchunks - 1]->n) { /* the last, partly filled chunk */
        rc = read_chunk(chunks[nchunks - 1], s, why, why_size);
        if (rc == 0)
            hand_to_encoder(&encoder, chunks, nchunks - 1);
    }
    int written = write_window(chunks, &nchunks, &encoder, rc == 0, s, why, why_size);
    free(sorted);
    return rc == 0 ? written : rc;
}

struct load_ctx {
    struct aggregate *a;
    size_t rows;
    bool bad;
};

static int load_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct load_ctx *l = ctx;
    if (ncols < 1 || row[0].type != SQL_BLOB ||
        aggregate_decode_merge(l->a, (const unsigned char *)row[0].text, row[0].length) < 0) {
        l->bad = true;
        return 1;
    }
    l->rows++;
    return 0;
}

int aggregate_load(struct store *s, enum aggregate_kind kind, const char *key, long long first_day,
                   long long last_day, struct aggregate *a, size_t *found, char *why,
                   size_t why_size)
{
    struct load_ctx l = {a, 0, false};
    struct sql_value p[4] = {sql_int(kind), sql_text(key), sql_int(first_day), sql_int(last_day)};
    if (store_query(s, "SELECT data FROM aggregates WHERE kind = ? AND key = ? AND day >= ?"
                       " AND day <= ?", p, 4, load_row, &l, why, why_size) < 0)
        return -1;
    if (l.bad) {
        snprintf(why, why_size, "the aggregates of '%s' cannot be read", key);
        return -1;
    }
    *found = l.rows;
    return 0;
}

static int found_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    (void)ncols;
    (void)row;
    *(int *)ctx = 1;
    return 1;
}

int aggregate_key_exists(struct store *s, enum aggregate_kind kind, const char *key, char *why,
                         size_t why_size)
{
    int found = 0;
    struct sql_value p[2] = {sql_int(kind), sql_text(key)};
    if (store_query(s, "SELECT 1 FROM aggregates WHERE kind = ? AND key = ? LIMIT 1", p, 2,
                    found_row, &found, why, why_size) < 0)
        return -1;
    return found;
}

/* --- rebuilding from the rows (migration 4) ------------------------------ */

struct rebuild {
    struct aggregate_table *table;
    size_t nfields;
    bool failed;
};

static int rebuild_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct rebuild *r = ctx;
    double values[FIELD_COUNT];
    bool present[FIELD_COUNT];
    for (size_t f = 0; f < FIELD_COUNT; f++) {
        present[f] = f < r->nfields && 6 + f < ncols && row[6 + f].type != SQL_NULL;
        values[f] = present[f] ? row[6 + f].real : NAN;
    }
    const char *name = row[1].type == SQL_TEXT ? row[1].text : "";
    const char *category = row[2].type == SQL_TEXT ? row[2].text : NULL;
    bool stopped = row[5].type == SQL_TEXT && !strcmp(row[5].text, "limits");
    long long day = aggregate_day(row[3].type != SQL_NULL, row[3].real, row[4].real);
    if (aggregate_table_add_run(r->table, name, category, day, values, present, row[0].integer,
                                stopped) < 0) {
        r->failed = true;
        return 1;
    }
    return 0;
}

int aggregate_rebuild(struct store *s, char *why, size_t why_size)
{
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return -1;
    /* field names come from fields.c; a column this schema lacks reads NULL */
    fputs("SELECT id, name, category, \"start\", archived_at, exit_type", b.out);
    for (size_t f = 0; f < nfields; f++)
        fprintf(b.out, ", \"%s\"", fields[f].name);
    fputs(" FROM summaries", b.out);
    char *sql = text_builder_finish(&b, why, why_size);
    if (!sql)
        return -1;
    struct rebuild r = {aggregate_table_new(), nfields, false};
    r.failed = !r.table;
    int rc = r.table ? store_query(s, sql, NULL, 0, rebuild_row, &r, why, why_size) : 0;
    free(sql);
    if (rc == 0 && r.failed) {
        snprintf(why, why_size, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        rc = aggregate_table_flush(r.table, s, NULL, 0, why, why_size);
    aggregate_table_free(r.table);
    return rc;
}
