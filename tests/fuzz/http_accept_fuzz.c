/* Fuzzes http_accept_quality (src/util/http_accept.c), the Accept header of
 * any client of the agent's /metrics: the quality must be a number in 0..1,
 * whatever the header, and reading must stay inside it (ASan). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "util/http_accept.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    static const char *const types[][2] = {{"application/openmetrics-text", "1.0.0"},
                                           {"text/plain", "0.0.4"},
                                           {"text/plain", NULL}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        double q = http_accept_quality(text, types[i][0], types[i][1]);
        if (!(q >= 0 && q <= 1))
            abort();
    }
    free(text);
    return 0;
}
