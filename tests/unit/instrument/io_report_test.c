/* io_report: merging one path's records across process images by each
 * counter's kind (sums, maxima, first and last timestamps), the per-process
 * split, file names that are not UTF-8 written \xNN, and PREFIX.files.json's
 * text the same whether its files are built as values or written as walked. */
#include "instrument/io_report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"

static struct io_image image(pid_t pid, struct tally_io_record *records, uint32_t count)
{
    struct io_image img;
    memset(&img, 0, sizeof img);
    img.header.pid = pid;
    img.header.records = count;
    img.header.exe[0] = '\0';
    img.records = records;
    img.count = count;
    return img;
}

static void named(struct tally_io_record *r, const char *path)
{
    memset(r, 0, sizeof *r);
    strcpy(r->path, path);
    r->ready = 1;
}

int main(void)
{
    struct tally_io_record a[2], b[1];
    named(&a[0], "/data/x");
    a[0].counter[POSIX_BYTES_WRITTEN] = 100;
    a[0].counter[POSIX_MAX_BYTE_WRITTEN] = 99;
    a[0].counter[POSIX_F_OPEN_START_TIMESTAMP] = 2000000000000000000;
    a[0].counter[POSIX_F_CLOSE_END_TIMESTAMP] = 2000000001000000000;
    a[0].counter[POSIX_F_WRITE_TIME] = 500000000;
    named(&a[1], "/data/bad\xff");
    a[1].counter[POSIX_OPENS] = 1;
    named(&b[0], "/data/x");
    b[0].counter[POSIX_BYTES_WRITTEN] = 50;
    b[0].counter[POSIX_MAX_BYTE_WRITTEN] = 499;
    b[0].counter[POSIX_F_OPEN_START_TIMESTAMP] = 1999999999000000000;
    b[0].counter[POSIX_F_CLOSE_END_TIMESTAMP] = 2000000000500000000;
    b[0].counter[POSIX_F_WRITE_TIME] = 250000000;

    struct io_report *r = io_report_new(1999999998.0);
    struct io_image ia = image(10, a, 2), ib = image(11, b, 1);
    io_report_add(r, &ia);
    io_report_add(r, &ib);
    struct io_image_set set = {.items = (struct io_image[]){ia, ib}, .count = 2};
    struct task_result result;
    memset(&result, 0, sizeof result);
    json_t *o = io_report_files_json(r, &set, &result);
    json_t *files = json_object_get(o, "files");
    CHECK_INT(json_array_size(files), 2);
    json_t *x = json_array_get(files, 0); /* the most bytes first */
    CHECK(!strcmp(json_string_value(json_object_get(x, "path")), "/data/x"));
    CHECK_INT(json_integer_value(json_object_get(x, "POSIX_BYTES_WRITTEN")), 150);
    CHECK_INT(json_integer_value(json_object_get(x, "POSIX_MAX_BYTE_WRITTEN")), 499);
    CHECK_NEAR(json_real_value(json_object_get(x, "POSIX_F_OPEN_START_TIMESTAMP")), 1.0, 1e-6);
    CHECK_NEAR(json_real_value(json_object_get(x, "POSIX_F_CLOSE_END_TIMESTAMP")), 3.0, 1e-6);
    CHECK_NEAR(json_real_value(json_object_get(x, "POSIX_F_WRITE_TIME")), 0.75, 1e-9);
    json_t *split = json_object_get(x, "processes");
    CHECK_INT(json_array_size(split), 2);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(split, 1), "POSIX_BYTES_WRITTEN")), 50);
    CHECK(json_object_get(json_array_get(split, 1), "POSIX_OPENS") == NULL); /* zeros left out */
    json_t *bad = json_array_get(files, 1);
    CHECK(!strcmp(json_string_value(json_object_get(bad, "path")), "/data/bad\\xff"));
    /* PREFIX.files.json's text with its files written as the report is
     * walked (io_report_files_head): byte for byte the text of the files
     * built as values (io_report_files_json), times, a split and a name that
     * is not UTF-8 included */
    {
        char *built = NULL, *streamed = NULL;
        size_t built_len = 0, streamed_len = 0;
        FILE *f = open_memstream(&built, &built_len);
        CHECK(io_report_files_write(f, o, r, &set) == 0);
        fclose(f);
        json_t *head = io_report_files_head(r, &set, &result);
        CHECK(json_object_get(head, "files") == NULL);
        f = open_memstream(&streamed, &streamed_len);
        CHECK(io_report_files_write(f, head, r, &set) == 0);
        fclose(f);
        CHECK(built_len > 400 && strstr(built, "\"POSIX_F_WRITE_TIME\": 0.75") != NULL);
        CHECK(streamed_len == built_len && !memcmp(streamed, built, built_len));
        json_decref(head);
        free(built);
        free(streamed);
    }
    json_decref(o);
    io_report_free(r);

    /* Not interposed: an executable a scan saw that no region of its pid
     * names; but not the monitor's own image, seen before the first
     * process's exec (its regions say what it ran after it). */
    {
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        CHECK(n > 0);
        self[n > 0 ? n : 0] = '\0';
        struct io_image im = image(20, NULL, 0);
        strcpy(im.header.exe, "/usr/bin/prog");
        struct io_image_set one = {.items = &im, .count = 1};
        struct task_executable seen[] = {{20, self, false}, {21, self, false}, {22, "/static/prog", false}};
        struct task_result res;
        memset(&res, 0, sizeof res);
        res.executables = seen;
        res.executable_count = 3;
        struct io_report *empty = io_report_new(0);
        json_t *all = io_report_files_json(empty, &one, &res);
        json_t *missing = json_object_get(all, "not_interposed");
        CHECK_INT(json_array_size(missing), 2); /* 21 (no region at all) and 22, not 20 */
        CHECK_INT(json_integer_value(json_object_get(json_array_get(missing, 0), "pid")), 21);
        CHECK_INT(json_integer_value(json_object_get(json_array_get(missing, 1), "pid")), 22);
        json_decref(all);
        /* The executable a region of its pid names: interposed, unless the
         * tracer saw the pid run it without the helper (exec'd again
         * through a direct system call with an empty environment). */
        struct task_executable again[] = {{20, "/usr/bin/prog", false}};
        res.executables = again;
        res.executable_count = 1;
        all = io_report_files_json(empty, &one, &res);
        CHECK_INT(json_array_size(json_object_get(all, "not_interposed")), 0);
        json_decref(all);
        again[0].without_helper = true;
        all = io_report_files_json(empty, &one, &res);
        missing = json_object_get(all, "not_interposed");
        CHECK_INT(json_array_size(missing), 1);
        CHECK_INT(json_integer_value(json_object_get(json_array_get(missing, 0), "pid")), 20);
        json_decref(all);
        io_report_free(empty);
    }

    json_t *p = io_path_json("a\xc3\xa9" "b\xc3" "c\xed\xa0\x80");
    CHECK(!strcmp(json_string_value(p), "a\xc3\xa9" "b\\xc3" "c\\xed\\xa0\\x80")); /* a surrogate is not UTF-8 */
    json_decref(p);
    return test_done();
}
