/* Fuzzes what 'tally archive' reads for its per-file rows and what 'tally
 * archive files' parses: a level-3 report (file_rows_parse,
 * src/archive/file_rows.c), a glob (file_filter_glob_like and
 * file_filter_matches, src/archive/file_query.c) and a size
 * (file_filter_parse_size). Input: line 1 a glob, line 2 a size, line 3 a
 * path, the rest a PREFIX.files.json. Checks: the rows are at most the
 * bound and one unlisted row, named rows by bytes moved, the unlisted row
 * last, every count >= 0 (or -1: unknown); every path the glob matches
 * also matches its LIKE prefilter (a LIKE matcher here, case-sensitive as
 * PostgreSQL's); a size that parses is >= 0; every error gives a reason. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "archive/file_query.h"
#include "archive/file_rows.h"

/* SQL LIKE with '\' as escape: % any run, _ one character. */
static bool like(const char *p, const char *s, int depth)
{
    if (depth > 64)
        return true; /* too deep to decide: counts as a match (never a false alarm) */
    for (; *p; p++, s++) {
        if (*p == '%') {
            for (const char *t = s;; t++) {
                if (like(p + 1, t, depth + 1))
                    return true;
                if (!*t)
                    return false;
            }
        }
        if (!*s)
            return false;
        if (*p == '_')
            continue;
        if (*p == '\\' && p[1])
            p++;
        if (*p != *s)
            return false;
    }
    return !*s;
}

static long long moved(const struct file_row *r)
{
    long long sum;
    return __builtin_add_overflow(r->bytes_read, r->bytes_written, &sum) ? __LONG_LONG_MAX__ : sum;
}

static char *line(char **cursor)
{
    char *start = *cursor, *nl = strchr(start, '\n');
    if (nl) {
        *nl = '\0';
        *cursor = nl + 1;
    } else {
        *cursor = start + strlen(start);
    }
    return start;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    char *cursor = text;
    char *glob = line(&cursor), *size_text = line(&cursor), *path = line(&cursor);
    char why[256] = "";

    struct file_filter f;
    memset(&f, 0, sizeof f);
    if (file_filter_add_glob(&f, glob, why, sizeof why) == 0) {
        size_t cap = 4 * strlen(glob) + 2;
        char *pattern = malloc(cap);
        if (!pattern || file_filter_glob_like(glob, pattern, cap) < 0)
            abort();
        /* the prefilter applies to the whole path: a base-name glob's
         * pattern starts with '%' */
        if (strlen(path) < 128 && strlen(glob) < 64 && file_filter_matches(&f, path) &&
            !like(pattern, path, 0))
            abort();
        free(pattern);
    } else if (!why[0]) {
        abort();
    }

    long long bytes = -5;
    why[0] = '\0';
    if (file_filter_parse_size(size_text, &bytes, why, sizeof why) == 0) {
        if (bytes < 0)
            abort();
    } else if (!why[0]) {
        abort();
    }

    struct file_rows rows;
    why[0] = '\0';
    size_t len = strlen(cursor);
    if (file_rows_parse(cursor, len, 3, &rows, why, sizeof why) == 0) {
        if (rows.count > 4)
            abort();
        for (size_t i = 0; i < rows.count; i++) {
            const struct file_row *r = &rows.rows[i];
            if (!r->path && i != rows.count - 1)
                abort(); /* the unlisted row is last */
            if (r->files < 0 || r->bytes_read < 0 || r->bytes_written < 0 || r->opens < 0 ||
                r->reads < 0 || r->writes < 0)
                abort();
            if (i > 0 && r->path && moved(&rows.rows[i - 1]) < moved(r))
                abort(); /* named rows by bytes moved, largest first */
        }
        file_rows_free(&rows);
    } else if (!why[0] || rows.count != 0) {
        abort();
    }
    free(text);
    return 0;
}
