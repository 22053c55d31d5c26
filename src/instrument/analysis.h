/* The analyses a scheduler needs from an instrumented MPI run (ScoPro §8),
 * computed from a summary's `mpi` object (mpi_summary.h):
 *   - computation/communication: T_c / (t2 - t1 - T_c), summed over ranks
 *   - imbalance (§8.4): per-rank time in blocking calls; the ranks that
 *     wait clearly more than the mean are the faster or less loaded ones
 *   - busy/idle (§8.3): busy = computation, idle = blocking time; for two
 *     applications sharing CPUs, formula (2): the execution time grows by
 *     (busy - idle) / (busy + idle) when busy > idle, else not at all
 *   - progress rate (§8.5): time per iteration of the marker
 *   - co-scheduling prediction (§10.6): eq. (6) T_a = T_a1 + T_b - T_b / S_a
 *     against eq. (7) T_a = T_a1 * S_a (printed T_a1 / S_a in the paper; its
 *     tables use T_a1 * S_a), T_b counted from A's start. */
#ifndef TALLY_INSTRUMENT_ANALYSIS_H
#define TALLY_INSTRUMENT_ANALYSIS_H

#include <jansson.h>
#include <stddef.h>

/* A rank's counters over its window (perf_summary.h); -1 when not counted. */
struct rank_counters {
    double task_clock;
    long long page_faults, context_switches, instructions, cycles;
};

struct rank_times {
    int rank;
    char host[64];
    double comm, wait, compute, span, time_per_iteration;
    long long iterations;
    struct rank_counters counters;
};

struct mpi_analysis {
    int ranks;
    size_t measured;                /* ranks with a measured window */
    struct rank_times *per_rank;    /* measured ranks */
    double comm, wait, compute, span; /* sums over measured ranks */
    double comm_ratio, comm_fraction; /* -1 when unknown */
    double busy, idle;              /* sums: compute, wait */
    double time_per_iteration;      /* mean over ranks, -1 when no marker */
    double mean_wait;
    char window_kind[32];
    char hardware[256];             /* mpi.counters.hardware: "counted", "absent: ..."; "" when none */
    long long **matrix;             /* bytes [from][to], ranks x ranks (ranks <= 4096) */
};

/* Fills a from an `mpi` object. Returns -1 with a reason when it is not one. */
int mpi_analysis_from_json(const json_t *mpi, struct mpi_analysis *a, char *why, size_t why_size);
void mpi_analysis_free(struct mpi_analysis *a);

/* Ranks whose blocking time per iteration (or in total, without a marker)
 * is above (sign > 0) or below (sign < 0) the mean by more than `margin`
 * (a fraction, e.g. 0.2): writes up to max ranks into out, returns how many. */
size_t mpi_imbalanced_ranks(const struct mpi_analysis *a, int sign, double margin, int *out, size_t max);

/* Formula (2) for applications sharing the same CPUs: the relative increase
 * of execution time, 0 when the summed busy time is not above the summed idle. */
double coscheduling_increase(double busy_sum, double idle_sum);

/* Eq. (6) and eq. (7): A ran alone in t_a1; with B it progresses s_a times
 * slower; B ends after t_b (eq. 6 when B ends first, else t_a1 * s_a). */
double predict_eq6(double t_a1, double s_a, double t_b);
double predict_eq7(double t_a1, double s_a);

/* T_b of eq. (6) from the two runs' clocks (epoch seconds): how long B runs
 * beside A, from the later of the two starts to B's end (B's end - A's start
 * when B started first or with A, the paper's case); 0 when B ended before
 * A started. */
double coscheduled_time(double a_start, double b_start, double b_end);

#endif
