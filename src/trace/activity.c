/* The idle periods of a category's server after it was active (see
 * activity.h): the activity signals of the category merged (active while any
 * is non-zero) and walked from breakpoint to breakpoint. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/activity.h"

static int by_value(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static bool active_at(const struct trace *t, const char *category, double time)
{
    for (size_t i = 0; i < t->n_activities; i++)
        if (!strcmp(t->activities[i].category, category) &&
            trace_signal_value_at(&t->activities[i].active, time) > 0)
            return true;
    return false;
}

int trace_idle_after_active(const struct trace *t, const char *category, struct trace_period **out,
                            size_t *n, int *server)
{
    *out = NULL;
    *n = 0;
    *server = -1;
    size_t n_times = 0;
    for (size_t i = 0; i < t->n_activities; i++)
        if (!strcmp(t->activities[i].category, category)) {
            if (*server < 0)
                *server = t->activities[i].container;
            n_times += t->activities[i].active.n;
        }
    if (n_times == 0)
        return 0;
    double *times = malloc(n_times * sizeof *times);
    struct trace_period *periods = malloc(n_times * sizeof *periods); /* one per change at most */
    if (!times || !periods) {
        free(times);
        free(periods);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < t->n_activities; i++)
        if (!strcmp(t->activities[i].category, category)) {
            memcpy(&times[k], t->activities[i].active.t, t->activities[i].active.n * sizeof *times);
            k += t->activities[i].active.n;
        }
    qsort(times, n_times, sizeof *times, by_value);
    bool was_active = false;
    size_t n_periods = 0;
    for (size_t i = 0; i < n_times; i++) {
        if (i > 0 && times[i] == times[i - 1])
            continue;
        bool now = active_at(t, category, times[i]);
        if (was_active && !now) /* went idle: a period opens */
            periods[n_periods++] = (struct trace_period){times[i], t->end};
        else if (!was_active && now && n_periods > 0)
            periods[n_periods - 1].to = times[i]; /* active again: it closes */
        was_active = now;
    }
    free(times);
    /* an idle period that starts at the trace's end is no period */
    while (n_periods > 0 && periods[n_periods - 1].from >= periods[n_periods - 1].to)
        n_periods--;
    if (n_periods == 0) {
        free(periods);
        return 0;
    }
    *out = periods;
    *n = n_periods;
    return 0;
}
