/* Unit tests for the archive's dictionary of repeated texts (schema version
 * 11: src/archive/dictionary.c, summary_rows.c): an archive of version 10
 * migrates and reads the same through the view, its rows hold integer ids,
 * ingest reuses and adds ids, an id added by a transaction rolled back
 * is never used again for another text, and a batch's texts, more than a
 * statement holds, get ids in the order of their first use. */
#include <stdlib.h>
#include <unistd.h>

#include "archive/dictionary.h"
#include "archive/document_pack.h"
#include "archive/ingest.h"
#include "archive/schema.h"
#include "test.h"

static char why[200];

static int take_text(void *ctx, size_t ncols, const struct sql_value *row)
{
    char **out = ctx, number[64];
    free(*out);
    if (ncols > 0 && row[0].type == SQL_INT)
        snprintf(number, sizeof number, "%lld", row[0].integer);
    else if (ncols > 0 && row[0].type == SQL_REAL)
        snprintf(number, sizeof number, "%g", row[0].real);
    else
        snprintf(number, sizeof number, "(null)");
    *out = strdup(ncols > 0 && row[0].type == SQL_TEXT ? row[0].text : number);
    return 1;
}

/* The first column of the first row as text (malloc'd; "(null)" when
 * NULL, "(none)" without a row, "(error)" on an error). */
static char *text_of(struct store *s, const char *sql)
{
    char *text = NULL;
    if (store_query(s, sql, NULL, 0, take_text, &text, why, sizeof why) < 0) {
        printf("# %s: %s\n", sql, why);
        free(text);
        return strdup("(error)");
    }
    return text ? text : strdup("(none)");
}

static void check_text(struct store *s, const char *sql, const char *want)
{
    char *got = text_of(s, sql);
    CHECK_STR(got, want);
    free(got);
}

static int parse(const char *text, struct summary_record *r)
{
    static const struct ingest_options none = {0};
    json_t *root = json_loads(text, 0, NULL);
    int rc = summary_record_parse(root, text, strlen(text), &none, r, why, sizeof why);
    json_decref(root);
    return rc;
}

/* Adds one summary in a transaction that commits (or rolls back). */
static long long add(struct store *s, const char *text, bool commit)
{
    struct summary_record r;
    long long id = 0;
    CHECK_INT(parse(text, &r), 0);
    CHECK_INT(store_begin(s, why, sizeof why), 0);
    CHECK_INT(ingest_record(s, &r, &id, why, sizeof why), 1);
    if (commit)
        CHECK_INT(store_commit(s, why, sizeof why), 0);
    else
        store_rollback(s);
    summary_record_free(&r);
    return id;
}

/* Every row of summaries as one text, ordered by id: what the readers see. */
#define EVERY_ROW "SELECT group_concat(line, '|') FROM (SELECT id || ',' || name || ','" \
                  " || coalesce(category, '-') || ',' || coalesce(set_id, '-') || ',' ||" \
                  " coalesce(host, '-') || ',' || coalesce(tool, '-') || ',' ||" \
                  " coalesce(exit_type, '-') || ',' || coalesce(memory, '-') AS line" \
                  " FROM summaries ORDER BY id)"

