/* SQLite backend of the store: one file, WAL journal so readers never block
 * the writer, a busy timeout so concurrent writers wait instead of failing,
 * BEGIN IMMEDIATE so a writing transaction takes the write lock up front (no
 * deadlock between two readers upgrading), and a small cache of prepared
 * statements so batched inserts do not re-parse their SQL. */
#include "archive/store_backend.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive/libsqlite_api.h"
#include "archive/sqlite_checkpointer.h"

#define STATEMENT_CACHE_SIZE 16
#define BUSY_TIMEOUT_MS (10 * 60 * 1000)
#define OPEN_BUSY_TRIES 50

struct cached_statement {
    char *sql;
    sqlite3_stmt *stmt;
};

struct sqlite_store {
    sqlite3 *db;
    struct cached_statement cache[STATEMENT_CACHE_SIZE];
    size_t next_victim;
    struct sqlite_checkpointer *checkpointer; /* while writing in bulk */
};

/* A lock another connection held past the busy timeout, or one SQLite gave
 * up on without waiting (two connections each wanting to upgrade its lock,
 * as when two processes create the same file at once): the ingest runs the
 * whole transaction again (write_pending), as it does for a PostgreSQL
 * deadlock. */
static void note_busy(struct store *s, int rc)
{
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
        s->retryable = true;
}

static sqlite3_stmt *prepare(struct store *s, const char *sql, char *why, size_t why_size)
{
    struct sqlite_store *impl = s->impl;
    for (size_t i = 0; i < STATEMENT_CACHE_SIZE; i++)
        if (impl->cache[i].sql && !strcmp(impl->cache[i].sql, sql)) {
            SQLITE(sqlite3_reset)(impl->cache[i].stmt);
            SQLITE(sqlite3_clear_bindings)(impl->cache[i].stmt);
            return impl->cache[i].stmt;
        }
    sqlite3_stmt *stmt;
    int rc = SQLITE(sqlite3_prepare_v2)(impl->db, sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK) {
        note_busy(s, rc);
        snprintf(why, why_size, "%s", SQLITE(sqlite3_errmsg)(impl->db));
        return NULL;
    }
    struct cached_statement *slot = &impl->cache[impl->next_victim];
    impl->next_victim = (impl->next_victim + 1) % STATEMENT_CACHE_SIZE;
    if (slot->sql) {
        free(slot->sql);
        SQLITE(sqlite3_finalize)(slot->stmt);
    }
    slot->sql = strdup(sql);
    slot->stmt = stmt;
    if (!slot->sql) {
        SQLITE(sqlite3_finalize)(stmt);
        slot->stmt = NULL;
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    return stmt;
}

/* Binds params to a statement prepare() gave: its parameters are NULL
 * (new, or cleared), so a NULL is not bound again (a multi-row INSERT of
 * summaries has a dozen NULL fields a row). */
static int bind_all(sqlite3_stmt *stmt, const struct sql_value *params, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (params[i].type == SQL_NULL)
            continue;
        int rc, col = (int)i + 1;
        switch (params[i].type) {
        case SQL_TEXT: rc = SQLITE(sqlite3_bind_text)(stmt, col, params[i].text, -1, SQLITE_STATIC); break;
        case SQL_REAL: rc = SQLITE(sqlite3_bind_double)(stmt, col, params[i].real); break;
        case SQL_INT: rc = SQLITE(sqlite3_bind_int64)(stmt, col, params[i].integer); break;
        case SQL_BLOB:
            rc = SQLITE(sqlite3_bind_blob)(stmt, col, params[i].text, (int)params[i].length, SQLITE_STATIC);
            break;
        default: rc = SQLITE(sqlite3_bind_null)(stmt, col); break;
        }
        if (rc != SQLITE_OK)
            return -1;
    }
    return 0;
}

