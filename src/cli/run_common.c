/* What 'tally run' and the resource_monitor front end share (see
 * run_common.h): option values, the command to run, report paths, interrupt
 * handlers, common messages. */
#include "cli/run_common.h"

#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform.h"
#include "util/command_line.h"
#include "util/error.h"
#include "core/units.h"

int run_parse_seconds(const char *option, const char *text, double min, double *out)
{
    char why[160];
    if (units_parse(text, DIM_TIME, NULL, out, why, sizeof why) < 0) {
        tally_error("%s: %s", option, why);
        return -1;
    }
    if (*out < min) {
        tally_error("%s: '%s' is too short (at least %g s)", option, text, min);
        return -1;
    }
    return 0;
}

int run_parse_pid(const char *option, const char *text, pid_t *out)
{
    pid_t pid;
    if (proc_pid_parse(text, &pid) < 0) {
        tally_error("%s: '%s' is not a pid (a number from 1 to %lld)", option, text, proc_pid_max());
        return -1;
    }
    if (kill(pid, 0) < 0) {
        if (errno == EPERM)
            tally_error("%s: process %d belongs to another user", option, (int)pid);
        else
            tally_error("%s: '%s' is not a running process", option, text);
        return -1;
    }
    *out = pid;
    return 0;
}

int run_check_measure_dir(const char *option, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) < 0) {
        tally_error_errno("%s %s", option, dir);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        tally_error("%s %s: not a directory", option, dir);
        return -1;
    }
    return 0;
}

int run_check_report_dir(const char *option, const char *prefix)
{
    char *copy = strdup(prefix);
    if (!copy) {
        tally_error("run: out of memory");
        return -1;
    }
    char *slash = strrchr(copy, '/');
    const char *dir = slash ? (slash == copy ? "/" : (*slash = '\0', copy)) : ".";
    int rc = access(dir, W_OK | X_OK);
    if (rc < 0)
        tally_error_errno("%s %s: cannot write reports in '%s'", option, prefix, dir);
    free(copy);
    return rc;
}

int run_set_command(struct task_options *task, char *shell_argv[4], const char *shell_line,
                    char **command, bool quote_words, char **command_text)
{
    int sources = (shell_line != NULL) + (*command != NULL) + (task->follow_pid > 0);
    if (sources != 1)
        return -1;
    if (shell_line) {
        shell_argv[0] = "/bin/sh";
        shell_argv[1] = "-c";
        shell_argv[2] = (char *)shell_line;
        task->argv = shell_argv;
        /* the line as written (JSON keeps its newlines), unless it is not text */
        *command_text = command_line_is_utf8(shell_line) ? strdup(shell_line) : command_line_quote(shell_argv);
    } else if (*command) {
        task->argv = command;
        *command_text = quote_words ? command_line_quote(command) : run_join_words(command);
        if (*command_text && !command_line_is_utf8(*command_text)) {
            free(*command_text);
            *command_text = command_line_quote(command);
        }
    } else {
        char text[64];
        snprintf(text, sizeof text, "--pid %d", (int)task->follow_pid);
        *command_text = strdup(text);
    }
    return *command_text ? 0 : -2;
}

char *run_join_words(char *const *words)
{
    size_t len = 1;
    for (char *const *w = words; *w; w++)
        len += strlen(*w) + 1;
    char *text = malloc(len);
    if (!text)
        return NULL;
    text[0] = '\0';
    for (char *const *w = words; *w; w++) {
        if (w != words)
            strcat(text, " ");
        strcat(text, *w);
    }
    return text;
}

char *run_report_path(const char *prefix, const char *suffix)
{
    size_t len = strlen(prefix) + strlen(suffix) + 1;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%s%s", prefix, suffix);
    return path;
}

int run_write_files_report(const char *prefix, int (*writer)(const char *path, const struct task_result *),
                           const struct task_result *result)
{
    char *path = run_report_path(prefix, ".files");
    int rc = !path || writer(path, result) < 0 ? -1 : 0;
    free(path);
    return rc;
}

/* SIGINT, SIGTERM, SIGHUP: end the task, still write the reports; counted,
 * so that a second one ends it at once. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    if (interrupted < 100)
        interrupted = interrupted + 1;
}

volatile sig_atomic_t *run_install_interrupt_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt; /* no SA_RESTART: waits return at once */
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time: the count stays right */
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    return &interrupted;
}

void run_unknown_option(const char *who, char **argv)
{
    if (optopt && optopt < 256)
        tally_error("%s: unknown or incomplete option '-%c' (see 'tally %s --help')", who, optopt, who);
    else
        tally_error("%s: unknown or incomplete option '%s' (see 'tally %s --help')", who,
                    argv[optind - 1], who);
}

void run_say_launch_error(const char *who, const struct task_options *task,
                          const struct task_result *result)
{
    if (result->launch_errno)
        tally_error("%s: %s: %s", who, task->argv[0],
                    result->launch_errno == ENOENT ? "command not found" : strerror(result->launch_errno));
}

/* A field's value as a short number with its unit ("301 MB", "0.52 s"). */
static void format_quantity(char *out, size_t len, int field, double value)
{
    const struct summary_field *f = summary_field_by_id(field);
    snprintf(out, len, "%.*g %s", fabs(value) >= 1000 ? 10 : 3, value, f->unit);
}

/* Totals that only grow (compared by their running total, not a peak). */
static bool is_total(int field)
{
    static const int totals[] = {
        FIELD_CPU_TIME, FIELD_BYTES_READ, FIELD_BYTES_WRITTEN, FIELD_BYTES_RECEIVED,
        FIELD_BYTES_SENT, FIELD_STORAGE_BYTES_READ, FIELD_STORAGE_BYTES_WRITTEN,
        FIELD_MAJOR_PAGE_FAULTS, FIELD_TOTAL_PROCESSES,
    };
    for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++)
        if (totals[i] == field)
            return true;
    return false;
}

size_t run_describe_limits_broken(char *out, size_t len, const struct limit_set *limits,
                                  const struct task_result *result)
{
    size_t used = 0;
    if (len)
        out[0] = '\0';
    for (int i = 0; i < FIELD_COUNT && limits; i++) {
        if (!result->limit_exceeded[i] || !limits->set[i])
            continue;
        char limit[64], value[64], how[96];
        format_quantity(limit, sizeof limit, i, limits->max[i]);
        format_quantity(value, sizeof value, i, result->value[i]);
        if (i == FIELD_WALL_TIME || result->peak_time[i] < 0)
            snprintf(how, sizeof how, "%s", value);
        else
            snprintf(how, sizeof how, "%s %s %s t+%.1f s", is_total(i) ? "total" : "peak", value,
                     is_total(i) ? "by" : "at", result->peak_time[i]);
        int n = snprintf(out + used, len - used, "%s%s limit %s exceeded (%s)", used ? ", " : "",
                         summary_field_by_id(i)->name, limit, how);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
    return used;
}

void run_say_limits_broken(const char *who, const struct limit_set *limits,
                           const struct task_result *result, bool measure_only)
{
    char line[1024];
    if (!run_describe_limits_broken(line, sizeof line, limits, result))
        return;
    if (measure_only)
        tally_error("%s: %s: measured only (--measure-only), task not stopped", who, line);
    else if (result->exit_type == TASK_EXIT_LIMITS)
        tally_error("%s: %s: task stopped", who, line);
}
