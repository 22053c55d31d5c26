/* Unit tests for the archive's statistics (src/archive/stats.c): a data set
 * whose moments and percentiles are worked out by hand below, and random data
 * checked against a direct (sort-everything, one-formula) computation. */
#include <stdlib.h>

#include "archive/stats.h"
#include "test.h"

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    /* {2,4,4,4,5,5,7,9}: mean 5; deviations -3,-1,-1,-1,0,0,2,4;
     * Σd² = 32, Σd³ = 42, Σd⁴ = 356; n = 8.
     * std = sqrt(32/7); m2 = 4, m3 = 5.25, m4 = 44.5;
     * g1 = 5.25 / 4^1.5 = 0.65625; g2 = 44.5 / 16 − 3 = −0.21875.
     * p50: h = 3.5 → 4 + 0.5·(5−4) = 4.5; p90: h = 6.3 → 7 + 0.3·2 = 7.6;
     * p95: h = 6.65 → 7 + 0.65·2 = 8.3; p99: h = 6.93 → 8.86. */
    double data[] = {5, 9, 4, 2, 4, 7, 5, 4};
    struct resource_stats s;
    CHECK_INT(stats_compute(data, 8, &s), 8);
    CHECK_NEAR(s.mean, 5, 1e-12);
    CHECK_NEAR(s.std, sqrt(32.0 / 7), 1e-12);
    CHECK_NEAR(s.skewness, 0.65625, 1e-12);
    CHECK_NEAR(s.kurtosis, -0.21875, 1e-12);
    CHECK_NEAR(s.min, 2, 0);
    CHECK_NEAR(s.max, 9, 0);
    CHECK_NEAR(s.p50, 4.5, 1e-12);
    CHECK_NEAR(s.p90, 7.6, 1e-12);
    CHECK_NEAR(s.p95, 8.3, 1e-12);
    CHECK_NEAR(s.p99, 8.86, 1e-12);
    size_t total = 0;
    for (int b = 0; b < STATS_HISTOGRAM_BINS; b++)
        total += s.histogram[b];
    CHECK_INT(total, 8);
    CHECK_INT(s.histogram[0], 1);                        /* the 2 */
    CHECK_INT(s.histogram[STATS_HISTOGRAM_BINS - 1], 1); /* the 9 */

    /* missing values (NAN) are left out */
    double with_missing[] = {NAN, 1, 3, NAN};
    CHECK_INT(stats_compute(with_missing, 4, &s), 2);
    CHECK_NEAR(s.mean, 2, 1e-12);
    CHECK_NEAR(s.std, sqrt(2.0), 1e-12);

    /* undefined cases: one value (no n−1 std), constant (no shape) */
    double one[] = {7};
    stats_compute(one, 1, &s);
    CHECK(isnan(s.std));
    CHECK_NEAR(s.p99, 7, 0);
    double same[] = {3, 3, 3};
    stats_compute(same, 3, &s);
    CHECK_NEAR(s.std, 0, 0);
    CHECK(isnan(s.skewness) && isnan(s.kurtosis));

    /* random data with many ties against the direct computation */
    srand(42);
    enum { N = 100001 };
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
    for (int i = 0; i < N; i++)
        a[i] = b[i] = c[i] = (double)(rand() % 997) + (i % 3 ? 0.25 : 0);
    qsort(b, N, sizeof *b, compare_doubles);
    stats_sort(c, N);
    int sorted_same = 1;
    for (int i = 0; i < N; i++)
        sorted_same &= b[i] == c[i];
    CHECK(sorted_same);
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += b[i];
    double mean = sum / N, s2 = 0, s3 = 0, s4 = 0;
    for (int i = 0; i < N; i++) {
        double d = b[i] - mean;
        s2 += d * d;
        s3 += d * d * d;
        s4 += d * d * d * d;
    }
    stats_compute(a, N, &s);
    CHECK_NEAR(s.mean, mean, 1e-9);
    CHECK_NEAR(s.std, sqrt(s2 / (N - 1)), 1e-9);
    CHECK_NEAR(s.skewness, (s3 / N) / pow(s2 / N, 1.5), 1e-9);
    CHECK_NEAR(s.kurtosis, (s4 / N) / ((s2 / N) * (s2 / N)) - 3, 1e-9);
    /* N−1 = 100000, so the quantile positions are exact integers plus the interpolation */
    CHECK_NEAR(s.p50, b[50000], 1e-12);
    CHECK_NEAR(s.p90, b[90000], 1e-12);
    CHECK_NEAR(s.p99, b[99000], 1e-12);
    CHECK_NEAR(s.min, b[0], 0);
    CHECK_NEAR(s.max, b[N - 1], 0);
    CHECK_NEAR(stats_quantile(b, N, 0.955), b[95500], 1e-12);
    CHECK_NEAR(stats_quantile(b, 4, 0.5), (b[1] + b[2]) / 2, 1e-12);
    free(a);
    free(b);
    free(c);
    return test_done();
}
