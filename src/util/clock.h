/* Time as seconds in a double: monotonic (for durations and deadlines) and
 * wall clock (epoch, for reports). */
#ifndef TALLY_UTIL_CLOCK_H
#define TALLY_UTIL_CLOCK_H

double clock_monotonic_seconds(void);
/* CLOCK_MONOTONIC in whole nanoseconds: the clock of the instrumentation
 * segments (include/tally/segment.h). */
unsigned long long clock_monotonic_ns(void);
double clock_epoch_seconds(void);

#endif
