/* The engine's public interface: run (or follow) one task — a command and
 * every process it starts — measure what it uses, enforce its limits, and
 * return the result. Free of command-line and report concerns so that
 * 'tally run' and a later per-host agent share it.
 *
 *   struct task_options o; task_options_init(&o); o.argv = argv;
 *   struct task_result r;  task_run(&o, &r);  ... write reports ...
 *   task_result_free(&r);
 */
#ifndef TALLY_MONITOR_TASK_H
#define TALLY_MONITOR_TASK_H

#include "monitor/task_types.h"

/* Runs the task to its end. Returns 0 with *result filled (also when the
 * command could not be started: see launch_errno and status), or -1 when
 * tally itself failed before the task ran (a message was printed). */
int task_run(const struct task_options *options, struct task_result *result);

#endif
