/* One point of a task's time series: what the engine hands its caller at
 * every regular interval, what 'run --agent' streams to the agent, and what
 * the series writer stores. Values are by field id, in summary units. */
#ifndef TALLY_CORE_SAMPLE_H
#define TALLY_CORE_SAMPLE_H

#include "core/fields.h"

struct task_sample {
    double wall_clock;              /* epoch seconds */
    double value[FIELD_COUNT];      /* summary units; see report/series.h for which are set */
    double current_processes;       /* processes alive now */
};

#endif
