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
 *            stats, predict and outliers read them instead of every run.
 * Version 5: the site's scale (issue 20). summaries is rebuilt: hash is the
 *            hash's 32 bytes, the key is (start_day, hash) so that a new
 *            summary lands near the other new ones in the key's index (a
 *            random hash alone touched pages all over an index larger than
 *            the cache, and ingest slowed as the archive grew), and the
 *            document is stored packed against the row's columns
 *            (document_pack.h) instead of as its JSON text. Aggregates are
 *            rebuilt in their binary form. Every row is kept, with its id.
 * Version 6: run_files, a level-3 run's per-file rows (file_rows.h): path,
 *            bytes read and written, opens, reads, writes; at most
 *            FILE_ROWS_MAX files by name per run and one NULL-path row for
 *            the rest. The level-3 summaries already archived get rows from
 *            their documents' io.top_files and io totals (opens, reads and
 *            writes unknown: NULL).
 * Version 7: the archive at 10^7 summaries (issue 20): hash keeps the first
 *            SUMMARY_HASH_LEN (16) bytes of the SHA-256, in the row and in
 *            the key's index (32 bytes of 559 a summary before). Aggregates
 *            and documents written from this version on are in their shorter
 *            forms (aggregate.h, document_pack.h); those stored before are
 *            read as they are and rewritten when next merged.
 * Version 8: document_shapes, the member order of the documents stored once
 *            per distinct order (document_pack.h, version 3), and the
 *            summaries' shape column naming it: a generated summary's
 *            document 45 -> 17 bytes. The documents stored before keep
 *            their version 2 form (shape NULL), read as they are.
 * Version 9: the key of a summary, (start_day, hash), and its id in a table
 *            of their own, summary_keys (SQLite: WITHOUT ROWID, the key's
 *            B-tree holding the id), instead of the row's hash column and a
 *            unique index over it: the hash is stored once, not twice
 *            (17 bytes a summary).
 * Version 10: no index on summaries (name). It was there for stats, predict
 *            and outliers, which read the aggregates since version 4; what
 *            selected rows by name (query name=..., stats --group, --by
 *            name with --group) scans the table as by category did. Its
 *            upkeep was a fifth of the CPU of ingest's writing thread (2.4
 *            us a summary at 10^6) and 18-22 bytes a summary.
 * Version 11: the dictionary (dictionary.h): the name, category, set, host,
 *            tool and exit type of a summary are ids of the dictionary's
 *            texts in the table summary_rows (summary_rows.h), and
 *            summaries is a view joining the texts back, read as the table
 *            was. Field columns are added to summary_rows (and the view made
 *            again). Where summary_rows is not partitioned (SQLite) it has
 *            no start_day: the day is in summary_keys. A document's shape
 *            may hold its tally_version (document_pack.h). 324 -> 290 bytes
 *            a summary at 10^6 (bench/results/archive.md).
 * Version 12: PostgreSQL keeps the aggregates' bytes uncompressed (SET
 *            STORAGE EXTERNAL): it tried pglz on every day row written (4.8
 *            KB on average), which never saved enough to keep, and the
 *            attempt halved the rate of an ingest into a non-empty archive.
 *            Nothing changes in SQLite.
 * Version 13: the aggregates' day rows are written in their format version
 *            4 (aggregate_codec.c), which a tally of schema 12 cannot read:
 *            it now refuses the archive as newer than itself instead of
 *            failing on a day row. Nothing is rewritten: rows of formats 2
 *            and 3 are read as they are and rewritten when next merged. */
#include "archive/aggregate_store.h"
#include "archive/document_pack.h"
#include "archive/file_rows.h"
#include "archive/ingest.h"
#include "archive/partitions.h"
#include "archive/schema.h"
#include "archive/summary_rows.h"
#include "util/hex.h"
#include "util/sha256.h"
#include "util/text_builder.h"
#include "util/vec.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fields.h"

