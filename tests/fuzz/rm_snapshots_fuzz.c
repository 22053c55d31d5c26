/* libFuzzer harness for rm_snapshots_parse (resource_monitor's
 * --snapshot-events JSON): any bytes must give a watch list or NULL with a
 * reason, never a crash or a leak. Only parses: polling would act on files.
 *   clang -g -fsanitize=fuzzer,address,undefined -Isrc tests/fuzz/rm_snapshots_fuzz.c \
 *     src/rmcompat/rm_snapshots.c -ljansson */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rmcompat/rm_snapshots.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char why[512] = "";
    struct rm_snapshots *s = rm_snapshots_parse(text, why, sizeof why);
    if (!s && !why[0])
        abort(); /* a refusal always says why */
    rm_snapshots_free(s);
    free(text);
    return 0;
}
