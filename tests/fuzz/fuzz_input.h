/* Helpers shared by the libFuzzer harnesses (tests/fuzz/NAME_fuzz.c): the
 * fuzzer's bytes as a NUL-terminated string, or written to a file for the
 * parsers that read paths. Header-only so that each harness stays one file;
 * the temporary directory is per process and removed at exit. */
#ifndef TALLY_FUZZ_INPUT_H
#define TALLY_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A malloc'd copy of data with a NUL appended (embedded NULs end the string
 * early, as they would in argv or in a C string read from a file). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

static char fuzz_dir[64];

static void fuzz_remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz: could not remove %s\n", fuzz_dir);
}

/* The path of NAME inside this process's temporary directory. */
static inline const char *fuzz_path(const char *name)
{
    static char path[160];
    if (!fuzz_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/tally-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(fuzz_dir))
            abort();
        atexit(fuzz_remove_dir);
    }
    snprintf(path, sizeof path, "%s/%s", fuzz_dir, name);
    return path;
}

/* Writes data to NAME in the temporary directory; returns its path (valid
 * until the next fuzz_path or fuzz_write_file call). */
static inline const char *fuzz_write_file(const char *name, const void *data, size_t size)
{
    const char *path = fuzz_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return path;
}

/* Splits data at the first occurrence of the line SEPARATOR ("\n--\n" style):
 * the part before goes to *first, the part after to *second. Without the
 * separator everything is first and second is empty. */
static inline void fuzz_split(const uint8_t *data, size_t size, const char *separator,
                              const uint8_t **first, size_t *first_size,
                              const uint8_t **second, size_t *second_size)
{
    size_t n = strlen(separator);
    const uint8_t *hit = size >= n ? memmem(data, size, separator, n) : NULL;
    *first = data;
    *first_size = hit ? (size_t)(hit - data) : size;
    *second = hit ? hit + n : data + size;
    *second_size = hit ? size - *first_size - n : 0;
}

#endif