#define SCHEMA_VERSION 13
/* the last version whose migration rewrites rows (their old space stays in
 * the file until 'tally archive compact') */
#define SCHEMA_LAST_REWRITE 11
#define MIGRATE_TRIES 20

int schema_current_version(void) { return SCHEMA_VERSION; }

bool schema_upgrade_leaves_space(int from) { return from > 0 && from < SCHEMA_LAST_REWRITE; }

struct store *store_open_at_version(const char *location, int version, char *why, size_t why_size)
{
    struct store *s = store_connect(location, why, why_size);
    if (s && schema_migrate(s, version, why, why_size) < 0) {
        store_close(s);
        return NULL;
    }
    return s;
}

struct store *store_open(const char *location, char *why, size_t why_size)
{
    return store_open_at_version(location, SCHEMA_VERSION, why, why_size);
}

static int exec_script(struct store *s, const char *sql, char *why, size_t why_size)
{
    return store_exec(s, sql, NULL, 0, why, why_size) < 0 ? -1 : 0;
}

static int migration_1(struct store *s, char *why, size_t why_size)
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
    return exec_script(s, sql, why, why_size);
}

static int migration_2(struct store *s, char *why, size_t why_size)
{
    return exec_script(s,
                       "ALTER TABLE summaries ADD COLUMN attempt INTEGER;"
                       "ALTER TABLE summaries ADD COLUMN previous_attempt BIGINT;",
                       why, why_size);
}

/* A table's column names, each between newlines ("\nstart\nend\n"): read
 * in one query (a question's opening checked every field's column, one
 * round trip each: 40 of them, a fifth of a PostgreSQL question's time). */
struct column_names {
    char *text;
    size_t len, capacity;
    bool failed;
};

static int collect_column(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct column_names *c = ctx;
    if (ncols < 1 || row[0].type != SQL_TEXT)
        return 0;
    size_t n = strlen(row[0].text);
    if (VEC_RESERVE(c->text, c->capacity, c->len + n + 3) < 0) {
        c->failed = true;
        return 1;
    }
    if (c->len == 0)
        c->text[c->len++] = '\n';
    memcpy(c->text + c->len, row[0].text, n);
    c->len += n;
    c->text[c->len++] = '\n';
    c->text[c->len] = '\0';
    return 0;
}

