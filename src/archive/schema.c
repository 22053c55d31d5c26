/* The archive's schema and its migrations, the same on both backends.
 *
 * schema_version holds one row per applied migration. Opening a store applies
 * the missing ones in one write transaction (SQLite: BEGIN IMMEDIATE;
 * PostgreSQL: an advisory lock), so concurrent first users do not race. After
 * the numbered migrations, every numeric field of src/core/fields.c gets a
 * column of its own if it lacks one: a field added to that table later
 * becomes queryable without a hand-written migration.
 *
 * Version 1: sets (id, description stored once per set) and summaries (one row
 *            per archived summary: identity columns, one DOUBLE PRECISION column
 *            per numeric field, and the whole JSON document, so fields tally
 *            does not know are kept). hash is the SHA-256 of the document.
 * Version 2: attempt / previous_attempt, linking a retried task (tally run
 *            --retry) to the attempt stopped by a limit.
 * Version 3: name_fields, which numeric fields the summaries of each task
 *            name carry (filled from the existing rows), so that the analyses
 *            fetch only those columns: a task's summaries usually carry about
 *            half of the fields, and decoding the others was half the cost
 *            of 'stats' over 100k rows.
 * Version 4: aggregates, one row per task name or category and day, kept at
 *            ingest (aggregate_store.h), filled here from the existing rows:
 *            stats, predict and outliers read them instead of every run. */
#include "archive/aggregate_store.h"
#include "archive/store.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fields.h"

#define SCHEMA_VERSION 4
#define MIGRATE_TRIES 20

int schema_current_version(void) { return SCHEMA_VERSION; }

static int exec_script(struct store *s, const char *sql, char *why, size_t why_len)
{
    return store_exec(s, sql, NULL, 0, why, why_len) < 0 ? -1 : 0;
}

static int migration_1(struct store *s, char *why, size_t why_len)
{
    char sql[8192];
    int n = snprintf(sql, sizeof sql,
                     "CREATE TABLE sets (id TEXT PRIMARY KEY, description TEXT, created DOUBLE PRECISION);"
                     "CREATE TABLE summaries (%s, hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL,"
                     " category TEXT, set_id TEXT, host TEXT, tool TEXT, level INTEGER,"
                     " command TEXT, exit_status INTEGER, exit_type TEXT, taskid TEXT,"
                     " archived_at DOUBLE PRECISION, document TEXT NOT NULL",
                     s->backend->id_column);
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    for (size_t i = 0; i < nfields; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", \"%s\" DOUBLE PRECISION", fields[i].name);
    snprintf(sql + n, sizeof sql - (size_t)n,
             ");"
             /* Only name is indexed: stats, predict and outliers select by it.
              * Each more index cost ~8% of ingest time (measured: the four
              * of category, host, set and start together ~30%), and a scan
              * of 100k rows for a rarer query takes tens of ms. */
             "CREATE INDEX summaries_name ON summaries (name);");
    return exec_script(s, sql, why, why_len);
}

static int migration_2(struct store *s, char *why, size_t why_len)
{
    return exec_script(s,
                       "ALTER TABLE summaries ADD COLUMN attempt INTEGER;"
                       "ALTER TABLE summaries ADD COLUMN previous_attempt BIGINT;",
                       why, why_len);
}

static int found_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    (void)ncols;
    (void)row;
    *(int *)ctx = 1;
    return 1;
}

/* 1 when summaries has the column, 0 when not, -1 on error. */
static int has_column(struct store *s, const char *column, char *why, size_t why_len)
{
    int exists = 0;
    struct sql_value params[2] = {sql_text("summaries"), sql_text(column)};
    if (store_query(s, s->backend->column_exists, params, 2, found_row, &exists, why, why_len) < 0)
        return -1;
    return exists;
}

static int migration_3(struct store *s, char *why, size_t why_len)
{
    if (exec_script(s, "CREATE TABLE name_fields (name TEXT NOT NULL, field TEXT NOT NULL,"
                       " PRIMARY KEY (name, field));", why, why_len) < 0)
        return -1;
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    for (size_t i = 0; i < nfields; i++) {
        int exists = has_column(s, fields[i].name, why, why_len);
        if (exists < 0)
            return -1;
        if (!exists) /* a column added after this migration has no values yet */
            continue;
        char sql[256];
        /* field names come from fields.c, not from users */
        snprintf(sql, sizeof sql, "INSERT INTO name_fields (name, field) SELECT DISTINCT name, '%s'"
                 " FROM summaries WHERE \"%s\" IS NOT NULL;", fields[i].name, fields[i].name);
        if (exec_script(s, sql, why, why_len) < 0)
            return -1;
    }
    return 0;
}

