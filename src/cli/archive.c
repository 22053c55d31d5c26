/* 'tally archive': dispatch to its subcommands (add, query, files, stats,
 * predict, outliers, import, compact), each in its own archive_<sub>.c, and what they share: --db and
 * opening the store. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "archive/aggregate_store.h"
#include "cli/archive_cli.h"
#include "cli/commands.h"
#include "util/error.h"

static const char usage[] =
    "usage: tally archive [--db PATH|postgresql://URI] <command> [<args>]\n"
    "\n"
    "commands:\n"
    "  add FILE...|DIR...|-   store summaries (tally's and resource_monitor's)\n"
    "  query 'EXPR'           summaries matching a condition\n"
    "  files [--glob P] ...   level-3 runs by their files' bytes (e.g. read > 1GB of *.bam)\n"
    "  stats NAME             statistics and histograms of a task's resources\n"
    "  predict NAME           first allocation per resource (job sizing, Tovar et al.)\n"
    "  outliers NAME          runs far from their task's usual usage (robust z-score)\n"
    "  import slurm [FILE]    Slurm job steps from sacct --parsable2 output (or sacct)\n"
    "  compact                give unused space back to the file system (VACUUM)\n"
    "\n"
    "The archive is an SQLite file ($TALLY_DB, else $XDG_DATA_HOME/tally/archive.db,\n"
    "else ~/.local/share/tally/archive.db) or a PostgreSQL database. See tally-archive(1).\n";

struct store *archive_open(const char *db, bool must_exist)
{
    char why[512];
    char *location = db ? strdup(db) : store_default_location();
    struct stat st;
    if (must_exist && location && !store_location_is_postgres(location) &&
        stat(location, &st) < 0 && errno == ENOENT) {
        /* A reading command must not leave an empty archive behind a typo. */
        tally_error("archive: %s: no archive there ('tally archive add' creates one)", location);
        free(location);
        return NULL;
    }
    struct store *s = store_open(location, why, sizeof why);
    if (!s)
        tally_error("archive: %s: %s", location ? location : "(default)", why);
    else if (s->upgraded_from)
        /* the old rows' space stays in the file until compacted */
        fprintf(stderr, "tally: archive: %s: upgraded from schema %d to %d%s\n", s->location,
                s->upgraded_from, schema_current_version(),
                schema_upgrade_leaves_space(s->upgraded_from)
                    ? " ('tally archive compact' gives back the space the old rows leave)"
                    : "");
    free(location);
    return s;
}

static int window_option(struct archive_command *cmd, int c, const char *arg);

enum { OPTION_HANDLED = -1 };

/* Handles c when it is --db, --format, --help or a bad option: OPTION_HANDLED,
 * or the exit status to return at once; ARCHIVE_OPTION_OWN when it is not. */
static int common_option(struct archive_command *cmd, int c, const char *arg, char **argv)
{
    if (c == 'f' && cmd->format_refused) {
        tally_error("archive %s: bad option '--format'", cmd->name);
        return TALLY_EXIT_ERROR;
    }
    switch (c) {
    case 'd':
        cmd->db = arg;
        return OPTION_HANDLED;
    case 'f':
        if (!strcmp(arg, "table"))
            cmd->format = FORMAT_TABLE;
        else if (!strcmp(arg, "json"))
            cmd->format = FORMAT_JSON;
        else if (!strcmp(arg, "csv") && cmd->csv_allowed)
            cmd->format = FORMAT_CSV;
        else {
            tally_error("archive %s: --format: '%s' is not %s", cmd->name, arg,
                        cmd->csv_allowed ? "table, csv or json" : "table or json");
            return TALLY_EXIT_ERROR;
        }
        return OPTION_HANDLED;
    case 'h':
        fputs(cmd->usage, stdout);
        return TALLY_EXIT_OK;
    case '?':
    case ':':
        tally_error("archive %s: bad or incomplete option '%s'", cmd->name, argv[optind - 1]);
        fputs(cmd->usage, stderr);
        return TALLY_EXIT_ERROR;
    default:
        return ARCHIVE_OPTION_OWN;
    }
}

int archive_next_option(struct archive_command *cmd, int argc, char **argv, const char *shortopts,
                        const struct option *options, int *c)
{
    if (!cmd->options_begun) {
        cmd->options_begun = true;
        optind = 1;
        opterr = 0;
    }
    while ((*c = getopt_long(argc, argv, shortopts, options, NULL)) != -1) {
        int outcome = common_option(cmd, *c, optarg, argv);
        if (outcome == ARCHIVE_OPTION_OWN && cmd->window_options) {
            int window = window_option(cmd, *c, optarg);
            outcome = window == 0 ? OPTION_HANDLED : window < 0 ? TALLY_EXIT_ERROR : ARCHIVE_OPTION_OWN;
        }
        if (outcome != OPTION_HANDLED)
            return outcome;
    }
    return ARCHIVE_OPTION_END;
}

