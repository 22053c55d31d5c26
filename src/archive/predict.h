/* First-allocation job sizing (Tovar et al., "A job sizing strategy for
 * high-throughput scientific workflows", IEEE TPDS 29(2), 2018).
 *
 * Given the history of one task, for each resource: run the next task with a
 * first allocation a; if its peak p exceeds a it is stopped and retried with
 * the maximum seen, M. For task i with peak p_i, runtime t_i and time until it
 * would be stopped s_i, the waste of allocation a is
 *
 *     w_i(a) = (a − p_i) · t_i                   if p_i ≤ a  (allocated, unused)
 *     w_i(a) = a · s_i  +  (M − p_i) · t_i       if p_i > a  (the failed attempt,
 *                                                  then the retry at M)
 *
 * and the first allocation is the a among the observed peaks minimising the
 * expected waste E[w(a)] = (1/n) Σ w_i(a) (ties: the larger a, fewer
 * retries). The retry rate is the fraction of tasks with p_i > a. tally knows
 * only the peak of a finished task, not when it crossed a, so s_i = t_i (the
 * task is assumed stopped at the end of its run: the pessimistic case of the
 * paper). For the time resources (wall_time, cpu_time) t_i = s_i = 1: the
 * waste is then in seconds, and a run stopped at a has used a seconds.
 * Minimising this waste also maximises throughput: the resource·time a task
 * holds in total is w_i(a) + p_i t_i, and Σ p_i t_i does not depend on a, so
 * the a that wastes least is the a that leaves most room for other tasks.
 * Sorting the peaks and keeping prefix sums makes the search O(n log n).
 * A waste is never negative: rounding of the prefix sums is cut to 0. */
#ifndef TALLY_ARCHIVE_PREDICT_H
#define TALLY_ARCHIVE_PREDICT_H

#include <stdbool.h>
#include <stddef.h>

/* Below this many runs with a value, a resource has too little history for a
 * prediction: one run in ten above the rest is then the smallest retry rate
 * the history can show, and fewer runs give an allocation that the next
 * slightly larger run breaks (a five-run history gave a wall-time limit of
 * 0.215 s and two failed attempts). 'tally archive predict --min-runs' and
 * 'tally run --limits-from-archive' use it. */
#define PREDICT_MIN_RUNS 10

struct allocation_outcome {
    double allocation;
    double expected_waste; /* per task, in resource unit × s (or s for time) */
    double retry_rate;     /* fraction of tasks needing a second attempt */
};

struct prediction {
    size_t samples;
    double max_seen;
    struct allocation_outcome best;       /* minimises expected waste */
    struct allocation_outcome always_max; /* a = M: no retries */
    struct allocation_outcome quantile;   /* a = the given quantile of the peaks */
};

/* peaks[i] and weights[i] (t_i; NULL = all 1) for n > 0 tasks; peaks must
 * not be NAN. quantile is the fixed-quantile baseline (e.g. 0.95). Returns
 * -1 when n == 0 or on allocation failure. */
int predict_first_allocation(const double *peaks, const double *weights, size_t n,
                             double quantile, struct prediction *out);

#endif
