/* Unit tests for summary ingest (src/archive/ingest.c) and the SQLite store
 * with its migrations (src/archive/store*.c, schema.c), on a real database
 * file in a temporary directory. */
#include <stdlib.h>
#include <unistd.h>

#include "archive/aggregate.h"
#include "archive/aggregate_store.h"
#include "archive/document_pack.h"
#include "archive/ingest.h"
#include "archive/schema.h"
#include "core/fields.h"
#include "test.h"

static int field_index(const char *name)
{
    size_t n;
    const struct summary_field *f = summary_fields(&n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f[i].name, name))
            return (int)i;
    return -1;
}

static char why[200];

/* Parses text; returns 0 or -1 (why filled). */
static int parse(const char *text, const struct ingest_options *o, struct summary_record *r)
{
    json_t *root = json_loads(text, 0, NULL);
    why[0] = '\0';
    int status = summary_record_parse(root, text, strlen(text), o, r, why, sizeof why);
    json_decref(root);
    return status;
}

static int count_rows(void *ctx, size_t ncols, const struct sql_value *row)
{
    *(long long *)ctx = (long long)row[0].real;
    return 0;
}

static long long scalar(struct store *s, const char *sql)
{
    long long v = -1;
    if (store_query(s, sql, NULL, 0, count_rows, &v, why, sizeof why) < 0)
        printf("# %s: %s\n", sql, why);
    return v;
}

/* The document of id as compact text in its members' order (malloc'd). */
static char *loaded_text(struct store *s, long long id)
{
    json_t *doc = document_load(s, id, true, why, sizeof why);
    char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))
                     : NULL;
    json_decref(doc);
    return text;
}

/* An archive at version 7 (documents packed whole, version 2; the hash in
 * the row) is migrated: by version 8 its documents come back the same, the
 * summaries added after keep their member order once per shape, and each
 * comes back the same; by version 9 its keys move to summary_keys, and a
 * summary archived before is still known. */
