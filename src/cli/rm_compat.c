/* 'tally rm', and tally started under resource_monitor's name: the command
 * line of cctools' resource_monitor (9.9) on tally's engine, so that
 * Makeflow (--monitor=DIR --monitor-exe=FILE) and Work Queue run tally for
 * every task, on every worker, without knowing it. tally answers to that
 * command line when its program name (argv[0]'s last part) starts with
 * "resource_monitor" (the build/resource_monitor symlink) or is
 * "cctools-monitor" (the name Makeflow and Work Queue give the monitor they
 * ship to a worker).
 *
 * Options map onto task_options (monitor/task.h); the reports are
 * resource_monitor's files, PREFIX.summary (report/rm_summary.h), .series
 * (report/rm_series.h) and .files (report/rm_files.h); what is followed
 * sample by sample is in rm_sampling.c. Exit status, as
 * resource_monitor's (Makeflow and Work Queue read 2 as "resources
 * exhausted"): 0 the command exited 0; 1 it exited non-zero or died of a
 * signal, or a bad option or limit (the command is not run); 2 a limit was
 * broken and the command stopped; 4 the monitor failed (the command cannot
 * be started, a report cannot be written). See man/tally-rm.1. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "rmcompat/rm_limits.h"
#include "rmcompat/rm_sampling.h"
#include "rmcompat/rm_snapshots.h"
#include "cli/rm_io.h"
#include "cli/run_common.h"
#include "monitor/task.h"
#include "report/rm_files.h"
#include "report/rm_series.h"
#include "report/rm_summary.h"
#include "util/directories.h"
#include "util/error.h"
#include "util/text_file.h"
#include "util/trim.h"
#include "version.h"

enum rm_exit {
    RM_EXIT_SUCCESS = 0,       /* the command exited 0 */
    RM_EXIT_TASK_ERROR = 1,    /* it exited non-zero or died of a signal */
    RM_EXIT_USAGE = 1,         /* a bad option: resource_monitor exits 1 too */
    RM_EXIT_OVERFLOW = 2,      /* a limit was broken (cctools' RM_OVERFLOW) */
    RM_EXIT_MONITOR_ERROR = 4, /* cctools' RM_MONITOR_ERROR */
};

static const char usage_text[] =
    "usage: tally rm [options] -- COMMAND [ARGS...]\n"
    "       tally rm [options] --sh 'shell line'\n"
    "       resource_monitor [options] -- COMMAND [ARGS...]   (tally under that name)\n"
    "\n"
    "resource_monitor's command line on tally's engine: runs COMMAND, follows every\n"
    "process it starts, and writes PREFIX.summary in resource_monitor's format.\n"
    "\n"
    "  -O, --with-output-files=PREFIX  report prefix (default resource-pid-<pid>)\n"
    "      --with-time-series          also write PREFIX.series\n"
    "      --with-inotify              also write PREFIX.files (the files the task opened,\n"
    "                                  counted at level 3) and the summary's input_files\n"
    "                                  and output_files\n"
    "  -V, --verbatim-to-summary='name: value'  a string field in the summary (repeatable)\n"
    "  -L, --limits='field: value, ...'  resource limits (repeatable); bare numbers\n"
    "                                  in summary units (MB, s), or with units (2 GB)\n"
    "  -l, --limits-file=FILE          one 'field: value' per line\n"
    "      --measure-only              report broken limits, never stop the task\n"
    "  -i, --interval=TIME             sampling interval (default 1 s)\n"
    "  -c, --sh=LINE                   run LINE with /bin/sh -c\n"
    "      --pid=PID                   follow a running process tree\n"
    "      --measure-dir=DIR           directory whose footprint is 'disk' (repeatable;\n"
    "                                  default: the current directory)\n"
    "      --without-disk-footprint    measure no directory\n"
    "      --no-pprint                 summary on one line\n"
    "  -d, --debug=SUBSYSTEM           log what the monitor does (to stderr, or -o)\n"
    "  -o, --debug-file=FILE           the log's file (:stderr, :stdout)\n"
    "      --accurate-short-processes, -f/--child-in-foreground: accepted (tally always\n"
    "                                  follows short processes; the task keeps the terminal)\n"
    "      --snapshot-events=FILE      snapshots when watched files change (see tally-rm(1))\n"
    "      --follow-chdir, --catalog=HOST, --catalog-task-name=N, --catalog-project=P,\n"
    "      --catalog-interval=S: accepted and ignored with a warning\n"
    "  -v, --version                   version\n"
    "  -h, --help                      this help\n"
    "\n"
    "Exit status: 0 the command exited 0; 1 it exited non-zero or died of a signal,\n"
    "or a bad option; 2 a limit was broken; 4 monitor error (command cannot run,\n"
    "report cannot be written). The command's own status is in the summary.\n";