static int run(struct store *s, const char *sql, const struct sql_value *params, size_t nparams,
               store_row_fn fn, void *ctx, char *why, size_t why_size)
{
    struct sqlite_store *impl = s->impl;
    sqlite3_stmt *stmt = prepare(s, sql, why, why_size);
    if (!stmt)
        return -1;
    if (bind_all(stmt, params, nparams) < 0) {
        snprintf(why, why_size, "%s", SQLITE(sqlite3_errmsg)(impl->db));
        return -1;
    }
    int ncols = SQLITE(sqlite3_column_count)(stmt);
    struct sql_value row_buffer[64];
    struct sql_value *row = ncols <= 64 ? row_buffer : calloc((size_t)ncols, sizeof *row);
    int rc, status = 0;
    while ((rc = SQLITE(sqlite3_step)(stmt)) == SQLITE_ROW) {
        if (!fn)
            continue;
        for (int c = 0; c < ncols; c++) {
            switch (SQLITE(sqlite3_column_type)(stmt, c)) {
            case SQLITE_INTEGER:
                row[c] = sql_int(SQLITE(sqlite3_column_int64)(stmt, c));
                break;
            case SQLITE_FLOAT:
                row[c] = sql_real(SQLITE(sqlite3_column_double)(stmt, c));
                break;
            case SQLITE_NULL:
                row[c] = sql_null();
                break;
            case SQLITE_BLOB: {
                const void *data = SQLITE(sqlite3_column_blob)(stmt, c);
                row[c] = sql_blob(data ? data : "", (size_t)SQLITE(sqlite3_column_bytes)(stmt, c));
                break;
            }
            default:
                row[c] = sql_text((const char *)SQLITE(sqlite3_column_text)(stmt, c));
                break;
            }
        }
        if (fn(ctx, (size_t)ncols, row)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE) {
        snprintf(why, why_size, "%s", SQLITE(sqlite3_errmsg)(impl->db));
        note_busy(s, rc);
        status = -1;
    }
    SQLITE(sqlite3_reset)(stmt);
    if (row != row_buffer)
        free(row);
    return status;
}

static long long sqlite_exec(struct store *s, const char *sql, const struct sql_value *params,
                             size_t nparams, char *why, size_t why_size)
{
    struct sqlite_store *impl = s->impl;
    if (!params && strchr(sql, ';')) { /* a script of several statements (schema) */
        char *err = NULL;
        int rc = SQLITE(sqlite3_exec)(impl->db, sql, NULL, NULL, &err);
        if (rc != SQLITE_OK) {
            note_busy(s, rc);
            snprintf(why, why_size, "%s", err ? err : SQLITE(sqlite3_errmsg)(impl->db));
            SQLITE(sqlite3_free)(err);
            return -1;
        }
        return SQLITE(sqlite3_changes)(impl->db);
    }
    if (run(s, sql, params, nparams, NULL, NULL, why, why_size) < 0)
        return -1;
    return SQLITE(sqlite3_changes)(impl->db);
}

static int sqlite_query(struct store *s, const char *sql, const struct sql_value *params,
                        size_t nparams, store_row_fn fn, void *ctx, char *why, size_t why_size)
{
    return run(s, sql, params, nparams, fn, ctx, why, why_size);
}

static int read_int(void *ctx, int ncols, char **values, char **names)
{
    if (ncols >= 1 && values[0])
        *(int *)ctx = atoi(values[0]);
    return 0;
}

static void sqlite_bulk_writing(struct store *s, bool on)
{
    struct sqlite_store *impl = s->impl;
    if (on && !impl->checkpointer) {
        int page_size = 0;
        SQLITE(sqlite3_exec)(impl->db, "PRAGMA page_size", read_int, &page_size, NULL);
        impl->checkpointer = sqlite_checkpointer_start(
            impl->db, s->location, SQLITE_CHECKPOINTER_REWIND_BYTES / (page_size > 0 ? page_size : 4096));
    } else if (!on) {
        sqlite_checkpointer_stop(impl->checkpointer);
        impl->checkpointer = NULL;
    }
}

static void sqlite_close(struct store *s)
{
    struct sqlite_store *impl = s->impl;
    sqlite_checkpointer_stop(impl->checkpointer);
    for (size_t i = 0; i < STATEMENT_CACHE_SIZE; i++)
        if (impl->cache[i].sql) {
            free(impl->cache[i].sql);
            SQLITE(sqlite3_finalize)(impl->cache[i].stmt);
        }
    SQLITE(sqlite3_close)(impl->db);
    free(impl);
    free(s->location);
    free(s);
}

static const struct store_backend sqlite_backend = {
    .name = "sqlite",
    .id_column = "id INTEGER PRIMARY KEY",
    .begin_write = "BEGIN IMMEDIATE",
    .lock_schema = NULL, /* BEGIN IMMEDIATE already holds the write lock */
    .table_columns = "SELECT name FROM pragma_table_info(?)",
    .blob_type = "BLOB",
    .clustered_key = " WITHOUT ROWID",
    .size_query = "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
    /* VACUUM rewrites the file through the WAL; the checkpoint moves it
     * back and truncates the WAL file */
    .compact = "VACUUM; PRAGMA wal_checkpoint(TRUNCATE);",
    .exec = sqlite_exec,
    .query = sqlite_query,
    .bulk_writing = sqlite_bulk_writing,
    .close = sqlite_close,
};

struct store *store_sqlite_open(const char *path, char *why, size_t why_size)
{
    if (!libsqlite_api_load(why, why_size))
        return NULL;
    struct store *s = calloc(1, sizeof *s);
    struct sqlite_store *impl = calloc(1, sizeof *impl);
    if (!s || !impl) {
        free(s);
        free(impl);
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    s->backend = &sqlite_backend;
    s->impl = impl;
    s->location = strdup(path);
    if (SQLITE(sqlite3_open_v2)(path, &impl->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) !=
        SQLITE_OK) {
        snprintf(why, why_size, "%s", impl->db ? SQLITE(sqlite3_errmsg)(impl->db) : "cannot open");
        sqlite_close(s);
        return NULL;
    }
    SQLITE(sqlite3_busy_timeout)(impl->db, BUSY_TIMEOUT_MS);
    char *err = NULL;
    /* journal_mode=WAL itself needs a lock when another process is creating
     * the file. SQLite does not wait for it when both hold a shared lock and
     * want to upgrade (it would deadlock): it fails at once with
     * SQLITE_BUSY, so the pragmas are tried again, out of step. */
    /* No memory map (mmap_size=0): read through a map, a question on a
     * cold 10^7 archive took 1.1-1.5 s instead of 0.34-0.46 s (each page
     * fault read ahead around a day row scattered in the file), and a scan
     * of summary_rows counted 670 MB resident instead of 72 MB, for no
     * speed: ingest, warm questions and scans within 6 % either way.
     * A new archive has pages of 16 KB (an existing one keeps its own):
     * a day row of aggregates (2.8 KB for a task name, 7 KB for a category
     * at the bench's 8,640 runs a day) leaves most of a 4 KB leaf page
     * unused, one row a page; 16 KB pages hold several. 10^6 summaries:
     * 298 MB with 4 KB pages, 284 MB with 16 KB. */
    int rc;
    for (int attempt = 1;; attempt++) {
        rc = SQLITE(sqlite3_exec)(impl->db, "PRAGMA page_size=16384; PRAGMA journal_mode=WAL;"
                                  " PRAGMA synchronous=NORMAL;"
                                  " PRAGMA cache_size=-65536; PRAGMA mmap_size=0;"
                                  " PRAGMA temp_store=MEMORY;",
                                  NULL, NULL, &err);
        if ((rc & 0xff) != SQLITE_BUSY || attempt == OPEN_BUSY_TRIES)
            break;
        SQLITE(sqlite3_free)(err);
        err = NULL;
        usleep((useconds_t)(1000 * attempt + rand() % 5000));
    }
    if (rc != SQLITE_OK) {
        snprintf(why, why_size, "%s", err ? err : SQLITE(sqlite3_errmsg)(impl->db));
        SQLITE(sqlite3_free)(err);
        sqlite_close(s);
        return NULL;
    }
    return s;
}
