/* The contract monitor (seed 003 §5): consumes samples one period at a time
 * and reports, per process, space and dimension, a violation level in
 * [0, 1] (the rulebase applied to the distance from the compared cluster's
 * centroid in tolerances), the cluster it was compared to and how far, and
 * per process and space an overall level (the largest of its dimensions: a
 * contract is violated when any of its specifications does not hold, §3)
 * with an explanation a person can act on:
 *   "process 3 (host n3) execution: compute 0.92 (FLOP/s 41% below the
 *    projected 1.2 G since 12:04:10); communicate 0.05"
 * The cluster compared to is, among the clusters the process visited in the
 * baseline, the nearest; a process the baseline did not have is compared to
 * the nearest cluster of all (a worker slowed down must not be excused by
 * resembling the master).
 *
 * Both 'tally contract check' (recorded runs) and 'tally contract watch'
 * (live samples from the agent, once it exists) drive this one function:
 * contract_monitor_feed. It keeps, per process and dimension, since when a
 * level has been at or above the threshold. No global state, no output of
 * its own: every level goes to the callback. */
#ifndef TALLY_CONTRACT_MONITOR_H
#define TALLY_CONTRACT_MONITOR_H

#include <stddef.h>

#include "contract/contract.h"

struct contract_level {
    const char *process, *host;
    double time, period;          /* end of the period (epoch s), its length */
    enum contract_space space;
    const char *dimension;        /* "overall" for the combination */
    int overall;
    double level;                 /* 0 none .. 1 total */
    long cluster;                 /* compared to */
    double distance;              /* |value - centroid| / tolerance (overall: the largest) */
    double cluster_distance;      /* to the centroid on the log scale, dimensions present */
    double value, expected;       /* metric units (NAN for overall) */
    double service;               /* live mode: the host's service level applied to expected (else 1) */
    double window;                /* seconds value covers: the period, or two below the
                                   * projection on an oversubscribed host */
    int onset;                    /* first period of a run at or above the threshold */
    double since;                 /* start of that run (epoch s); NAN below the threshold */
    const char *explanation;      /* overall only */
};

typedef void (*contract_level_fn)(void *ctx, const struct contract_level *level);

struct contract_monitor;

/* caps: capabilities of the hosts of the monitored run (may differ from the
 * baseline's; NULL to use the contract's factors). The contract must outlive
 * the monitor. Returns NULL when out of memory. */
struct contract_monitor *contract_monitor_new(const struct contract *c, double threshold,
                                              const struct contract_factor *caps, size_t n_caps);
/* Live projection factors: in each batch, the projection factor of a host in
 * an execution dimension is scaled by the host's current service level, the
 * median over its processes (at least LIVE_MIN_PROCESSES) of value /
 * expected. A slowdown of the whole host (a shared machine giving the
 * application less) then moves the factors, not the levels, and what is
 * reported is the process that departs from its peers (docs/contracts.md).
 * Feed one period per call in this mode. */
#define LIVE_MIN_PROCESSES 3
/* Also in this mode, on a host whose samples say how many tasks were
 * runnable per core (runnable_per_core, the median of the batch's: rho > 1,
 * oversubscribed), a value ABOVE the projection is tolerated up to what the
 * oversubscription allows: with rho tasks per core each gets about 1/rho of
 * a core, and the scheduler may give one up to a whole core for a period, rho
 * times its share. Those (rho - 1) x the centroid are kept within half a
 * tolerance (no violation): the tolerance above is at least
 * LIVE_OVERSUBSCRIBED_TOLERANCE (2) x (rho - 1) x |centroid|. Measured:
 * every level at the threshold in clean reruns of an unpaced master/worker
 * on a busy 2-core host was then a rank at 140-270 % of its projection
 * (docs/contracts.md, "Tolerances on a busy host").
 * Below the projection the tolerance does NOT grow with rho: a rank slowed
 * from outside read 4-39 % of its projection at 7-18 runnable tasks per core,
 * so a bound like 1/rho of the share (6 % at rho 16) would hide it. On an
 * oversubscribed host it is at least LIVE_OVERSUBSCRIBED_BELOW (0.72) x
 * |centroid|: a level at the threshold below 46 % of the projection (62.5 %
 * with the minimum execution tolerance), half-way between the lowest clean
 * rank measured (54 %, descheduled for part of a period) and the highest
 * slowed one (39 %); no level above 64 %, full from 28 %. And below the
 * projection there, a process is judged over a window of two adjoining
 * periods, the mean of its rate over both:
 * clean ranks dipped to 39 % for one period, descheduled for most of it,
 * and read 61-111 % in the periods beside it, while a slowed rank stays low
 * in every period. A process's first period there (no adjoining one) is not
 * judged below its projection: the level is 0, the value its own. A consumption
 * dimension (CPU) below its projection beside production dimensions is not
 * judged at all (see metrics.h). */
#define LIVE_OVERSUBSCRIBED_TOLERANCE 2.0
#define LIVE_OVERSUBSCRIBED_BELOW 0.72
/* FLOP per job over a period is counted while jobs are only counted when they
 * end, so over n jobs it is known to one job's FLOP, |centroid| / n: a busy
 * host that lets a rank finish 17 jobs in a period read 6 % above the
 * contract (measured, docs/contracts.md), past the intrinsic minimum of 5 %.
 * That resolution is kept within half a tolerance: the tolerance of
 * flops_per_job is at least JOB_RESOLUTION_TOLERANCE (2) x |centroid| / n,
 * n = iterations_per_s x period (when the sample has it, n >= 1). */
#define JOB_RESOLUTION_TOLERANCE 2.0
void contract_monitor_set_live_factors(struct contract_monitor *m, int on);
/* Evaluates n samples (normally those of one period) and calls fn for every
 * level: first the dimensions of a space, then its overall. Returns the
 * number of levels at or above the threshold, -1 when out of memory. */
long contract_monitor_feed(struct contract_monitor *m, const struct contract_sample *samples, size_t n,
                           contract_level_fn fn, void *ctx);
void contract_monitor_free(struct contract_monitor *m);

/* Value with an SI prefix ("1.2 G", "41.5 k", "0.082"). */
void format_si(double v, char *buf, size_t buflen);

#endif