/* The columns of table into *c (c->text NULL when it has none); -1 on error. */
static int table_columns(struct store *s, const char *table, struct column_names *c, char *why,
                         size_t why_size)
{
    *c = (struct column_names){0};
    struct sql_value param = sql_text(table);
    if (store_query(s, s->backend->table_columns, &param, 1, collect_column, c, why, why_size) < 0)
        return -1;
    if (c->failed) {
        free(c->text);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    return 0;
}

static bool has_column(const struct column_names *c, const char *column)
{
    /* the text begins with a newline: a match is never at its first byte */
    for (const char *at = c->text ? c->text + 1 : NULL; at && (at = strstr(at, column)) != NULL; at++)
        if (at[-1] == '\n' && at[strlen(column)] == '\n')
            return true;
    return false;
}

static int migration_3(struct store *s, char *why, size_t why_size)
{
    if (exec_script(s, "CREATE TABLE name_fields (name TEXT NOT NULL, field TEXT NOT NULL,"
                       " PRIMARY KEY (name, field));", why, why_size) < 0)
        return -1;
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    struct column_names columns;
    if (table_columns(s, "summaries", &columns, why, why_size) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < nfields && rc == 0; i++) {
        if (!has_column(&columns, fields[i].name)) /* a column added after this migration has no values yet */
            continue;
        char sql[256];
        /* field names come from fields.c, not from users */
        snprintf(sql, sizeof sql, "INSERT INTO name_fields (name, field) SELECT DISTINCT name, '%s'"
                 " FROM summaries WHERE \"%s\" IS NOT NULL;", fields[i].name, fields[i].name);
        rc = exec_script(s, sql, why, why_size);
    }
    free(columns.text);
    return rc < 0 ? -1 : 0;
}

static int add_missing_field_columns(struct store *s, const char *table, bool check_only, char *why,
                                     size_t why_size);

static int migration_4(struct store *s, char *why, size_t why_size)
{
    /* the rebuild reads every field's column: add those a newer fields.c has */
    if (add_missing_field_columns(s, "summaries", false, why, why_size) < 0 ||
        exec_script(s, "CREATE TABLE aggregates (kind INTEGER NOT NULL, key TEXT NOT NULL,"
                       " day BIGINT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kind, key, day));",
                    why, why_size) < 0)
        return -1;
    return aggregate_rebuild(s, why, why_size);
}


/* The summaries table of version 5, named table, with every field's column. */
static int create_summaries_v5(struct store *s, const char *table, char *why, size_t why_size)
{
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return -1;
    const char *partition_by = s->backend->partition_by;
    fprintf(b.out, "CREATE TABLE %s (%s, hash %s NOT NULL, start_day BIGINT NOT NULL,"
                 " name TEXT NOT NULL, category TEXT, set_id TEXT, host TEXT, tool TEXT,"
                 " level INTEGER, command TEXT, exit_status INTEGER, exit_type TEXT, taskid TEXT,"
                 " archived_at DOUBLE PRECISION, document %s NOT NULL, attempt INTEGER,"
                 " previous_attempt BIGINT",
            table, partition_by ? s->backend->partitioned_id_column : s->backend->id_column,
            s->backend->blob_type, s->backend->blob_type);
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    for (size_t i = 0; i < nfields; i++)
        fprintf(b.out, ", \"%s\" DOUBLE PRECISION", fields[i].name);
    fprintf(b.out, ")%s;", partition_by ? partition_by : "");
    /* partitioned by month (partitions.h): summaries without a start, or
     * of a year outside 1..9999, go to the default partition */
    if (partition_by)
        fprintf(b.out, "CREATE TABLE summaries_default PARTITION OF %s DEFAULT;", table);
    char *sql = text_builder_finish(&b, why, why_size);
    if (!sql)
        return -1;
    int rc = exec_script(s, sql, why, why_size);
    free(sql);
    return rc;
}

#define COPY_COLUMNS 15 /* before the fields, in the SELECT and the INSERT */
#define COPY_CHUNK 2000

struct copy {
    struct store *s;
    const char *insert;
    struct sql_value *params;
    size_t nfields, rows;
    long long last_id;
    long long month_from, month_to; /* the partition made last */
    int failed;
    char *why;
    size_t why_size;
};

static const char *text_or_null(const struct sql_value *v) { return v->type == SQL_TEXT ? v->text : NULL; }

/* One row of the old table into the new: hash as bytes, the start's day,
 * the document packed. */
static int copy_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct copy *c = ctx;
    if (ncols != COPY_COLUMNS + c->nfields + 1)
        return c->failed = 1;
    const struct sql_value *fields = row + COPY_COLUMNS, *doc = &row[ncols - 1];
    const char *text = doc->type == SQL_TEXT ? doc->text : "{}";
    unsigned char hash[SHA256_LEN];
    if (row[1].type != SQL_TEXT || hex_decode(row[1].text, hash, sizeof hash) != SHA256_LEN)
        sha256(text, strlen(text), hash);
    struct document_columns cols;
    memset(&cols, 0, sizeof cols);
    const struct sql_value *strings[DOC_STRINGS] = {&row[2], &row[3], &row[4], &row[5],
                                                    &row[8], &row[10], &row[11]};
    for (int k = 0; k < DOC_STRINGS; k++)
        cols.strings[k] = text_or_null(strings[k]);
    const struct sql_value *integers[DOC_INTEGERS] = {&row[7], &row[9]};
    for (int k = 0; k < DOC_INTEGERS; k++) {
        cols.has_integer[k] = integers[k]->type != SQL_NULL;
        cols.integers[k] = integers[k]->type == SQL_INT ? integers[k]->integer : (long long)integers[k]->real;
    }
    for (size_t f = 0; f < c->nfields && f < FIELD_COUNT; f++) {
        cols.present[f] = fields[f].type != SQL_NULL;
        cols.values[f] = fields[f].real;
    }
    json_t *root = json_loads(text, 0, NULL);
    if (!json_is_object(root)) { /* kept as it was: a document is never lost */
        json_decref(root);
        root = json_object();
        json_object_set_new(root, "document", json_string(text));
    }
    size_t packed_len;
    unsigned char *packed = document_pack(root, &cols, &packed_len);
    json_decref(root);
    if (!packed) {
        snprintf(c->why, c->why_size, "out of memory");
        return c->failed = 1;
    }
    struct sql_value *p = c->params;
    size_t k = 0;
    long long day = summary_start_day(fields[FIELD_START].type != SQL_NULL, fields[FIELD_START].real);
    char month[32];
    if ((day < c->month_from || day >= c->month_to) &&
        partition_of_day(day, month, sizeof month, &c->month_from, &c->month_to) == 0 &&
        partitions_ensure(c->s, "summaries_v5", &day, 1, 0, c->why, c->why_size) < 0) {
        free(packed);
        return c->failed = 1;
    }
    p[k++] = row[0]; /* id */
    p[k++] = sql_blob(hash, SHA256_LEN);
    p[k++] = sql_int(day);
    for (int i = 2; i < COPY_COLUMNS; i++)
        p[k++] = row[i];
    p[k++] = sql_blob(packed, packed_len);
    for (size_t f = 0; f < c->nfields; f++)
        p[k++] = fields[f];
    long long changed = store_exec(c->s, c->insert, p, k, c->why, c->why_size);
    free(packed);
    if (changed < 0)
        return c->failed = 1;
    c->rows++;
    c->last_id = row[0].integer;
    return 0;
}

