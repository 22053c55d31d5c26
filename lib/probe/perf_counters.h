/* The process's own hardware and software counters over the measurement
 * window and over the whole run (struct tally_seg_perf in
 * include/tally/segment.h), switched with the window: see perf_counters.c. */
#ifndef TALLY_LIB_PERF_COUNTERS_H
#define TALLY_LIB_PERF_COUNTERS_H

#include "segment_client.h"

/* At registration (the window configured): opens the run's counters, running
 * from now, and the window's, running from now when the window is already
 * open. Records in S what was refused and why. */
void tally__perf_open(struct tally_segment *s);
/* A window period opened / closed in this process (or a monitor's switch
 * was acknowledged): one ioctl per group; at the closing the window's
 * values, summed over its periods, are read into S. Both are idempotent. */
void tally__perf_window_on(void);
void tally__perf_window_off(struct tally_segment *s);
/* The measurement ends (MPI_Finalize's entry, or exit): the run's values
 * into S, every counter closed. Only the first call counts. */
TALLY_EXPORT void tally__perf_finish(struct tally_segment *s);
/* In a forked child: the inherited descriptors count the parent; drop them. */
void tally__perf_forget(void);

#endif
