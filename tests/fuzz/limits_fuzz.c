/* Fuzzes the limits parser (src/monitor/limits.c, --limits TEXT and
 * --limits-file FILE) and, through it, the quantities of src/util/units.c.
 * Beyond "no crash, no leak, no UB" it checks the documented contract: on
 * error the set is unchanged and a reason is given; on success every limit
 * set is a finite, non-negative number. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "monitor/limits.h"

static void check_result(int rc, const struct limit_set *before, const struct limit_set *after,
                         const char *why)
{
    if (rc < 0) {
        if (memcmp(before, after, sizeof *before) != 0 || !why[0])
            abort(); /* an error must leave the set as it was, with a reason */
        return;
    }
    if (rc != 0 || !limits_any(after))
        abort();
    for (int i = 0; i < FIELD_COUNT; i++)
        if (after->set[i] && !(isfinite(after->max[i]) && after->max[i] >= 0))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    struct limit_set before, limits;
    limits_clear(&before);
    before.set[0] = true; /* a set that is not empty, to see it kept on error */
    before.max[0] = 7;
    char why[256] = "";

    limits = before;
    int rc = limits_parse(&limits, text, why, sizeof why);
    check_result(rc, &before, &limits, why);

    limits = before;
    why[0] = '\0';
    rc = limits_parse_file(&limits, fuzz_write_file("limits", data, size), why, sizeof why);
    check_result(rc, &before, &limits, why);

    free(text);
    return 0;
}
