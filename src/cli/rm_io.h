/* 'tally rm --with-inotify' (resource_monitor's opened-files report) at
 * level 3: libtally-io preloaded into the task, and after it PREFIX.files
 * and the summary's input_files/output_files in resource_monitor's exact
 * layout, with the opens, reads and writes the helper counted. */
#ifndef TALLY_CLI_RM_IO_H
#define TALLY_CLI_RM_IO_H

#include <limits.h>
#include <stdbool.h>

struct task_options;
struct task_result;

struct rm_io {
    char dir[PATH_MAX];  /* the regions ("" when not at level 3) */
    char *input_files, *output_files; /* the summary's strings, after the run */
};

/* Level 3 for the task. 0 when on; -1 when it cannot be (--pid, the helper
 * missing): a line says so and the task runs at level 2, its .files from
 * /proc as before. */
int rm_io_prepare(struct rm_io *io, struct task_options *task);
/* After the run: reads the regions, writes files_path, keeps the summary's
 * strings. -1 after a message when the report could not be written. */
int rm_io_collect(struct rm_io *io, const struct task_result *result, const char *files_path);
void rm_io_end(struct rm_io *io);

#endif