enum {
    OPT_PID = 256, OPT_ACCURATE, OPT_MEASURE_ONLY, OPT_TIME_SERIES, OPT_INOTIFY, OPT_MEASURE_DIR,
    OPT_FOLLOW_CHDIR, OPT_WITHOUT_DISK, OPT_CATALOG_TASK, OPT_CATALOG_PROJECT, OPT_CATALOG,
    OPT_CATALOG_INTERVAL, OPT_NO_PPRINT, OPT_SNAPSHOT_EVENTS,
};

static const struct option long_options[] = {
    {"debug", required_argument, 0, 'd'},
    {"debug-file", required_argument, 0, 'o'},
    {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, 'v'},
    {"interval", required_argument, 0, 'i'},
    {"pid", required_argument, 0, OPT_PID},
    {"accurate-short-processes", no_argument, 0, OPT_ACCURATE},
    {"sh", required_argument, 0, 'c'},
    {"limits-file", required_argument, 0, 'l'},
    {"limits", required_argument, 0, 'L'},
    {"measure-only", no_argument, 0, OPT_MEASURE_ONLY},
    {"child-in-foreground", no_argument, 0, 'f'},
    {"with-output-files", required_argument, 0, 'O'},
    {"with-time-series", no_argument, 0, OPT_TIME_SERIES},
    {"with-inotify", no_argument, 0, OPT_INOTIFY},
    {"verbatim-to-summary", required_argument, 0, 'V'},
    {"measure-dir", required_argument, 0, OPT_MEASURE_DIR},
    {"follow-chdir", no_argument, 0, OPT_FOLLOW_CHDIR},
    {"without-disk-footprint", no_argument, 0, OPT_WITHOUT_DISK},
    {"catalog-task-name", required_argument, 0, OPT_CATALOG_TASK},
    {"catalog-project", required_argument, 0, OPT_CATALOG_PROJECT},
    {"catalog", required_argument, 0, OPT_CATALOG},
    {"catalog-interval", required_argument, 0, OPT_CATALOG_INTERVAL},
    {"no-pprint", no_argument, 0, OPT_NO_PPRINT},
    {"snapshot-events", required_argument, 0, OPT_SNAPSHOT_EVENTS},
    {0, 0, 0, 0},
};

struct rm_config {
    struct task_options task;
    struct limit_set limits;
    const char *prefix;
    char default_prefix[64];
    bool time_series, inotify, pretty, debug;
    const char *debug_file;
    char *command_text;
    char *shell_argv[4];
    const char **measure_dirs;
    size_t measure_dir_count;
    char **verbatim; /* -V copies, each cut in two: key at [i], value after its '\0' */
    const char **verbatim_keys, **verbatim_values;
    size_t verbatim_count;
    struct rm_snapshots *snapshot_events; /* --snapshot-events, or NULL */
    struct rm_io io;      /* --with-inotify at level 3 */
    bool io_on;
};


bool rm_compat_invoked_as(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    const char *name = slash ? slash + 1 : argv0;
    return !strncmp(name, "resource_monitor", strlen("resource_monitor")) ||
           !strcmp(name, "cctools-monitor");
}

