/* 'tally archive compact': gives the space of rewritten and deleted rows back
 * to the file system (after a schema upgrade rewrote the summaries, say), and
 * says how large the archive was and is. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "archive/store.h"
#include "cli/archive_cli.h"
#include "cli/commands.h"
#include "util/error.h"

static const char usage[] =
    "usage: tally archive compact [options]\n"
    "  --db PATH|URI     the archive\n"
    "  --format FORMAT   table (default: one line) or json\n"
    "SQLite: VACUUM, which needs free space for a copy of the archive and holds off\n"
    "writers meanwhile. PostgreSQL: VACUUM FULL of the tables this user owns.\n";

int archive_compact_main(int argc, char **argv, const char *db)
{
    static const struct option options[] = {ARCHIVE_COMMON_OPTIONS, {NULL, 0, NULL, 0}};
    struct archive_command cmd = {.name = "compact", .usage = usage, .db = db};
    int c, outcome = archive_next_option(&cmd, argc, argv, "h", options, &c);
    if (outcome != ARCHIVE_OPTION_END) /* it has no option of its own */
        return outcome;
    if (optind != argc) {
        tally_error("archive compact: unexpected argument '%s'", argv[optind]);
        fputs(usage, stderr);
        return TALLY_EXIT_ERROR;
    }
    struct store *store = archive_open(cmd.db, true);
    if (!store)
        return TALLY_EXIT_ERROR;
    char why[512];
    long long before = store_size(store, why, sizeof why), after = -1;
    if (before >= 0 && store_compact(store, why, sizeof why) == 0)
        after = store_size(store, why, sizeof why);
    if (after < 0) {
        tally_error("archive compact: %s: %s", store->location, why);
        store_close(store);
        return TALLY_EXIT_ERROR;
    }
    if (cmd.format == FORMAT_JSON) {
        json_t *j = json_pack("{s:s, s:s, s:I, s:I}", "archive", store->location, "backend",
                              store->backend->name, "bytes_before", (json_int_t)before,
                              "bytes_after", (json_int_t)after);
        char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
        if (text)
            puts(text);
        free(text);
        json_decref(j);
    } else
        printf("%s: %lld bytes before, %lld after (%lld given back)\n", store->location, before,
               after, before - after);
    store_close(store);
    return TALLY_EXIT_OK;
}
