/* Level 3 seen live (agent_file_io.c): the per-file I/O that libtally-io
 * records in the regions of a task's processes, read from the directory
 * 'tally run --agent --level 3' announced. Part of the agent; not a public
 * interface. */
#ifndef TALLY_AGENT_AGENT_FILE_IO_H
#define TALLY_AGENT_AGENT_FILE_IO_H

#include <jansson.h>
#include <stdint.h>

#include "agent/agent_state.h"
#include "tally/io_segment.h"

/* proc_get_info's 0x200: {"files": [...], "interposed": bool} for process
 * pid of task t, the files as in PREFIX.files.json (largest first, Darshan's
 * counters, timestamps in seconds after the task's start; interposed: the
 * helper runs in it), or NULL when t has no level-3 directory (why says so). */
json_t *agent_file_io_of_process(const struct agent_task *t, pid_t pid, char *why, size_t why_size);
/* Every file's counters of task t merged into c (added to what c holds);
 * -1 when t has no level-3 directory or it cannot be read. */
int agent_file_io_totals(const struct agent_task *t, int64_t c[TALLY_IO_COUNTER_COUNT]);

#endif