static int add_missing_field_columns(struct store *s, bool check_only, char *why, size_t why_len);

static int migration_4(struct store *s, char *why, size_t why_len)
{
    /* the rebuild reads every field's column: add those a newer fields.c has */
    if (add_missing_field_columns(s, false, why, why_len) < 0 ||
        exec_script(s, "CREATE TABLE aggregates (kind INTEGER NOT NULL, key TEXT NOT NULL,"
                       " day BIGINT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kind, key, day));",
                    why, why_len) < 0)
        return -1;
    return aggregate_rebuild(s, why, why_len);
}

static int (*const migrations[SCHEMA_VERSION])(struct store *, char *, size_t) = {
    migration_1,
    migration_2,
    migration_3,
    migration_4,
};

static int read_version(void *ctx, size_t ncols, const struct sql_value *row)
{
    *(int *)ctx = (ncols > 0 && row[0].type != SQL_NULL) ? (int)row[0].real : 0;
    return 0;
}

int schema_version_of(struct store *s, char *why, size_t why_len)
{
    int version = 0;
    if (store_query(s, "SELECT max(version) FROM schema_version", NULL, 0, read_version, &version,
                    why, why_len) < 0)
        return -1;
    return version;
}


/* Adds a column for every numeric field the summaries table lacks; with
 * check_only, returns 1 when one is missing instead of adding it. */
static int add_missing_field_columns(struct store *s, bool check_only, char *why, size_t why_len)
{
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    for (size_t i = 0; i < nfields; i++) {
        int exists = has_column(s, fields[i].name, why, why_len);
        if (exists < 0)
            return -1;
        if (exists)
            continue;
        if (check_only)
            return 1;
        char sql[256];
        snprintf(sql, sizeof sql, "ALTER TABLE summaries ADD COLUMN \"%s\" DOUBLE PRECISION;",
                 fields[i].name);
        if (exec_script(s, sql, why, why_len) < 0)
            return -1;
    }
    return 0;
}

static int migrate_once(struct store *s, int target_version, char *why, size_t why_len);

/* Brings the schema to target_version. Two processes opening a new archive at
 * once can have one transaction refused for the other's lock without
 * waiting (SQLite's deadlock avoidance): it is run again, out of step. */
int schema_migrate(struct store *s, int target_version, char *why, size_t why_len)
{
    int rc = -1;
    for (int attempt = 1; attempt <= MIGRATE_TRIES; attempt++) {
        s->retryable = false;
        rc = migrate_once(s, target_version, why, why_len);
        if (rc == 0 || !s->retryable)
            break;
        usleep((useconds_t)(1000 * attempt + rand() % 5000));
    }
    s->retryable = false;
    return rc;
}

static int migrate_once(struct store *s, int target_version, char *why, size_t why_len)
{
    char ignored[512];
    int current = schema_version_of(s, ignored, sizeof ignored);
    if (current == target_version && target_version == SCHEMA_VERSION &&
        add_missing_field_columns(s, true, ignored, sizeof ignored) == 0)
        return 0; /* the common case, without taking the write lock */
    if (current > SCHEMA_VERSION) {
        snprintf(why, why_len, "archive schema version %d is newer than this tally (%d)", current,
                 SCHEMA_VERSION);
        return -1;
    }
    if (store_begin(s, why, why_len) < 0)
        return -1;
    if (s->backend->lock_schema && store_exec(s, s->backend->lock_schema, NULL, 0, why, why_len) < 0)
        goto fail;
    if (exec_script(s, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL,"
                       " applied DOUBLE PRECISION);", why, why_len) < 0)
        goto fail;
    current = schema_version_of(s, why, why_len); /* again, now under the lock */
    if (current < 0)
        goto fail;
    for (int v = current + 1; v <= target_version; v++) {
        if (migrations[v - 1](s, why, why_len) < 0)
            goto fail;
        struct sql_value param = sql_int(v);
        if (store_exec(s, "INSERT INTO schema_version (version) VALUES (?)", &param, 1, why,
                       why_len) < 0)
            goto fail;
    }
    if (target_version == SCHEMA_VERSION && add_missing_field_columns(s, false, why, why_len) < 0)
        goto fail;
    return store_commit(s, why, why_len);
fail:
    store_rollback(s);
    return -1;
}
