/* libFuzzer harness for the Fig. 4 rulebase parser (src/contract/rulebase.c)
 * and the evaluator over whatever it accepts: no input may crash, leak or
 * read out of bounds, and every evaluated output stays inside its variable's
 * range. Build and run (self-contained, from the repository root):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *     tests/fuzz/rulebase_fuzz.c src/contract/rulebase.c src/contract/fuzzy.c \
 *     -lm -o build/rulebase_fuzz
 *   build/rulebase_fuzz tests/fuzz/corpus/rulebase -max_total_time=60 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "contract/fuzzy.h"
#include "contract/rulebase.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[256];
    struct rulebase *rb = rulebase_parse((const char *)data, size, why, sizeof why);
    if (!rb)
        return 0;
    double inputs[RULEBASE_MAX_VARS], outputs[RULEBASE_MAX_VARS];
    for (double x = -1; x <= 3; x += 0.5) {
        for (int v = 0; v < RULEBASE_MAX_VARS; v++)
            inputs[v] = x;
        fuzzy_evaluate(rb, inputs, outputs);
        for (int v = 0; v < rb->n_vars; v++)
            if (!isnan(outputs[v]) && (outputs[v] < rb->vars[v].lo - 1e-9 || outputs[v] > rb->vars[v].hi + 1e-9))
                abort();
    }
    free(rb);
    return 0;
}
