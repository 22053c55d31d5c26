/* Fuzzes the archive's summary reader: the bytes are one file given to
 * 'tally archive add' (one or more JSON summaries, tally's or
 * resource_monitor's), read by ingest_buffer (src/archive/ingest_files.c and
 * ingest.c) and stored in an in-memory SQLite archive, emptied after each
 * input so that every input is read against the same state. Every number
 * stored must be finite. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "archive/ingest_files.h"
#include "archive/schema.h"

static struct store *archive;

static void close_archive(void)
{
    store_close(archive);
}

/* Every number stored is finite: an infinity in the archive would turn the
 * statistics and predictions of its task into NaN. */
static int check_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    for (size_t i = 0; i < ncols; i++)
        if (row[i].type == SQL_REAL && !isfinite(row[i].real)) {
            fprintf(stderr, "summary_fuzz: column %zu stored as %g\n", i, row[i].real);
            abort();
        }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[512];
    if (!archive) {
        archive = store_open(":memory:", why, sizeof why);
        if (!archive) {
            fprintf(stderr, "summary_fuzz: %s\n", why);
            abort();
        }
        atexit(close_archive);
    }
    struct ingest_options options = {0};
    struct ingest_session session;
    ingest_session_init(&session, archive, &options);
    (void)ingest_buffer(&session, "fuzz", (const char *)data, size);
    if (ingest_session_finish(&session) < 0)
        abort(); /* a summary that parses must go into the archive */
    if (store_query(archive, "SELECT * FROM summaries", NULL, 0, check_row, NULL, why, sizeof why) < 0)
        abort();
    if (store_exec(archive, "DELETE FROM summary_rows", NULL, 0, why, sizeof why) < 0 ||
        store_exec(archive, "DELETE FROM name_fields", NULL, 0, why, sizeof why) < 0) {
        fprintf(stderr, "summary_fuzz: %s\n", why);
        abort();
    }
    return 0;
}
