/* The archive's dictionary of repeated texts: the table and the writer's
 * cache of its ids (see dictionary.h). */
#include "archive/dictionary.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The id stored for text, 0 when none; -1 on an error. */
static long long stored_id(struct store *s, enum dictionary_kind kind, const char *text,
                           char *why, size_t why_size)
{
    long long id = 0;
    struct sql_value p[2] = {sql_int(kind), sql_text(text)};
    if (store_query(s, "SELECT id FROM dictionary WHERE kind = ? AND text = ?", p, 2,
                    store_first_integer, &id, why, why_size) < 0)
        return -1;
    return id;
}

int dictionary_id(struct store *s, enum dictionary_kind kind, const char *text, long long *id,
                  char *why, size_t why_size)
{
    struct dictionary_cache *c = cache_of(s);
    if (!c) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    void *known = hashmap_get(&c->ids[kind], text);
    if (known) {
        *id = (intptr_t)known;
        return 0;
    }
    long long found = stored_id(s, kind, text, why, why_size);
    bool added = false;
    /* the next id of the kind; 0 rows when another writer took it (or the
     * text) first: found again, or the id after */
    for (int attempt = 0; found == 0 && attempt < ADD_TRIES; attempt++) {
        struct sql_value p[3] = {sql_int(kind), sql_text(text), sql_int(kind)};
        long long changed = store_exec(s, "INSERT INTO dictionary (kind, id, text)"
                                          " SELECT CAST(? AS INTEGER), coalesce(max(id), 0) + 1,"
                                          " CAST(? AS TEXT) FROM dictionary WHERE kind = ?"
                                          " ON CONFLICT DO NOTHING",
                                       p, 3, why, why_size);
        if (changed < 0)
            return -1;
        added = changed > 0;
        found = stored_id(s, kind, text, why, why_size);
    }
    if (found < 0)
        return -1;
    if (found == 0) {
        snprintf(why, why_size, "dictionary: '%s' could not be added", text);
        return -1;
    }
    if (added) {
        char *copy = strdup(text);
        struct pending *p = copy ? VEC_PUSH(c->pending, c->npending, c->pending_capacity) : NULL;
        if (!p) {
            free(copy);
            snprintf(why, why_size, "out of memory");
            return -1;
        }
        p->kind = kind;
        p->text = copy;
        c->transaction = s->transaction;
    }
    if (hashmap_put(&c->ids[kind], text, (void *)(intptr_t)found) < 0) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    *id = found;
    return 0;
}
