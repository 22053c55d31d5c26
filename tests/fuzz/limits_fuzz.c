/* Fuzzes the limits parser (src/core/limits.c, --limits TEXT and
 * --limits-file FILE) and, through it, the quantities of src/core/units.c.
 * Beyond "no crash, no leak, no UB" it checks the documented contract: on
 * error the set is unchanged and a reason is given; on success every limit
 * set is a finite, non-negative number. And the two forms agree: text
 * without ',' ';' or NUL means the same given as --limits or as a file. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "core/limits.h"

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

    struct limit_set from_text = limits;
    int text_rc = rc;

    limits = before;
    why[0] = '\0';
    rc = limits_parse_file(&limits, fuzz_write_file("limits", data, size), why, sizeof why);
    check_result(rc, &before, &limits, why);

    if (!memchr(data, ',', size) && !memchr(data, ';', size) && !memchr(data, '\0', size) &&
        (rc != text_rc || (rc == 0 && memcmp(&limits, &from_text, sizeof limits) != 0))) {
        fprintf(stderr, "limits_fuzz: --limits and --limits-file disagree (%d, %d)\n", text_rc, rc);
        abort();
    }

    free(text);
    return 0;
}
