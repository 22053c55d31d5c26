/* The UTC day of a summary's start: the first half of its key in the
 * archive, and the day whose aggregates it joins. */
#ifndef TALLY_ARCHIVE_START_DAY_H
#define TALLY_ARCHIVE_START_DAY_H

#include <stdbool.h>

/* start_day of a summary without a start */
#define SUMMARY_NO_START_DAY (-1000000000LL)

/* The UTC day of a start (seconds since the epoch), SUMMARY_NO_START_DAY
 * when there is none or it is more than a billion days away. */
long long summary_start_day(bool has_start, double start);

#endif
