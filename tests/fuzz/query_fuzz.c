/* Fuzzes the archive query language (src/archive/query.c). Beyond "no
 * crash, no leak, no UB": an expression that compiles must give SQL that the
 * archive's own database accepts with its parameters (run against an empty
 * in-memory SQLite archive), and an error must name a position. The time
 * parser of --since/--until (query_parse_time) gets the same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/query.h"
#include "archive/schema.h"
#include "fuzz_input.h"

static struct store *archive;

static void close_archive(void)
{
    store_close(archive);
}

static int count_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!archive) {
        char why[256];
        archive = store_open(":memory:", why, sizeof why);
        if (!archive) {
            fprintf(stderr, "query_fuzz: %s\n", why);
            abort();
        }
        atexit(close_archive);
    }
    char *text = fuzz_string(data, size);
    struct compiled_query q;
    char why[256] = "";
    if (query_compile(text, &q, why, sizeof why) == 0) {
        if (!q.where)
            abort();
        char *sql;
        if (asprintf(&sql, "SELECT count(*) FROM summaries WHERE %s", q.where) < 0)
            abort();
        char dbwhy[512];
        if (store_query(archive, sql, q.params, q.nparams, count_row, NULL, dbwhy, sizeof dbwhy) < 0) {
            fprintf(stderr, "query_fuzz: '%s' compiled to SQL the archive rejects: %s\n%s\n", text,
                    dbwhy, sql);
            abort();
        }
        free(sql);
        compiled_query_free(&q);
    } else if (strncmp(why, "position ", 9) != 0) {
        abort();
    }
    double epoch;
    (void)query_parse_time(text, &epoch);
    free(text);
    return 0;
}
