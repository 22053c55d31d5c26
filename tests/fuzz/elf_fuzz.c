/* Fuzz harness (libFuzzer) for the ELF reader (src/platform/linux/elf.c):
 * the input is written to a file and read as an executable for its needed
 * libraries, a symbol's file offset and whether it is dynamically linked. Build:
 *   clang -g -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Isrc -Iinclude \
 *     tests/fuzz/elf_fuzz.c src/platform/linux/elf.c -o build/fuzz/elf_fuzz */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "platform/platform.h"

static void ignore(void *ctx, const char *name)
{
    (void)ctx;
    (void)name;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/tally-elf-fuzz-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        uint64_t off;
        char why[256];
        elf_visit_needed(path, ignore, NULL);
        elf_symbol_offset(path, "main", &off, why, sizeof why);
        if (elf_is_dynamic(path) > 1)
            abort();
    }
    close(fd);
    unlink(path);
    return 0;
}
