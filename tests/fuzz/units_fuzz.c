/* Fuzzes units_parse (src/core/units.c): quantities as people type them, in
 * each dimension. On success the value must be a finite number; on error a
 * reason must be written and the value left alone. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "core/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    static const enum unit_dimension dims[] = {DIM_BYTES, DIM_TIME, DIM_COUNT};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        double value = -12345;
        char why[160] = "";
        int rc = units_parse(text, dims[i], dims[i] == DIM_COUNT ? "procs" : NULL, &value, why,
                             sizeof why);
        if (rc == 0 && !isfinite(value))
            abort();
        if (rc < 0 && (value != -12345 || !why[0]))
            abort();
    }
    free(text);
    return 0;
}
