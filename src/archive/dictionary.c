/* The archive's dictionary of repeated texts: the table and the writer's
 * cache of its ids (see dictionary.h). */
#include "archive/dictionary.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/rows_statement.h"
#include "util/hashmap.h"
#include "util/vec.h"

/* tries at adding a text whose next id another writer took meanwhile */
#define ADD_TRIES 100

struct pending {
    enum dictionary_kind kind;
    char *text;
};

/* One per store: each kind's texts → ids (as intptr_t, never 0), and the
 * texts added in the transaction `transaction`, not yet known to commit. */
struct dictionary_cache {
    struct hashmap ids[DICT_KINDS];
    unsigned long transaction;
    struct pending *pending;
    size_t npending, pending_capacity;
};

static void cache_free(void *p)
{
    struct dictionary_cache *c = p;
    if (!c)
        return;
    for (int k = 0; k < DICT_KINDS; k++)
        hashmap_free(&c->ids[k]);
    for (size_t i = 0; i < c->npending; i++)
        free(c->pending[i].text);
    free(c->pending);
    free(c);
}

/* The store's cache, its texts added by a transaction that has ended kept
 * when it committed and forgotten when not. */
static struct dictionary_cache *cache_of(struct store *s)
{
    struct dictionary_cache *c = s->cache;
    if (!c) {
        if (s->cache_free) /* another kind of cache: not this one's to use */
            return NULL;
        if (!(c = calloc(1, sizeof *c)))
            return NULL;
        s->cache = c;
        s->cache_free = cache_free;
    }
    if (c->npending && c->transaction != s->transaction) {
        bool committed = s->committed == c->transaction;
        for (size_t i = 0; i < c->npending; i++) {
            if (!committed)
                hashmap_remove(&c->ids[c->pending[i].kind], c->pending[i].text);
            free(c->pending[i].text);
        }
        c->npending = 0;
    }
    return c;
}

int dictionary_create(struct store *s, char *why, size_t why_size)
{
    char sql[256];
    snprintf(sql, sizeof sql, "CREATE TABLE dictionary (kind INTEGER NOT NULL, id INTEGER NOT NULL,"
             " text TEXT NOT NULL, PRIMARY KEY (kind, id), UNIQUE (kind, text))%s;",
             s->backend->clustered_key ? s->backend->clustered_key : "");
    return store_exec(s, sql, NULL, 0, why, why_size) < 0 ? -1 : 0;
}

/* A text the cache lacks: its id once found (0 before). */
struct missing {
    enum dictionary_kind kind;
    const char *text; /* the caller's */
    long long id;
    bool adding; /* without an id before the last attempt at adding */
};

/* The rows of a chunk of missing texts and where each one's id goes. */
struct chunk {
    struct missing **m;
    size_t n;
};

static int found_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct chunk *c = ctx;
    if (ncols >= 2 && row[0].type == SQL_INT && row[0].integer >= 0 && (size_t)row[0].integer < c->n &&
        row[1].type == SQL_INT)
        c->m[row[0].integer]->id = row[1].integer;
    return 0;
}

/* The stored ids of the texts of m[0..n) that have none yet, a statement
 * per ROWS_STATEMENT_CHUNK of them. */
