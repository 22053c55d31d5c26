/* 'tally run --level 3' (docs/io.md): libtally-io preloaded into every
 * process of the task with its region directory, and after the run the
 * per-file report PREFIX.files.json and the summary's "io" object. Kept
 * apart from run.c, which calls these hooks. */
#ifndef TALLY_CLI_RUN_IO_H
#define TALLY_CLI_RUN_IO_H

#include <jansson.h>
#include <limits.h>

struct run_io_options {
    char dir[PATH_MAX];  /* the regions of this run ("" below level 3) */
    json_t *summary_io;  /* the summary's "io", after the run */
};

struct run_config;
struct task_options;
struct task_result;
/* Level 3 for a task about to start (tally run, tally rm --with-inotify):
 * a new region directory in dir, task->level 3 and task->io_dir,
 * LD_PRELOAD and TALLY_IO_DIR set for the command. who names the option in
 * messages. -1 after a message (not with --pid; the helper not found). */
int run_io_preload(struct task_options *task, char *dir, size_t dir_size, const char *who);
/* Before the run: directory, TALLY_IO_DIR and LD_PRELOAD. -1 after a message. */
int run_io_prepare(struct run_config *cfg);
/* After the run: reads the regions, writes PREFIX.files.json, keeps the
 * summary object; the directory is emptied for a --retry attempt. -1 after
 * a message when the report could not be written. */
int run_io_collect(struct run_config *cfg, const struct task_result *result);
/* At the end: removes the directory. */
void run_io_end(struct run_config *cfg);

#endif
