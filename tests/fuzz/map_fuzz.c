/* Fuzzes the trace name map, 'tally trace ... --map RULE' (trace_map_parse
 * in src/trace/varmap.c): each line of the input is one --map value; the
 * rules accepted are then used to read a fixed trace (fuzz_trace.h), whose
 * result must satisfy the model's invariants. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    char *text = fuzz_string(data, size);
    struct trace_read_options opts;
    memset(&opts, 0, sizeof opts);
    char why[512];
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t before = opts.n_rules;
        why[0] = '\0';
        if (trace_map_parse(&opts, line, why, sizeof why) < 0) {
            if (!why[0] || opts.n_rules != before)
                abort();
        } else if (opts.n_rules != before + 1) {
            abort();
        }
    }
    struct trace t;
    if (trace_read_file(trace_path, &opts, &t, why, sizeof why) == 0) {
        fuzz_check_trace(&t);
        trace_free(&t);
    }
    free(text);
    return 0;
}
