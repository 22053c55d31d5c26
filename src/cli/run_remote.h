/* 'tally run --mpi|--probes' across hosts: what lets ranks started on other
 * hosts (by Open MPI's mpirun over ssh, MPICH's Hydra, srun) be measured
 * without changing the mpirun line, and the gathering of their figures at
 * the end (src/client/launch_gather.h). Kept apart from run_instrument.c,
 * which calls these hooks.
 *
 * Before the run, the environment of the launch: TALLY_LAUNCH (a fresh id),
 * TALLY_LAUNCH_HOST (this host's name), TALLY_EXE (this tally, which a
 * remote rank runs to attach itself to its host's agent), TALLY_APP (--app),
 * and for Open MPI, whose remote daemons start from a clean ssh login,
 * OMPI_MCA_mca_base_env_list naming them with LD_PRELOAD, TALLY_PROBE_DIR
 * and the window's variables (as -x would). Hydra and srun pass the whole
 * environment by default. */
#ifndef TALLY_CLI_RUN_REMOTE_H
#define TALLY_CLI_RUN_REMOTE_H

#include <jansson.h>
#include <stdbool.h>

#include "client/launch_gather.h"
#include "instrument/launch.h"
#include "instrument/mpi_summary.h"
#include "instrument/segments.h"

struct run_config;

/* After the instrumentation's own variables are set. -1 after a message. */
int run_remote_prepare(struct run_config *cfg, enum mpi_flavour flavour);
/* After the run, with the local segments in set: when ranks are missing
 * (fewer than the application's size, or none here), gathers them from the
 * agents into set (within $TALLY_GATHER_TIMEOUT seconds, default 5; how long it took: gather_time).
 * Returns {"hosts": [...], "missing_ranks": [...], "warning": "..."} to
 * fold into the summary's mpi object, or NULL when nothing was gathered. */
json_t *run_remote_gather(struct run_config *cfg, struct segment_set *set);
/* The same for any launch id (a Slurm step's "slurm-JOB-STEP"), the ranks
 * in set counted as in hand, as go says (launch_gather.h). */
json_t *run_remote_gather_launch(const char *launch, const struct launch_gather_options *go,
                                 struct segment_set *set);
/* $TALLY_GATHER_TIMEOUT (seconds, default 5). */
double run_remote_gather_timeout(void);
/* The `mpi` object of set (mpi_summary_json) with remote (what
 * run_remote_gather returned; stolen, may be NULL) folded in: hosts,
 * missing_ranks, gather_time, and its warning first among the warnings.
 * NULL when no rank is in set. */
json_t *run_remote_mpi_summary(const struct segment_set *set, const struct window_spec *w, json_t *remote);

#endif
