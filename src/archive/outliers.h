/* Runs whose usage departs from their task's history, by a robust rule that
 * a few wild values cannot hide behind (Iglewicz and Hoaglin's modified
 * z-score): with m the median and MAD the median absolute deviation from m,
 *
 *     z = |x − m| / (1.4826 · MAD)        (1.4826 · MAD estimates σ for normal data)
 *
 * and a run is an outlier for a resource when z > 3.5. When MAD = 0 (more than
 * half the runs share one value) the scale is 1.2533 · mean|x − m| instead
 * (the mean absolute deviation, scaled the same way); when that is 0 too,
 * every run has the same value and none is an outlier.
 *
 * Two more rules say what the z-score alone misses: a run above `ratio` times
 * its peers' median (default 10×: a wide, two-humped history has a large MAD
 * that can hide a runaway), and a run stopped by a limit (exit_type
 * "limits"), whatever its values: it did not finish, so its peak is only how
 * far it got. Each outlier says which rule flagged it. */
#ifndef TALLY_ARCHIVE_OUTLIERS_H
#define TALLY_ARCHIVE_OUTLIERS_H

#include <stddef.h>

#include "archive/history.h"

#define OUTLIER_DEFAULT_THRESHOLD 3.5
#define OUTLIER_DEFAULT_RATIO 10.0

struct robust_center {
    double median;
    double scale; /* 0 when all values are equal */
};

/* Median and robust scale of n values (NANs skipped); values is not changed. */
int robust_center_of(const double *values, size_t n, struct robust_center *out);

enum outlier_reason {
    OUTLIER_ROBUST_Z,    /* robust z > threshold */
    OUTLIER_RATIO,       /* value > ratio × median, z not above threshold */
    OUTLIER_LIMIT,       /* stopped by a limit (resource: none, SIZE_MAX) */
};

struct outlier {
    size_t row;            /* in the history */
    size_t resource;       /* index in history.resources; SIZE_MAX for OUTLIER_LIMIT */
    double value, median, robust_z;
    enum outlier_reason reason;
};

/* The outliers of every resource of h by the rules above, largest z first,
 * then the runs stopped by a limit (h loaded with_identity; otherwise their
 * exit types are unknown). Host properties (machine_cpus, machine_load) are
 * not task usage and are skipped. Returns the count (list in *out, malloc'd)
 * or -1. */
long find_outliers(const struct history *h, double threshold, double ratio,
                   struct outlier **out);

#endif
