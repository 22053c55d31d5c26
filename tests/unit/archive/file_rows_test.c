/* Unit tests for an archived run's per-file rows (src/archive/file_rows.c):
 * a files.json into bounded rows, the report's place beside a summary,
 * schema version 6's migration of level-3 summaries archived before it
 * (a real SQLite file), and the globs of 'archive files'
 * (src/archive/file_query.c). */
#include <stdlib.h>
#include <unistd.h>

#include "archive/document_pack.h"
#include "archive/file_query.h"
#include "archive/file_rows.h"
#include "archive/ingest.h"
#include "archive/schema.h"
#include "test.h"

static char why[256];

static int take_scalar(void *ctx, size_t ncols, const struct sql_value *row)
{
    *(long long *)ctx = row[0].type == SQL_NULL ? -7 : (long long)row[0].real;
    return 0;
}

static long long scalar(struct store *s, const char *sql)
{
    long long v = -1;
    if (store_query(s, sql, NULL, 0, take_scalar, &v, why, sizeof why) < 0)
        printf("# %s: %s\n", sql, why);
    return v;
}

static int parse(const char *text, size_t bound, struct file_rows *rows)
{
    why[0] = '\0';
    return file_rows_parse(text, strlen(text), bound, rows, why, sizeof why);
}

static void test_parse(void)
{
    struct file_rows rows;
    const char *report =
        "{\"format\":\"tally-files-1\",\"files\":["
        "{\"path\":\"/d/small.txt\",\"STDIO_OPENS\":1,\"STDIO_FDOPENS\":1,\"STDIO_WRITES\":2,"
        "\"STDIO_BYTES_WRITTEN\":10},"
        "{\"path\":\"/d/a.bam\",\"POSIX_OPENS\":2,\"POSIX_READS\":3,\"POSIX_BYTES_READ\":3000,"
        "\"STDIO_READS\":1,\"STDIO_BYTES_READ\":24,\"POSIX_WRITES\":1,\"POSIX_BYTES_WRITTEN\":5},"
        "{\"path\":\"/d/b.bam\",\"POSIX_BYTES_READ\":100},"
        "{\"path\":\"<incomplete>\",\"POSIX_OPENS\":4,\"POSIX_BYTES_READ\":7}]}";
    CHECK_INT(parse(report, 100, &rows), 0);
    CHECK_INT(rows.count, 4); /* three files and the row of <incomplete> */
    CHECK(rows.count == 4 && !strcmp(rows.rows[0].path, "/d/a.bam"));
    CHECK_INT(rows.rows[0].bytes_read, 3024); /* POSIX + STDIO */
    CHECK_INT(rows.rows[0].bytes_written, 5);
    CHECK_INT(rows.rows[0].opens, 2);
    CHECK_INT(rows.rows[0].reads, 4);
    CHECK_INT(rows.rows[0].writes, 1);
    CHECK(rows.count == 4 && !strcmp(rows.rows[1].path, "/d/b.bam"));
    CHECK_INT(rows.rows[2].opens, 2); /* STDIO_OPENS + STDIO_FDOPENS */
    CHECK_INT(rows.rows[2].bytes_written, 10);
    CHECK(rows.rows[3].path == NULL);
    CHECK_INT(rows.rows[3].files, 0); /* <incomplete> is no file of its own */
    CHECK_INT(rows.rows[3].opens, 4);
    CHECK_INT(rows.rows[3].bytes_read, 7);
    file_rows_free(&rows);

    /* past the bound: the largest two by name, the third in the NULL row */
    CHECK_INT(parse(report, 2, &rows), 0);
    CHECK_INT(rows.count, 3);
    CHECK(rows.count == 3 && rows.rows[2].path == NULL);
    CHECK_INT(rows.rows[2].files, 1);
    CHECK_INT(rows.rows[2].bytes_written, 10);
    CHECK_INT(rows.rows[2].bytes_read, 7);
    CHECK_INT(rows.rows[2].opens, 6);
    file_rows_free(&rows);

    /* equal bytes: by path, whatever the report's order */
    CHECK_INT(parse("{\"files\":[{\"path\":\"/z\",\"POSIX_BYTES_READ\":1},"
                    "{\"path\":\"/a\",\"POSIX_BYTES_READ\":1}]}", 1, &rows), 0);
    CHECK(rows.count == 2 && !strcmp(rows.rows[0].path, "/a") && rows.rows[1].path == NULL);
    file_rows_free(&rows);

    /* no files: no rows */
    CHECK_INT(parse("{\"files\":[]}", 100, &rows), 0);
    CHECK_INT(rows.count, 0);
    file_rows_free(&rows);

    /* bad reports name their bad part */
    CHECK_INT(parse("{\"files\":[{\"path\":\"/a\",\"POSIX_BYTES_READ\":-1}]}", 100, &rows), -1);
    CHECK(strstr(why, "files[0]: POSIX_BYTES_READ: want a count") != NULL);
    CHECK_INT(parse("{\"files\":[{\"path\":\"/a\"},{\"POSIX_READS\":1}]}", 100, &rows), -1);
    CHECK(strstr(why, "files[1]: want a \"path\" string") != NULL);
    CHECK_INT(parse("{\"processes\":[]}", 100, &rows), -1);
    CHECK(strstr(why, "no \"files\" array") != NULL);
    CHECK_INT(parse("{\"files\":[", 100, &rows), -1);
    CHECK(strstr(why, "line 1") != NULL);
}

