/* Fuzzes the Paje reader (src/trace/paje_reader.c): the bytes are a trace
 * file given to 'tally trace aggregate|anomalies|stats' or 'tally view'.
 * A trace that is read must satisfy the model's invariants, and go through
 * what the commands do with it: aggregation at every level, anomalies, the
 * view's data, and a round trip through tally's Paje writer (fuzz_trace.h). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file("input.paje", data, size);
    struct trace t;
    char why[512];
    if (trace_read_file(path, NULL, &t, why, sizeof why) == 0) {
        fuzz_check_trace(&t);
        fuzz_use_trace(&t);
        trace_free(&t);
    } else if (!why[0]) {
        abort(); /* an error must say why */
    }
    return 0;
}
