/* Files of lines of words (see word_lines.h). */
#include "util/word_lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text_file.h"
#include "util/vec.h"

int word_lines_read(const char *path, word_line_fn fn, void *ctx, char *why, size_t why_size)
{
    struct text_lines in;
    char detail[256];
    if (text_lines_open(&in, path, TEXT_FILE_SMALL, TEXT_LINE_MAX, detail, sizeof detail) < 0) {
        snprintf(why, why_size, "%s: %s", path, detail);
        return -1;
    }
    char **words = NULL, *line;
    size_t cap = 0;
    int rc = 0, got = 0;
    while (rc == 0 && (got = text_lines_next(&in, &line, NULL)) > 0) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        size_t n = 0;
        char *save = NULL;
        for (char *w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
            char **slot = VEC_PUSH(words, n, cap);
            if (!slot) {
                snprintf(why, why_size, "%s:%lu: out of memory", path, in.number);
                rc = -1;
                break;
            }
            *slot = w;
        }
        if (rc == 0 && n > 0 && fn(ctx, words, n, detail, sizeof detail) < 0) {
            snprintf(why, why_size, "%s:%lu: %s", path, in.number, detail);
            rc = -1;
        }
    }
    if (rc == 0 && got < 0) {
        snprintf(why, why_size, "%s: %s", path, in.why);
        rc = -1;
    }
    free(words);
    text_lines_close(&in);
    return rc;
}