static int migration_5(struct store *s, char *why, size_t why_size)
{
    if (add_missing_field_columns(s, "summaries", false, why, why_size) < 0 ||
        create_summaries_v5(s, "summaries_v5", why, why_size) < 0)
        return -1;
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return -1;
    fputs("SELECT id, hash, name, category, set_id, host, tool, level, command, exit_status,"
          " exit_type, taskid, archived_at, attempt, previous_attempt", b.out);
    for (size_t i = 0; i < nfields; i++)
        fprintf(b.out, ", \"%s\"", fields[i].name);
    fputs(", document FROM summaries WHERE id > ? ORDER BY id LIMIT 2000", b.out);
    char *select = text_builder_finish(&b, why, why_size);
    if (!select || text_builder_open(&b, why, why_size) < 0) {
        free(select);
        return -1;
    }
    fputs("INSERT INTO summaries_v5 (id, hash, start_day, name, category, set_id, host, tool, level,"
          " command, exit_status, exit_type, taskid, archived_at, attempt, previous_attempt,"
          " document", b.out);
    for (size_t i = 0; i < nfields; i++)
        fprintf(b.out, ", \"%s\"", fields[i].name);
    fputs(") VALUES (?", b.out);
    for (size_t i = 1; i < COPY_COLUMNS + 2 + nfields; i++)
        fputs(", ?", b.out);
    fputs(")", b.out);
    char *insert = text_builder_finish(&b, why, why_size);
    struct copy c = {s, insert, insert ? calloc(COPY_COLUMNS + 2 + nfields, sizeof *c.params) : NULL,
                     nfields, 0, 0, 0, 1, 0, why, why_size};
    int rc = c.params ? 0 : -1;
    if (insert && !c.params)
        snprintf(why, why_size, "out of memory");
    /* in chunks of ids: a server sends a whole result at once */
    for (size_t before = 1; rc == 0 && c.rows != before;) {
        before = c.rows;
        struct sql_value from = sql_int(c.last_id);
        if (store_query(s, select, &from, 1, copy_row, &c, why, why_size) < 0 || c.failed)
            rc = -1;
        if (c.rows - before < COPY_CHUNK)
            break;
    }
    free(select);
    free(insert);
    free(c.params);
    if (rc < 0)
        return -1;
    if (exec_script(s, "DROP TABLE summaries; ALTER TABLE summaries_v5 RENAME TO summaries;"
                       "CREATE INDEX summaries_name ON summaries (name);"
                       "CREATE UNIQUE INDEX summaries_key ON summaries (start_day, hash);"
                       "DROP TABLE aggregates;", why, why_size) < 0 ||
        /* a partitioned table's primary key would have to hold start_day */
        (s->backend->partition_by &&
         exec_script(s, "CREATE INDEX summaries_id ON summaries (id);", why, why_size) < 0) ||
        (s->backend->reset_ids && exec_script(s, s->backend->reset_ids, why, why_size) < 0))
        return -1;
    char sql[256];
    snprintf(sql, sizeof sql, "CREATE TABLE aggregates (kind INTEGER NOT NULL, key TEXT NOT NULL,"
             " day BIGINT NOT NULL, data %s NOT NULL, PRIMARY KEY (kind, key, day));",
             s->backend->blob_type);
    if (exec_script(s, sql, why, why_size) < 0)
        return -1;
    return aggregate_rebuild(s, why, why_size);
}

