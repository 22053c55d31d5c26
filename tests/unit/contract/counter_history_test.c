/* Live counter snapshots (counter_history in src/contract/samples.c), as
 * 'tally contract watch' feeds them: a process's first snapshot is its
 * reference, each next one yields the period's sample by samples_derive;
 * processes are kept apart by name and host; time must increase. */
#include <math.h>
#include <stdlib.h>

#include "contract/samples.h"
#include "test.h"

static void snapshot(double *c, double flops, double jobs, double cpu)
{
    for (int k = 0; k < SAMPLE_N_COUNTERS; k++)
        c[k] = NAN;
    c[COUNTER_FLOPS] = flops;
    c[COUNTER_JOBS] = jobs;
    c[COUNTER_CPU_SECONDS] = cpu;
}

int main(void)
{
    struct counter_history *h = counter_history_new();
    struct sample_set set = {0};
    double c[SAMPLE_N_COUNTERS];
    char why[256];
    CHECK(h != NULL);
    snapshot(c, 0, 0, 0.0);
    CHECK_INT(counter_history_add(h, "7", "n1", 100.0, c, &set, why, sizeof why), 0);
    CHECK_INT(set.n, 0); /* the reference */
    snapshot(c, 1000, 10, 0.0);
    CHECK_INT(counter_history_add(h, "8", "n1", 100.5, c, &set, why, sizeof why), 0);
    CHECK_INT(set.n, 0); /* another process's reference */
    snapshot(c, 2.5e6, 10, 0.05);
    CHECK_INT(counter_history_add(h, "7", "n1", 102.0, c, &set, why, sizeof why), 0);
    CHECK_INT(set.n, 1);
    CHECK_STR(set.v[0].process, "7");
    CHECK_STR(set.v[0].host, "n1");
    CHECK_NEAR(set.v[0].time, 102.0, 1e-9);
    CHECK_NEAR(set.v[0].period, 2.0, 1e-9);
    CHECK_NEAR(set.v[0].value[METRIC_FLOPS_PER_JOB], 2.5e5, 1e-6);
    CHECK_NEAR(set.v[0].value[METRIC_FLOPS_PER_S], 1.25e6, 1e-6);
    CHECK_NEAR(set.v[0].value[METRIC_CPU_SHARE], 0.025, 1e-12);
    CHECK(isnan(set.v[0].value[METRIC_MESSAGES_PER_BYTE])); /* not measured */
    /* the same name on another host is another process */
    snapshot(c, 0, 0, 0);
    CHECK_INT(counter_history_add(h, "7", "n2", 102.0, c, &set, why, sizeof why), 0);
    CHECK_INT(set.n, 1);
    /* no jobs done in the period: FLOPs per job unknown, rates zero */
    snapshot(c, 2.5e6, 10, 0.05);
    CHECK_INT(counter_history_add(h, "7", "n1", 103.0, c, &set, why, sizeof why), 0);
    CHECK_INT(set.n, 2);
    CHECK(isnan(set.v[1].value[METRIC_FLOPS_PER_JOB]));
    CHECK_NEAR(set.v[1].value[METRIC_FLOPS_PER_S], 0, 1e-12);
    /* time that does not increase is refused, naming the process */
    CHECK_INT(counter_history_add(h, "7", "n1", 103.0, c, &set, why, sizeof why), -1);
    CHECK_CONTAINS(why, "process 7 (host n1)");
    CHECK_INT(set.n, 2);
    counter_history_free(h);
    sample_set_free(&set);
    return test_done();
}
