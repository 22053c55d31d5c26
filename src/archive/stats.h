/* Descriptive statistics of one resource over a task's history, with the
 * definitions the archive documents: standard deviation with n−1; skewness
 * g1 = m3 / m2^1.5 and excess kurtosis g2 = m4 / m2² − 3 (biased moments,
 * as scipy.stats.skew / kurtosis do by default); percentiles by linear
 * interpolation between order statistics (numpy's default). */
#ifndef TALLY_ARCHIVE_STATS_H
#define TALLY_ARCHIVE_STATS_H

#include <stddef.h>

#define STATS_HISTOGRAM_BINS 20

struct resource_stats {
    size_t count;
    double mean, std, skewness, kurtosis; /* NAN when undefined (n < 2, constant) */
    double min, p50, p90, p95, p99, max;
    size_t histogram[STATS_HISTOGRAM_BINS]; /* equal-width bins over [min, max] */
};

/* Fills out from values, which it reorders (NANs, i.e. missing, are dropped
 * first; percentiles by selection, not a full sort). Returns the count of
 * values used. */
size_t stats_compute(double *values, size_t n, struct resource_stats *out);

/* Sorts doubles ascending (a quicksort specialised for double: the archive
 * sorts 100k-value columns and qsort's indirect compare is the cost). */
void stats_sort(double *values, size_t n);

/* Reorders a[0..n) so that a[k] is the k-th smallest, nothing smaller after
 * it and nothing larger before it (quickselect). n > 0, k < n. */
void stats_select(double *a, size_t n, size_t k);

/* The q-quantile (0 ≤ q ≤ 1) of sorted values, linearly interpolated. */
double stats_quantile(const double *sorted, size_t n, double q);

#endif
