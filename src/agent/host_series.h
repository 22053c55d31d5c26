/* A time series row with the host's columns read now: the on_sample
 * callback (task_options.on_sample, ctx a struct series_writer) of every
 * writer of PREFIX.series, 'tally run --time-series' and the agent's
 * --time-series DIR alike, so that a trace from runs has the host's
 * capacities (cores, MemTotal, link speeds) and counters as they were. */
#ifndef TALLY_AGENT_HOST_SERIES_H
#define TALLY_AGENT_HOST_SERIES_H

#include "core/sample.h"

/* Appends sample to the struct series_writer ctx with the host read now
 * (the last reading again when the host cannot be read). */
void host_series_append(void *ctx, const struct task_sample *sample);

#endif
