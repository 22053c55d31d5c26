/* Shared between the 'tally archive' subcommand files (archive_*.c): their
 * entry points and the helpers every one of them uses. */
#ifndef TALLY_CLI_ARCHIVE_CLI_H
#define TALLY_CLI_ARCHIVE_CLI_H

#include <getopt.h>
#include <stdbool.h>

#include "archive/aggregate.h"
#include "archive/history.h"
#include "archive/schema.h"

int archive_add_main(int argc, char **argv, const char *db);
int archive_query_main(int argc, char **argv, const char *db);
int archive_files_main(int argc, char **argv, const char *db);
int archive_stats_main(int argc, char **argv, const char *db);
int archive_predict_main(int argc, char **argv, const char *db);
int archive_outliers_main(int argc, char **argv, const char *db);
int archive_import_main(int argc, char **argv, const char *db);
int archive_compact_main(int argc, char **argv, const char *db);

/* Opens the archive at db (NULL: $TALLY_DB or the default file), reporting
 * a failure as "tally: archive: LOCATION: why". */
/* must_exist: an SQLite archive that is not there is an error (reading
 * commands), not a new empty file. */
struct store *archive_open(const char *db, bool must_exist);

enum output_format { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON };

/* A text cell of CSV output on stdout (RFC 4180: quoted when it holds a
 * comma, a quote or a line break; NULL: an empty cell). */
void archive_print_csv_text(const char *s);

/* What every subcommand's option loop shares. */
struct archive_command {
    const char *name;          /* "predict": for messages */
    const char *usage;
    const char *db;            /* --db (or the one given before the subcommand) */
    enum output_format format; /* --format */
    bool csv_allowed;
    const char *by;            /* --by name|category: how NAME is looked up;
                                * NULL: archive_load_history decides and sets it */
    bool windowed;             /* --since, --from or --to given */
    long long first_day, last_day; /* the window, UTC days since 1970 (inclusive) */
    char window_text[96];      /* "from 2026-11-01 to 2026-11-30", for answers */
    bool window_options;       /* takes --since, --from and --to */
    bool format_refused;       /* --format is not an option of this command */
    bool options_begun;        /* archive_next_option has started reading argv */
};

/* --since Nd, --from DATE, --to DATE (the per-day aggregates' window), for
 * a command whose archive_command sets window_options. */
#define ARCHIVE_WINDOW_OPTIONS                                                        \
    {"since", required_argument, NULL, 'S'}, {"from", required_argument, NULL, 'F'}, \
    {"to", required_argument, NULL, 'T'}
#define ARCHIVE_WINDOW_USAGE                                                           \
    "  --since Nd        only runs started in the last N days (UTC days, today included)\n" \
    "  --from DATE       only runs started on or after DATE (YYYY-MM-DD, UTC)\n"          \
    "  --to DATE         only runs started on or before DATE\n"

/* getopt_long entries of --db, --format and --help ('d', 'f', 'h'). */
#define ARCHIVE_COMMON_OPTIONS                                                      \
    {"db", required_argument, NULL, 'd'}, {"format", required_argument, NULL, 'f'}, \
    {"help", no_argument, NULL, 'h'}

enum { ARCHIVE_OPTION_END = -3, ARCHIVE_OPTION_OWN = -2 };
/* Reads a subcommand's options in turn (getopt_long over argv with shortopts
 * and options; the first call starts at argv[1]). Handles --db, --format,
 * --help, bad options and, with window_options, the window; returns
 * ARCHIVE_OPTION_OWN with *c (and optarg) set for one of the subcommand's
 * own, ARCHIVE_OPTION_END after the last option (optind at the operands), or
 * the exit status to return at once (0 after --help, 125 after a message). */
int archive_next_option(struct archive_command *cmd, int argc, char **argv, const char *shortopts,
                        const struct option *options, int *c);
/* A number in [min, max] for an option; -1 after a message. */
/* store_row_fn setting *(int *)ctx to 1 at the first row. */
int archive_found_row(void *ctx, size_t ncols, const struct sql_value *row);
/* --by's value for predict and outliers (name or category); -1 after a message. */
int archive_parse_by(const struct archive_command *cmd, const char *arg, const char **out);
int archive_parse_number(const struct archive_command *cmd, const char *option, const char *text,
                         double min, double max, double *out);
/* Opens the archive and loads the history of name (see history_load), looked
 * up by cmd->by; without --by, by category when some summary has that
 * category, else by name (cmd->by is then set to the one used).
 * Returns -1 when loaded with rows, else the exit status to return (125 on
 * errors, 1 when there are no summaries of that name), after a message. */
/* Opens the archive and merges the aggregates of NAME (looked up as
 * archive_load_history does) over cmd's window into a. Returns -1 with the
 * store open in *store when found, else the exit status to return (125 on
 * errors, 1 when no run matches), after a message. */
int archive_load_aggregate(struct archive_command *cmd, const char *name, struct aggregate *a,
                           struct store **store);
int archive_load_history(struct archive_command *cmd, const char *name,
                         const char *group_column, bool with_identity, struct history *h);

#endif
