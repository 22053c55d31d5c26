/* Fuzzes --hierarchy files (src/trace/hierarchy.c): the bytes are the
 * "CHILD PARENT [PARENT-TYPE]" file applied to a fixed trace
 * (fuzz_trace.h). A regrouping that is accepted must leave a tree (no
 * cycle among containers or types), that aggregates at every level and
 * round-trips through tally's Paje writer. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *trace_path;
    if (!trace_path) {
        static char saved[160];
        snprintf(saved, sizeof saved, "%s",
                 fuzz_write_file("base.paje", fuzz_base_trace, sizeof fuzz_base_trace - 1));
        trace_path = saved;
    }
    struct trace_read_options opts = {.n_rules = 0};
    char hierarchy[160];
    snprintf(hierarchy, sizeof hierarchy, "%s", fuzz_write_file("hierarchy.txt", data, size));
    opts.hierarchy_file = hierarchy;
    struct trace t;
    char why[512];
    if (trace_read_file(trace_path, &opts, &t, why, sizeof why) == 0) {
        fuzz_check_trace(&t);
        fuzz_use_trace(&t);
        trace_free(&t);
    } else if (!why[0]) {
        abort();
    }
    return 0;
}