/* -V 'name: value' (resource_monitor writes value as a string). */
static int add_verbatim(struct rm_config *cfg, const char *text)
{
    char *copy = strdup(text);
    if (!copy) {
        tally_error("rm: out of memory");
        return -1;
    }
    cfg->verbatim[cfg->verbatim_count] = copy;
    char *colon = strchr(copy, ':');
    char *key = colon ? (*colon = '\0', trim_space(copy)) : copy;
    if (!colon || !*key) {
        tally_error("rm: -V '%s': not 'name: value'", text);
        return -1;
    }
    cfg->verbatim_keys[cfg->verbatim_count] = key;
    cfg->verbatim_values[cfg->verbatim_count] = trim_space(colon + 1);
    cfg->verbatim_count++;
    return 0;
}

static int add_limits(struct rm_config *cfg, const char *option, const char *text)
{
    char why[256], skipped[256] = "";
    if (rm_limits_parse(&cfg->limits, text, why, sizeof why, skipped, sizeof skipped) < 0) {
        tally_error("rm: %s: %s", option, why);
        return -1;
    }
    if (*skipped)
        fprintf(stderr, "tally: rm: %s: not enforced by tally, ignored: %s\n", option, skipped);
    return 0;
}

/* The whole file (malloc'd, NUL-terminated), or NULL after a message. */
static char *read_whole_file(const char *option, const char *path)
{
    char why[160];
    char *text = text_file_read(path, TEXT_FILE_SMALL, NULL, why, sizeof why);
    if (!text)
        tally_error("rm: %s %s: %s", option, path, why);
    return text;
}

static int add_limits_file(struct rm_config *cfg, const char *path)
{
    char *text = read_whole_file("--limits-file", path);
    if (!text)
        return -1;
    char option[512];
    snprintf(option, sizeof option, "--limits-file %s", path);
    int rc = add_limits(cfg, option, text);
    free(text);
    return rc;
}

static int set_snapshot_events(struct rm_config *cfg, const char *path)
{
    char *text = read_whole_file("--snapshot-events", path);
    if (!text)
        return -1;
    char why[512];
    rm_snapshots_free(cfg->snapshot_events);
    cfg->snapshot_events = rm_snapshots_parse(text, why, sizeof why);
    free(text);
    if (!cfg->snapshot_events) {
        tally_error("rm: --snapshot-events %s: %s", path, why);
        return -1;
    }
    return 0;
}

static void warn_ignored(const char *option, const char *why)
{
    fprintf(stderr, "tally: rm: %s: %s; ignored\n", option, why);
}

