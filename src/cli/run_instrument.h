/* 'tally run' as the monitoring side of application instrumentation
 * (issue 9; docs/instrumentation.md):
 *   --mpi            preload libtally-mpi (Open MPI or MPICH, found from the
 *                    launcher or the program) into every rank; summary "mpi"
 *   --probes         collect libtally-probe segments (summary "probes")
 *   --window SPEC    'start=N,iterations=M,time=T,calls=C': record only from
 *                    marker hit N+1 for M iterations (or T, or C MPI calls)
 *   --marker SYMBOL  the iteration marker is function SYMBOL of the program,
 *                    counted by a uprobe (no source change, no relinking)
 * Kept apart from run.c, which calls these hooks (option, before the run,
 * after the run, at the end). */
#ifndef TALLY_CLI_RUN_INSTRUMENT_H
#define TALLY_CLI_RUN_INSTRUMENT_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>

#include "instrument/mpi_summary.h"

enum { OPT_MPI = 0x1200, OPT_PROBES, OPT_WINDOW, OPT_MARKER }; /* apart from run_agent.h's 0x1100 */

#define RUN_INSTRUMENT_LONG_OPTIONS                 \
    {"mpi", no_argument, 0, OPT_MPI},               \
    {"probes", no_argument, 0, OPT_PROBES},         \
    {"window", required_argument, 0, OPT_WINDOW},   \
    {"marker", required_argument, 0, OPT_MARKER}

#define RUN_INSTRUMENT_USAGE                                                               \
    "      --mpi               instrument an MPI program (mpirun/mpiexec, Open MPI or\n"      \
    "                          MPICH): libtally-mpi in every rank; summary 'mpi'\n"          \
    "      --probes            collect libtally-probe probes, counters and markers\n"       \
    "      --window SPEC       'start=N,iterations=M[,time=T][,calls=C]': measure M\n"      \
    "                          iterations after N hits of the iteration marker;\n"          \
    "                          'request' (with --agent): off until proc_record_start\n"      \
    "      --marker SYMBOL     the marker is function SYMBOL of the program (uprobe)\n"

struct instrument_session;
struct link_series;

struct run_instrument_options {
    bool mpi, probes;
    struct window_spec window;
    char dir[PATH_MAX];              /* the segment directory of this run */
    char launch[32];                 /* its launch id (run_remote.h) */
    struct instrument_session *session;
    struct link_series *series;      /* --mpi --time-series: link volumes over time */
    json_t *summary_extra;           /* {"mpi": ..., "probes": ...} for the summary */
    json_t *mpiio_files;             /* --mpi --level 3: this host's ranks' MPI-IO files
                                        with their own counters, for PREFIX.files.json */
};

/* Handles one of the options above. Returns 0 when c was one, -1 after a
 * message for a bad value, 1 when c is not one of them. */
int run_instrument_option(int c, const char *arg, struct run_instrument_options *o);

struct run_config;
/* Before the run: segment directory, environment (TALLY_PROBE_DIR,
 * LD_PRELOAD, the window) and the monitoring thread. -1 after a message. */
int run_instrument_prepare(struct run_config *cfg);
/* After the run: reads the segments into summary_extra and prints the
 * problems found, one line each. */
void run_instrument_collect(struct run_config *cfg);
/* At the end: stops the thread, removes the directory. */
void run_instrument_end(struct run_config *cfg);

#endif
