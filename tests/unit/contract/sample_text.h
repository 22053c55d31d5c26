/* For the contract unit tests: samples given as JSON Lines text, read and
 * sorted as 'contract build' and the monitor take them. */
#ifndef TALLY_TEST_SAMPLE_TEXT_H
#define TALLY_TEST_SAMPLE_TEXT_H

#include <stdio.h>
#include <string.h>

#include "contract/samples.h"
#include "test.h"

static inline struct sample_set sample_text(const char *text)
{
    struct sample_set set = {0};
    char err[256];
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    CHECK(f && samples_read_jsonl(f, "unit", &set, err, sizeof err) == 0);
    if (f)
        fclose(f);
    sample_set_sort(&set);
    return set;
}

#endif
