/* FLOP per job is known to one job in the period's (monitor.h,
 * JOB_RESOLUTION_TOLERANCE): a worker that finished 17 jobs in a period and
 * reads one job's FLOP too many (6 % above the contract, as measured on a
 * busy host) raises no intrinsic level; without a job rate in the sample, or
 * over 1000 jobs, the same 6 % is still a violation, and so is a job that
 * really does twice the work. */
#include "contract/monitor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sample_text.h"
#include "test.h"

static void collect(void *ctx, const struct contract_level *l)
{
    double *level = ctx;
    if (l->space == SPACE_INTRINSIC && !l->overall && !strcmp(l->process, "w1") &&
        !strcmp(l->dimension, "compute"))
        *level = l->level;
}

/* One period in which w1 reads flops_per_job over `jobs` jobs (0: no job rate). */
static double level_of(const struct contract *c, double flops_per_job, double jobs)
{
    char text[2048] = "";
    for (int w = 0; w < 3; w++) {
        char line[256], rate[64] = "";
        double fpj = w == 1 ? flops_per_job : 5e5, n = jobs > 0 ? jobs : 16;
        if (jobs > 0 || w != 1)
            snprintf(rate, sizeof rate, ",\"iterations_per_s\":%g", n);
        snprintf(line, sizeof line,
                 "{\"process\":\"w%d\",\"host\":\"h\",\"t\":100,\"period\":1,"
                 "\"metrics\":{\"flops_per_job\":%.17g,\"flops_per_s\":%.17g%s}}\n",
                 w, fpj, fpj * n, rate);
        strcat(text, line);
    }
    double level = NAN;
    sample_text_feed(c, text, 0, collect, &level);
    return level;
}

int main(void)
{
    /* baseline: three workers, 5e5 FLOP per job exactly, 16 jobs per second */
    char text[8192] = "";
    for (int t = 1; t <= 6; t++)
        for (int w = 0; w < 3; w++) {
            char line[256];
            snprintf(line, sizeof line,
                     "{\"process\":\"w%d\",\"host\":\"h\",\"t\":%d,\"period\":1,"
                     "\"metrics\":{\"flops_per_job\":5e5,\"flops_per_s\":8e6,\"iterations_per_s\":16}}\n",
                     w, t);
            strcat(text, line);
        }
    struct sample_set base = sample_text(text);
    struct build_options o;
    build_options_defaults(&o);
    o.name = "unit";
    struct contract c;
    char why[256];
    CHECK_INT(contract_build(&base, &o, &c, why, sizeof why), 0);

    CHECK_NEAR(level_of(&c, 5e5, 16), 0, 1e-9);          /* on the contract */
    CHECK_NEAR(level_of(&c, 9e6 / 17, 17), 0, 1e-9);     /* 18 jobs' FLOP over 17 jobs: 6 % */
    CHECK(level_of(&c, 9e6 / 17, 0) >= 0.5);             /* no job rate: judged as before */
    CHECK(level_of(&c, 5e5 * 1.06, 1000) >= 0.5);        /* 6 % over 1000 jobs: a real change */
    CHECK(level_of(&c, 1e6, 16) >= 0.99);                /* twice the work per job */

    contract_free(&c);
    sample_set_free(&base);
    return test_done();
}
