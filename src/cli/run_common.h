/* What 'tally run' (run.c) and the resource_monitor front end (rm_compat.c)
 * share: checking their options' values, choosing the command to run, the
 * report paths, the interrupt handlers and the messages both print. WHO is
 * the command's name in messages ("run", "rm"); OPTION the option's name as
 * a message gives it ("--interval", "rm: --interval"). */
#ifndef TALLY_CLI_RUN_COMMON_H
#define TALLY_CLI_RUN_COMMON_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "monitor/task_types.h"

/* TEXT as seconds (units_parse), at least min; -1 after a message naming OPTION. */
int run_parse_seconds(const char *option, const char *text, double min, double *out);
/* TEXT as the pid of a running process; -1 after a message naming OPTION. */
int run_parse_pid(const char *option, const char *text, pid_t *out);
/* DIR must be a directory (--measure-dir); -1 after a message naming OPTION. */
int run_check_measure_dir(const char *option, const char *dir);
/* The directory of PREFIX must be writable before the task runs, not found
 * out after; -1 after a message naming OPTION. */
int run_check_report_dir(const char *option, const char *prefix);

/* What the task runs: exactly one of SHELL_LINE (run with /bin/sh -c, whose
 * argv is kept in SHELL_ARGV), the words of COMMAND, or task->follow_pid.
 * Sets task->argv and *command_text (the command as one line for the
 * reports, malloc'd): with QUOTE_WORDS the words quoted as a shell reads them
 * (command_line_quote), else joined by spaces as resource_monitor writes them
 * (quoted all the same when they are not UTF-8); a shell line as written,
 * quoted when it is not UTF-8. Returns 0; -1 when not exactly one was given;
 * -2 when out of memory. Prints nothing: the caller's message names its
 * options. */
int run_set_command(struct task_options *task, char *shell_argv[4], const char *shell_line,
                    char **command, bool quote_words, char **command_text);
/* The words joined by single spaces (malloc'd), or NULL when out of memory. */
char *run_join_words(char *const *words);
/* PREFIX followed by SUFFIX (malloc'd), or NULL when out of memory. */
char *run_report_path(const char *prefix, const char *suffix);
/* Writes PREFIX.files with WRITER; 0, or -1 (after the writer's message). */
int run_write_files_report(const char *prefix, int (*writer)(const char *path, const struct task_result *),
                           const struct task_result *result);

/* Handlers for SIGINT, SIGTERM, SIGHUP that count into the returned
 * counter (for task_options.interrupt); without SA_RESTART. */
volatile sig_atomic_t *run_install_interrupt_handlers(void);

/* The message for the option getopt_long just refused (argv[optind - 1]). */
void run_unknown_option(const char *who, char **argv);
/* When the command could not be started, says so now (the summary says it too). */
void run_say_launch_error(const char *who, const struct task_options *task,
                          const struct task_result *result);
/* The limits RESULT broke, as one phrase ("memory limit 100 MB exceeded
 * (peak 301 MB at t+0.4 s)", several joined by ", ") in OUT; its length, 0
 * when none was broken. */
size_t run_describe_limits_broken(char *out, size_t len, const struct limit_set *limits,
                                  const struct task_result *result);
/* When a limit was broken, says which, by how much and what was done, on one
 * line ("run: memory limit 100 MB exceeded (peak 301 MB at t+0.4 s): task
 * stopped"); the exit status stays the caller's. Nothing when none was. */
void run_say_limits_broken(const char *who, const struct limit_set *limits,
                           const struct task_result *result, bool measure_only);

#endif