static void test_shapes_migration(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/v7.db", dir);
    struct store *s = store_open_at_version(path, 7, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return;
    const char *doc7 = "{\"name\":\"bwa\",\"host\":\"c1\",\"tally_version\":\"0.1\",\"seq\":\"1-0\","
                       "\"wall_time\":[12.5,\"s\"],\"memory\":[512,\"MB\"],\"x\":{\"a\":[1,2]}}";
    struct document_columns cols;
    memset(&cols, 0, sizeof cols);
    cols.strings[DOC_NAME] = "bwa";
    cols.strings[DOC_HOST] = "c1";
    cols.present[FIELD_WALL_TIME] = cols.present[FIELD_MEMORY] = true;
    cols.values[FIELD_WALL_TIME] = 12.5;
    cols.values[FIELD_MEMORY] = 512;
    json_t *root = json_loads(doc7, 0, NULL);
    size_t len = 0;
    unsigned char *packed = document_pack(root, &cols, &len), hash[SHA256_LEN];
    json_decref(root);
    sha256(doc7, strlen(doc7), hash);
    struct sql_value row[7] = {sql_blob(hash, SUMMARY_HASH_LEN), sql_int(SUMMARY_NO_START_DAY),
                               sql_text("bwa"), sql_text("c1"), sql_blob(packed, len),
                               sql_real(12.5), sql_real(512)};
    CHECK_INT(store_exec(s, "INSERT INTO summaries (hash, start_day, name, host, document, wall_time,"
                            " memory) VALUES (?, ?, ?, ?, ?, ?, ?)", row, 7, why, sizeof why), 1);
    free(packed);
    store_close(s);
    s = store_open(path, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_INT(schema_version_of(s, why, sizeof why), schema_current_version());
    CHECK_INT(scalar(s, "SELECT id FROM summary_keys WHERE start_day = -1000000000"), 1);
    char *text = loaded_text(s, 1);
    CHECK(text && !strcmp(text, doc7));
    free(text);
    CHECK_INT(scalar(s, "SELECT shape IS NULL FROM summaries WHERE id = 1"), 1);
    /* two more of the same shape (another seq) and one of another order */
    const char *more[3] = {
        "{\"name\":\"bwa\",\"host\":\"c1\",\"tally_version\":\"0.1\",\"seq\":\"1-1\","
        "\"wall_time\":[13.25,\"s\"],\"memory\":[500,\"MB\"],\"x\":{\"a\":[3]}}",
        "{\"name\":\"bwa\",\"host\":\"c2\",\"tally_version\":\"0.1\",\"seq\":\"1-2\","
        "\"wall_time\":[14.5,\"s\"],\"memory\":[600,\"MB\"],\"x\":null}",
        "{\"memory\":[0.5,\"GB\"],\"name\":\"bwa\",\"seq\":\"1-3\",\"wall_time\":[2,\"s\"]}"};
    struct ingest_options none = {0};
    for (int i = 0; i < 3; i++) {
        struct summary_record r;
        CHECK_INT(parse(more[i], &none, &r), 0);
        CHECK_INT(store_begin(s, why, sizeof why), 0);
        CHECK_INT(ingest_record(s, &r, NULL, why, sizeof why), 1);
        CHECK_INT(store_commit(s, why, sizeof why), 0);
        summary_record_free(&r);
        text = loaded_text(s, i + 2);
        json_t *want = json_loads(more[i], 0, NULL);
        char *want_text = json_dumps(want, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        CHECK(text && want_text && !strcmp(text, want_text));
        free(text);
        free(want_text);
        json_decref(want);
    }
    /* the first two share a shape (their texts differ, not their members'
     * order); the third's memory in GB is kept as text, not the column */
    CHECK_INT(scalar(s, "SELECT count(*) FROM document_shapes"), 2);
    CHECK_INT(scalar(s, "SELECT count(DISTINCT shape) FROM summaries WHERE id IN (2, 3, 4)"), 2);
    CHECK_INT(scalar(s, "SELECT count(*) FROM summaries WHERE id IN (2, 3) AND shape ="
                        " (SELECT shape FROM summaries WHERE id = 2)"), 2);
    CHECK_INT(scalar(s, "SELECT count(*) FROM summaries WHERE shape IS NOT NULL"), 3);
    /* the shaped document holds only its texts: seq, tally_version, x */
    CHECK(scalar(s, "SELECT length(document) FROM summaries WHERE id = 2") <
          scalar(s, "SELECT length(document) FROM summaries WHERE id = 1") - 10);
    /* the same summaries again are still known, the migrated one too; in a
     * batch mixing them with new ones, the new ones' ids follow each other */
    const char *batch[5] = {
        doc7, "{\"name\":\"bwa\",\"seq\":\"a\"}", more[0], "{\"name\":\"bwa\",\"seq\":\"b\"}",
        "{\"name\":\"bwa\",\"seq\":\"a\"}"};
    struct summary_record records[5], *pointers[5];
    for (int i = 0; i < 5; i++) {
        CHECK_INT(parse(batch[i], &none, &records[i]), 0);
        pointers[i] = &records[i];
    }
    size_t added = 0;
    long long last_id = 0;
    CHECK_INT(store_begin(s, why, sizeof why), 0);
    CHECK_INT(ingest_records(s, pointers, 5, &added, &last_id, why, sizeof why), 0);
    CHECK_INT(store_commit(s, why, sizeof why), 0);
    CHECK_INT(added, 2);
    CHECK_INT(last_id, 6);
    CHECK_INT(records[0].id, 0);
    CHECK_INT(records[1].id, 5);
    CHECK_INT(records[2].id, 0);
    CHECK_INT(records[3].id, 6);
    CHECK_INT(records[4].id, 0); /* the second of one summary in one batch */
    for (int i = 0; i < 5; i++)
        summary_record_free(&records[i]);
    CHECK_INT(scalar(s, "SELECT count(*) FROM summaries"), 6);
    CHECK_INT(scalar(s, "SELECT count(*) FROM summary_keys k JOIN summaries USING (id)"), 6);
    text = loaded_text(s, 6);
    CHECK(text && !strcmp(text, "{\"name\":\"bwa\",\"seq\":\"b\"}"));
    free(text);
    /* a shape longer than 1 KB (a key that long) is not shared: the
     * document is stored whole, and comes back the same */
    char long_doc[1300];
    snprintf(long_doc, sizeof long_doc, "{\"name\":\"bwa\",\"%01200d\":1}", 7);
    CHECK_INT(parse(long_doc, &none, &records[0]), 0);
    CHECK_INT(store_begin(s, why, sizeof why), 0);
    CHECK_INT(ingest_record(s, &records[0], NULL, why, sizeof why), 1);
    CHECK_INT(store_commit(s, why, sizeof why), 0);
    summary_record_free(&records[0]);
    CHECK_INT(scalar(s, "SELECT shape IS NULL AND length(document) > 1200 FROM summaries WHERE id = 7"), 1);
    text = loaded_text(s, 7);
    CHECK(text && !strcmp(text, long_doc));
    free(text);
    store_close(s);
}

/* A batch of 300 names (600 aggregate day rows with their categories:
 * flushed in chunks of ROWS_STATEMENT_CHUNK, and 300 x 2 name/field pairs,
 * likewise) is stored whole; a second batch merges into the stored rows;
 * a stored aggregate that cannot be read fails the batch, naming its key
 * and day, and is left as it was. */
static void test_aggregate_chunks(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/chunks.db", dir);
    struct store *s = store_open(path, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return;
    struct ingest_options none = {0};
    enum { NAMES = 300 };
    for (int round = 0; round < 2; round++) {
        static struct summary_record records[NAMES];
        struct summary_record *pointers[NAMES];
        for (int i = 0; i < NAMES; i++) {
            char doc[200];
            snprintf(doc, sizeof doc, "{\"name\":\"n%d\",\"category\":\"c%d\",\"seq\":%d,"
                     "\"start\":[1795000000,\"s\"],\"memory\":[%d,\"MB\"],\"wall_time\":[%d,\"s\"]}",
                     i, i, round, 100 + i + round, 10 + round);
            CHECK_INT(parse(doc, &none, &records[i]), 0);
            pointers[i] = &records[i];
        }
        size_t added = 0;
        long long last_id = 0;
        CHECK_INT(store_begin(s, why, sizeof why), 0);
        CHECK_INT(ingest_records(s, pointers, NAMES, &added, &last_id, why, sizeof why), 0);
        CHECK_INT(ingest_name_fields(s, pointers, NAMES, why, sizeof why), 0);
        CHECK_INT(ingest_aggregates(s, pointers, NAMES, NULL, why, sizeof why), 0);
        CHECK_INT(store_commit(s, why, sizeof why), 0);
        CHECK_INT(added, NAMES);
        for (int i = 0; i < NAMES; i++)
            summary_record_free(&records[i]);
    }
    CHECK_INT(scalar(s, "SELECT count(*) FROM aggregates"), 2 * NAMES);
    CHECK_INT(scalar(s, "SELECT count(*) FROM name_fields"), NAMES * 3); /* memory, wall_time, start */
    struct aggregate a;
    aggregate_init(&a);
    size_t found = 0;
    long long day = 1795000000 / 86400;
    CHECK_INT(aggregate_load(s, AGGREGATE_BY_NAME, "n299", day, day, &a, &found, why, sizeof why), 0);
    CHECK_INT(found, 1);
    CHECK_INT(a.runs, 2);
    aggregate_free(&a);
    CHECK_INT(store_exec(s, "UPDATE aggregates SET data = X'00ff' WHERE key = 'n7'", NULL, 0, why, sizeof why), 1);
    struct summary_record r;
    CHECK_INT(parse("{\"name\":\"n7\",\"seq\":9,\"start\":[1795000000,\"s\"],\"memory\":[1,\"MB\"]}", &none, &r), 0);
    struct summary_record *one = &r;
    size_t added = 0;
    long long last_id = 0;
    CHECK_INT(store_begin(s, why, sizeof why), 0);
    CHECK_INT(ingest_records(s, &one, 1, &added, &last_id, why, sizeof why), 0);
    char want[120];
    snprintf(want, sizeof want, "the stored aggregate of 'n7' for day %lld cannot be read", day);
    CHECK_INT(ingest_aggregates(s, &one, 1, NULL, why, sizeof why), -1);
    CHECK_STR(why, want);
    store_rollback(s);
    summary_record_free(&r);
    CHECK_INT(scalar(s, "SELECT count(*) FROM aggregates WHERE key = 'n7' AND hex(data) = '00FF'"), 1);
    store_close(s);
}

/* store_send and store_wait where the backend runs a statement at once
 * (SQLite): the outcome kept for the wait, a failure's reason with it. */
static void test_send_wait(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/send.db", dir);
    struct store *s = store_open(path, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_INT(store_wait(s, why, sizeof why), -1);
    CHECK_STR(why, "no statement sent");
    struct sql_value p[2] = {sql_text("sent"), sql_int(7)};
    CHECK_INT(store_send(s, "INSERT INTO name_fields (name, field) VALUES (?, ?), ('sent', 8)", p, 2, why,
                         sizeof why), 0);
    CHECK_INT(store_wait(s, why, sizeof why), 2);
    CHECK_INT(scalar(s, "SELECT count(*) FROM name_fields WHERE name = 'sent'"), 2);
    CHECK_INT(store_send(s, "INSERT INTO name_fields (name, field) VALUES (?, ?)", p, 2, why, sizeof why), 0);
    CHECK_INT(store_wait(s, why, sizeof why), -1); /* (name, field) is the key */
    CHECK(strstr(why, "UNIQUE") != NULL);
    CHECK_INT(store_wait(s, why, sizeof why), -1); /* waited for once */
    store_close(s);
}

int main(void)
{
    struct ingest_options none = {0};
    struct summary_record r;

    /* a Work Queue resource_monitor summary: category and taskid, no name */
    const char *wq = "{\"category\":\"rmapper\",\"taskid\":17,\"monitor_version\":\"7.4\","
                     "\"host\":\"c7\",\"memory\":[1.5,\"GB\"],\"wall_time\":[2,\"min\"],"
                     "\"cores\":[2,\"cores\"],\"bandwidth\":[3,\"Mbps\"],\"mystery\":{\"a\":1}}";
    CHECK_INT(parse(wq, &none, &r), 0);
    CHECK_STR(r.name, "rmapper");
    CHECK_STR(r.category, "rmapper");
    CHECK_STR(r.taskid, "17");
    CHECK_STR(r.tool, "resource_monitor");
    CHECK_STR(r.host, "c7");
    CHECK_NEAR(r.values[field_index("memory")], 1536, 1e-9);
    CHECK_NEAR(r.values[field_index("wall_time")], 120, 1e-9);
    CHECK_NEAR(r.values[field_index("cores")], 2, 0);
    CHECK(!r.present[field_index("disk")]);
    /* unknown fields are kept: the packed document gives back the object */
    CHECK(memmem(r.packed, r.packed_len, "\"a\":1", 5) != NULL);
    /* category, host, cores as references; GB and min are not the columns' units */
    CHECK(r.packed_len < strlen(wq) - 40);
    CHECK(r.start_day == SUMMARY_NO_START_DAY);
    unsigned char first_hash[SHA256_LEN];
    memcpy(first_hash, r.hash, SHA256_LEN);
    summary_record_free(&r);

    /* options override; the hash follows the document, not the options */
    struct ingest_options named = {.name = "align", .set = "run-1", .host = "h2"};
    CHECK_INT(parse(wq, &named, &r), 0);
    CHECK_STR(r.name, "align");
    CHECK_STR(r.set, "run-1");
    CHECK_STR(r.host, "h2");
    CHECK(!memcmp(r.hash, first_hash, SHA256_LEN));
    summary_record_free(&r);

    /* no name and no category: the command's program */
    CHECK_INT(parse("{\"command\":\"/usr/bin/bwa mem x\",\"tally_version\":\"0.1\",\"level\":2}",
                    &none, &r), 0);
    CHECK_STR(r.name, "bwa");
    CHECK_STR(r.tool, "tally");
    CHECK(r.has_level && r.level == 2);
    summary_record_free(&r);

    /* bad inputs name the field and the reason */
    CHECK_INT(parse("{\"name\":\"x\",\"memory\":[5,\"parsecs\"]}", &none, &r), -1);
    CHECK_STR(why, "field 'memory': unit \"parsecs\" is not a unit of bytes (want \"MB\")");
    CHECK_INT(parse("{\"name\":\"x\",\"wall_time\":[5,\"MB\"]}", &none, &r), -1);
    CHECK_STR(why, "field 'wall_time': unit \"MB\" is not a unit of time (want \"s\")");
    /* read while writing tests/fuzz/summary_fuzz.c: converting 1e300 to an
     * integer was undefined behaviour */
    CHECK_INT(parse("{\"name\":\"x\",\"exit_status\":1e300}", &none, &r), -1);
    CHECK_STR(why, "field 'exit_status': want an integer");
    CHECK_INT(parse("{\"name\":\"x\",\"level\":2.5}", &none, &r), -1);
    CHECK_STR(why, "field 'level': want an integer");
    CHECK_INT(parse("{\"name\":\"x\",\"exit_status\":3.0}", &none, &r), 0);
    CHECK_INT(r.exit_status, 3);
    summary_record_free(&r);
    /* found by tests/fuzz/summary_fuzz.c: a finite number, an infinite quantity */
    CHECK_INT(parse("{\"name\":\"x\",\"memory\":[1e308,\"TB\"]}", &none, &r), -1);
    CHECK_STR(why, "field 'memory': value too large in MB");
    CHECK_INT(parse("{\"name\":\"x\",\"memory\":\"lots\"}", &none, &r), -1);
    CHECK_STR(why, "field 'memory': want [number, \"unit\"]");
    CHECK_INT(parse("{\"memory\":[5,\"MB\"]}", &none, &r), -1);
    CHECK_STR(why, "no name, category or command: give --name");
    CHECK_INT(parse("[1,2]", &none, &r), -1);
    CHECK_STR(why, "a summary is a JSON object");

    /* the store: a real SQLite file, migrated from version 1 to the current one */
    char dir[] = "/tmp/tally-ingest-test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/sub/archive.db", dir);
    struct store *s = store_open_at_version(path, 1, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return test_done();
    CHECK_INT(schema_version_of(s, why, sizeof why), 1);
    CHECK_INT(store_exec(s, "INSERT INTO summaries (hash, name, document, memory) VALUES "
                            "('h1', 'old', '{}', 10)", NULL, 0, why, sizeof why), 1);
    store_close(s);
    s = store_open(path, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return test_done();
    CHECK_INT(schema_version_of(s, why, sizeof why), schema_current_version());
    CHECK_INT(scalar(s, "SELECT count(*) FROM summaries WHERE name = 'old' AND memory = 10"), 1);
    CHECK_INT(scalar(s, "SELECT count(*) FROM summaries WHERE attempt IS NULL"), 1);
    CHECK_INT(scalar(s, "SELECT count(*) FROM schema_version"), schema_current_version());
    CHECK_INT(scalar(s, "SELECT count(*) FROM name_fields WHERE name = 'old' AND field = 'memory'"), 1);
    /* version 5 kept the row, its id, and its document (packed); version 7
     * its hash's first 16 bytes */
    CHECK_INT(scalar(s, "SELECT id FROM summaries WHERE name = 'old'"), 1);
    CHECK_INT(scalar(s, "SELECT length(hash) FROM summary_keys WHERE id ="
                        " (SELECT id FROM summaries WHERE name = 'old')"), 16);
    CHECK_INT(scalar(s, "SELECT typeof(document) = 'blob' FROM summaries WHERE name = 'old'"), 1);
    CHECK_INT(scalar(s, "SELECT count(*) FROM aggregates WHERE key = 'old'"), 1);

    /* the same summary twice is stored once */
    CHECK_INT(parse(wq, &none, &r), 0);
    long long id = 0;
    CHECK_INT(store_begin(s, why, sizeof why), 0);
    CHECK_INT(ingest_record(s, &r, &id, why, sizeof why), 1);
    CHECK(id > 1);
    CHECK_INT(ingest_record(s, &r, NULL, why, sizeof why), 0);
    CHECK_INT(store_commit(s, why, sizeof why), 0);
    CHECK_INT(scalar(s, "SELECT count(*) FROM summaries"), 2);
    CHECK_INT(scalar(s, "SELECT memory FROM summaries WHERE taskid = '17'"), 1536);
    summary_record_free(&r);
    CHECK_INT(ingest_set_description(s, "run-1", "A -> B", why, sizeof why), 0);
    CHECK_INT(ingest_set_description(s, "run-1", "other", why, sizeof why), 0);
    CHECK_INT(scalar(s, "SELECT count(*) FROM sets WHERE description = 'A -> B'"), 1);
    store_close(s);

    /* an archive at version 4 (documents as JSON text, hashes as hex, the
     * aggregates as hex text) is migrated: every summary comes back the same */
    snprintf(path, sizeof path, "%s/v4.db", dir);
    s = store_open_at_version(path, 4, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return test_done();
    const char *doc4 = "{\"name\":\"bwa\",\"category\":\"align\",\"host\":\"c1\",\"tally_version\":\"0.1\","
                       "\"start\":[1795000030.25,\"s\"],\"wall_time\":[12.5,\"s\"],\"memory\":[512,\"MB\"],"
                       "\"disk\":[1,\"GB\"],\"limits_exceeded\":{\"memory\":[500,\"MB\"]},\"exit_type\":\"limits\"}";
    char hex4[SHA256_HEX_LEN + 1];
    sha256_hex(doc4, strlen(doc4), hex4);
    struct sql_value row4[9] = {sql_text(hex4), sql_text("bwa"), sql_text("align"), sql_text("c1"),
                                sql_text(doc4), sql_real(1795000030.25), sql_real(12.5), sql_real(512),
                                sql_real(1024)};
    CHECK_INT(store_exec(s, "INSERT INTO summaries (hash, name, category, host, document, \"start\","
                            " wall_time, memory, disk) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         row4, 9, why, sizeof why), 1);
    CHECK_INT(store_exec(s, "UPDATE summaries SET exit_type = 'limits'", NULL, 0, why, sizeof why), 1);
    CHECK_INT(store_exec(s, "INSERT INTO aggregates (kind, key, day, data) VALUES (0, 'bwa', 20775, '01ff')",
                         NULL, 0, why, sizeof why), 1);
    store_close(s);
    s = store_open(path, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return test_done();
    CHECK_INT(schema_version_of(s, why, sizeof why), schema_current_version());
    json_t *back = document_load(s, 1, true, why, sizeof why), *want = json_loads(doc4, 0, NULL);
    CHECK(back != NULL && json_equal(back, want));
    json_decref(back);
    json_decref(want);
    CHECK_INT(scalar(s, "SELECT start_day FROM summary_keys WHERE id = 1"), 20775);
    CHECK_INT(scalar(s, "SELECT count(*) FROM aggregates WHERE key IN ('bwa', 'align') AND day = 20775"
                        " AND typeof(data) = 'blob'"), 2);
    /* the same summary added again is known by its hash, carried over (as
     * 32 bytes by version 5, cut to 16 by version 7) */
    CHECK_INT(scalar(s, "SELECT length(hash) FROM summary_keys WHERE id = 1"), 16);
    CHECK_INT(parse(doc4, &none, &r), 0);
    CHECK_INT(store_begin(s, why, sizeof why), 0);
    CHECK_INT(ingest_record(s, &r, NULL, why, sizeof why), 0);
    CHECK_INT(store_commit(s, why, sizeof why), 0);
    summary_record_free(&r);
    store_close(s);

    test_shapes_migration(dir);
    test_aggregate_chunks(dir);
    test_send_wait(dir);

    /* a start's day; none for a start a billion days away (1e121 s) */
    CHECK_INT(summary_start_day(true, 3 * 86400.0 + 5), 3);
    CHECK_INT(summary_start_day(true, -1), -1);
    CHECK_INT(summary_start_day(false, 86400), SUMMARY_NO_START_DAY);
    CHECK_INT(summary_start_day(true, 1e121), SUMMARY_NO_START_DAY);
    CHECK_INT(summary_start_day(true, -1e121), SUMMARY_NO_START_DAY);

    /* not a database */
    snprintf(path, sizeof path, "%s/not-a-db", dir);
    FILE *fp = fopen(path, "w");
    fputs("this is not sqlite, just text long enough to fill a header..........................."
          "...........................................................................", fp);
    fclose(fp);
    CHECK(store_open(path, why, sizeof why) == NULL);
    CHECK_CONTAINS(why, "not a database");

    char cleanup[300];
    snprintf(cleanup, sizeof cleanup, "rm -rf %s", dir);
    CHECK_INT(system(cleanup), 0);
    return test_done();
}
