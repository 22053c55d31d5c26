/* 'tally archive': dispatch to its subcommands (add, query, stats, predict,
 * outliers), each in its own archive_<sub>.c, and what they share: --db and
 * opening the store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/archive_cli.h"
#include "cli/commands.h"
#include "util/error.h"

static const char usage[] =
    "usage: tally archive [--db PATH|postgresql://URI] <command> [<args>]\n"
    "\n"
    "commands:\n"
    "  add FILE...|DIR...|-   store summaries (tally's and resource_monitor's)\n"
    "  query 'EXPR'           summaries matching a condition\n"
    "  stats NAME             statistics and histograms of a task's resources\n"
    "  predict NAME           first allocation per resource (job sizing, Tovar et al.)\n"
    "  outliers NAME          runs far from their task's usual usage (robust z-score)\n"
    "\n"
    "The archive is an SQLite file ($TALLY_DB, else $XDG_DATA_HOME/tally/archive.db,\n"
    "else ~/.local/share/tally/archive.db) or a PostgreSQL database. See tally-archive(1).\n";

struct store *archive_open(const char *db)
{
    char why[512];
    char *location = db ? strdup(db) : store_default_location();
    struct store *s = store_open(location, why, sizeof why);
    if (!s)
        tally_error("archive: %s: %s", location ? location : "(default)", why);
    free(location);
    return s;
}

int archive_parse_format(const char *text, enum output_format *format)
{
    if (!strcmp(text, "table"))
        *format = FORMAT_TABLE;
    else if (!strcmp(text, "csv"))
        *format = FORMAT_CSV;
    else if (!strcmp(text, "json"))
        *format = FORMAT_JSON;
    else {
        tally_error("archive: --format: '%s' is not table, csv or json", text);
        return -1;
    }
    return 0;
}

int cmd_archive(int argc, char **argv)
{
    const char *db = NULL;
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return TALLY_EXIT_OK;
        } else if (!strcmp(argv[i], "--db") && i + 1 < argc) {
            db = argv[i + 1];
            i += 2;
        } else if (!strncmp(argv[i], "--db=", 5)) {
            db = argv[i] + 5;
            i++;
        } else {
            tally_error("archive: unknown option '%s'", argv[i]);
            fputs(usage, stderr);
            return TALLY_EXIT_ERROR;
        }
    }
    if (i >= argc) {
        fputs(usage, stderr);
        return TALLY_EXIT_ERROR;
    }
    static const struct {
        const char *name;
        int (*run)(int, char **, const char *);
    } subcommands[] = {
        {"add", archive_add_main},         {"query", archive_query_main},
        {"stats", archive_stats_main},     {"predict", archive_predict_main},
        {"outliers", archive_outliers_main},
    };
    for (size_t k = 0; k < sizeof subcommands / sizeof subcommands[0]; k++)
        if (!strcmp(argv[i], subcommands[k].name))
            return subcommands[k].run(argc - i, argv + i, db);
    tally_error("archive: unknown command '%s' (see 'tally archive --help')", argv[i]);
    return TALLY_EXIT_ERROR;
}
