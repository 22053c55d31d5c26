/* 'tally run': options → task (monitor/task.h) → reports (report/). See
 * man/tally-run.1. Exit status: the task's own; 128+N when it died of signal
 * N; 124 when a limit was broken; 125 for tally's errors (the command is not
 * run after a bad option); 126/127 when the command cannot be executed / is
 * not found (a summary is still written). */
#include "cli/run.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/run_archive.h"
#include "monitor/task.h"
#include "agent/host_series.h"
#include "report/files.h"
#include "platform/platform.h"
#include "report/series.h"
#include "report/summary.h"
#include "util/error.h"

static const char usage_text[] =
    "usage: tally run [options] -- COMMAND [ARGS...]\n"
    "       tally run [options] -c 'shell line'\n"
    "       tally run [options] --pid PID\n"
    "\n"
    "Runs COMMAND, follows every process it starts, and writes PREFIX.summary (JSON).\n"
    "\n"
    "  -o, --output PREFIX     report prefix (default tally-<pid> in the current directory)\n"
    "      --time-series       also write PREFIX.series\n"
    "      --files             also write PREFIX.files: files the task had open at a\n"
    "                          sample or a process exit (not every file it opened)\n"
    "      --limits LIST       e.g. 'memory: 2 GB, wall_time: 10 min, disk: 1 GB'\n"
    "      --limits-file FILE  one 'field: value' per line, # comments\n"
    "      --measure-only      report broken limits, never stop the task\n"
    "      --wait-for-all      wait for processes left when the command exits\n"
    "                          (default: terminate them)\n"
    "      --interval TIME     sampling interval (default 1 s; shorter near limits)\n"
    "      --level 1|2|3       1: /proc polling; 2: process events (default);\n"
    "                          3: also every file's I/O (PREFIX.files.json)\n"
    "      --measure-dir DIR   directory whose footprint is 'disk' (repeatable;\n"
    "                          default: the current directory)\n"
    "      --kill-grace TIME   between SIGTERM and SIGKILL when stopping (default 2 s)\n"
    "      --name NAME         task name recorded in the summary\n"
    "      --category CAT      task category recorded in the summary\n"
    "      --unmeasured-on-error  tally's errors never change the command's fate: when\n"
    "                          it cannot measure (no MPI library, ...) it says why and\n"
    "                          runs the command unmeasured; when a report cannot be\n"
    "                          written the exit status is still the command's\n"
    "                          (batch systems: tally-slurm(7))\n"
    "      --annotate JSON     a JSON object whose members are added to the summary\n"
    "                          (e.g. '{\"slurm\": {\"job_id\": 12}}'; tally-slurm(7))\n"
    "  -c LINE                 run LINE with /bin/sh -c\n"
    "      --pid PID           follow a running process tree (level 1)\n"
    RUN_ARCHIVE_USAGE
    RUN_AGENT_USAGE
    RUN_INSTRUMENT_USAGE
    "  -h, --help              this help\n"
    "\n"
    "Environment: TALLY_SPIN_US, the longest poll for the next process event in\n"
    "bursts, in microseconds (default 300; 0: never poll; see tally-run(1)).\n\n"
    "Killed with SIGKILL, tally leaves nothing of the task running (level 2: the\n"
    "kernel ends traced processes; level 1: a 'tally-guardian' process does, or\n"
    "with --agent the agent that follows the tree).\n\n"
    "Exit status: the command's; 128+N if it died of signal N; 124 if a limit was\n"
    "broken (one line on stderr says which, and the value reached); 125 tally\n"
    "error; 126 cannot execute; 127 not found.\n";

enum {
    OPT_TIME_SERIES = 256, OPT_FILES, OPT_LIMITS, OPT_LIMITS_FILE, OPT_MEASURE_ONLY,
    OPT_WAIT_FOR_ALL, OPT_INTERVAL, OPT_LEVEL, OPT_MEASURE_DIR, OPT_NAME, OPT_CATEGORY,
    OPT_PID, OPT_KILL_GRACE, OPT_ANNOTATE, OPT_UNMEASURED_ON_ERROR,
};

