/* The parts of merging aggregates that the stored form's decoder shares
 * with aggregate.c: the decoder merges a stored day into an aggregate as it
 * reads it (aggregate_codec.c). Inside src/archive only. */
#ifndef TALLY_ARCHIVE_AGGREGATE_MERGE_H
#define TALLY_ARCHIVE_AGGREGATE_MERGE_H

#include "archive/aggregate.h"

/* Whether the bins of a field keep the sums of the runs' wall time t and of
 * v·t (only predict reads them): not for a time field (predict weighs it by
 * run) nor for one no limit applies to. Their bins hold t = 1 for every run
 * (sum_t = count, sum_vt = sum). */
bool aggregate_weighted_by_time(const struct summary_field *field);
/* One bin of another aggregate added to b (the same index); inline: the
 * decoder merges every stored bin through it (8 % of a question's time as
 * a call). */
static inline struct aggregate_bin aggregate_bin_sum(struct aggregate_bin b, const struct aggregate_bin *s)
{
    b.count += s->count;
    if (s->max > b.max)
        b.max = s->max;
    b.sum += s->sum;
    b.sum_t += s->sum_t;
    b.sum_vt += s->sum_vt;
    return b;
}
/* bins (n of them, malloc'd: into's and from's merged by index) put in
 * place of into's (unless they are into's own, merged in place), and
 * from's count, sums, moments, extremes and top values added to into's. */
void aggregate_merge_totals(struct aggregate_field *into, struct aggregate_bin *bins, size_t n,
                            const struct aggregate_field *from);
/* count stopped runs more, id among the kept ids while there is room. */
void aggregate_keep_stopped(struct aggregate *a, long long id, uint64_t count);

#endif
