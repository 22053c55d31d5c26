/* Unit tests for the engine used as a library (src/monitor/task.c): two
 * tasks run one after the other in one process (as 'tally run --retry' and
 * a per-host agent do) each get their own CPU time and bytes, not the sum. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/task.h"
#include "test.h"
#include "core/units.h"

static int run(char **argv, struct task_result *r, const char *dir)
{
    struct task_options o;
    task_options_init(&o);
    o.argv = argv;
    const char *dirs[] = {dir};
    o.measure_dirs = dirs;
    o.measure_dir_count = 1;
    return task_run(&o, r);
}

int main(void)
{
    char dir[] = "/tmp/tally-task-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *busy[] = {"/bin/sh", "-c",
                    "dd if=/dev/zero of=/dev/null bs=1000 count=2000 status=none; "
                    "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done",
                    NULL};
    char *small[] = {"dd", "if=/dev/zero", "of=/dev/null", "bs=1000", "count=1000", "status=none",
                     NULL};
    struct task_result first, second;
    CHECK_INT(run(busy, &first, dir), 0);
    CHECK_INT(first.status, 0);
    CHECK(first.value[FIELD_CPU_TIME] > 0.1);
    CHECK_NEAR(first.value[FIELD_BYTES_WRITTEN] * BYTES_PER_MB, 2000000, 0.5);
    CHECK_INT(run(small, &second, dir), 0);
    CHECK_INT(second.status, 0);
    CHECK_NEAR(second.value[FIELD_BYTES_WRITTEN] * BYTES_PER_MB, 1000000, 0.5);
    CHECK(second.value[FIELD_CPU_TIME] < first.value[FIELD_CPU_TIME] / 2);
    CHECK_INT(second.value[FIELD_TOTAL_PROCESSES], 1);
    CHECK_INT(second.level, 2);
    task_result_free(&first);
    task_result_free(&second);
    rmdir(dir);
    return test_done();
}