int main(void)
{
    char dir[] = "/tmp/tally-dictionary-test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/v10.db", dir);

    /* an archive of version 10, its texts in the row */
    struct store *s = store_open_at_version(path, 10, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return test_done();
    const char *v10_rows = "INSERT INTO summaries (start_day, name, category, set_id, host, tool,"
                           " exit_type, document, memory) VALUES"
                           " (20775, 'bwa', 'align', 'wf-1', 'c1', 'tally', 'normal', x'02', 100),"
                           " (20775, 'bwa', 'align', NULL, 'c2', 'tally', 'limits', x'02', 200),"
                           " (20776, 'gatk', NULL, 'wf-1', 'c1', 'resource_monitor', NULL, x'02', 300)";
    CHECK_INT(store_exec(s, v10_rows, NULL, 0, why, sizeof why), 3);
    char *before = text_of(s, EVERY_ROW);
    CHECK_STR(before, "1,bwa,align,wf-1,c1,tally,normal,100.0|2,bwa,align,-,c2,tally,limits,200.0|"
                      "3,gatk,-,wf-1,c1,resource_monitor,-,300.0");
    char *by_name = text_of(s, "SELECT group_concat(id) FROM summaries WHERE name = 'bwa' AND host = 'c2'");
    store_close(s);

    /* migrated: the same rows through the view, ids in summary_rows */
    s = store_open(path, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return test_done();
    CHECK_INT(schema_version_of(s, why, sizeof why), schema_current_version());
    char *after = text_of(s, EVERY_ROW);
    CHECK_STR(after, before);
    free(after);
    check_text(s, "SELECT group_concat(id) FROM summaries WHERE name = 'bwa' AND host = 'c2'", by_name);
    check_text(s, "SELECT group_concat(typeof(name_ref) || typeof(host_ref)) FROM summary_rows",
               "integerinteger,integerinteger,integerinteger");
    check_text(s, "SELECT group_concat(coalesce(category_ref, 'null')) FROM summary_rows", "1,1,null");
    /* ids from 1 in each kind, in the order of their texts */
    check_text(s, "SELECT group_concat(kind || ':' || id || ':' || text, ' ') FROM"
                  " (SELECT * FROM dictionary ORDER BY kind, id)",
               "1:1:bwa 1:2:gatk 2:1:align 3:1:wf-1 4:1:c1 4:2:c2 5:1:resource_monitor 5:2:tally"
               " 6:1:limits 6:2:normal");
    check_text(s, "SELECT count(*) FROM sqlite_master WHERE name = 'summaries' AND type = 'view'", "1");
    /* the day of a summary's start is in its key only (the row's took 3
     * bytes) */
    check_text(s, "SELECT count(*) FROM pragma_table_info('summary_rows') WHERE name = 'start_day'", "0");

    /* a known host reuses its id; a new one takes the next */
    const char *fourth = "{\"name\":\"bwa\",\"host\":\"c2\",\"tally_version\":\"0.1\",\"seq\":1,"
                         "\"start\":[1795000030.25,\"s\"]}";
    long long id = add(s, fourth, true);
    CHECK_INT(id, 4);
    check_text(s, "SELECT start_day FROM summary_keys WHERE id = 4", "20775");
    check_text(s, "SELECT host_ref || ',' || name_ref || ',' || tool_ref FROM summary_rows WHERE id = 4",
               "2,1,2");
    /* a new host in a transaction rolled back: its id is taken by the next
     * new host, and the rolled back one, added again, gets one of its own */
    add(s, "{\"name\":\"bwa\",\"host\":\"gone\",\"seq\":2}", false);
    check_text(s, "SELECT count(*) FROM dictionary WHERE text = 'gone'", "0");
    id = add(s, "{\"name\":\"bwa\",\"host\":\"c3\",\"seq\":3}", true);
    check_text(s, "SELECT id FROM dictionary WHERE kind = 4 AND text = 'c3'", "3");
    long long again = add(s, "{\"name\":\"bwa\",\"host\":\"gone\",\"seq\":2}", true);
    CHECK(again > id);
    check_text(s, "SELECT group_concat(host, ',') FROM (SELECT host FROM summaries WHERE id >= 5 ORDER BY id)",
               "c3,gone");
    check_text(s, "SELECT id FROM dictionary WHERE kind = 4 AND text = 'gone'", "4");
    /* a summary comes back whole: its texts from the dictionary, its
     * tally_version from its shape */
    json_t *doc = document_load(s, 4, true, why, sizeof why);
    char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    CHECK_STR(text ? text : "(none)", fourth);
    free(text);
    json_decref(doc);
    check_text(s, "SELECT length(document) FROM summary_rows WHERE id = 4", "3");

    /* an archive of a tally whose fields.c lacked a field: opening it adds
     * the field's column to summary_rows and makes the view again with it */
    CHECK_INT(store_exec(s, "DROP VIEW summaries; ALTER TABLE summary_rows DROP COLUMN major_page_faults;"
                            " CREATE VIEW summaries AS SELECT id FROM summary_rows;",
                         NULL, 0, why, sizeof why) >= 0, 1);
    store_close(s);
    s = store_open(path, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return test_done();
    check_text(s, "SELECT count(*) FROM pragma_table_info('summary_rows') WHERE name = 'major_page_faults'", "1");
    check_text(s, "SELECT count(*) || ',' || count(major_page_faults) || ',' || max(host) FROM summaries", "6,0,gone");
    store_close(s);

    /* a batch's texts in one call: 600 new hosts (each twice), 300 names,
     * texts without a value; more than a statement's 256 rows */
    snprintf(path, sizeof path, "%s/bulk.db", dir);
    s = store_open(path, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return test_done();
    enum { HOSTS = 600, NAMES = 300, TEXTS = 2 * HOSTS + NAMES + 2 };
    static char hosts[HOSTS][16], names[NAMES][16];
    static struct dictionary_text texts[TEXTS];
    static long long ids[TEXTS];
    size_t n = 0;
    for (int i = 0; i < HOSTS; i++) {
        snprintf(hosts[i], sizeof hosts[i], "h%d", i);
        if (i < NAMES) {
            snprintf(names[i], sizeof names[i], "n%d", i);
            texts[n] = (struct dictionary_text){DICT_NAME, names[i], &ids[n]};
            n++;
        }
        texts[n] = (struct dictionary_text){DICT_HOST, hosts[i], &ids[n]};
        n++;
    }
    texts[n] = (struct dictionary_text){DICT_SET, NULL, &ids[n]};
    n++;
    for (int i = HOSTS - 1; i >= 0; i--, n++) /* each again, last first */
        texts[n] = (struct dictionary_text){DICT_HOST, hosts[i], &ids[n]};
    texts[n] = (struct dictionary_text){DICT_TOOL, NULL, &ids[n]};
    n++;
    CHECK_INT(n, TEXTS);
    CHECK_INT(store_begin(s, why, sizeof why), 0);
    CHECK_INT(dictionary_ids(s, texts, n, why, sizeof why), 0);
    CHECK_INT(store_commit(s, why, sizeof why), 0);
    /* ids from 1 in the order of first use, the same id each time */
    int wrong = 0;
    for (size_t i = 0; i < n; i++) {
        long long want = !texts[i].text ? 0 : atoll(texts[i].text + 1) + 1;
        wrong += ids[i] != want;
    }
    CHECK_INT(wrong, 0);
    check_text(s, "SELECT count(*) || ',' || max(id) || ',' || count(DISTINCT text) FROM dictionary WHERE kind = 4",
               "600,600,600");
    check_text(s, "SELECT id FROM dictionary WHERE kind = 1 AND text = 'n299'", "300");
    /* known ones from the cache, new ones after them; a new one added by a
     * transaction rolled back is added again with an id of its own */
    struct dictionary_text more[3] = {{DICT_HOST, "h5", &ids[0]}, {DICT_HOST, "late", &ids[1]},
                                      {DICT_HOST, "h7", &ids[2]}};
    CHECK_INT(store_begin(s, why, sizeof why), 0);
    CHECK_INT(dictionary_ids(s, more, 3, why, sizeof why), 0);
    CHECK_INT(ids[0], 6);
    CHECK_INT(ids[1], 601);
    CHECK_INT(ids[2], 8);
    store_rollback(s);
    check_text(s, "SELECT count(*) FROM dictionary WHERE text = 'late'", "0");
    more[0].text = "later";
    CHECK_INT(store_begin(s, why, sizeof why), 0);
    CHECK_INT(dictionary_ids(s, more, 2, why, sizeof why), 0);
    CHECK_INT(store_commit(s, why, sizeof why), 0);
    CHECK_INT(ids[0], 601);
    CHECK_INT(ids[1], 602);
    check_text(s, "SELECT group_concat(id || ':' || text) FROM (SELECT * FROM dictionary WHERE id > 600 ORDER BY id)",
               "601:later,602:late");
    store_close(s);

    free(before);
    free(by_name);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
    return test_done();
}
