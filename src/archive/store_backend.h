/* The interface between the archive's store (store.h) and its backends (an
 * SQLite file, the default; a PostgreSQL server for many hosts): values,
 * the table of a backend's operations, and the backends' constructors.
 * store.c uses it and the backends implement it; a backend includes this
 * header only, never store.h, so the arrows point one way:
 * schema.c → aggregate_store.c → store.c → store_backend.h ← store_*.c. */
#ifndef TALLY_ARCHIVE_STORE_BACKEND_H
#define TALLY_ARCHIVE_STORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

enum sql_type { SQL_NULL, SQL_TEXT, SQL_REAL, SQL_INT, SQL_BLOB };

struct sql_value {
    enum sql_type type;
    const char *text;    /* SQL_TEXT; SQL_BLOB: the bytes */
    size_t length;       /* SQL_BLOB: how many bytes */
    double real;         /* SQL_REAL (also filled for numeric results of either type) */
    long long integer;   /* SQL_INT */
};

static inline struct sql_value sql_text(const char *s)
{
    struct sql_value v = {s ? SQL_TEXT : SQL_NULL, s, 0, 0, 0};
    return v;
}
static inline struct sql_value sql_real(double d)
{
    struct sql_value v = {SQL_REAL, NULL, 0, d, 0};
    return v;
}
static inline struct sql_value sql_int(long long i)
{
    struct sql_value v = {SQL_INT, NULL, 0, (double)i, i};
    return v;
}
static inline struct sql_value sql_blob(const void *data, size_t length)
{
    struct sql_value v = {data ? SQL_BLOB : SQL_NULL, data, length, 0, 0};
    return v;
}
static inline struct sql_value sql_null(void)
{
    struct sql_value v = {SQL_NULL, NULL, 0, 0, 0};
    return v;
}

/* A numeric value as an integer, whichever type the backend gave it. */
static inline long long sql_integer_of(const struct sql_value *v)
{
    return v->type == SQL_INT ? v->integer : (long long)v->real;
}

/* Called once per result row; values are valid only during the call. Return
 * non-zero to stop early. */
typedef int (*store_row_fn)(void *ctx, size_t ncols, const struct sql_value *row);

struct store;

/* A COPY encoded, to be sent (store.h's store_copy_encode, store_copy_send). */
struct store_copy_data {
    char *sql;            /* the COPY statement */
    unsigned char *bytes; /* its data */
    size_t len;
};

#define STORE_MEMO_SLOTS 132

/* What differs between the backends. */
struct store_backend {
    const char *name;          /* "sqlite" or "postgresql" */
    const char *id_column;     /* the auto-increment primary key declaration */
    const char *begin_write;   /* starts a transaction that will write */
    const char *lock_schema;   /* serialises schema migrations, or NULL */
    const char *table_columns; /* SELECT of one column: the names of a table's columns */
    const char *blob_type;     /* the column type of bytes */
    /* Keeps the aggregates' bytes uncompressed, or NULL: PostgreSQL tries to
     * compress every value over 2 KB (pglz), and the aggregates' do not
     * compress: the attempt was half the time of an ingest's upserts */
    const char *aggregates_uncompressed;
    const char *clustered_key; /* after CREATE TABLE (...): a table stored in
                                * its primary key's B-tree, or NULL */
    const char *reset_ids;     /* after rows were copied with their ids: the next
                                * id follows the largest (NULL: automatic) */
    /* summaries partitioned by month of start_day (PostgreSQL): the id
     * column of such a table (its key must hold start_day, so id is indexed,
     * not the primary key) and the clause; NULL when not partitioned */
    const char *partitioned_id_column;
    const char *partition_by;
    /* The archive's size in bytes as one row of one integer: the pages of
     * the SQLite file, the PostgreSQL database (a query) */
    const char *size_query;
    /* Gives unused space back to the file system; runs outside any
     * transaction ('tally archive compact') */
    const char *compact;
    /* Sends nrows × ncols values into table (columns, comma-separated) in
     * bulk (PostgreSQL's COPY); NULL when the backend has none. 0 or -1. */
    int (*copy)(struct store *s, const char *table, const char *columns,
                const struct sql_value *values, size_t nrows, size_t ncols, char *why,
                size_t why_size);
    /* The same in two steps, where copy is not NULL: encoding (no statement
     * run unless statements_allowed: 1 when one would be needed), and
     * sending without waiting for the outcome (wait gives it). */
    int (*copy_encode)(struct store *s, const char *table, const char *columns,
                       const struct sql_value *values, size_t nrows, size_t ncols,
                       bool statements_allowed, struct store_copy_data *out, char *why,
                       size_t why_size);
    int (*copy_send)(struct store *s, const struct store_copy_data *data, char *why,
                     size_t why_size);
    /* Runs one statement; returns the number of rows changed, or -1. */
    long long (*exec)(struct store *s, const char *sql, const struct sql_value *params,
                      size_t nparams, char *why, size_t why_size);
    /* Sends one statement without waiting for its end, and gives its
     * outcome (as exec) later (store.h's store_send, store_wait); NULL when
     * the backend runs every statement at once */
    int (*send)(struct store *s, const char *sql, const struct sql_value *params, size_t nparams,
                char *why, size_t why_size);
    long long (*wait)(struct store *s, char *why, size_t why_size);
    /* Runs a SELECT (or ... RETURNING), calling fn per row; 0 or -1. */
    int (*query)(struct store *s, const char *sql, const struct sql_value *params, size_t nparams,
                 store_row_fn fn, void *ctx, char *why, size_t why_size);
    /* The caller is about to write many transactions in a row (on), or is
     * done (off): the backend may do its housekeeping in a thread meanwhile
     * (SQLite: the log's checkpoints); NULL when it has none. */
    void (*bulk_writing)(struct store *s, bool on);
    void (*close)(struct store *s);
};

struct store {
    const struct store_backend *backend;
    void *impl;
    char *location; /* file path or connection URI, for messages */
    bool retryable; /* set by the backend when a failure was a deadlock or a
                     * serialization failure: running the transaction again
                     * may succeed */
    bool duplicate; /* set by the backend when a failure was a unique key's
                     * violation (a row that exists, or came twice) */
    /* SQL texts its callers build once per store and keep for its life (the
     * multi-row INSERTs of ingest, one per row count), by slot; freed by
     * store_close (store.h's store_memo) */
    char *memo[STORE_MEMO_SLOTS];
    /* store_begin's count (the transaction open, or open last) and the last
     * of those store_commit committed: what a cache of rows written in a
     * transaction (dictionary.c's ids) keeps or forgets */
    unsigned long transaction, committed;
    /* such a cache, freed by store_close with its free function */
    void *cache;
    void (*cache_free)(void *cache);
    /* store_send's outcome where the backend ran it at once: the count,
     * or -1 and its reason, for store_wait */
    bool sent;
    long long sent_result;
    char sent_why[256];
    /* the schema version this store's opening upgraded the archive from
     * (0: none, or a new archive), for the caller to tell the user */
    int upgraded_from;
};

/* Backend constructors (store_sqlite.c, store_postgres.c): a connection,
 * schema not checked. NULL with a reason. */
struct store *store_sqlite_open(const char *path, char *why, size_t why_size);
struct store *store_postgres_open(const char *uri, char *why, size_t why_size);

#endif