static int migration_6(struct store *s, char *why, size_t why_size)
{
    return file_rows_migrate(s, why, why_size);
}

static int migration_7(struct store *s, char *why, size_t why_size)
{
    /* substr and length work on SQLite blobs and PostgreSQL bytea alike */
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE summaries SET hash = substr(hash, 1, %d) WHERE length(hash) > %d;",
             SUMMARY_HASH_LEN, SUMMARY_HASH_LEN);
    return exec_script(s, sql, why, why_size);
}

static int migration_8(struct store *s, char *why, size_t why_size)
{
    char sql[256];
    snprintf(sql, sizeof sql, "CREATE TABLE document_shapes (%s, members %s NOT NULL UNIQUE);"
             "ALTER TABLE summaries ADD COLUMN shape BIGINT;", s->backend->id_column,
             s->backend->blob_type);
    return exec_script(s, sql, why, why_size);
}

static int migration_9(struct store *s, char *why, size_t why_size)
{
    char sql[512];
    snprintf(sql, sizeof sql, "CREATE TABLE summary_keys (start_day BIGINT NOT NULL, hash %s NOT NULL,"
             " id BIGINT NOT NULL, PRIMARY KEY (start_day, hash))%s;"
             "INSERT INTO summary_keys (start_day, hash, id) SELECT start_day, hash, id FROM summaries;"
             "DROP INDEX summaries_key;"
             "ALTER TABLE summaries DROP COLUMN hash;",
             s->backend->blob_type, s->backend->clustered_key ? s->backend->clustered_key : "");
    return exec_script(s, sql, why, why_size);
}

static int migration_10(struct store *s, char *why, size_t why_size)
{
    return exec_script(s, "DROP INDEX IF EXISTS summaries_name;", why, why_size);
}

static int migration_11(struct store *s, char *why, size_t why_size)
{
    /* the new table takes every field's column */
    if (add_missing_field_columns(s, "summaries", false, why, why_size) < 0)
        return -1;
    return summary_rows_migrate(s, why, why_size);
}

static int migration_12(struct store *s, char *why, size_t why_size)
{
    const char *sql = s->backend->aggregates_uncompressed;
    return sql ? exec_script(s, sql, why, why_size) : 0;
}

static int migration_13(struct store *s, char *why, size_t why_size) { return 0; }

static int (*const migrations[SCHEMA_VERSION])(struct store *, char *, size_t) = {
    migration_1,
    migration_2,
    migration_3,
    migration_4,
    migration_5,
    migration_6,
    migration_7,
    migration_8,
    migration_9,
    migration_10,
    migration_11,
    migration_12,
    migration_13,
};

