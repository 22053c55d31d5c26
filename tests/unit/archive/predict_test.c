/* Unit tests for first-allocation job sizing (src/archive/predict.c) on
 * distributions whose best first allocation is worked out by hand. Waste of
 * a: Σ_{p≤a} (a−p)t + Σ_{p>a} (a·t + (M−p)t), divided by n. */
#include <math.h>

#include "archive/predict.h"
#include "test.h"

int main(void)
{
    struct prediction p;

    /* 90 tasks peak 100, 10 tasks peak 1000, all t = 1, M = 1000.
     * a = 100: 90·0 + 10·(100 + 0) = 1000 → 10 per task, retries 10 %.
     * a = 1000: 90·900 = 81000 → 810 per task. Best: 100. */
    double peaks[100];
    for (int i = 0; i < 100; i++)
        peaks[i] = i < 90 ? 100 : 1000;
    CHECK_INT(predict_first_allocation(peaks, NULL, 100, 0.95, &p), 0);
    CHECK_NEAR(p.best.allocation, 100, 0);
    CHECK_NEAR(p.best.expected_waste, 10, 1e-9);
    CHECK_NEAR(p.best.retry_rate, 0.10, 1e-12);
    CHECK_NEAR(p.always_max.allocation, 1000, 0);
    CHECK_NEAR(p.always_max.expected_waste, 810, 1e-9);
    CHECK_NEAR(p.always_max.retry_rate, 0, 0);
    /* p95 of the peaks is 1000 (positions 89.. are 1000 from index 90) */
    CHECK_NEAR(p.quantile.allocation, 1000, 0);
    CHECK_INT(p.samples, 100);

    /* 1 task at 990, 99 at 1000: a = 990 → 99·990 = 98010; a = 1000 →
     * 1·10 = 10. Best: the maximum. */
    for (int i = 0; i < 100; i++)
        peaks[i] = i == 0 ? 990 : 1000;
    predict_first_allocation(peaks, NULL, 100, 0.95, &p);
    CHECK_NEAR(p.best.allocation, 1000, 0);
    CHECK_NEAR(p.best.expected_waste, 0.1, 1e-9);
    CHECK_NEAR(p.best.retry_rate, 0, 0);

    /* three levels, the middle one best: 50 at 10, 45 at 20, 5 at 100.
     * a = 10:  50·0 + 45·(10 + 80) + 5·(10 + 0) = 4050 + 50 = 4100
     * a = 20:  50·10 + 45·0 + 5·(20 + 0) = 500 + 100 = 600
     * a = 100: 50·90 + 45·80 = 4500 + 3600 = 8100
     * Best 20, waste 6 per task, retries 5 %. */
    double three[100];
    for (int i = 0; i < 100; i++)
        three[i] = i < 50 ? 10 : i < 95 ? 20 : 100;
    predict_first_allocation(three, NULL, 100, 0.5, &p);
    CHECK_NEAR(p.best.allocation, 20, 0);
    CHECK_NEAR(p.best.expected_waste, 6, 1e-9);
    CHECK_NEAR(p.best.retry_rate, 0.05, 1e-12);
    CHECK_NEAR(p.always_max.expected_waste, 81, 1e-9);
    /* the median baseline: a = p50 = 15 (between 10 and 20):
     * 50·5 + 45·(15 + 80) + 5·(15 + 0) = 250 + 4275 + 75 = 4600 → 46 */
    CHECK_NEAR(p.quantile.allocation, 15, 1e-12);
    CHECK_NEAR(p.quantile.expected_waste, 46, 1e-9);
    CHECK_NEAR(p.quantile.retry_rate, 0.5, 1e-12);

    /* runtimes weigh the waste: 2 tasks, peak 10 for 100 s and peak 20 for
     * 1 s; M = 20. a = 10: 0 + (10·1 + 0) = 10 → 5; a = 20: 10·100 = 1000
     * → 500. With equal weights a = 20 would win (a=10: 10/2 = 5 vs a=20:
     * 10/2 = 5, a tie, which goes to the larger allocation). */
    double two[] = {10, 20}, runtime[] = {100, 1};
    predict_first_allocation(two, runtime, 2, 0.95, &p);
    CHECK_NEAR(p.best.allocation, 10, 0);
    CHECK_NEAR(p.best.expected_waste, 5, 1e-9);
    predict_first_allocation(two, NULL, 2, 0.95, &p);
    CHECK_NEAR(p.best.allocation, 20, 0);
    CHECK_NEAR(p.best.expected_waste, 5, 1e-9);

    CHECK_INT(predict_first_allocation(two, NULL, 0, 0.95, &p), -1);

    /* every run fits its allocation exactly: no waste, and never a negative
     * or -0 one from rounding of the prefix sums (0.3·0.7 summed three ways) */
    double same[] = {0.1, 0.3, 0.1, 0.2, 0.1}, t[] = {0.7, 0.3, 1.1, 0.9, 0.7};
    double one[] = {0.3, 0.3, 0.3}, w[] = {0.7, 0.7, 0.7}; /* 0.3·2.1 − Σ 0.21 = −1.1e-16 */
    predict_first_allocation(one, w, 3, 0.95, &p);
    CHECK_INT(p.best.expected_waste == 0 && !signbit(p.best.expected_waste), 1);
    CHECK_INT(p.always_max.expected_waste == 0 && !signbit(p.always_max.expected_waste), 1);
    predict_first_allocation(same, t, 5, 0.5, &p);
    CHECK_INT(p.best.expected_waste >= 0 && !signbit(p.best.expected_waste), 1);
    CHECK_INT(p.quantile.expected_waste >= 0 && !signbit(p.quantile.expected_waste), 1);
    return test_done();
}
