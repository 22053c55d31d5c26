/* Whether two aggregates hold the same, every double to the bit: the
 * stored form's round trips in aggregate_test.c and stored_archive_fuzz.c. */
#ifndef TALLY_TEST_AGGREGATE_SAME_H
#define TALLY_TEST_AGGREGATE_SAME_H

#include <stdbool.h>
#include <string.h>

#include "archive/aggregate.h"

/* Whether two doubles are the same to the bit. */
static inline bool same_bits(double a, double b) { return !memcmp(&a, &b, sizeof a); }

/* Whether two aggregates hold the same, every double to the bit. */
static inline bool same_aggregate(const struct aggregate *x, const struct aggregate *y)
{
    if (x->runs != y->runs || x->stopped_count != y->stopped_count || x->nstopped != y->nstopped ||
        memcmp(x->stopped, y->stopped, x->nstopped * sizeof x->stopped[0]))
        return false;
    for (int i = 0; i < FIELD_COUNT; i++) {
        const struct aggregate_field *a = &x->fields[i], *b = &y->fields[i];
        if (a->count != b->count || a->count_timed != b->count_timed || !same_bits(a->sum, b->sum) ||
            !same_bits(a->mean, b->mean) || !same_bits(a->m2, b->m2) || !same_bits(a->m3, b->m3) ||
            !same_bits(a->m4, b->m4) || !same_bits(a->min, b->min) || !same_bits(a->max, b->max) ||
            a->ntop != b->ntop || a->nbins != b->nbins)
            return false;
        for (size_t k = 0; k < a->ntop; k++)
            if (!same_bits(a->top[k].value, b->top[k].value) || a->top[k].id != b->top[k].id)
                return false;
        for (size_t k = 0; k < a->nbins; k++) {
            const struct aggregate_bin *p = &a->bins[k], *q = &b->bins[k];
            if (p->index != q->index || p->count != q->count || !same_bits(p->max, q->max) ||
                !same_bits(p->sum, q->sum) || !same_bits(p->sum_t, q->sum_t) || !same_bits(p->sum_vt, q->sum_vt))
                return false;
        }
    }
    return true;
}

#endif
