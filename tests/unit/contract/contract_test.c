/* Contracts end to end in memory: samples (JSON lines, counters form and
 * metrics form), build, the text file written and read back, the monitor's
 * levels and explanations, and malformed contract files (line numbers). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contract/contract.h"
#include "contract/monitor.h"
#include "contract/samples.h"
#include "test.h"

/* A baseline: a master and 4 workers on host h, 6 periods, counters form. */
static void write_baseline(FILE *f, double flops_per_job_w2)
{
    const char *names[] = {"master", "w0", "w1", "w2", "w3"};
    for (int p = 0; p < 5; p++) {
        double flops = 0, jobs = 0, msgs = 0, bytes = 0, cpu = 0;
        for (int t = 0; t <= 6; t++) {
            fprintf(f, "{\"process\":\"%s\",\"host\":\"h\",\"t\":%d,\"counters\":{\"flops\":%.0f,\"jobs\":%.0f,"
                       "\"messages\":%.0f,\"bytes\":%.0f,\"cpu_seconds\":%g}}\n",
                    names[p], 1000 + t, flops, jobs, msgs, bytes, cpu);
            double j = p == 0 ? 200 : 50 + (t % 2); /* a little variation */
            double fpj = p == 0 ? 1 : (p == 3 ? flops_per_job_w2 : 1e6);
            flops += j * fpj;
            jobs += j;
            msgs += 2 * j;
            bytes += 64 * j;
            cpu += p == 0 ? 0.02 : 0.9 + 0.01 * (t % 3);
        }
    }
}

struct collected {
    int n, violated_w2_compute, violated_other, explained;
    char explanation[384];
};

static void collect(void *ctx, const struct contract_level *l)
{
    struct collected *c = ctx;
    c->n++;
    if (l->space == SPACE_INTRINSIC && !strcmp(l->dimension, "compute") && l->level >= 0.5) {
        if (!strcmp(l->process, "w2"))
            c->violated_w2_compute++;
        else
            c->violated_other++;
    }
    if (l->space == SPACE_INTRINSIC && !strcmp(l->dimension, "communicate") && l->level >= 0.5)
        c->violated_other++;
    if (l->overall && l->space == SPACE_INTRINSIC && !strcmp(l->process, "w2") && l->level >= 0.5 && !c->explained) {
        snprintf(c->explanation, sizeof c->explanation, "%s", l->explanation);
        c->explained = 1;
    }
}

static void check_bad(const char *text, const char *want)
{
    struct contract c;
    char why[256] = "";
    CHECK(contract_parse(text, strlen(text), "bad.contract", &c, why, sizeof why) < 0);
    CHECK_CONTAINS(why, want);
}

