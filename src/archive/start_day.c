/* The UTC day of a summary's start (start_day.h). */
#include "archive/start_day.h"

#include <math.h>

long long summary_start_day(bool has_start, double start)
{
    double day = floor(start / 86400);
    /* a start a billion days away is no day (found by summary_fuzz: 1e121
     * converted to a long long) */
    return has_start && day > SUMMARY_NO_START_DAY && day < -(double)SUMMARY_NO_START_DAY
               ? (long long)day : SUMMARY_NO_START_DAY;
}
