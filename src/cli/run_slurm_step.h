/* One MPI summary for a whole Slurm step (tally-slurm(7), --tally-mpi).
 * Slurm's plugin runs each task under a 'tally run --mpi' of its own, so
 * each run holds one rank and writes that rank's summary. At the end of
 * each run:
 *   - every rank's run but the gatherer's moves its rank's segment into a
 *     fresh private directory and hands it to its node's agent under the
 *     step's launch label "slurm-JOB-STEP" ({"op": "launch_keep"},
 *     src/agent/agent_launch.c);
 *   - the gatherer, the run of the step's task 0 (SLURM_PROCID=0), gathers
 *     every other rank from the agents as 'tally run --mpi' does on a launch
 *     host (src/client/launch_gather.h: the socket locally, NATS across
 *     nodes, clocks aligned), asking again every 0.1 s since its peers may
 *     end after it, until all are in hand or $TALLY_GATHER_TIMEOUT seconds
 *     (default 5) have passed, and writes PREFIX.mpi.summary and
 *     PREFIX.mpi.paje, PREFIX being $TALLY_SLURM_STEP_PREFIX (the plugin's
 *     DIR/slurm-JOB.STEP). Ranks missing are named there.
 * Nothing here fails the task: a problem is one line on stderr. */
#ifndef TALLY_CLI_RUN_SLURM_STEP_H
#define TALLY_CLI_RUN_SLURM_STEP_H

#include <stddef.h>

#include "instrument/segments.h"

struct run_config;

/* The step's MPI world label, "slurm-JOB-STEP" from SLURM_JOB_ID and
 * SLURM_STEP_ID, into out; -1 (out "") outside a step. */
int run_slurm_step_world(char *out, size_t size);
/* After the run of a Slurm rank (TALLY_SLURM_MPI=1, --mpi), with its
 * segments in set (left as they are): hands the rank over, or gathers the
 * step. Does nothing in any other run. */
void run_slurm_step_collect(struct run_config *cfg, const struct segment_set *set);

#endif