static const struct option long_options[] = {
    {"output", required_argument, 0, 'o'},
    {"time-series", no_argument, 0, OPT_TIME_SERIES},
    {"files", no_argument, 0, OPT_FILES},
    {"limits", required_argument, 0, OPT_LIMITS},
    {"limits-file", required_argument, 0, OPT_LIMITS_FILE},
    {"measure-only", no_argument, 0, OPT_MEASURE_ONLY},
    {"wait-for-all", no_argument, 0, OPT_WAIT_FOR_ALL},
    {"interval", required_argument, 0, OPT_INTERVAL},
    {"level", required_argument, 0, OPT_LEVEL},
    {"measure-dir", required_argument, 0, OPT_MEASURE_DIR},
    {"kill-grace", required_argument, 0, OPT_KILL_GRACE},
    {"name", required_argument, 0, OPT_NAME},
    {"category", required_argument, 0, OPT_CATEGORY},
    {"pid", required_argument, 0, OPT_PID},
    {"annotate", required_argument, 0, OPT_ANNOTATE},
    {"unmeasured-on-error", no_argument, 0, OPT_UNMEASURED_ON_ERROR},
    {"help", no_argument, 0, 'h'},
    RUN_ARCHIVE_LONG_OPTIONS,
    RUN_AGENT_LONG_OPTIONS,
    RUN_INSTRUMENT_LONG_OPTIONS,
    {0, 0, 0, 0},
};

/* TALLY_SPIN_US: how long the level-2 tracer may poll for the next event
 * (see event_wait.c); microseconds, 0 to 10000. */
static int parse_spin_env(double *out)
{
    const char *text = getenv("TALLY_SPIN_US");
    if (!text || !*text) /* empty: as if unset */
        return 0;
    char *end;
    errno = 0;
    double us = strtod(text, &end);
    if (errno || end == text || *end || !(us >= 0 && us <= 10000)) {
        tally_error("TALLY_SPIN_US: '%s' is not a number of microseconds from 0 to 10000", text);
        return -1;
    }
    *out = us * 1e-6;
    return 0;
}

/* The optional DB operand of --archive / --limits-from-archive written as a
 * separate word ("--archive DB -- CMD", as users write it): the next word is
 * taken when it is not an option and the command is still to come after a
 * later "--" (so it cannot be the command itself). Returns the word or NULL. */
static const char *separate_optional_operand(int argc, char **argv)
{
    if (optind >= argc || argv[optind][0] == '-')
        return NULL;
    for (int i = optind + 1; i < argc; i++)
        if (!strcmp(argv[i], "--"))
            return argv[optind++];
    return NULL;
}

/* --annotate JSON: an object; members of later --annotate replace earlier
 * ones. The summary's own members cannot be replaced (they come first and
 * the annotation is added after them only where the name is new). */
static int parse_annotate(const char *text, struct run_config *cfg)
{
    json_error_t error;
    json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &error);
    if (!o || !json_is_object(o)) {
        tally_error("--annotate: %s", o ? "not a JSON object" : error.text);
        json_decref(o);
        return -1;
    }
    if (!cfg->annotate)
        cfg->annotate = json_object();
    json_object_update(cfg->annotate, o);
    json_decref(o);
    return 0;
}

