/* What the resource_monitor front end (rm_compat.c) follows during a run,
 * sample by sample: the series rows (report/rm_series.h), the network
 * bandwidth that resource_monitor reports and the engine does not (from the
 * byte counts), and the snapshots of --snapshot-events (rm_snapshots.h). */
#ifndef TALLY_RMCOMPAT_RM_SAMPLING_H
#define TALLY_RMCOMPAT_RM_SAMPLING_H

#include <jansson.h>
#include <stdbool.h>

#include "rmcompat/rm_snapshots.h"
#include "monitor/task_types.h"
#include "report/series.h"

/* Zeroed, then the fields below the series set by the caller. */
struct rm_sampling {
    struct series_writer series;
    bool series_on, have_previous;
    double previous_time, previous_net_mb;
    double bandwidth_peak, bandwidth_peak_clock;
    /* --snapshot-events: the largest values since the last snapshot */
    struct rm_snapshots *watch;
    double window_start, window_max[FIELD_COUNT];
    json_t *snapshots;
    const char *prefix;
    bool pretty;
};

/* task_options.on_sample, with a struct rm_sampling as its context. */
void rm_sampling_on_sample(void *ctx, const struct task_sample *sample);
/* Seconds since the epoch now (the first snapshot window starts there). */
double rm_sampling_epoch_now(void);

#endif