/* Returns -1 when the command should run, else the exit status. */
static int parse_options(int argc, char **argv, struct rm_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    task_options_init(&cfg->task);
    limits_clear(&cfg->limits);
    cfg->pretty = true;
    size_t n = (size_t)argc + 1;
    cfg->measure_dirs = calloc(n, sizeof *cfg->measure_dirs);
    cfg->verbatim = calloc(n, sizeof *cfg->verbatim);
    cfg->verbatim_keys = calloc(n, sizeof *cfg->verbatim_keys);
    cfg->verbatim_values = calloc(n, sizeof *cfg->verbatim_values);
    if (!cfg->measure_dirs || !cfg->verbatim || !cfg->verbatim_keys || !cfg->verbatim_values) {
        tally_error("rm: out of memory");
        return RM_EXIT_MONITOR_ERROR;
    }
    const char *shell_line = NULL;
    bool catalog_warned = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+d:o:hvi:c:l:L:fO:V:", long_options, NULL)) != -1) {
        switch (c) {
        case 'd':
            cfg->debug = true;
            break;
        case 'o':
            cfg->debug_file = optarg;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return RM_EXIT_SUCCESS;
        case 'v':
            printf("tally %s, as resource_monitor (the command line of cctools' resource_monitor 9.9)\n",
                   TALLY_VERSION);
            return RM_EXIT_SUCCESS;
        case 'i':
            if (run_parse_seconds("rm: --interval", optarg, 0.01, &cfg->task.interval) < 0)
                return RM_EXIT_USAGE;
            break;
        case OPT_PID:
            if (run_parse_pid("rm: --pid", optarg, &cfg->task.follow_pid) < 0)
                return RM_EXIT_USAGE;
            cfg->task.level = 1;
            break;
        case OPT_ACCURATE: /* tally follows every process at level 2 anyway */
        case 'f':          /* the task keeps tally's terminal and process group */
            break;
        case 'c':
            shell_line = optarg;
            break;
        case 'l':
            if (add_limits_file(cfg, optarg) < 0)
                return RM_EXIT_USAGE;
            break;
        case 'L':
            if (add_limits(cfg, "-L", optarg) < 0)
                return RM_EXIT_USAGE;
            break;
        case OPT_MEASURE_ONLY:
            cfg->task.measure_only = true;
            break;
        case 'O':
            cfg->prefix = optarg;
            break;
        case OPT_TIME_SERIES:
            cfg->time_series = true;
            break;
        case OPT_INOTIFY:
            cfg->inotify = true;
            break;
        case 'V':
            if (add_verbatim(cfg, optarg) < 0)
                return RM_EXIT_USAGE;
            break;
        case OPT_MEASURE_DIR:
            if (run_check_measure_dir("rm: --measure-dir", optarg) < 0)
                return RM_EXIT_USAGE;
            cfg->measure_dirs[cfg->measure_dir_count++] = optarg;
            break;
        case OPT_FOLLOW_CHDIR:
            warn_ignored("--follow-chdir",
                         "tally measures the --measure-dir directories (default: the starting one)");
            break;
        case OPT_WITHOUT_DISK:
            cfg->task.skip_disk = true;
            break;
        case OPT_CATALOG_TASK:
        case OPT_CATALOG_PROJECT:
        case OPT_CATALOG:
        case OPT_CATALOG_INTERVAL:
            if (!catalog_warned)
                warn_ignored(argv[optind - 1], "tally sends no catalog updates");
            catalog_warned = true;
            break;
        case OPT_NO_PPRINT:
            cfg->pretty = false;
            break;
        case OPT_SNAPSHOT_EVENTS:
            if (set_snapshot_events(cfg, optarg) < 0)
                return RM_EXIT_USAGE;
            break;
        default:
            run_unknown_option("rm", argv);
            return RM_EXIT_USAGE;
        }
    }
    int rc = run_set_command(&cfg->task, cfg->shell_argv, shell_line, argv + optind, false, &cfg->command_text);
    if (rc == -1) {
        tally_error("rm: give exactly one of -- COMMAND, --sh LINE or --pid PID (see 'tally rm --help')");
        return RM_EXIT_USAGE;
    }
    if (rc < 0) {
        tally_error("rm: out of memory");
        return RM_EXIT_MONITOR_ERROR;
    }
    if (!cfg->prefix) {
        snprintf(cfg->default_prefix, sizeof cfg->default_prefix, "resource-pid-%d", (int)getpid());
        cfg->prefix = cfg->default_prefix;
    }
    cfg->task.measure_dirs = cfg->measure_dir_count ? cfg->measure_dirs : NULL;
    cfg->task.measure_dir_count = cfg->measure_dir_count;
    cfg->task.limits = limits_any(&cfg->limits) ? &cfg->limits : NULL;
    cfg->task.track_files = cfg->inotify;
    return -1;
}

static void free_config(struct rm_config *cfg)
{
    for (size_t i = 0; cfg->verbatim && cfg->verbatim[i]; i++)
        free(cfg->verbatim[i]);
    free(cfg->verbatim);
    free(cfg->verbatim_keys);
    free(cfg->verbatim_values);
    free(cfg->measure_dirs);
    free(cfg->command_text);
    rm_snapshots_free(cfg->snapshot_events);
}