int run_parse_options(int argc, char **argv, struct run_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    task_options_init(&cfg->task);
    limits_clear(&cfg->limits);
    const char *shell_line = NULL;
    size_t dirs = 0;
    char why[256];
    cfg->measure_dirs = calloc((size_t)argc + 1, sizeof *cfg->measure_dirs);
    if (!cfg->measure_dirs) {
        tally_error("run: out of memory");
        return TALLY_EXIT_ERROR;
    }
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+o:c:h", long_options, NULL)) != -1) {
        switch (c) {
        case 'o':
            cfg->prefix = optarg;
            break;
        case 'c':
            shell_line = optarg;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return TALLY_EXIT_OK;
        case OPT_TIME_SERIES:
            cfg->time_series = true;
            break;
        case OPT_FILES:
            cfg->files_report = true;
            break;
        case OPT_LIMITS:
            if (limits_parse(&cfg->limits, optarg, why, sizeof why) < 0) {
                tally_error("--limits: %s", why);
                return TALLY_EXIT_ERROR;
            }
            break;
        case OPT_LIMITS_FILE:
            if (limits_parse_file(&cfg->limits, optarg, why, sizeof why) < 0) {
                tally_error("--limits-file %s: %s", optarg, why);
                return TALLY_EXIT_ERROR;
            }
            break;
        case OPT_MEASURE_ONLY:
            cfg->task.measure_only = true;
            break;
        case OPT_WAIT_FOR_ALL:
            cfg->task.wait_for_all = true;
            break;
        case OPT_INTERVAL:
            if (run_parse_seconds("--interval", optarg, 0.01, &cfg->task.interval) < 0)
                return TALLY_EXIT_ERROR;
            break;
        case OPT_KILL_GRACE:
            if (run_parse_seconds("--kill-grace", optarg, 0, &cfg->task.kill_grace) < 0)
                return TALLY_EXIT_ERROR;
            break;
        case OPT_LEVEL:
            if (strcmp(optarg, "1") && strcmp(optarg, "2") && strcmp(optarg, "3")) {
                tally_error("--level: '%s' is not 1, 2 or 3", optarg);
                return TALLY_EXIT_ERROR;
            }
            cfg->task.level = optarg[0] - '0';
            break;
        case OPT_MEASURE_DIR:
            if (run_check_measure_dir("--measure-dir", optarg) < 0)
                return TALLY_EXIT_ERROR;
            cfg->measure_dirs[dirs++] = optarg;
            break;
        case OPT_NAME:
            cfg->name = optarg;
            break;
        case OPT_CATEGORY:
            cfg->category = optarg;
            break;
        case OPT_PID:
            if (run_parse_pid("--pid", optarg, &cfg->task.follow_pid) < 0)
                return TALLY_EXIT_ERROR;
            break;
        case OPT_UNMEASURED_ON_ERROR:
            cfg->unmeasured_on_error = true;
            break;
        case OPT_ANNOTATE:
            if (parse_annotate(optarg, cfg) < 0)
                return TALLY_EXIT_ERROR;
            break;
        default:
            if ((c == OPT_ARCHIVE || c == OPT_LIMITS_FROM_ARCHIVE || c == OPT_AGENT) && !optarg)
                optarg = (char *)separate_optional_operand(argc, argv);
            if (run_archive_option(c, optarg, &cfg->archive) == 0 ||
                run_agent_option(c, optarg, &cfg->agent) == 0)
                break;
            int handled = run_instrument_option(c, optarg, &cfg->instrument);
            if (handled == 0)
                break;
            if (handled < 0)
                return TALLY_EXIT_ERROR;
            run_unknown_option("run", argv);
            return TALLY_EXIT_ERROR;
        }
    }
    if (parse_spin_env(&cfg->task.event_poll) < 0)
        return TALLY_EXIT_ERROR;
    int rc = run_set_command(&cfg->task, cfg->shell_argv, shell_line, argv + optind, true, &cfg->command_text);
    if (rc == -1) {
        tally_error("run: give exactly one of COMMAND, -c LINE or --pid PID (see 'tally run --help')");
        return TALLY_EXIT_ERROR;
    }
    if (rc < 0) {
        tally_error("run: out of memory");
        return TALLY_EXIT_ERROR;
    }
    if (!cfg->prefix) {
        snprintf(cfg->default_prefix, sizeof cfg->default_prefix, "tally-%d", (int)getpid());
        cfg->prefix = cfg->default_prefix;
    }
    if (run_check_report_dir("-o", cfg->prefix) < 0)
        return TALLY_EXIT_ERROR;
    cfg->task.measure_dirs = dirs ? cfg->measure_dirs : NULL;
    cfg->task.measure_dir_count = dirs;
    cfg->task.limits = limits_any(&cfg->limits) ? &cfg->limits : NULL;
    cfg->task.track_files = cfg->files_report;
    return -1;
}

int run_write_reports(const struct run_config *cfg, const struct task_result *result,
                      struct series_writer *series, json_t **summary)
{
    int rc = 0;
    if (series && series_commit(series) < 0)
        rc = -1;
    json_t *extra = run_summary_extra(cfg);
    /* with --agent --app and no --name, the app names the task (the agent
     * files it under the app) */
    struct summary_info info = {
        .command = cfg->command_text,
        .name = cfg->name ? cfg->name : cfg->agent.enabled ? cfg->agent.app : NULL,
        .category = cfg->category,
        .limits = &cfg->limits,
        .extra = extra,
    };
    json_t *o = summary_to_json(&info, result);
    char *path = run_report_path(cfg->prefix, ".summary");
    if (!path || !o || summary_write_object(path, o, true) < 0)
        rc = -1;
    free(path);
    json_decref(extra);
    *summary = o;
    if (cfg->files_report && run_write_files_report(cfg->prefix, files_report_write, result) < 0)
        rc = -1;
    return rc;
}

