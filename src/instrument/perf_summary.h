/* The hardware and software counters of an instrumented run in its summary
 * (struct tally_seg_perf, counted inside each process by libtally-probe):
 *   per rank:  "counters": {"window": VALUES, "run": VALUES}
 *   the run:   "counters": {"hardware": "counted" | "absent: ..." | "refused: ...",
 *                           "software": ..., "kernel": "counted" | "excluded: ...",
 *                           "flops": "...", "window": SUMS, "run": SUMS}
 *   VALUES = {"task_clock": [s, "s"], "page_faults": n, "context_switches": n,
 *             and where hardware counted: "instructions": n, "cycles": n,
 *             "instructions_per_cycle": x}
 * The same objects are the probes object's "perf_counters" (per process and
 * for the run) in a --probes run.
 * "window" is absent when the window was not counted (never opened, or
 * switched by the monitor: --marker); "run" is registration (MPI_Init's
 * return) to MPI_Finalize's entry, or to exit. */
#ifndef TALLY_INSTRUMENT_PERF_SUMMARY_H
#define TALLY_INSTRUMENT_PERF_SUMMARY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "instrument/segments.h"

/* One process's "counters" object, or NULL when nothing was counted. */
json_t *perf_rank_json(const struct tally_seg_perf *p);
/* The run's "counters" object over SET's processes, or NULL when empty. */
json_t *perf_summary_json(const struct segment_set *set);
/* One line for the user when the hardware counters are not there (e.g.
 * "hardware counters absent: no hardware PMU on this machine (...); counting
 * task-clock, page faults and context switches"); false when they are. */
bool perf_summary_note(const json_t *counters, char *line, size_t len);

#endif
