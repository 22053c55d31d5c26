/* Per-process readings of proc_get_info (proc_info.c).
 * Part of the agent; not a public interface. */
#ifndef TALLY_AGENT_PROC_INFO_H
#define TALLY_AGENT_PROC_INFO_H

#include "agent/agent_state.h"

/* proc_get_info's flag bits are request.h's proc_info_flag. */
/* The readings of pid selected by flags, or NULL with why (vanished). */
json_t *proc_info_json(struct agent *a, pid_t pid, unsigned flags, char *why,
                       size_t why_size);
/* When the machine booted, epoch seconds. */
double proc_boot_epoch(void);

#endif
