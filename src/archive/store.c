/* Backend-independent part of the store: choosing the backend from the
 * location, the default location, and thin wrappers over the backend
 * (store_backend.h). */
#include "archive/store.h"
#include "util/directories.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool store_location_is_postgres(const char *location)
{
    return !strncmp(location, "postgresql://", 13) || !strncmp(location, "postgres://", 11);
}

char *store_default_location(void)
{
    const char *env = getenv("TALLY_DB");
    if (env && *env)
        return strdup(env);
    const char *xdg = getenv("XDG_DATA_HOME");
    char *path = NULL;
    if (xdg && *xdg) {
        if (asprintf(&path, "%s/tally/archive.db", xdg) < 0)
            return NULL;
    } else {
        const char *home = getenv("HOME");
        if (asprintf(&path, "%s/.local/share/tally/archive.db", home ? home : ".") < 0)
            return NULL;
    }
    return path;
}

struct store *store_connect(const char *location, char *why, size_t why_size)
{
    char *owned = NULL;
    if (!location)
        location = owned = store_default_location();
    if (!location) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    struct store *s = NULL;
    if (store_location_is_postgres(location)) {
        s = store_postgres_open(location, why, why_size);
    } else if (make_parent_directories(location, why, why_size) == 0) {
        s = store_sqlite_open(location, why, why_size);
    }
    free(owned);
    return s;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < STORE_MEMO_SLOTS; i++)
        free(s->memo[i]);
    if (s->cache_free)
        s->cache_free(s->cache);
    s->backend->close(s);
}

const char *store_memo(const struct store *s, size_t slot)
{
    return slot < STORE_MEMO_SLOTS ? s->memo[slot] : NULL;
}

const char *store_memo_keep(struct store *s, size_t slot, char *text)
{
    if (slot >= STORE_MEMO_SLOTS) {
        free(text);
        return NULL;
    }
    free(s->memo[slot]);
    return s->memo[slot] = text;
}

long long store_exec(struct store *s, const char *sql, const struct sql_value *params,
                     size_t nparams, char *why, size_t why_size)
{
    return s->backend->exec(s, sql, params, nparams, why, why_size);
}

int store_query(struct store *s, const char *sql, const struct sql_value *params, size_t nparams,
                store_row_fn fn, void *ctx, char *why, size_t why_size)
{
    return s->backend->query(s, sql, params, nparams, fn, ctx, why, why_size);
}

void store_bulk_writing(struct store *s, bool on)
{
    if (s->backend->bulk_writing)
        s->backend->bulk_writing(s, on);
}

int store_send(struct store *s, const char *sql, const struct sql_value *params, size_t nparams,
               char *why, size_t why_size)
{
    if (s->backend->send)
        return s->backend->send(s, sql, params, nparams, why, why_size);
    s->sent = true;
    s->sent_why[0] = '\0';
    s->sent_result = s->backend->exec(s, sql, params, nparams, s->sent_why, sizeof s->sent_why);
    return 0;
}

long long store_wait(struct store *s, char *why, size_t why_size)
{
    if (s->backend->wait)
        return s->backend->wait(s, why, why_size);
    if (!s->sent) {
        snprintf(why, why_size, "no statement sent");
        return -1;
    }
    s->sent = false;
    if (s->sent_result < 0)
        snprintf(why, why_size, "%s", s->sent_why);
    return s->sent_result;
}

bool store_can_copy(const struct store *s)
{
    return s->backend->copy != NULL;
}

int store_copy(struct store *s, const char *table, const char *columns,
               const struct sql_value *values, size_t nrows, size_t ncols, char *why,
               size_t why_size)
{
    return s->backend->copy(s, table, columns, values, nrows, ncols, why, why_size);
}

int store_copy_encode(struct store *s, const char *table, const char *columns,
                      const struct sql_value *values, size_t nrows, size_t ncols,
                      bool statements_allowed, struct store_copy_data *out, char *why,
                      size_t why_size)
{
    return s->backend->copy_encode(s, table, columns, values, nrows, ncols, statements_allowed,
                                   out, why, why_size);
}

int store_copy_send(struct store *s, const struct store_copy_data *data, char *why, size_t why_size)
{
    return s->backend->copy_send(s, data, why, why_size);
}

void store_copy_data_free(struct store_copy_data *data)
{
    free(data->sql);
    free(data->bytes);
    *data = (struct store_copy_data){NULL, NULL, 0};
}

int store_first_integer(void *ctx, size_t ncols, const struct sql_value *row)
{
    if (ncols > 0 && row[0].type != SQL_NULL)
        *(long long *)ctx = sql_integer_of(&row[0]);
    return 1;
}

int store_first_text(void *ctx, size_t ncols, const struct sql_value *row)
{
    if (ncols > 0 && row[0].type == SQL_TEXT)
        *(char **)ctx = strdup(row[0].text);
    return 1;
}

long long store_size(struct store *s, char *why, size_t why_size)
{
    long long size = -1;
    if (store_query(s, s->backend->size_query, NULL, 0, store_first_integer, &size, why, why_size) < 0)
        return -1;
    if (size < 0)
        snprintf(why, why_size, "the %s backend gave no size", s->backend->name);
    return size;
}

int store_compact(struct store *s, char *why, size_t why_size)
{
    return store_exec(s, s->backend->compact, NULL, 0, why, why_size) < 0 ? -1 : 0;
}

int store_begin(struct store *s, char *why, size_t why_size)
{
    s->transaction++;
    return store_exec(s, s->backend->begin_write, NULL, 0, why, why_size) < 0 ? -1 : 0;
}

int store_commit(struct store *s, char *why, size_t why_size)
{
    if (store_exec(s, "COMMIT", NULL, 0, why, why_size) < 0)
        return -1;
    s->committed = s->transaction;
    return 0;
}

void store_rollback(struct store *s)
{
    char ignored[256];
    store_exec(s, "ROLLBACK", NULL, 0, ignored, sizeof ignored);
    s->transaction++; /* what the transaction wrote is gone */
}