int main(void)
{
    char why[256];
    /* samples: counters are derived per period */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    write_baseline(f, 1e6);
    fclose(f);
    f = fmemopen(buf, len, "r");
    struct sample_set base = {0};
    CHECK_INT(samples_read_jsonl(f, "base", &base, why, sizeof why), 0);
    fclose(f);
    free(buf);
    CHECK_INT(base.n, 30); /* 5 processes x 6 periods: the first line of each is the reference */
    sample_set_sort(&base);
    CHECK_NEAR(base.v[0].time, 1001, 0);
    CHECK_NEAR(base.v[0].period, 1, 0);
    const struct contract_sample *w0 = NULL;
    for (size_t i = 0; i < base.n; i++)
        if (!strcmp(base.v[i].process, "w0") && base.v[i].time == 1001)
            w0 = &base.v[i];
    CHECK(w0 != NULL);
    if (w0) {
        CHECK_NEAR(w0->value[METRIC_FLOPS_PER_JOB], 1e6, 1e-6);
        CHECK_NEAR(w0->value[METRIC_MESSAGES_PER_BYTE], 1.0 / 32, 1e-12);
        CHECK_NEAR(w0->value[METRIC_FLOPS_PER_S], 50e6, 1e-3);
        CHECK_NEAR(w0->value[METRIC_CPU_SHARE], 0.9, 1e-9);
        CHECK(isnan(w0->value[METRIC_IO_BYTES_PER_OP]));
    }

    /* build */
    struct build_options o;
    build_options_defaults(&o);
    o.name = "unit";
    struct contract c;
    CHECK_INT(contract_build(&base, &o, &c, why, sizeof why), 0);
    CHECK_INT(c.space[SPACE_INTRINSIC].n_dims, 2);
    CHECK_STR(c.space[SPACE_INTRINSIC].dims[0].name, "compute");
    CHECK_INT(c.space[SPACE_INTRINSIC].n_clusters, 2); /* master, workers */
    CHECK_INT(c.space[SPACE_EXECUTION].n_dims, 4);
    CHECK_INT(c.n_processes, 5);
    int known;
    CHECK(contract_factor_for(&c, NULL, 0, "h", CAP_FLOPS, &known) > 0 && known);
    contract_factor_for(&c, NULL, 0, "elsewhere", CAP_FLOPS, &known);
    CHECK_INT(known, 0);

    /* write, read back, same contract */
    char path[] = "/tmp/tally-contract-unit.XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK_INT(contract_write(&c, path, why, sizeof why), 0);
    struct contract r;
    int rc = contract_read(path, &r, why, sizeof why);
    CHECK_INT(rc, 0);
    if (rc) {
        printf("# %s\n", why);
        return test_done();
    }
    CHECK_STR(r.name, "unit");
    CHECK_INT(r.space[SPACE_EXECUTION].n_clusters, c.space[SPACE_EXECUTION].n_clusters);
    CHECK_NEAR(r.space[SPACE_INTRINSIC].clusters[1].tolerance[0], c.space[SPACE_INTRINSIC].clusters[1].tolerance[0],
               1e-6 * c.space[SPACE_INTRINSIC].clusters[1].tolerance[0]);
    CHECK_INT(r.n_processes, 5);
    CHECK_INT(r.processes[1].visit_points[SPACE_INTRINSIC][0], 6);
    CHECK(r.n_rulebases == 1 && r.rulebases[0].parsed != NULL);
    unlink(path);

    /* a run where w2 does half the FLOPs per job */
    f = open_memstream(&buf, &len);
    write_baseline(f, 5e5);
    fclose(f);
    f = fmemopen(buf, len, "r");
    struct sample_set run = {0};
    CHECK_INT(samples_read_jsonl(f, "run", &run, why, sizeof why), 0);
    fclose(f);
    free(buf);
    sample_set_sort(&run);
    struct contract_monitor *m = contract_monitor_new(&r, 0.5, NULL, 0);
    struct collected col = {0};
    long v = contract_monitor_feed(m, run.v, run.n, collect, &col);
    CHECK(v > 0);
    CHECK_INT(col.violated_w2_compute, 6);
    CHECK_INT(col.violated_other, 0);
    CHECK_CONTAINS(col.explanation, "process w2 (host h) intrinsic: compute 1.00 (FLOP per job 50% below the contract's 1 M since ");
    CHECK_CONTAINS(col.explanation, "; communicate 0.00");
    /* per sample: 2 intrinsic dims + overall, 4 execution dims + overall */
    CHECK_INT(col.n, 30 * 8);
    contract_monitor_free(m);

    /* the baseline itself is within the contract */
    m = contract_monitor_new(&r, 0.5, NULL, 0);
    memset(&col, 0, sizeof col);
    CHECK_INT(contract_monitor_feed(m, base.v, base.n, collect, &col), 0);
    contract_monitor_free(m);

    /* the metrics form */
    const char *metrics_line = "{\"process\":7,\"host\":\"n3\",\"t\":5,\"period\":2,\"metrics\":{\"flops_per_s\":1.5e9,\"other\":1}}\n";
    f = fmemopen((void *)metrics_line, strlen(metrics_line), "r");
    struct sample_set one = {0};
    CHECK_INT(samples_read_jsonl(f, "m", &one, why, sizeof why), 0);
    fclose(f);
    CHECK_INT(one.n, 1);
    CHECK_STR(one.v[0].process, "7");
    CHECK_NEAR(one.v[0].value[METRIC_FLOPS_PER_S], 1.5e9, 0);
    sample_set_free(&one);
    const char *bad_line = "{\"process\":\"a\",\"t\":5,\"metrics\":{}}\n{\"process\":\"a\"}\n";
    f = fmemopen((void *)bad_line, strlen(bad_line), "r");
    CHECK(samples_read_jsonl(f, "bad.jsonl", &one, why, sizeof why) < 0);
    fclose(f);
    CHECK_CONTAINS(why, "bad.jsonl:1: \"period\"");
    sample_set_free(&one);

    /* malformed contract files */
    check_bad("name x\n", "bad.contract:1: not a tally contract");
    check_bad("contract 2\n", "bad.contract:1: unsupported contract version '2'");
    check_bad("contract 1\nspace intrinsic\n  dimension compute flops_per_s scale 1\n",
              "bad.contract:3: metric 'flops_per_s' is not a intrinsic metric");
    check_bad("contract 1\nspace intrinsic\n  dimension compute flops_per_job scale 1\n  cluster 0 points 3\n"
              "    compute centroid 1 tolerance 0\n",
              "bad.contract:5: tolerance '0' must be positive");
    check_bad("contract 1\nspace intrinsic\n  dimension compute flops_per_job scale 1\n  cluster 1 points 3\n",
              "bad.contract:4: cluster ids must count up from 0");
    check_bad("contract 1\nspace intrinsic\n  dimension compute flops_per_job scale 1\n  cluster 0\n"
              "process p host h\n",
              "bad.contract:5: cluster before this line lacks a line");
    check_bad("contract 1\nspace intrinsic\n  dimension compute flops_per_job scale 1\n  cluster 0\n"
              "    compute centroid 1 tolerance 1\nprocess p host h intrinsic 4\n",
              "bad.contract:6: process: '4' is not a cluster");
    check_bad("contract 1\nspace intrinsic\n  dimension compute flops_per_job scale 1\n  cluster 0\n"
              "    compute centroid 1 tolerance 1\nrulebase\nvar distance(0, 2) {\n  set trapez LOW (0, 1, 0);\n}\nend\n",
              "bad.contract:8:26: rulebase: expected ','");
    check_bad("contract 1\nspace intrinsic\n  dimension compute flops_per_job scale 1\n  cluster 0\n"
              "    compute centroid 1 tolerance 1\nrulebase\nvar distance(0, 2) {\n",
              "bad.contract:6: rulebase without its closing 'end' line");
    check_bad("contract 1\nfrobnicate 3\n", "bad.contract:2: unknown statement 'frobnicate'");
    check_bad("contract 1\n", "the contract has no dimension");

    contract_free(&r);
    contract_free(&c);
    sample_set_free(&run);
    sample_set_free(&base);
    return test_done();
}
