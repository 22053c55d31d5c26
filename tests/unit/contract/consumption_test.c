/* The monitor's rule for a consumption dimension (CPU share) in execution
 * space: below its projection it is judged only when the sample has no
 * production dimension (FLOP/s here). A process that did its projected work
 * with less CPU is not reported; one whose work fell is reported on the
 * work; one using more CPU than projected, or less with nothing else to
 * judge it by, is reported on the CPU. */
#include "contract/monitor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample_text.h"
#include "test.h"

struct seen {
    double cpu, compute; /* w3's execution levels (NAN: none) */
};

static void collect(void *ctx, const struct contract_level *l)
{
    struct seen *s = ctx;
    if (l->space != SPACE_EXECUTION || l->overall || strcmp(l->process, "w3"))
        return;
    if (!strcmp(l->dimension, "cpu"))
        s->cpu = l->level;
    else if (!strcmp(l->dimension, "compute"))
        s->compute = l->level;
}

/* One period: w0..w2 at 1e7 FLOP/s and 0.2 of a core; w3 at flops (<0:
 * no FLOP/s in its sample) and cpu. */
static struct seen period(const struct contract *c, double flops, double cpu, int live)
{
    char text[2048] = "";
    for (int w = 0; w < 4; w++) {
        char line[256], rate[64] = "";
        double f = w == 3 ? flops : 1e7;
        if (f >= 0)
            snprintf(rate, sizeof rate, ",\"flops_per_s\":%g", f);
        snprintf(line, sizeof line,
                 "{\"process\":\"w%d\",\"host\":\"h\",\"t\":100,\"period\":1,"
                 "\"metrics\":{\"flops_per_job\":5e5,\"cpu_share\":%g%s}}\n",
                 w, w == 3 ? cpu : 0.2, rate);
        strcat(text, line);
    }
    struct seen s = {NAN, NAN};
    sample_text_feed(c, text, live, collect, &s);
    return s;
}

int main(void)
{
    /* baseline: four workers at 1e7 FLOP/s and 0.2 of a core (+-1 %) */
    char text[8192] = "";
    for (int t = 1; t <= 6; t++)
        for (int w = 0; w < 4; w++) {
            char line[256];
            double wobble = 1 + 0.01 * ((w + t) % 3 - 1);
            snprintf(line, sizeof line,
                     "{\"process\":\"w%d\",\"host\":\"h\",\"t\":%d,\"period\":1,"
                     "\"metrics\":{\"flops_per_job\":5e5,\"flops_per_s\":%g,\"cpu_share\":%g}}\n",
                     w, t, 1e7 * wobble, 0.2 * wobble);
            strcat(text, line);
        }
    struct sample_set base = sample_text(text);
    struct build_options o;
    build_options_defaults(&o);
    o.name = "unit";
    struct contract c;
    char why[256];
    CHECK_INT(contract_build(&base, &o, &c, why, sizeof why), 0);

    for (int live = 0; live <= 1; live++) {
        /* as projected: nothing */
        struct seen s = period(&c, 1e7, 0.2, live);
        CHECK_NEAR(s.cpu, 0, 1e-9);
        CHECK_NEAR(s.compute, 0, 1e-9);
        /* the projected work on half the CPU: not reported */
        s = period(&c, 1e7, 0.1, live);
        CHECK_NEAR(s.cpu, 0, 1e-9);
        CHECK_NEAR(s.compute, 0, 1e-9);
        /* half the work on half the CPU: reported on the work */
        s = period(&c, 5e6, 0.1, live);
        CHECK(s.compute >= 0.99);
        /* twice the CPU for the projected work: reported on the CPU */
        s = period(&c, 1e7, 0.4, live);
        CHECK(s.cpu >= 0.99);
        CHECK_NEAR(s.compute, 0, 1e-9);
        /* half the CPU and no FLOP/s in the sample: the CPU is all there is */
        s = period(&c, -1, 0.1, live);
        CHECK(s.cpu >= 0.99);
        CHECK(isnan(s.compute));
    }

    contract_free(&c);
    sample_set_free(&base);
    return test_done();
}
