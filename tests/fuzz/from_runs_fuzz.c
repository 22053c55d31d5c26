/* Fuzzes 'tally trace from-runs' (src/trace/from_runs.c), which reads a
 * run's PREFIX.summary (JSON) and PREFIX.series (text columns, with the
 * host_ columns trace/host_load.c turns into capacities and other-load), and
 * the --capacity FILE (host_capacity_file). The input is the summary, a line
 * "--series--", the series, then optionally a line "--capacity--" and the
 * capacity file. A trace that is built
 * must satisfy the model's invariants, aggregate at every level and survive
 * a round trip through tally's Paje writer (fuzz_trace.h). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_trace.h"
#include "trace/from_runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *summary, *rest, *series, *capacity;
    size_t summary_size, rest_size, series_size, capacity_size;
    fuzz_split(data, size, "\n--series--\n", &summary, &summary_size, &rest, &rest_size);
    fuzz_split(rest, rest_size, "\n--capacity--\n", &series, &series_size, &capacity, &capacity_size);
    fuzz_write_file("run.summary", summary, summary_size);
    fuzz_write_file("run.series", series, series_size);
    fuzz_write_file("capacity.txt", capacity, capacity_size);
    char capacity_path[160];
    snprintf(capacity_path, sizeof capacity_path, "%s", fuzz_path("capacity.txt"));
    struct from_runs_options opts = {.capacity_file = capacity_size ? capacity_path : NULL};
    char prefix[160];
    snprintf(prefix, sizeof prefix, "%s", fuzz_path("run"));
    const char *prefixes[] = {prefix};
    struct trace t;
    char why[512] = "";
    if (trace_from_runs(prefixes, 1, &opts, &t, why, sizeof why) == 0) {
        fuzz_check_trace(&t);
        fuzz_use_trace(&t);
        trace_free(&t);
    } else if (!why[0]) {
        abort(); /* an error must say why */
    }
    return 0;
}
