/* The closed loop of 'tally run' with the archive (issue 3, items 3 and 7):
 *   --archive[=DB]              submit the summary to the archive at the end
 *   --limits-from-archive[=DB]  limits = the archive's predicted first
 *                               allocation of memory, bytes_written (what the
 *                               task wrote) and wall_time (--name), plus the
 *                               margin below; none from fewer than
 *                               PREDICT_MIN_RUNS runs, none on a resource the
 *                               history did not measure
 *   --retry                     a run stopped by a limit runs once more with
 *                               the maximum seen in the archive (plus the
 *                               margin) for each broken limit (twice the limit
 *                               when nothing larger was seen); both attempts
 *                               are archived and linked
 * Kept apart from run.c, which calls the functions below at its three hooks
 * (option parsing, before the run, after each attempt). */
#ifndef TALLY_CLI_RUN_ARCHIVE_H
#define TALLY_CLI_RUN_ARCHIVE_H

#include <jansson.h>
#include <stdbool.h>

#include "core/limits.h"
#include "monitor/task_types.h"

/* Limits from the archive are this fraction above the prediction, and at
 * least these many seconds or MB above it. */
#define RUN_ARCHIVE_MARGIN 0.25
#define RUN_ARCHIVE_MIN_TIME_MARGIN 1.0
#define RUN_ARCHIVE_MIN_BYTES_MARGIN 1.0

enum { OPT_ARCHIVE = 0x1000, OPT_LIMITS_FROM_ARCHIVE, OPT_RETRY };

#define RUN_ARCHIVE_LONG_OPTIONS                                           \
    {"archive", optional_argument, 0, OPT_ARCHIVE},                        \
    {"limits-from-archive", optional_argument, 0, OPT_LIMITS_FROM_ARCHIVE}, \
    {"retry", no_argument, 0, OPT_RETRY}

#define RUN_ARCHIVE_USAGE                                                                  \
    "      --archive [DB]      submit the summary to the archive (see tally-archive(1));\n"     \
    "                          DB as a separate word only when the command follows --\n" \
    "      --limits-from-archive [DB]  limit memory, bytes_written, wall_time to the\n"  \
    "                          archive's predicted first allocation for --name, + 25%\n" \
    "                          (at least 1 s, 1 MB); none from fewer than 10 runs\n"      \
    "      --retry             when a limit stops the task, run it again with the\n"      \
    "                          maximum seen in the archive (or twice the limit)\n"

struct run_archive_options {
    bool submit;               /* --archive */
    const char *submit_db;     /* NULL: the default archive */
    bool limits_from_archive;
    const char *limits_db;
    bool retry;
    struct limit_set max_seen; /* per field, the largest value in the task's history */
    long long previous_id;     /* archive id of the attempt before, 0 = none */
};

/* Handles one of the options above (getopt_long's c and optarg). Returns 0
 * when c was one of them, -1 otherwise. */
int run_archive_option(int c, const char *arg, struct run_archive_options *o);

struct run_config;
/* Before the run: validates the combination and, with --limits-from-archive,
 * fills in the limits (explicit --limits win). Returns -1 after a message. */
int run_archive_prepare(struct run_config *cfg);

/* After attempt number `attempt` (1, 2) whose reports are written: submits
 * summary (the one written to PREFIX.summary) when --archive was given, by
 * archive_store_summary, the agent's path too (a database that cannot be reached
 * is reported on one line; the summary file stays). Returns true when the
 * task must run again (--retry, stopped by a limit, first attempt); the
 * limits are then raised and the reports kept as PREFIX.attempt1.summary
 * (.series, .files). */
bool run_archive_after_attempt(struct run_config *cfg, const struct task_result *result,
                               int attempt, json_t *summary);

#endif
