/* Unit tests for the summary JSON (src/report/summary.c): resource_monitor's
 * [value, "unit"] pairs, exit fields, limits_exceeded, tally's own fields,
 * and the file written atomically (a write refused part way leaves the
 * summary already there whole). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "report/summary.h"
#include "test.h"
#include "version.h"

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static double pair_value(json_t *o, const char *key)
{
    return json_number_value(json_array_get(json_object_get(o, key), 0));
}

static const char *pair_unit(json_t *o, const char *key)
{
    return json_string_value(json_array_get(json_object_get(o, key), 1));
}

int main(void)
{
    struct task_result r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < FIELD_COUNT; i++)
        r.peak_time[i] = -1;
    strcpy(r.host, "node7");
    r.level = 2;
    r.exit_type = TASK_EXIT_LIMITS;
    r.exit_status = 143;
    r.signal = 15;
    r.status = 124;
    r.value[FIELD_MEMORY] = 1100.25;
    r.peak_time[FIELD_MEMORY] = 1.5;
    r.value[FIELD_WALL_TIME] = 2.0000004;
    r.value[FIELD_TOTAL_PROCESSES] = 1001;
    r.value[FIELD_BYTES_WRITTEN] = 10000000 / 1048576.0;
    r.limit_exceeded[FIELD_MEMORY] = true;
    struct limit_set limits;
    limits_clear(&limits);
    limits.set[FIELD_MEMORY] = true;
    limits.max[FIELD_MEMORY] = 200;
    struct summary_info info = {"sh -c 'make'", "build", "compile", &limits, NULL};

    json_t *o = summary_to_json(&info, &r);
    CHECK_STR(str(o, "command"), "sh -c 'make'");
    CHECK_STR(str(o, "name"), "build");
    CHECK_STR(str(o, "category"), "compile");
    CHECK_STR(str(o, "host"), "node7");
    CHECK_STR(str(o, "exit_type"), "limits");
    CHECK_INT(json_integer_value(json_object_get(o, "exit_status")), 143);
    CHECK_INT(json_integer_value(json_object_get(o, "signal")), 15);
    CHECK_NEAR(pair_value(o, "memory"), 1100.25, 1e-9);
    CHECK_STR(pair_unit(o, "memory"), "MB");
    CHECK_NEAR(pair_value(o, "wall_time"), 2.0, 1e-9); /* microseconds kept, not below */
    CHECK_STR(pair_unit(o, "wall_time"), "s");
    CHECK(json_is_integer(json_array_get(json_object_get(o, "total_processes"), 0)));
    CHECK_INT(json_integer_value(json_array_get(json_object_get(o, "total_processes"), 0)), 1001);
    CHECK_STR(pair_unit(o, "total_processes"), "procs");
    CHECK_NEAR(pair_value(o, "bytes_written") * 1048576, 10000000, 1.0); /* to the byte */
    json_t *exceeded = json_object_get(o, "limits_exceeded");
    CHECK_INT(json_object_size(exceeded), 1);
    CHECK_NEAR(pair_value(exceeded, "memory"), 200, 1e-9); /* the limit, as resource_monitor */
    json_t *peaks = json_object_get(o, "peak_times");
    CHECK_NEAR(pair_value(peaks, "memory"), 1.5, 1e-9);
    CHECK(json_object_get(peaks, "disk") == NULL);
    CHECK_INT(json_integer_value(json_object_get(o, "level")), 2);
    CHECK_STR(str(o, "tally_version"), TALLY_VERSION);
    size_t n;
    const struct summary_field *fields = summary_fields(&n);
    int all = 1;
    for (size_t i = 0; i < n; i++)
        all &= json_is_array(json_object_get(o, fields[i].name));
    CHECK(all); /* every numeric field is present as a pair */
    json_decref(o);

    /* A normal exit has no signal and no limits_exceeded. */
    r.exit_type = TASK_EXIT_NORMAL;
    r.signal = 0;
    r.exit_status = 0;
    memset(r.limit_exceeded, 0, sizeof r.limit_exceeded);
    info.name = info.category = NULL;
    o = summary_to_json(&info, &r);
    CHECK(json_object_get(o, "signal") == NULL);
    CHECK(json_object_get(o, "limits_exceeded") == NULL);
    CHECK(json_object_get(o, "name") == NULL);
    CHECK_STR(str(o, "exit_type"), "normal");
    json_decref(o);

    /* The written file parses back; no temporary file is left. */
    char dir[] = "/tmp/tally-summary-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/t.summary", dir);
    CHECK_INT(summary_write(path, &info, &r), 0);
    json_error_t err;
    json_t *back = json_load_file(path, 0, &err);
    CHECK(back != NULL);
    CHECK_NEAR(pair_value(back, "memory"), 1100.25, 1e-9);
    json_decref(back);

    /* A summary the file system refuses part way (the file-size limit: a
     * real EFBIG, as a full disk gives ENOSPC) fails, and the summary
     * already there stays whole: written through json_text's own buffer
     * (64 KiB pieces) and an atomic file, nothing half-written replaces it. */
    char before[8192];
    FILE *f = fopen(path, "r");
    size_t had = f ? fread(before, 1, sizeof before, f) : 0;
    if (f)
        fclose(f);
    CHECK(had > 100 && had < sizeof before);
    json_t *big = json_array();
    for (int i = 0; i < 20000; i++)
        json_array_append_new(big, json_string("a file name /with \"quotes\" and\nnew lines"));
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, small = {16384, 16384};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    CHECK_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
    CHECK_INT(summary_write_object(path, big, true), -1);
    CHECK_INT(errno, EFBIG);
    setrlimit(RLIMIT_FSIZE, &old);
    json_decref(big);
    char after[8192];
    f = fopen(path, "r");
    size_t has = f ? fread(after, 1, sizeof after, f) : 0;
    if (f)
        fclose(f);
    CHECK(has == had && memcmp(before, after, had) == 0);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "test $(ls %s | wc -l) = 1", dir);
    CHECK(system(cmd) == 0);
    unlink(path);
    rmdir(dir);
    /* An unwritable place fails with -1 (and one message), not a crash. */
    CHECK_INT(summary_write("/nonexistent/dir/t.summary", &info, &r), -1);
    return test_done();
}
