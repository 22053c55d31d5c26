/* Unit tests for limit strings and files (src/core/limits.c). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/limits.h"
#include "test.h"

static char why[256];

static int parse(struct limit_set *l, const char *text)
{
    limits_clear(l);
    why[0] = '\0';
    return limits_parse(l, text, why, sizeof why);
}

int main(void)
{
    struct limit_set l;
    CHECK_INT(parse(&l, "memory: 2 GB, wall_time: 10 min, disk: 1 GB"), 0);
    CHECK(l.set[FIELD_MEMORY] && l.set[FIELD_WALL_TIME] && l.set[FIELD_DISK]);
    CHECK_NEAR(l.max[FIELD_MEMORY], 2048, 1e-9);
    CHECK_NEAR(l.max[FIELD_WALL_TIME], 600, 1e-9);
    CHECK_NEAR(l.max[FIELD_DISK], 1024, 1e-9);
    CHECK(!l.set[FIELD_CPU_TIME]);
    CHECK(limits_any(&l));

    CHECK_INT(parse(&l, "  cpu_time=1h30min ; max_concurrent_processes: 8 procs\nbytes_written: 512MiB"), 0);
    CHECK_NEAR(l.max[FIELD_CPU_TIME], 5400, 1e-9);
    CHECK_NEAR(l.max[FIELD_MAX_CONCURRENT_PROCESSES], 8, 1e-9);
    CHECK_NEAR(l.max[FIELD_BYTES_WRITTEN], 512, 1e-9);

    CHECK_INT(parse(&l, "memory: 300  # a comment, with a comma\n wall_time: 2"), 0);
    CHECK_NEAR(l.max[FIELD_MEMORY], 300, 1e-9); /* bare number: the summary unit, MB */
    CHECK_NEAR(l.max[FIELD_WALL_TIME], 2, 1e-9);

    /* Errors name the bad part; the set is left unchanged. */
    CHECK_INT(parse(&l, "memry: 2 GB"), -1);
    CHECK_STR(why, "unknown field 'memry'");
    CHECK_INT(parse(&l, "memory: 2 GX"), -1);
    CHECK_CONTAINS(why, "memory");
    CHECK_CONTAINS(why, "GX");
    CHECK_INT(parse(&l, "memory 2 GB"), -1);
    CHECK_CONTAINS(why, "'memory 2 GB'");
    CHECK_INT(parse(&l, "start: 5"), -1);
    CHECK_CONTAINS(why, "not a limitable field 'start'");
    CHECK_INT(parse(&l, "wall_time: 5 kg"), -1);
    CHECK_CONTAINS(why, "kg");
    CHECK_INT(parse(&l, ""), -1);
    CHECK_INT(parse(&l, "memory:"), -1);
    CHECK_CONTAINS(why, "memory");
    limits_clear(&l);
    CHECK_INT(limits_parse(&l, "memory: 1 GB", why, sizeof why), 0);
    CHECK_INT(limits_parse(&l, "disk: 1 GB, wall_time: x", why, sizeof why), -1);
    CHECK(l.set[FIELD_MEMORY] && !l.set[FIELD_DISK]); /* all or nothing */
    /* found by tests/fuzz/limits_fuzz.c: an infinite limit was taken as a limit */
    CHECK_INT(parse(&l, "cpu_time: 1e308m"), -1);
    CHECK_CONTAINS(why, "cpu_time: '1e308m' is too large");
    CHECK(!limits_any(&l));

    /* Files: one item per line, comments, errors with the line number. */
    char path[] = "/tmp/tally-limits-XXXXXX";
    int fd = mkstemp(path);
    const char good[] = "# limits\nmemory: 1 GB\n\nwall_time: 30 s # short\n";
    CHECK(write(fd, good, sizeof good - 1) == (ssize_t)(sizeof good - 1));
    close(fd);
    limits_clear(&l);
    CHECK_INT(limits_parse_file(&l, path, why, sizeof why), 0);
    CHECK_NEAR(l.max[FIELD_MEMORY], 1024, 1e-9);
    CHECK_NEAR(l.max[FIELD_WALL_TIME], 30, 1e-9);
    /* a line longer than any buffer stays one line (found by tests/fuzz/limits_fuzz.c:
     * the end of a long comment was read as a line of its own) */
    char long_text[3000];
    int n = snprintf(long_text, sizeof long_text, "memory: 2 GB # ");
    memset(long_text + n, 'x', 2500);
    snprintf(long_text + n + 2500, sizeof long_text - (size_t)n - 2500, "\nwall_time: 5 s\n");
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(write(fd, long_text, strlen(long_text)) == (ssize_t)strlen(long_text));
    close(fd);
    limits_clear(&l);
    CHECK_INT(limits_parse_file(&l, path, why, sizeof why), 0);
    CHECK_NEAR(l.max[FIELD_MEMORY], 2048, 1e-9);
    CHECK_NEAR(l.max[FIELD_WALL_TIME], 5, 1e-9);
    fd = open(path, O_WRONLY | O_TRUNC);
    const char bad[] = "memory: 1 GB\nwall_time: soon\n";
    CHECK(write(fd, bad, sizeof bad - 1) == (ssize_t)(sizeof bad - 1));
    close(fd);
    CHECK_INT(limits_parse_file(&l, path, why, sizeof why), -1);
    CHECK_CONTAINS(why, "line 2");
    CHECK_CONTAINS(why, "soon");
    unlink(path);
    CHECK_INT(limits_parse_file(&l, "/nonexistent/limits", why, sizeof why), -1);

    /* Checking values against limits. */
    double value[FIELD_COUNT] = {0};
    bool exceeded[FIELD_COUNT] = {false};
    parse(&l, "memory: 200 MB, wall_time: 10 s");
    value[FIELD_MEMORY] = 200;
    value[FIELD_WALL_TIME] = 3;
    CHECK_INT(limits_check(&l, value, exceeded), 0); /* at the limit is not over it */
    value[FIELD_MEMORY] = 200.5;
    CHECK_INT(limits_check(&l, value, exceeded), 1);
    CHECK(exceeded[FIELD_MEMORY] && !exceeded[FIELD_WALL_TIME]);
    value[FIELD_MEMORY] = 0;
    CHECK_INT(limits_check(&l, value, exceeded), 1); /* stays broken once broken */
    return test_done();
}
