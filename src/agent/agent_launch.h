/* Ranks of launches on other hosts (agent_launch.c).
 * Part of the agent; not a public interface. */
#ifndef TALLY_AGENT_AGENT_LAUNCH_H
#define TALLY_AGENT_AGENT_LAUNCH_H

#include "agent/agent_state.h"

/* A rank of launch `launch` (tally run --mpi on another host) attached as
 * task t, its segment in dir (a directory of this user): kept for
 * agent_launch_ranks. 0, or -1 with why. */
int agent_launch_add(struct agent *a, struct agent_task *t, const char *launch, const char *dir,
                     char *why, size_t why_size);
/* {"op": "launch_keep", "launch": ID, "segments": DIR}: DIR (a private
 * directory of this user) holds segments of launch ID that outlive the run
 * that made them (a Slurm rank's, handed over for the step's gatherer):
 * kept, besides any other directory of that launch, until a launch_ranks
 * with "release", for two hours at most, or until the agent ends (then
 * removed). 0, or -1 with why. */
int agent_launch_keep(struct agent *a, const char *launch, const char *dir, char *why, size_t why_size);
/* {"op": "launch_ranks", "launch": ID, "release": bool}: one line per
 * segment of that launch on this host, then a done line (emit steals each
 * line). received: this host's CLOCK_MONOTONIC ns when the message came. */
void agent_launch_ranks(struct agent *a, const json_t *msg, uint64_t received,
                        void (*emit)(void *ctx, json_t *line), void *ctx);
void agent_launches_free(struct agent *a);

#endif