static int find_stored(struct store *s, struct missing *m, size_t n, char *why, size_t why_size)
{
    struct missing *rows[ROWS_STATEMENT_CHUNK];
    struct sql_value p[2 * ROWS_STATEMENT_CHUNK];
    for (size_t i = 0; i < n;) {
        struct chunk c = {rows, 0};
        for (; i < n && c.n < ROWS_STATEMENT_CHUNK; i++)
            if (!m[i].id) {
                p[2 * c.n] = sql_int(m[i].kind);
                p[2 * c.n + 1] = sql_text(m[i].text);
                rows[c.n++] = &m[i];
            }
        if (!c.n)
            break;
        /* the casts type PostgreSQL's parameters, which a VALUES list leaves unknown */
        char *sql = rows_statement("WITH wanted (position, kind, text) AS (VALUES",
                                   "#, CAST(? AS INTEGER), CAST(? AS TEXT)", c.n,
                                   ") SELECT w.position, d.id FROM wanted w JOIN dictionary d"
                                   " ON d.kind = w.kind AND d.text = w.text",
                                   why, why_size);
        int rc = sql ? store_query(s, sql, p, 2 * c.n, found_row, &c, why, why_size) : -1;
        free(sql);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* The texts of m[0..n) without an id added, each with the next free id of
 * its kind (the largest stored + its place among the kind's added ones); a
 * row whose id or text another writer stored first is skipped (found again,
 * or added again with the ids after). */
static int add_missing(struct store *s, struct missing *m, size_t n, char *why, size_t why_size)
{
    struct sql_value p[3 * ROWS_STATEMENT_CHUNK];
    for (size_t i = 0; i < n;) {
        long long step[DICT_KINDS] = {0}; /* after the largest id the statement sees */
        size_t rows = 0;
        for (; i < n && rows < ROWS_STATEMENT_CHUNK; i++)
            if (!m[i].id) {
                p[3 * rows] = sql_int(m[i].kind);
                p[3 * rows + 1] = sql_int(++step[m[i].kind]);
                p[3 * rows + 2] = sql_text(m[i].text);
                rows++;
            }
        if (!rows)
            break;
        /* WHERE true: SQLite's parser would take ON for a join's */
        char *sql = rows_statement("WITH added (kind, step, text) AS (VALUES",
                                   "CAST(? AS INTEGER), CAST(? AS INTEGER), CAST(? AS TEXT)", rows,
                                   ") INSERT INTO dictionary (kind, id, text) SELECT a.kind, a.step +"
                                   " coalesce((SELECT max(d.id) FROM dictionary d WHERE d.kind = a.kind), 0),"
                                   " a.text FROM added a WHERE true ON CONFLICT DO NOTHING",
                                   why, why_size);
        long long rc = sql ? store_exec(s, sql, p, 3 * rows, why, why_size) : -1;
        free(sql);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static size_t count_unfound(const struct missing *m, size_t n)
{
    size_t unfound = 0;
    for (size_t i = 0; i < n; i++)
        unfound += !m[i].id;
    return unfound;
}

/* A text added in the cache's transaction, forgotten if it does not commit. */
static int remember_added(struct dictionary_cache *c, struct store *s, const struct missing *m)
{
    char *copy = strdup(m->text);
    struct pending *p = copy ? VEC_PUSH(c->pending, c->npending, c->pending_capacity) : NULL;
    if (!p) {
        free(copy);
        return -1;
    }
    *p = (struct pending){m->kind, copy};
    c->transaction = s->transaction;
    return 0;
}

/* m[0..n)'s ids found, or added, and put in the cache. Those found after
 * an attempt at adding them are remembered as added in this transaction
 * (some may be another writer's: forgotten, they cost a lookup). */
static int resolve_missing(struct store *s, struct dictionary_cache *c, struct missing *m, size_t n,
                           char *why, size_t why_size)
{
    if (find_stored(s, m, n, why, why_size) < 0)
        return -1;
    for (int attempt = 0; attempt < ADD_TRIES && count_unfound(m, n); attempt++) {
        for (size_t i = 0; i < n; i++)
            m[i].adding = !m[i].id;
        if (add_missing(s, m, n, why, why_size) < 0 || find_stored(s, m, n, why, why_size) < 0)
            return -1;
        for (size_t i = 0; i < n; i++)
            if (m[i].adding && m[i].id && remember_added(c, s, &m[i]) < 0) {
                snprintf(why, why_size, "out of memory");
                return -1;
            }
    }
    for (size_t i = 0; i < n; i++) {
        if (!m[i].id) {
            snprintf(why, why_size, "dictionary: '%s' could not be added", m[i].text);
            return -1;
        }
        if (hashmap_put(&c->ids[m[i].kind], m[i].text, (void *)(intptr_t)m[i].id) < 0) {
            snprintf(why, why_size, "out of memory");
            return -1;
        }
    }
    return 0;
}

/* The texts of texts[0..n) that the cache lacks, each once, into *m: 0, or
 * -1 when out of memory. */
static int gather_missing(struct dictionary_cache *c, const struct dictionary_text *texts, size_t n,
                          struct missing **m, size_t *nm)
{
    struct hashmap seen[DICT_KINDS] = {{0}};
    size_t capacity = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct dictionary_text *t = &texts[i];
        *t->id = 0;
        if (!t->text)
            continue;
        void *known = hashmap_get(&c->ids[t->kind], t->text);
        if (known) {
            *t->id = (intptr_t)known;
        } else if (!hashmap_get(&seen[t->kind], t->text)) {
            struct missing *add = VEC_PUSH(*m, *nm, capacity);
            if (!add || hashmap_put(&seen[t->kind], t->text, (void *)1) < 0)
                rc = -1;
            else
                *add = (struct missing){t->kind, t->text, 0, false};
        }
    }
    for (int k = 0; k < DICT_KINDS; k++)
        hashmap_free(&seen[k]);
    return rc;
}

int dictionary_ids(struct store *s, const struct dictionary_text *texts, size_t n, char *why,
                   size_t why_size)
{
    struct dictionary_cache *c = cache_of(s);
    struct missing *m = NULL;
    size_t nm = 0;
    if (!c || gather_missing(c, texts, n, &m, &nm) < 0) {
        free(m);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    int rc = nm ? resolve_missing(s, c, m, nm, why, why_size) : 0;
    for (size_t i = 0; i < n && nm && rc == 0; i++)
        if (texts[i].text && !*texts[i].id)
            *texts[i].id = (intptr_t)hashmap_get(&c->ids[texts[i].kind], texts[i].text);
    free(m);
    return rc;
}
