/* Aggregates kept at ingest, so that stats, predict and outliers answer from
 * a few rows whatever the archive's size (issue 20, item 2).
 *
 * One aggregate per (name or category, UTC day of the run's start): its run
 * count, the runs stopped by a limit (their ids, up to AGGREGATE_STOPPED),
 * and per numeric field:
 *   - count, sum, minimum and maximum: exact (mean = sum / count);
 *   - the central moments M2, M3, M4, merged by Pébay's formulas ("Formulas
 *     for robust, one-pass parallel computation of covariances and
 *     arbitrary-order statistical moments", Sandia report SAND2008-6212):
 *     standard deviation, skewness and kurtosis to rounding;
 *   - a fine logarithmic histogram: bin i holds the values v with
 *     γ^i <= v < γ^(i+1), γ = 1.01 (values <= 0 in one bin of their own), with
 *     per bin its count, largest value, sum, and the sums of the run's
 *     wall_time t and of v·t (t = 1, so sum_t = count and sum_vt = sum,
 *     stored as nothing, for a time field, which predict weighs by run, and
 *     for one no limit applies to, never predicted; and so read from the
 *     aggregates stored before). A quantile read from it is within 1 % of the
 *     exact one (it lies in a bin 1 % wide); predict's waste at an allocation
 *     equal to a bin's largest value is exact;
 *   - the AGGREGATE_TOP largest values with their run ids, where outliers
 *     look for runs far above their peers.
 * Aggregates merge (a day with a batch, days into a window): merging is
 * associative, so the answer does not depend on how ingest was batched. */
#ifndef TALLY_ARCHIVE_AGGREGATE_H
#define TALLY_ARCHIVE_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive/predict.h"
#include "archive/stats.h"
#include "core/fields.h"

#define AGGREGATE_GAMMA 1.01
#define AGGREGATE_TOP 4
#define AGGREGATE_STOPPED 16

struct aggregate_bin {
    int32_t index;        /* INT32_MIN: the bin of values <= 0 */
    uint64_t count;
    double max, sum, sum_t, sum_vt;
};

struct aggregate_top {
    double value;
    long long id;
};

/* A run's value waiting for its bin: the bin's index, the value, its weight t. */
struct aggregate_pending {
    int32_t index;
    double v, t;
};
/* Pending values, in chunks of doubling size (aggregate.c). */
struct aggregate_pending_chunk;

struct aggregate_field {
    uint64_t count;           /* runs with a value; 0 = the field is absent */
    uint64_t count_timed;     /* of those, runs with a wall_time (the weights) */
    double sum, mean, m2, m3, m4, min, max;
    struct aggregate_bin *bins; /* by index, ascending */
    size_t nbins, capacity;
    /* runs added but not yet in the bins, in arrival order (aggregate_add_binned;
     * aggregate_settle puts them in) */
    struct aggregate_pending_chunk *pending, *pending_last;
    struct aggregate_pending *pending_next, *pending_end; /* the room left in the last */
    size_t npending;
    struct aggregate_top top[AGGREGATE_TOP]; /* largest first */
    size_t ntop;
};

struct aggregate {
    uint64_t runs;
    uint64_t stopped_count;             /* runs stopped by a limit */
    long long stopped[AGGREGATE_STOPPED]; /* the first of their ids */
    size_t nstopped;
    struct aggregate_field fields[FIELD_COUNT];
};

void aggregate_init(struct aggregate *a);
void aggregate_free(struct aggregate *a);

/* Adds one run: values[f] where present[f]; its archive id; stopped = its
 * exit_type is "limits". -1 when out of memory. */
int aggregate_add(struct aggregate *a, const double *values, const bool *present, long long id,
                  bool stopped);
/* The same, with the bins of the values (aggregate_bins_of) computed once
 * for the several aggregates a run is added to, and the values left
 * pending, out of their bins: aggregate_settle before reading the aggregate
 * (aggregate_merge settles its first argument itself). */
void aggregate_bins_of(const double *values, const bool *present, int32_t *bins);
int aggregate_add_binned(struct aggregate *a, const double *values, const bool *present,
                         const int32_t *bins, long long id, bool stopped);
/* Puts every pending value in its bin (bins by ascending index), each bin
 * taking its values in arrival order. -1 when out of memory (the values
 * not put in stay pending). */
int aggregate_settle(struct aggregate *a);
/* into += from. -1 when out of memory. */
int aggregate_merge(struct aggregate *into, const struct aggregate *from);
/* Replaces every run id i in 1..n the aggregate holds (top values, stopped
 * runs) by ids[i - 1]: an aggregate built before its runs had archive ids,
 * with each run's position in its batch + 1 in their place. */
void aggregate_renumber(struct aggregate *a, const long long *ids, size_t n);

/* A compact binary form for the store (malloc'd, its length in *len;
 * aggregate_codec.c): varints, values as short decimals when they are
 * (byte_put_decimal) and as their distance from what a neighbour gives
 * (byte_put_near: a bin's largest value after the bin before's), a bin of
 * one run without the sums its value gives back to the bit and with its
 * wall time as a reference to the wall_time field's bin. Every value comes
 * back to the bit. NULL when out of memory. */
unsigned char *aggregate_encode(const struct aggregate *a, size_t *len);
/* Adds the aggregate encoded in data to a (so that days merge as they are
 * read). -1 when data is not an aggregate or memory runs out; a then holds
 * part of it, and is only fit for aggregate_free. */
int aggregate_decode_merge(struct aggregate *a, const unsigned char *data, size_t len);

/* The q-quantile of a field, from its histogram (within 1 %). */
double aggregate_quantile(const struct aggregate_field *f, double q);

/* Statistics of a field as stats_compute gives them from the values:
 * count, mean, std, skewness, kurtosis, min and max to rounding;
 * percentiles and the 20-bin histogram from the fine histogram. */
void aggregate_stats(const struct aggregate_field *f, struct resource_stats *out);

/* predict_first_allocation over a field's histogram, the candidates being
 * each bin's largest value; weighed by wall_time when the field is not a
 * time, a limit applies to it, and every run with a value had one
 * (*time_weighted). -1 when empty. */
int aggregate_predict(const struct aggregate_field *f, const struct summary_field *field,
                      double quantile, struct prediction *out, bool *time_weighted);

/* Median and robust scale (see outliers.h) from the histogram: each bin's
 * runs are taken as spread evenly over the bin, between its lower edge (or
 * the field's minimum) and its largest value. */
int aggregate_robust_center(const struct aggregate_field *f, double *median, double *scale);

#endif
