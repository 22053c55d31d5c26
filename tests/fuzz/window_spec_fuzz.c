/* Fuzz harness (libFuzzer) for the --window parser (src/instrument/window_spec.c). Build:
 *   clang -g -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Isrc -Iinclude \
 *     tests/fuzz/window_spec_fuzz.c src/instrument/window_spec.c src/core/units.c -lm \
 *     $(pkg-config --cflags jansson) -o build/fuzz/window_spec_fuzz */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/window_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct window_spec w;
    memset(&w, 0, sizeof w);
    char why[256];
    window_spec_parse(text, &w, why, sizeof why);
    free(text);
    return 0;
}
