/* Fuzzes the reader of files of word lines (src/util/word_lines.c: the
 * --capacity file of trace from-runs, --capabilities of contracts). The
 * input is the file. Beyond no crash, leak or UB: every line handed over
 * has at least one word, no word is empty or holds a blank or '#', and
 * refusing a line stops the reading with "PATH:LINE: why". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "util/word_lines.h"

struct count {
    size_t lines, refuse_at;
};

static int each(void *ctx, char **words, size_t n, char *why, size_t why_size)
{
    struct count *c = ctx;
    if (n == 0)
        abort();
    for (size_t i = 0; i < n; i++)
        if (!words[i][0] || strpbrk(words[i], " \t\r\n#"))
            abort();
    if (++c->lines == c->refuse_at) {
        snprintf(why, why_size, "refused");
        return -1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file("words.txt", data, size);
    char file[160], err[512] = "";
    snprintf(file, sizeof file, "%s", path);
    struct count all = {0, 0};
    int rc = word_lines_read(file, each, &all, err, sizeof err);
    if (rc < 0 && (!err[0] || !strstr(err, file)))
        abort();
    if (rc == 0 && all.lines > 0) { /* the same file, refusing its last line */
        struct count some = {0, all.lines};
        if (word_lines_read(file, each, &some, err, sizeof err) != -1 || !strstr(err, ": refused") ||
            some.lines != all.lines)
            abort();
    }
    return 0;
}
