/* Runs whose usage departs from their task's history, by a robust rule that
 * a few wild values cannot hide behind (Iglewicz and Hoaglin's modified
 * z-score): with m the median and MAD the median absolute deviation from m,
 *
 *     z = |x − m| / (1.4826 · MAD)        (1.4826 · MAD estimates σ for normal data)
 *
 * and a run is an outlier for a resource when z > 3.5. When MAD = 0 (more than
 * half the runs share one value) the scale is 1.2533 · mean|x − m| instead
 * (the mean absolute deviation, scaled the same way); when that is 0 too,
 * every run has the same value and none is an outlier. */
#ifndef TALLY_ARCHIVE_OUTLIERS_H
#define TALLY_ARCHIVE_OUTLIERS_H

#include <stddef.h>

#include "archive/history.h"

#define OUTLIER_DEFAULT_THRESHOLD 3.5

struct robust_center {
    double median;
    double scale; /* 0 when all values are equal */
};

/* Median and robust scale of n values (NANs skipped); values is not changed. */
int robust_center_of(const double *values, size_t n, struct robust_center *out);

struct outlier {
    size_t row;            /* in the history */
    size_t resource;       /* index in history.resources */
    double value, median, robust_z;
};

/* The outliers of every resource of h with z > threshold, largest z first.
 * Host properties (machine_cpus, machine_load) are not task usage and are
 * skipped. Returns the count (list in *out, malloc'd) or -1. */
long find_outliers(const struct history *h, double threshold, struct outlier **out);

#endif