/* The -d/-o log: stderr, stdout or a file; NULL when not asked for. */
static FILE *open_debug_log(const struct rm_config *cfg)
{
    if (!cfg->debug_file)
        return cfg->debug ? stderr : NULL;
    if (!strcmp(cfg->debug_file, ":stderr"))
        return stderr;
    if (!strcmp(cfg->debug_file, ":stdout"))
        return stdout;
    FILE *f = fopen(cfg->debug_file, "we");
    if (!f)
        tally_error_errno("rm: -o %s", cfg->debug_file);
    return f;
}

static void close_debug_log(FILE *log)
{
    if (log && log != stderr && log != stdout)
        fclose(log);
}

static int status_of(const struct task_result *r)
{
    if (r->launch_errno)
        return RM_EXIT_MONITOR_ERROR;
    if (r->exit_type == TASK_EXIT_LIMITS)
        return RM_EXIT_OVERFLOW;
    if (r->exit_type == TASK_EXIT_SIGNAL || r->exit_status != 0)
        return RM_EXIT_TASK_ERROR;
    return RM_EXIT_SUCCESS;
}

static int write_reports(struct rm_config *cfg, const struct task_result *r,
                         const struct rm_sampling *sm)
{
    int rc = 0;
    if (cfg->io_on) { /* PREFIX.files and the summary's file lists from the helper */
        char *files = run_report_path(cfg->prefix, ".files");
        if (!files || rm_io_collect(&cfg->io, r, files) < 0)
            rc = -1;
        free(files);
    }
    const char *category = NULL;
    for (size_t i = 0; i < cfg->verbatim_count; i++)
        if (!strcmp(cfg->verbatim_keys[i], "category"))
            category = cfg->verbatim_values[i];
    struct summary_info info = {
        .command = cfg->command_text,
        .category = category,
        .limits = &cfg->limits,
    };
    struct rm_summary_extra extra = {
        .verbatim_keys = cfg->verbatim_keys,
        .verbatim_values = cfg->verbatim_values,
        .verbatim_count = cfg->verbatim_count,
        .bandwidth = sm->bandwidth_peak,
        .bandwidth_peak_time = sm->have_previous && sm->bandwidth_peak > 0
                                   ? sm->bandwidth_peak_clock - r->value[FIELD_START]
                                   : 0,
        .disk_measured = !cfg->task.skip_disk,
        .snapshots = sm->snapshots,
        .input_files = cfg->io.input_files,
        .output_files = cfg->io.output_files,
    };
    char *path = run_report_path(cfg->prefix, ".summary");
    if (!path || rm_summary_write(path, &info, r, &extra, cfg->pretty) < 0)
        rc = -1;
    free(path);
    if (cfg->inotify && !cfg->io_on && run_write_files_report(cfg->prefix, rm_files_write, r) < 0)
        rc = -1;
    return rc;
}

static void log_start(FILE *log, const struct rm_config *cfg)
{
    if (!log)
        return;
    fprintf(log, "tally[%d] rm: tally %s as resource_monitor\n", (int)getpid(), TALLY_VERSION);
    fprintf(log, "tally[%d] rm: command: %s\n", (int)getpid(), cfg->command_text);
    fprintf(log, "tally[%d] rm: reports: %s.summary%s%s\n", (int)getpid(), cfg->prefix,
            cfg->time_series ? " .series" : "", cfg->inotify ? " .files" : "");
    for (int i = 0; i < FIELD_COUNT; i++)
        if (cfg->limits.set[i])
            fprintf(log, "tally[%d] rm: limit %s: %g %s%s\n", (int)getpid(), summary_field_by_id(i)->name,
                    cfg->limits.max[i], summary_field_by_id(i)->unit,
                    cfg->task.measure_only ? " (measure only)" : "");
    fflush(log);
}

