/* libFuzzer harness for rm_limits_parse (resource_monitor's -L and
 * --limits-file text): any bytes must give 0 or -1 with a reason, never a
 * crash, and the set must only hold non-negative values.
 *   clang -g -fsanitize=fuzzer,address,undefined -Isrc tests/fuzz/rm_limits_fuzz.c \
 *     src/rmcompat/rm_limits.c src/monitor/limits.c src/report/fields.c src/util/units.c -lm */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rmcompat/rm_limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct limit_set limits;
    limits_clear(&limits);
    char why[256] = "", skipped[64] = "";
    if (rm_limits_parse(&limits, text, why, sizeof why, skipped, sizeof skipped) < 0 && !why[0])
        abort(); /* an error always says why */
    for (int i = 0; i < FIELD_COUNT; i++)
        if (limits.set[i] && !(limits.max[i] >= 0))
            abort();
    free(text);
    return 0;
}
