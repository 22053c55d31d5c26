/* 'tally run' in three steps that other front ends and options can reuse:
 * parse the options into a run_config, run the task (monitor/task.h), write
 * the reports. cmd_run (run.c) chains them. */
#ifndef TALLY_CLI_RUN_H
#define TALLY_CLI_RUN_H

#include <jansson.h>
#include <stdbool.h>

#include "cli/run_agent.h"
#include "cli/run_archive.h"
#include "cli/run_common.h"
#include "cli/run_instrument.h"
#include "cli/run_io.h"
#include "core/limits.h"
#include "monitor/task_types.h"

struct run_config {
    struct task_options task;
    struct limit_set limits;
    const char *prefix;        /* reports are PREFIX.summary, .series, .files */
    char default_prefix[64];
    const char *name, *category;
    bool time_series, files_report;
    bool unmeasured_on_error;  /* run the command anyway when tally cannot measure it */
    char *command_text;        /* the command as one line, for the reports */
    char *shell_argv[4];       /* -c LINE → /bin/sh -c LINE */
    const char **measure_dirs;
    json_t *annotate;          /* --annotate: members added to the summary (e.g. "slurm") */
    struct run_archive_options archive; /* --archive, --limits-from-archive, --retry */
    struct run_agent_options agent;     /* --agent, --app */
    struct run_instrument_options instrument; /* --mpi, --probes, --window, --marker */
    struct run_io_options io;           /* --level 3 */
    json_t *summary;           /* the last attempt's summary, as written */
};

/* Fills cfg from argv. Returns -1 when the command should run, else the exit
 * status to return at once (0 after --help, 125 after a message on a bad option). */
int run_parse_options(int argc, char **argv, struct run_config *cfg);
/* Writes the summary (and series/files when asked). series is the writer
 * fed during the run, or NULL. *summary: the summary written (the caller's
 * reference; NULL when it could not be made). Returns 0, or -1 after a
 * message. */
struct series_writer;
int run_write_reports(const struct run_config *cfg, const struct task_result *result,
                      struct series_writer *series, json_t **summary);
/* The members added after the measured ones: the instrumentation's ("mpi",
 * "probes") and --annotate's. A new object (caller owns it). */
json_t *run_summary_extra(const struct run_config *cfg);
void run_config_free(struct run_config *cfg);

#endif