json_t *run_summary_extra(const struct run_config *cfg)
{
    json_t *extra = json_object();
    if (cfg->instrument.summary_extra)
        json_object_update(extra, cfg->instrument.summary_extra);
    if (cfg->io.summary_io)
        json_object_set(extra, "io", cfg->io.summary_io);
    if (cfg->annotate)
        json_object_update_missing(extra, cfg->annotate);
    return extra;
}

void run_config_free(struct run_config *cfg)
{
    json_decref(cfg->annotate);
    cfg->annotate = NULL;
    free(cfg->command_text);
    free(cfg->measure_dirs);
    json_decref(cfg->summary);
    cfg->summary = NULL;
    cfg->command_text = NULL;
    cfg->measure_dirs = NULL;
}

/* One run of the task with its reports; the status 'tally run' exits with,
 * or -1 when the task could not be run at all (after a message). */
static int run_attempt(struct run_config *cfg, struct task_result *result)
{
    struct series_writer series;
    cfg->task.on_sample = NULL;
    if (cfg->time_series) {
        char *path = run_report_path(cfg->prefix, ".series");
        int rc = path ? series_open(&series, path, cfg->command_text) : -1;
        free(path);
        if (rc < 0)
            return -1;
        cfg->task.on_sample = host_series_append;
        cfg->task.sample_ctx = &series;
    }
    run_agent_hook_samples(cfg);
    if (task_run(&cfg->task, result) < 0) {
        if (cfg->time_series)
            series_abort(&series);
        return -1;
    }
    run_agent_take_followed(cfg, result);
    run_instrument_collect(cfg);
    int status = result->status;
    if (run_io_collect(cfg, result) < 0)
        status = TALLY_EXIT_ERROR;
    run_say_launch_error("run", &cfg->task, result);
    run_say_limits_broken("run", cfg->task.limits, result, cfg->task.measure_only);
    json_t *summary = NULL;
    if (run_write_reports(cfg, result, cfg->time_series ? &series : NULL, &summary) < 0 &&
        !cfg->unmeasured_on_error) /* then the task's status stands */
        status = TALLY_EXIT_ERROR;
    /* the summary written is the one the agent and the archive get */
    run_agent_after_attempt(cfg, result, summary);
    json_decref(cfg->summary);
    cfg->summary = summary;
    return status;
}

/* --unmeasured-on-error after tally's own error: the command replaces
 * tally run, with the status it would have had without tally. */
static void run_unmeasured(const struct run_config *cfg)
{
    tally_error("run: running %s unmeasured", cfg->task.argv[0]);
    fflush(stderr);
    execvp(cfg->task.argv[0], cfg->task.argv);
    int status = errno == ENOENT ? TALLY_EXIT_NOT_FOUND : TALLY_EXIT_CANNOT_EXEC;
    tally_error_errno("run: %s", cfg->task.argv[0]);
    exit(status);
}

int cmd_run(int argc, char **argv)
{
    struct run_config cfg;
    int status = run_parse_options(argc, argv, &cfg);
    if (status < 0 && (run_archive_prepare(&cfg) < 0 || run_agent_prepare(&cfg) < 0))
        status = TALLY_EXIT_ERROR;
    if (status < 0 && (run_instrument_prepare(&cfg) < 0 || run_io_prepare(&cfg) < 0))
        status = TALLY_EXIT_ERROR;
    if (status < 0)
        run_agent_announce_segments(&cfg);
    if (status >= 0) {
        run_agent_close(&cfg);
        run_instrument_end(&cfg);
        run_io_end(&cfg);
        if (status == TALLY_EXIT_ERROR && cfg.unmeasured_on_error && cfg.task.argv)
            run_unmeasured(&cfg); /* does not return */
        run_config_free(&cfg);
        return status;
    }
    cfg.task.interrupt = run_install_interrupt_handlers();
    for (int attempt = 1;; attempt++) {
        struct task_result result;
        status = run_attempt(&cfg, &result);
        if (status < 0) {
            status = TALLY_EXIT_ERROR;
            break;
        }
        bool again = run_archive_after_attempt(&cfg, &result, attempt, cfg.summary) &&
                     !*cfg.task.interrupt;
        task_result_free(&result);
        if (!again)
            break;
    }
    run_agent_close(&cfg);
    run_instrument_end(&cfg);
    run_io_end(&cfg);
    run_config_free(&cfg);
    return status;
}