static void test_report_path(void)
{
    json_t *with = json_loads("{\"io\":{\"report\":\"out/job.files.json\"}}", 0, NULL);
    json_t *absolute = json_loads("{\"io\":{\"report\":\"/r/job.files.json\"}}", 0, NULL);
    json_t *without = json_loads("{\"level\":1}", 0, NULL);
    char *p = file_rows_report_path("/runs/x.summary", with);
    CHECK(p && !strcmp(p, "/runs/x.files.json"));
    free(p);
    p = file_rows_report_path("(stdin)", absolute);
    CHECK(p && !strcmp(p, "/r/job.files.json"));
    free(p);
    p = file_rows_report_path("(stdin)", with); /* relative to nothing known */
    CHECK(p && !*p);
    free(p);
    CHECK(file_rows_report_path("/runs/x.summary", without) == NULL);
    json_decref(with);
    json_decref(absolute);
    json_decref(without);
}

/* A level-3 summary archived at version 5 gets its rows from its io when
 * the archive is migrated to version 6. */
static void test_migration(void)
{
    char dir[] = "/tmp/tally-file-rows-test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/v5.db", dir);
    struct store *s = store_open_at_version(path, 5, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return;
    const char *doc = "{\"name\":\"align\",\"level\":3,\"tally_version\":\"0.1\","
                      "\"io\":{\"report\":\"x.files.json\",\"files\":5,"
                      "\"posix\":{\"bytes_read\":5000,\"bytes_written\":700},"
                      "\"stdio\":{\"bytes_read\":30,\"bytes_written\":0},"
                      "\"top_files\":[{\"path\":\"/d/a.bam\",\"bytes_read\":4000,\"bytes_written\":0},"
                      "{\"path\":\"/d/o.txt\",\"bytes_read\":0,\"bytes_written\":600}]}}";
    const char *plain = "{\"name\":\"other\",\"level\":1,\"tally_version\":\"0.1\"}";
    const char *docs[2] = {doc, plain}, *names[2] = {"align", "other"};
    /* the rows as version 5 stored them (today's ingest writes columns
     * added later): the document packed in version 2 */
    for (int i = 0; i < 2; i++) {
        struct document_columns cols;
        memset(&cols, 0, sizeof cols);
        cols.strings[DOC_NAME] = names[i];
        cols.has_integer[DOC_LEVEL] = true;
        cols.integers[DOC_LEVEL] = i == 0 ? 3 : 1;
        json_t *root = json_loads(docs[i], 0, NULL);
        size_t len = 0;
        unsigned char *packed = document_pack(root, &cols, &len), hash[SHA256_LEN];
        json_decref(root);
        CHECK(packed != NULL);
        sha256(docs[i], strlen(docs[i]), hash);
        struct sql_value row[5] = {sql_blob(hash, SHA256_LEN), sql_int(SUMMARY_NO_START_DAY),
                                   sql_text(names[i]), sql_int(cols.integers[DOC_LEVEL]),
                                   sql_blob(packed, len)};
        CHECK_INT(store_exec(s, "INSERT INTO summaries (hash, start_day, name, level, document)"
                                " VALUES (?, ?, ?, ?, ?)", row, 5, why, sizeof why), 1);
        free(packed);
    }
    store_close(s);
    s = store_open(path, why, sizeof why);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_INT(schema_version_of(s, why, sizeof why), schema_current_version());
    CHECK_INT(scalar(s, "SELECT count(*) FROM run_files"), 3);
    CHECK_INT(scalar(s, "SELECT bytes_read FROM run_files WHERE summary_id = 1 AND path = '/d/a.bam'"),
              4000);
    CHECK_INT(scalar(s, "SELECT opens FROM run_files WHERE path = '/d/a.bam'"), -7); /* NULL */
    CHECK_INT(scalar(s, "SELECT bytes_written FROM run_files WHERE path = '/d/o.txt'"), 600);
    /* the rest of the totals, in the row of the files not named */
    CHECK_INT(scalar(s, "SELECT files FROM run_files WHERE path IS NULL"), 3);
    CHECK_INT(scalar(s, "SELECT bytes_read FROM run_files WHERE path IS NULL"), 1030);
    CHECK_INT(scalar(s, "SELECT bytes_written FROM run_files WHERE path IS NULL"), 100);
    CHECK_INT(scalar(s, "SELECT count(*) FROM run_files WHERE summary_id = 2"), 0);
    store_close(s);
    unlink(path);
    rmdir(dir);
}