static int read_version(void *ctx, size_t ncols, const struct sql_value *row)
{
    *(int *)ctx = (ncols > 0 && row[0].type != SQL_NULL) ? (int)row[0].real : 0;
    return 0;
}

int schema_version_of(struct store *s, char *why, size_t why_size)
{
    int version = 0;
    if (store_query(s, "SELECT max(version) FROM schema_version", NULL, 0, read_version, &version,
                    why, why_size) < 0)
        return -1;
    return version;
}


/* Adds a column for every numeric field the table lacks (summaries before
 * version 11, summary_rows since; then the view is made again when one
 * was added); with check_only, returns 1 when one is missing instead of
 * adding it. */
static int add_missing_field_columns(struct store *s, const char *table, bool check_only, char *why,
                                     size_t why_size)
{
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    struct column_names columns;
    if (table_columns(s, table, &columns, why, why_size) < 0)
        return -1;
    bool added = false;
    int rc = 0;
    for (size_t i = 0; i < nfields && rc == 0; i++) {
        if (has_column(&columns, fields[i].name))
            continue;
        if (check_only) {
            rc = 1;
            break;
        }
        char sql[256];
        snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN \"%s\" DOUBLE PRECISION;", table,
                 fields[i].name);
        rc = exec_script(s, sql, why, why_size);
        added = rc == 0;
    }
    free(columns.text);
    if (rc != 0)
        return rc < 0 ? -1 : rc;
    if (added && !strcmp(table, "summary_rows"))
        return summary_rows_view_create(s, why, why_size);
    return 0;
}

static int migrate_once(struct store *s, int target_version, char *why, size_t why_size);

/* Brings the schema to target_version. Two processes opening a new archive at
 * once can have one transaction refused for the other's lock without
 * waiting (SQLite's deadlock avoidance): it is run again, out of step. */
int schema_migrate(struct store *s, int target_version, char *why, size_t why_size)
{
    int rc = -1;
    for (int attempt = 1; attempt <= MIGRATE_TRIES; attempt++) {
        s->retryable = false;
        rc = migrate_once(s, target_version, why, why_size);
        if (rc == 0 || !s->retryable)
            break;
        usleep((useconds_t)(1000 * attempt + rand() % 5000));
    }
    s->retryable = false;
    return rc;
}

static int migrate_once(struct store *s, int target_version, char *why, size_t why_size)
{
    char ignored[512];
    int current = schema_version_of(s, ignored, sizeof ignored);
    if (current == target_version && target_version == SCHEMA_VERSION &&
        add_missing_field_columns(s, "summary_rows", true, ignored, sizeof ignored) == 0)
        return 0; /* the common case, without taking the write lock */
    if (current > SCHEMA_VERSION) {
        snprintf(why, why_size, "archive schema version %d is newer than this tally (%d)", current,
                 SCHEMA_VERSION);
        return -1;
    }
    if (store_begin(s, why, why_size) < 0)
        return -1;
    if (s->backend->lock_schema && store_exec(s, s->backend->lock_schema, NULL, 0, why, why_size) < 0)
        goto fail;
    if (exec_script(s, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL,"
                       " applied DOUBLE PRECISION);", why, why_size) < 0)
        goto fail;
    current = schema_version_of(s, why, why_size); /* again, now under the lock */
    if (current < 0)
        goto fail;
    for (int v = current + 1; v <= target_version; v++) {
        if (migrations[v - 1](s, why, why_size) < 0)
            goto fail;
        struct sql_value param = sql_int(v);
        if (store_exec(s, "INSERT INTO schema_version (version) VALUES (?)", &param, 1, why,
                       why_size) < 0)
            goto fail;
    }
    if (target_version == SCHEMA_VERSION &&
        add_missing_field_columns(s, "summary_rows", false, why, why_size) < 0)
        goto fail;
    if (store_commit(s, why, why_size) < 0)
        return -1;
    if (current > 0 && current < target_version)
        s->upgraded_from = current;
    return 0;
fail:
    store_rollback(s);
    return -1;
}
