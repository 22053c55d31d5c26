/* Fuzzes 'tally trace from-runs' (src/trace/from_runs.c), which reads a
 * run's PREFIX.summary (JSON) and PREFIX.series (text columns). The input is
 * the summary, a line "--series--", then the series. A trace that is built
 * must satisfy the model's invariants, aggregate at every level and survive
 * a round trip through tally's Paje writer (fuzz_trace.h). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_trace.h"
#include "trace/from_runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *summary, *series;
    size_t summary_size, series_size;
    fuzz_split(data, size, "\n--series--\n", &summary, &summary_size, &series, &series_size);
    fuzz_write_file("run.summary", summary, summary_size);
    fuzz_write_file("run.series", series, series_size);
    char prefix[160];
    snprintf(prefix, sizeof prefix, "%s", fuzz_path("run"));
    const char *prefixes[] = {prefix};
    struct trace t;
    char err[512] = "";
    if (trace_from_runs(prefixes, 1, NULL, &t, err, sizeof err) == 0) {
        fuzz_check_trace(&t);
        fuzz_use_trace(&t);
        trace_free(&t);
    } else if (!err[0]) {
        abort(); /* an error must say why */
    }
    return 0;
}
