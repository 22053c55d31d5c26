/* First-allocation job sizing (the formula and its sources are in predict.h). */
#include "archive/predict.h"

#include <stdlib.h>
#include <string.h>

#include "archive/quicksort.h"
#include "archive/stats.h"

struct task {
    double peak, weight;
};

#define PEAK_OF(task) ((task).peak)
DEFINE_QUICKSORT(sort_by_peak, struct task, PEAK_OF)

/* Prefix sums over tasks sorted by peak: the waste of any allocation in O(log n). */
struct prefix {
    size_t n;
    const struct task *tasks;
    double *weight;      /* weight[k] = Σ_{i<k} t_i */
    double *peak_weight; /* Σ_{i<k} p_i t_i */
    double max_seen;
};

/* Number of tasks with peak ≤ a. */
static size_t count_fitting(const struct prefix *pf, double a)
{
    size_t lo = 0, hi = pf->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pf->tasks[mid].peak <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct allocation_outcome outcome_of(const struct prefix *pf, double a)
{
    size_t k = count_fitting(pf, a);
    double fit_weight = pf->weight[k], fit_peak_weight = pf->peak_weight[k];
    double over_weight = pf->weight[pf->n] - fit_weight;
    double over_peak_weight = pf->peak_weight[pf->n] - fit_peak_weight;
    /* s_i = t_i: the failed attempt costs a·t_i, the retry (M − p_i)·t_i */
    double waste = (a * fit_weight - fit_peak_weight) +
                   (a * over_weight + pf->max_seen * over_weight - over_peak_weight);
    /* Each term is ≥ 0; a difference of prefix sums can round below zero
     * (-3.55e-16 where every run fits exactly): a waste within rounding of
     * the sums' size is none, and never -0. */
    double size = (a + pf->max_seen) * pf->weight[pf->n] + pf->peak_weight[pf->n];
    if (!(waste > 1e-12 * size))
        waste = 0;
    struct allocation_outcome o = {a, waste / (double)pf->n, (double)(pf->n - k) / (double)pf->n};
    return o;
}

int predict_first_allocation(const double *peaks, const double *weights, size_t n,
                             double quantile, struct prediction *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return -1;
    struct task *tasks = malloc(n * sizeof *tasks);
    double *sorted = malloc(n * sizeof *sorted);
    struct prefix pf = {n, tasks, calloc(n + 1, sizeof(double)), calloc(n + 1, sizeof(double)), 0};
    if (!tasks || !sorted || !pf.weight || !pf.peak_weight) {
        free(tasks);
        free(sorted);
        free(pf.weight);
        free(pf.peak_weight);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        tasks[i].peak = peaks[i];
        tasks[i].weight = weights ? weights[i] : 1;
    }
    sort_by_peak(tasks, n);
    for (size_t i = 0; i < n; i++) {
        pf.weight[i + 1] = pf.weight[i] + tasks[i].weight;
        pf.peak_weight[i + 1] = pf.peak_weight[i] + tasks[i].peak * tasks[i].weight;
        sorted[i] = tasks[i].peak;
    }
    pf.max_seen = tasks[n - 1].peak;
    out->samples = n;
    out->max_seen = pf.max_seen;
    out->best = outcome_of(&pf, tasks[0].peak);
    for (size_t i = 1; i < n; i++) {
        if (tasks[i].peak == tasks[i - 1].peak)
            continue;
        struct allocation_outcome o = outcome_of(&pf, tasks[i].peak);
        if (o.expected_waste <= out->best.expected_waste)
            out->best = o;
    }
    out->always_max = outcome_of(&pf, pf.max_seen);
    out->quantile = outcome_of(&pf, stats_quantile(sorted, n, quantile));
    free(tasks);
    free(sorted);
    free(pf.weight);
    free(pf.peak_weight);
    return 0;
}

