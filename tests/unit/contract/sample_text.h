/* For the contract unit tests: samples given as JSON Lines text, read and
 * sorted as 'contract build' and the monitor take them, and one period of
 * them fed to a new monitor of a contract. */
#ifndef TALLY_TEST_SAMPLE_TEXT_H
#define TALLY_TEST_SAMPLE_TEXT_H

#include <stdio.h>
#include <string.h>

#include "contract/monitor.h"
#include "contract/samples.h"
#include "test.h"

static inline struct sample_set sample_text(const char *text)
{
    struct sample_set set = {0};
    char why[256];
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    CHECK(f && samples_read_jsonl(f, "unit", &set, why, sizeof why) == 0);
    if (f)
        fclose(f);
    sample_set_sort(&set);
    return set;
}

/* Feeds the samples of text (one period) to a new monitor of c, threshold
 * 0.5, live factors on or off; every level goes to fn(ctx). */
static inline void sample_text_feed(const struct contract *c, const char *text, int live,
                                    contract_level_fn fn, void *ctx)
{
    struct sample_set set = sample_text(text);
    struct contract_monitor *m = contract_monitor_new(c, 0.5, NULL, 0);
    contract_monitor_set_live_factors(m, live);
    CHECK(contract_monitor_feed(m, set.v, set.n, fn, ctx) >= 0);
    contract_monitor_free(m);
    sample_set_free(&set);
}

#endif