/* resource_monitor says nothing on stderr when a limit stops the task (a
 * Makeflow rule's stderr may be the task's own output), so the reason goes
 * only to the -d/-o debug log, besides the summary's limits_exceeded. */
static void log_end(FILE *log, const struct rm_config *cfg, const struct task_result *r, int status)
{
    if (!log)
        return;
    char broken[1024];
    if (run_describe_limits_broken(broken, sizeof broken, &cfg->limits, r))
        fprintf(log, "tally[%d] rm: %s%s\n", (int)getpid(), broken,
                cfg->task.measure_only ? " (measure only)" : r->exit_type == TASK_EXIT_LIMITS ? ": task stopped" : "");
    fprintf(log, "tally[%d] rm: exit_type %s, exit_status %d, monitor status %d\n", (int)getpid(),
            r->exit_type == TASK_EXIT_LIMITS ? "limits" : r->exit_type == TASK_EXIT_SIGNAL ? "signal" : "normal",
            r->exit_status, status);
    fflush(log);
}

int cmd_rm(int argc, char **argv)
{
    struct rm_config cfg;
    int status = parse_options(argc, argv, &cfg);
    char why[512];
    if (status < 0 && make_parent_directories(cfg.prefix, why, sizeof why) < 0) {
        tally_error("rm: -O %s: %s", cfg.prefix, why); /* as resource_monitor, it makes them */
        status = RM_EXIT_MONITOR_ERROR;
    }
    if (status < 0 && run_check_report_dir("rm: -O", cfg.prefix) < 0)
        status = RM_EXIT_MONITOR_ERROR;
    if (status >= 0) {
        free_config(&cfg);
        return status;
    }
    FILE *log = open_debug_log(&cfg);
    if (cfg.debug_file && !log) {
        free_config(&cfg);
        return RM_EXIT_MONITOR_ERROR;
    }
    log_start(log, &cfg);
    struct rm_sampling sampling;
    memset(&sampling, 0, sizeof sampling);
    if (cfg.time_series) {
        char *path = run_report_path(cfg.prefix, ".series");
        int rc = path ? rm_series_open(&sampling.series, path) : -1;
        free(path);
        if (rc < 0) {
            close_debug_log(log);
            free_config(&cfg);
            return RM_EXIT_MONITOR_ERROR;
        }
        sampling.series_on = true;
    }
    sampling.watch = cfg.snapshot_events;
    sampling.snapshots = json_array();
    sampling.prefix = cfg.prefix;
    sampling.pretty = cfg.pretty;
    sampling.window_start = rm_sampling_epoch_now();
    cfg.task.on_sample = rm_sampling_on_sample;
    cfg.task.sample_ctx = &sampling;
    cfg.task.interrupt = run_install_interrupt_handlers();
    if (cfg.inotify && cfg.task.follow_pid <= 0 && rm_io_prepare(&cfg.io, &cfg.task) == 0) {
        cfg.io_on = true;
        cfg.task.track_files = false; /* the helper sees every open, not only those at samples */
    }
    struct task_result result;
    if (task_run(&cfg.task, &result) < 0) {
        rm_io_end(&cfg.io);
        if (sampling.series_on)
            series_abort(&sampling.series);
        json_decref(sampling.snapshots);
        close_debug_log(log);
        free_config(&cfg);
        return RM_EXIT_MONITOR_ERROR;
    }
    run_say_launch_error("rm", &cfg.task, &result);
    status = status_of(&result);
    if (sampling.series_on && series_commit(&sampling.series) < 0)
        status = RM_EXIT_MONITOR_ERROR;
    if (write_reports(&cfg, &result, &sampling) < 0)
        status = RM_EXIT_MONITOR_ERROR;
    log_end(log, &cfg, &result, status);
    rm_io_end(&cfg.io);
    json_decref(sampling.snapshots);
    close_debug_log(log);
    task_result_free(&result);
    free_config(&cfg);
    return status;
}
