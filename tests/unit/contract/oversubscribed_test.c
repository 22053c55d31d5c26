/* The monitor with live factors on an oversubscribed host (monitor.h): a
 * process above its projection is tolerated up to what the host's runnable
 * tasks per core allow, one below it down to 46 % of it (a fixed bound,
 * whatever the load) over two adjoining periods, and without a runnable
 * count nothing changes. */
#include "contract/monitor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample_text.h"
#include "test.h"

struct seen {
    double level_w3, value_w3, window_w3; /* execution compute of w3 in the last period */
    long at_threshold_others;
    int last;                             /* collecting the last period */
};

static void collect(void *ctx, const struct contract_level *l)
{
    struct seen *s = ctx;
    if (!s->last || l->space != SPACE_EXECUTION || l->overall)
        return;
    if (!strcmp(l->process, "w3") && !strcmp(l->dimension, "compute")) {
        s->level_w3 = l->level;
        s->value_w3 = l->value;
        s->window_w3 = l->window;
    } else if (l->level >= 0.5) {
        s->at_threshold_others++;
    }
}

/* The samples of one period ending at t: w0..w2 at 1e7 FLOP/s, w3 at
 * w3_rate; runnable per core rq (<0: absent). */
static struct sample_set one_period(int t, double w3_rate, double rq)
{
    char text[2048] = "", extra[64] = "";
    if (rq >= 0)
        snprintf(extra, sizeof extra, ",\"runnable_per_core\":%g", rq);
    for (int w = 0; w < 4; w++) {
        char line[256];
        snprintf(line, sizeof line,
                 "{\"process\":\"w%d\",\"host\":\"h\",\"t\":%d,\"period\":1%s,"
                 "\"metrics\":{\"flops_per_job\":5e5,\"flops_per_s\":%g}}\n",
                 w, t, extra, w == 3 ? w3_rate : 1e7);
        strcat(text, line);
    }
    return sample_text(text);
}

/* One live monitor fed a period ending at t = 100 - gap with w3 at before
 * (none when before < 0), then the period ending at 100 with w3 at rate;
 * what the last period reported. */
static struct seen periods(const struct contract *c, double before, int gap, double rate, double rq)
{
    struct seen s = {NAN, NAN, NAN, 0, 0};
    struct contract_monitor *m = contract_monitor_new(c, 0.5, NULL, 0);
    contract_monitor_set_live_factors(m, 1);
    if (before >= 0) {
        struct sample_set first = one_period(100 - gap, before, rq);
        CHECK(contract_monitor_feed(m, first.v, first.n, collect, &s) >= 0);
        sample_set_free(&first);
    }
    s.last = 1;
    struct sample_set last = one_period(100, rate, rq);
    CHECK(contract_monitor_feed(m, last.v, last.n, collect, &s) >= 0);
    sample_set_free(&last);
    contract_monitor_free(m);
    return s;
}

/* Two adjoining periods with w3 at the same rate. */
static struct seen period(const struct contract *c, double w3_rate, double rq)
{
    return periods(c, w3_rate, 1, w3_rate, rq);
}

