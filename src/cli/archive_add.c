/* 'tally archive add FILE...|DIR...|-': store summaries. Bad inputs are
 * reported (path and reason) and skipped; the others go in; exit 1 says some
 * were rejected. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/ingest_files.h"
#include "cli/archive_cli.h"
#include "cli/commands.h"
#include "util/error.h"
#include "util/text_file.h"

static const char usage[] =
    "usage: tally archive add [options] FILE...|DIR...|-\n"
    "  --db PATH|URI            the archive (default: $TALLY_DB or the per-user SQLite file)\n"
    "  --name NAME              task name (default: the summary's name, else its category)\n"
    "  --category CATEGORY      task category (default: the summary's)\n"
    "  --set SET                the set these summaries belong to (e.g. a workflow run id)\n"
    "  --set-description FILE   describe the set (e.g. the workflow's DAG), stored once per set\n"
    "  --host HOST              host (default: the summary's)\n"
    "  -q, --quiet              do not print the counts\n";

int archive_add_main(int argc, char **argv, const char *db)
{
    static const struct option options[] = {
        ARCHIVE_COMMON_OPTIONS,
        {"name", required_argument, NULL, 'n'},
        {"category", required_argument, NULL, 'c'},
        {"set", required_argument, NULL, 's'},
        {"set-description", required_argument, NULL, 'D'},
        {"host", required_argument, NULL, 'H'},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    struct archive_command cmd = {
        .name = "add", .usage = usage, .db = db, .format_refused = true};
    struct ingest_options opts = {0};
    const char *description_file = NULL;
    int quiet = 0, c, outcome;
    while ((outcome = archive_next_option(&cmd, argc, argv, "qh", options, &c)) ==
           ARCHIVE_OPTION_OWN) {
        switch (c) {
        case 'n': opts.name = optarg; break;
        case 'c': opts.category = optarg; break;
        case 's': opts.set = optarg; break;
        case 'D': description_file = optarg; break;
        case 'H': opts.host = optarg; break;
        default: quiet = 1; break;
        }
    }
    if (outcome != ARCHIVE_OPTION_END)
        return outcome;
    db = cmd.db;
    if (optind >= argc) {
        tally_error("archive add: no summaries given (FILE, DIR or -)");
        fputs(usage, stderr);
        return TALLY_EXIT_ERROR;
    }
    if (description_file && !opts.set) {
        tally_error("archive add: --set-description needs --set");
        return TALLY_EXIT_ERROR;
    }
    char *description = NULL;
    char why[160];
    if (description_file &&
        !(description = text_file_read(description_file, TEXT_FILE_SMALL, NULL, why, sizeof why))) {
        tally_error("archive add: --set-description %s: %s", description_file, why);
        return TALLY_EXIT_ERROR;
    }
    struct store *store = archive_open(db, false);
    if (!store) {
        free(description);
        return TALLY_EXIT_ERROR;
    }
    if (opts.set) {
        char why[512];
        if (ingest_set_description(store, opts.set, description, why, sizeof why) < 0) {
            tally_error("archive: %s: %s", store->location, why);
            free(description);
            store_close(store);
            return TALLY_EXIT_ERROR;
        }
    }
    free(description);
    struct ingest_session session;
    ingest_session_init(&session, store, &opts);
    ingest_paths(&session, argv + optind, (size_t)(argc - optind));
    int finished = ingest_session_finish(&session);
    if (!quiet)
        printf("added %zu, already archived %zu, rejected %zu\n", session.added,
               session.duplicates, session.rejected);
    store_close(store);
    if (finished < 0 || session.database_failed)
        return TALLY_EXIT_ERROR;
    return session.rejected ? TALLY_EXIT_FAILURE : TALLY_EXIT_OK;
}