static void test_globs(void)
{
    struct file_filter f;
    memset(&f, 0, sizeof f);
    CHECK(file_filter_matches(&f, "/anything")); /* no glob: every file */
    CHECK_INT(file_filter_add_glob(&f, "*.bam", why, sizeof why), 0);
    CHECK(file_filter_matches(&f, "/data/run1/x.bam"));
    CHECK(!file_filter_matches(&f, "/data/x.bam.bai"));
    CHECK_INT(file_filter_add_glob(&f, "/scratch/*/in_?.[ct]sv", why, sizeof why), 0);
    CHECK(file_filter_matches(&f, "/scratch/a/b/in_1.csv")); /* '*' crosses '/' in a path glob */
    CHECK(!file_filter_matches(&f, "/scratch/a/in_12.csv"));
    CHECK_INT(file_filter_add_glob(&f, "", why, sizeof why), -1);
    CHECK(strstr(why, "empty") != NULL);
    for (int i = 2; i < FILE_FILTER_MAX_GLOBS; i++)
        file_filter_add_glob(&f, "x", why, sizeof why);
    CHECK_INT(file_filter_add_glob(&f, "y", why, sizeof why), -1);
    CHECK(strstr(why, "more than 16 globs") != NULL);

    char like[64];
    CHECK_INT(file_filter_glob_like("*.bam", like, sizeof like), 6); /* a base name: "%" first */
    CHECK(!strcmp(like, "%%.bam"));
    file_filter_glob_like("/s/a_b%[[:digit:]]?\\*", like, sizeof like);
    CHECK(!strcmp(like, "/s/a\\_b\\%__*"));
    file_filter_glob_like("[ab", like, sizeof like); /* no ']': the '[' is itself */
    CHECK(!strcmp(like, "%[ab"));
    CHECK_INT(file_filter_glob_like("*.bam", like, 4), -1);

    long long bytes;
    CHECK_INT(file_filter_parse_size("1GB", &bytes, why, sizeof why), 0);
    CHECK_INT(bytes, 1073741824LL);
    CHECK_INT(file_filter_parse_size("2.5", &bytes, why, sizeof why), 0); /* MB */
    CHECK_INT(bytes, 2621440);
    CHECK_INT(file_filter_parse_size("12 parsecs", &bytes, why, sizeof why), -1);
    CHECK(why[0] != '\0');
}

int main(void)
{
    test_parse();
    test_report_path();
    test_migration();
    test_globs();
    return test_done();
}
