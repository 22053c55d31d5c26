/* Descriptive statistics (see stats.h). */
#include "archive/stats.h"

#include <math.h>
#include <string.h>

#include "archive/quicksort.h"

DEFINE_QUICKSORT(sort_doubles, double, KEY_SELF)

void stats_sort(double *a, size_t n) { sort_doubles(a, n); }

double stats_quantile(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

void stats_select(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        double x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi];
        double pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        /* now a[lo..j] <= pivot <= a[i..hi], and j < i */
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return; /* a[k] == pivot, in place */
    }
}

/* Quantiles in increasing order without a full sort: each selection leaves
 * everything after position lo no smaller, so the next one searches there. */
static double select_quantile(double *a, size_t n, double q, size_t *searched_from)
{
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo < *searched_from)
        lo = *searched_from;
    stats_select(a + *searched_from, n - *searched_from, lo - *searched_from);
    *searched_from = lo;
    if (lo + 1 >= n)
        return a[lo];
    double next = a[lo + 1];
    for (size_t i = lo + 2; i < n; i++)
        if (a[i] < next)
            next = a[i];
    return a[lo] + (h - (double)lo) * (next - a[lo]);
}

size_t stats_compute(double *values, size_t n, struct resource_stats *out)
{
    memset(out, 0, sizeof *out);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(values[i]))
            values[m++] = values[i];
    out->count = m;
    out->mean = out->std = out->skewness = out->kurtosis = NAN;
    out->min = out->p50 = out->p90 = out->p95 = out->p99 = out->max = NAN;
    if (m == 0)
        return 0;
    double sum = 0, lowest = values[0], highest = values[0];
    for (size_t i = 0; i < m; i++) {
        sum += values[i];
        if (values[i] < lowest)
            lowest = values[i];
        if (values[i] > highest)
            highest = values[i];
    }
    double mean = sum / (double)m;
    double s2 = 0, s3 = 0, s4 = 0;
    for (size_t i = 0; i < m; i++) {
        double d = values[i] - mean, d2 = d * d;
        s2 += d2;
        s3 += d2 * d;
        s4 += d2 * d2;
    }
    double m2 = s2 / (double)m, m3 = s3 / (double)m, m4 = s4 / (double)m;
    out->mean = mean;
    if (m > 1)
        out->std = sqrt(s2 / (double)(m - 1));
    if (m2 > 0) {
        out->skewness = m3 / pow(m2, 1.5);
        out->kurtosis = m4 / (m2 * m2) - 3;
    }
    out->min = lowest;
    out->max = highest;
    size_t searched_from = 0;
    out->p50 = select_quantile(values, m, 0.50, &searched_from);
    out->p90 = select_quantile(values, m, 0.90, &searched_from);
    out->p95 = select_quantile(values, m, 0.95, &searched_from);
    out->p99 = select_quantile(values, m, 0.99, &searched_from);
    double width = (out->max - out->min) / STATS_HISTOGRAM_BINS;
    for (size_t i = 0; i < m; i++) {
        size_t bin = width > 0 ? (size_t)((values[i] - out->min) / width) : 0;
        if (bin >= STATS_HISTOGRAM_BINS)
            bin = STATS_HISTOGRAM_BINS - 1;
        out->histogram[bin]++;
    }
    return m;
}