void archive_print_csv_text(const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

int archive_parse_number(const struct archive_command *cmd, const char *option, const char *text,
                         double min, double max, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= min && v <= max)) {
        tally_error("archive %s: %s: '%s' is not a number in [%g, %g]", cmd->name, option, text,
                    min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int archive_parse_by(const struct archive_command *cmd, const char *arg, const char **out)
{
    if (strcmp(arg, "name") && strcmp(arg, "category")) {
        tally_error("archive %s: --by: '%s' is not name or category", cmd->name, arg);
        return -1;
    }
    *out = arg;
    return 0;
}

int archive_found_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    (void)ncols;
    (void)row;
    *(int *)ctx = 1;
    return 1;
}

static void window_init(struct archive_command *cmd)
{
    if (!cmd->windowed) {
        cmd->windowed = true;
        cmd->first_day = -1000000000LL;
        cmd->last_day = 1000000000LL;
    }
}

/* YYYY-MM-DD (UTC) → days since 1970-01-01; -1 after a message. */
static int parse_day(const struct archive_command *cmd, const char *option, const char *text,
                     long long *day)
{
    struct tm tm = {0};
    const char *end = strptime(text, "%Y-%m-%d", &tm);
    if (!end || *end) {
        tally_error("archive %s: %s: '%s' is not a date (YYYY-MM-DD)", cmd->name, option, text);
        return -1;
    }
    *day = (long long)(timegm(&tm) / 86400);
    return 0;
}

static void say_day(long long day, char *out, size_t len)
{
    time_t t = (time_t)(day * 86400);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%d", &tm);
}

/* Handles 'S', 'F', 'T': 0, or -1 after a message; 1 when c is not one. */
static int window_option(struct archive_command *cmd, int c, const char *arg)
{
    if (c != 'S' && c != 'F' && c != 'T')
        return 1;
    window_init(cmd);
    if (c == 'S') {
        char *end;
        long days = strtol(arg, &end, 10);
        if (end == arg || strcmp(end, "d") || days < 1 || days > 1000000) {
            tally_error("archive %s: --since: '%s' is not a number of days (e.g. 30d)", cmd->name,
                        arg);
            return -1;
        }
        cmd->first_day = (long long)(time(NULL) / 86400) - days + 1;
    } else if (parse_day(cmd, c == 'F' ? "--from" : "--to", arg,
                         c == 'F' ? &cmd->first_day : &cmd->last_day) < 0) {
        return -1;
    }
    char from[16] = "", to[16] = "";
    if (cmd->first_day > -1000000000LL)
        say_day(cmd->first_day, from, sizeof from);
    if (cmd->last_day < 1000000000LL)
        say_day(cmd->last_day, to, sizeof to);
    snprintf(cmd->window_text, sizeof cmd->window_text, "%s%s%s%s", *from ? " from " : "", from,
             *to ? " to " : "", to);
    return 0;
}

/* Sets cmd->by when not given: category when some run has that category. */
static int resolve_by(struct archive_command *cmd, struct store *store, const char *name)
{
    if (!name || cmd->by)
        return 0;
    char why[512];
    int is_category = aggregate_key_exists(store, AGGREGATE_BY_CATEGORY, name, why, sizeof why);
    if (is_category < 0) {
        tally_error("archive %s: %s: %s", cmd->name, store->location, why);
        return -1;
    }
    cmd->by = is_category ? "category" : "name";
    return 0;
}

int archive_load_aggregate(struct archive_command *cmd, const char *name, struct aggregate *a,
                           struct store **out)
{
    struct store *store = archive_open(cmd->db, true);
    if (!store)
        return TALLY_EXIT_ERROR;
    char why[512];
    size_t found = 0;
    aggregate_init(a);
    window_init(cmd);
    if (resolve_by(cmd, store, name) < 0) {
        store_close(store);
        return TALLY_EXIT_ERROR;
    }
    if (aggregate_load(store, strcmp(cmd->by, "category") ? AGGREGATE_BY_NAME : AGGREGATE_BY_CATEGORY,
                       name, cmd->first_day, cmd->last_day, a, &found, why, sizeof why) < 0) {
        tally_error("archive %s: %s: %s", cmd->name, store->location, why);
        aggregate_free(a);
        store_close(store);
        return TALLY_EXIT_ERROR;
    }
    if (a->runs == 0) {
        tally_error("archive %s: no summaries with %s '%s'%s in the archive", cmd->name, cmd->by,
                    name, cmd->window_text);
        aggregate_free(a);
        store_close(store);
        return TALLY_EXIT_FAILURE;
    }
    *out = store;
    return -1;
}

int archive_load_history(struct archive_command *cmd, const char *name,
                         const char *group_column, bool with_identity, struct history *h)
{
    struct store *store = archive_open(cmd->db, true);
    if (!store)
        return TALLY_EXIT_ERROR;
    char why[512];
    if (resolve_by(cmd, store, name) < 0) {
        store_close(store);
        return TALLY_EXIT_ERROR;
    }
    int loaded = history_load(store, cmd->by ? cmd->by : "name", name, group_column,
                              with_identity, h, why, sizeof why);
    if (loaded < 0)
        tally_error("archive %s: %s: %s", cmd->name, store->location, why);
    store_close(store);
    if (loaded < 0)
        return TALLY_EXIT_ERROR;
    if (h->rows == 0) {
        tally_error("archive %s: no summaries with %s '%s' in the archive", cmd->name,
                    cmd->by ? cmd->by : "name", name ? name : "");
        history_free(h);
        return TALLY_EXIT_FAILURE;
    }
    return -1;
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
        {"outliers", archive_outliers_main}, {"import", archive_import_main},
        {"files", archive_files_main},     {"compact", archive_compact_main},
    };
    for (size_t k = 0; k < sizeof subcommands / sizeof subcommands[0]; k++)
        if (!strcmp(argv[i], subcommands[k].name))
            return subcommands[k].run(argc - i, argv + i, db);
    tally_error("archive: unknown command '%s' (see 'tally archive --help')", argv[i]);
    return TALLY_EXIT_ERROR;
}