int main(void)
{
    /* baseline: four workers at 1e7 FLOP/s (+-1 %), one runnable task per core */
    char text[8192] = "";
    for (int t = 1; t <= 6; t++)
        for (int w = 0; w < 4; w++) {
            char line[256];
            snprintf(line, sizeof line,
                     "{\"process\":\"w%d\",\"host\":\"h\",\"t\":%d,\"period\":1,\"runnable_per_core\":1,"
                     "\"metrics\":{\"flops_per_job\":5e5,\"flops_per_s\":%g}}\n",
                     w, t, 1e7 * (1 + 0.01 * ((w + t) % 3 - 1)));
            strcat(text, line);
        }
    struct sample_set base = sample_text(text);
    CHECK(base.n == 24 && base.v[0].runnable_per_core == 1);
    struct build_options o;
    build_options_defaults(&o);
    o.name = "unit";
    struct contract c;
    char why[256];
    CHECK_INT(contract_build(&base, &o, &c, why, sizeof why), 0);

    /* w3 at 2.5x its peers */
    struct seen s = period(&c, 2.5e7, -1);
    CHECK(s.level_w3 >= 0.99);               /* no runnable count: violated, as before */
    s = period(&c, 2.5e7, 1);
    CHECK(s.level_w3 >= 0.99);               /* a host not oversubscribed: the same */
    s = period(&c, 2.5e7, 4);
    CHECK_NEAR(s.level_w3, 0, 1e-9);         /* 4 per core: up to 4x its share is possible */
    s = period(&c, 7e7, 4);
    CHECK(s.level_w3 >= 0.99);               /* 7x: far more than a whole core at 4 per core */
    /* below its projection: 55 % (a clean rank descheduled for part of the
     * period, as measured at 7-10 per core) is tolerated on an oversubscribed
     * host only, 39 % (the slowed rank's highest) is reported at any load */
    s = period(&c, 5.5e6, 8);
    CHECK(s.level_w3 < 0.5);
    s = period(&c, 5.5e6, -1);
    CHECK(s.level_w3 >= 0.5);
    s = period(&c, 5.5e6, 1);
    CHECK(s.level_w3 >= 0.5);
    s = period(&c, 3.9e6, 8);
    CHECK(s.level_w3 >= 0.5);
    s = period(&c, 3.9e6, 16);
    CHECK(s.level_w3 >= 0.5);                /* not widened further at 16 per core */
    /* w3 at a fifth of its peers: reported whatever the load */
    s = period(&c, 2e6, 4);
    CHECK(s.level_w3 >= 0.99);
    CHECK_INT(s.at_threshold_others, 0);
    s = period(&c, 2e6, -1);
    CHECK(s.level_w3 >= 0.99);

    /* below the projection on an oversubscribed host, the judged rate is the
     * mean over two adjoining periods: a clean rank descheduled for most of
     * one period (39 %) beside a period at its projection reads 69.5 % */
    s = periods(&c, 1e7, 1, 3.9e6, 8);
    CHECK(s.level_w3 < 0.5);
    CHECK_NEAR(s.value_w3, 6.95e6, 1);       /* the window's rate is what is reported */
    CHECK_NEAR(s.window_w3, 2, 1e-9);
    s = periods(&c, 1e7, 1, 3.9e6, -1);      /* no runnable count: the period alone, as before */
    CHECK(s.level_w3 >= 0.5);
    CHECK_NEAR(s.window_w3, 1, 1e-9);
    s = periods(&c, 1e7, 1, 3.9e6, 1);       /* nor on a host that is not oversubscribed */
    CHECK(s.level_w3 >= 0.5);
    s = periods(&c, 3.5e6, 1, 3.9e6, 8);     /* slowed in both: 37 % over the window */
    CHECK(s.level_w3 >= 0.5);
    CHECK_NEAR(s.value_w3, 3.7e6, 1);
    s = periods(&c, 2.2e7, 1, 3.9e6, 8);     /* above before, below now: not below over the window */
    CHECK_NEAR(s.level_w3, 0, 1e-9);
    /* a first period there, or one whose previous period does not adjoin it,
     * is not judged below the projection: its own rate, level 0 */
    s = periods(&c, -1, 1, 2e6, 8);
    CHECK_NEAR(s.level_w3, 0, 1e-9);
    CHECK_NEAR(s.value_w3, 2e6, 1);
    CHECK_NEAR(s.window_w3, 1, 1e-9);
    s = periods(&c, 2e6, 10, 2e6, 8);
    CHECK_NEAR(s.level_w3, 0, 1e-9);
    s = periods(&c, 2e6, 1, 7e7, 4);         /* above it, the period alone is judged */
    CHECK(s.level_w3 >= 0.99);

    /* a bad runnable_per_core is refused, naming the field */
    const char *bad = "{\"process\":\"a\",\"t\":5,\"period\":1,\"runnable_per_core\":-1,\"metrics\":{}}\n";
    FILE *f = fmemopen((void *)bad, strlen(bad), "r");
    struct sample_set none = {0};
    CHECK(samples_read_jsonl(f, "bad.jsonl", &none, why, sizeof why) < 0);
    fclose(f);
    CHECK_CONTAINS(why, "bad.jsonl:1: \"runnable_per_core\"");
    sample_set_free(&none);

    contract_free(&c);
    sample_set_free(&base);
    return test_done();
}
