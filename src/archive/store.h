/* The archive's store: one interface, two backends (an SQLite file, the
 * default; a PostgreSQL server for many hosts). Callers write SQL that both
 * dialects accept, with '?' placeholders; values always travel as parameters,
 * never pasted into the SQL text. store_open() also brings the schema up to
 * date (see schema.c). */
#ifndef TALLY_ARCHIVE_STORE_H
#define TALLY_ARCHIVE_STORE_H

#include <stdbool.h>
#include <stddef.h>

enum sql_type { SQL_NULL, SQL_TEXT, SQL_REAL, SQL_INT };

struct sql_value {
    enum sql_type type;
    const char *text;    /* SQL_TEXT */
    double real;         /* SQL_REAL (also filled for numeric results of either type) */
    long long integer;   /* SQL_INT */
};

static inline struct sql_value sql_text(const char *s)
{
    struct sql_value v = {s ? SQL_TEXT : SQL_NULL, s, 0, 0};
    return v;
}
static inline struct sql_value sql_real(double d)
{
    struct sql_value v = {SQL_REAL, NULL, d, 0};
    return v;
}
static inline struct sql_value sql_int(long long i)
{
    struct sql_value v = {SQL_INT, NULL, (double)i, i};
    return v;
}
static inline struct sql_value sql_null(void)
{
    struct sql_value v = {SQL_NULL, NULL, 0, 0};
    return v;
}

/* Called once per result row; values are valid only during the call. Return
 * non-zero to stop early. */
typedef int (*store_row_fn)(void *ctx, size_t ncols, const struct sql_value *row);

struct store;

/* What differs between the backends. */
struct store_backend {
    const char *name;          /* "sqlite" or "postgresql" */
    const char *id_column;     /* the auto-increment primary key declaration */
    const char *begin_write;   /* starts a transaction that will write */
    const char *lock_schema;   /* serialises schema migrations, or NULL */
    const char *column_exists; /* SELECT returning a row when (table, column) exists */
    /* Runs one statement; returns the number of rows changed, or -1. */
    long long (*exec)(struct store *s, const char *sql, const struct sql_value *params,
                      size_t nparams, char *why, size_t why_len);
    /* Runs a SELECT (or ... RETURNING), calling fn per row; 0 or -1. */
    int (*query)(struct store *s, const char *sql, const struct sql_value *params, size_t nparams,
                 store_row_fn fn, void *ctx, char *why, size_t why_len);
    void (*close)(struct store *s);
};

struct store {
    const struct store_backend *backend;
    void *impl;
    char *location; /* file path or connection URI, for messages */
    bool retryable; /* set by the backend when a failure was a deadlock or a
                     * serialization failure: running the transaction again
                     * may succeed */
};

/* Opens LOCATION: a postgresql:// or postgres:// URI, else an SQLite file path
 * (its directory is created). NULL means the default location
 * (store_default_path). Migrates the schema. Returns NULL and a reason. */
struct store *store_open(const char *location, char *why, size_t why_len);
/* As store_open, but migrates only up to schema version `version` (tests). */
struct store *store_open_at_version(const char *location, int version, char *why, size_t why_len);
void store_close(struct store *s);

/* $TALLY_DB, else $XDG_DATA_HOME/tally/archive.db, else
 * ~/.local/share/tally/archive.db. Returns a malloc'd string. */
char *store_default_location(void);
bool store_location_is_postgres(const char *location);

long long store_exec(struct store *s, const char *sql, const struct sql_value *params,
                     size_t nparams, char *why, size_t why_len);
int store_query(struct store *s, const char *sql, const struct sql_value *params, size_t nparams,
                store_row_fn fn, void *ctx, char *why, size_t why_len);
int store_begin(struct store *s, char *why, size_t why_len);
int store_commit(struct store *s, char *why, size_t why_len);
void store_rollback(struct store *s);

/* Backend constructors (store_sqlite.c, store_postgres.c). */
struct store *store_sqlite_open(const char *path, char *why, size_t why_len);
struct store *store_postgres_open(const char *uri, char *why, size_t why_len);

/* Schema (schema.c): the current version and the migration to it. */
int schema_current_version(void);
int schema_migrate(struct store *s, int target_version, char *why, size_t why_len);
int schema_version_of(struct store *s, char *why, size_t why_len);

#endif
