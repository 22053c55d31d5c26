/* Unit tests for the aggregates kept at ingest (src/archive/aggregate.c, aggregate_codec.c):
 * moments and extremes as from the values, quantiles within 1 %, merging in
 * any order, the stored form round trip (to the bit, and versions 2 and 3
 * still read), time fields weighed by run, predict exact at bin maxima. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archive/aggregate.h"
#include "archive/stats.h"
#include "aggregate_same.h"
#include "aggregate_v3_fixture.h"
#include "test.h"

static void add_memory(struct aggregate *a, double v, long long id)
{
    double values[FIELD_COUNT] = {0};
    bool present[FIELD_COUNT] = {false};
    values[FIELD_MEMORY] = v;
    present[FIELD_MEMORY] = true;
    aggregate_add(a, values, present, id, false);
}

int main(void)
{
    /* 1000 values 100..1099 (a skewed mix): the aggregate against stats_compute */
    enum { N = 1000 };
    double v[N], copy[N];
    for (int i = 0; i < N; i++)
        v[i] = 100 + (double)((i * 7919) % N) * ((i % 3) ? 1 : 0.37);
    struct aggregate whole, a, b, c;
    aggregate_init(&whole);
    aggregate_init(&a);
    aggregate_init(&b);
    aggregate_init(&c);
    for (int i = 0; i < N; i++) {
        add_memory(&whole, v[i], i + 1);
        add_memory(i < 300 ? &a : i < 700 ? &b : &c, v[i], i + 1);
    }
    memcpy(copy, v, sizeof v);
    struct resource_stats exact, from_agg;
    stats_compute(copy, N, &exact);
    aggregate_stats(&whole.fields[FIELD_MEMORY], &from_agg);
    CHECK_INT(from_agg.count, N);
    CHECK_NEAR(from_agg.mean, exact.mean, 1e-9);
    CHECK_NEAR(from_agg.std, exact.std, 1e-9);
    CHECK_NEAR(from_agg.skewness, exact.skewness, 1e-9);
    CHECK_NEAR(from_agg.kurtosis, exact.kurtosis, 1e-9);
    CHECK_NEAR(from_agg.min, exact.min, 0);
    CHECK_NEAR(from_agg.max, exact.max, 0);
    CHECK_NEAR(from_agg.p50, exact.p50, exact.p50 / 100);
    CHECK_NEAR(from_agg.p90, exact.p90, exact.p90 / 100);
    CHECK_NEAR(from_agg.p99, exact.p99, exact.p99 / 100);

    /* the same runs added without settling each time (as ingest does: the
     * values wait in arrival order and join their bins at the settle) give
     * the same bins, settled, to the bit */
    {
        struct aggregate lazy;
        aggregate_init(&lazy);
        int32_t bins[FIELD_COUNT];
        for (int i = 0; i < N; i++) {
            double values[FIELD_COUNT] = {0};
            bool present[FIELD_COUNT] = {false};
            values[FIELD_MEMORY] = v[i];
            present[FIELD_MEMORY] = true;
            aggregate_bins_of(values, present, bins);
            aggregate_add_binned(&lazy, values, present, bins, i + 1, false);
        }
        CHECK_INT(lazy.fields[FIELD_MEMORY].npending, N); /* none in a bin yet */
        CHECK_INT(lazy.fields[FIELD_MEMORY].nbins, 0);
        CHECK_INT(aggregate_settle(&lazy), 0);
        CHECK_INT(lazy.fields[FIELD_MEMORY].npending, 0);
        const struct aggregate_field *l = &lazy.fields[FIELD_MEMORY], *w = &whole.fields[FIELD_MEMORY];
        CHECK_INT(l->nbins, w->nbins);
        bool same = l->nbins == w->nbins;
        for (size_t k = 0; same && k < l->nbins; k++)
            same = l->bins[k].index == w->bins[k].index && l->bins[k].count == w->bins[k].count &&
                   l->bins[k].max == w->bins[k].max && l->bins[k].sum == w->bins[k].sum &&
                   l->bins[k].sum_vt == w->bins[k].sum_vt;
        CHECK(same);
        aggregate_free(&lazy);
    }

    /* values far apart (bins over a span a dense map would not take), values
     * <= 0 (their own bin), and pending values settled onto bins settled
     * before: the same bins, every double to the bit, as one run at a time */
    {
        const double spread[] = {1e-300, 5, -2, 1e300, 5.01, 0, 7e-12, 5.02, -0.5, 1e300, 4.99,
                                 3e150, 1e-300, 0.001, 5, 2.5e9};
        enum { S = sizeof spread / sizeof spread[0] };
        struct aggregate one_by_one, lazy;
        aggregate_init(&one_by_one);
        aggregate_init(&lazy);
        int32_t bins[FIELD_COUNT];
        for (int i = 0; i < S; i++) {
            double values[FIELD_COUNT] = {0};
            bool present[FIELD_COUNT] = {false};
            values[FIELD_MEMORY] = spread[i];
            values[FIELD_WALL_TIME] = 10 + i * 0.1; /* memory's bins weigh by it */
            values[FIELD_CPU_TIME] = i % 3 ? 9 + i * 0.05 : 0; /* close together, and 0 */
            present[FIELD_MEMORY] = present[FIELD_WALL_TIME] = present[FIELD_CPU_TIME] = true;
            CHECK_INT(aggregate_add(&one_by_one, values, present, i + 1, false), 0);
            aggregate_bins_of(values, present, bins);
            CHECK_INT(aggregate_add_binned(&lazy, values, present, bins, i + 1, false), 0);
            if (i == S / 2) /* half settled, the other half pending onto its bins */
                CHECK_INT(aggregate_settle(&lazy), 0);
        }
        CHECK_INT(lazy.fields[FIELD_MEMORY].npending, S - S / 2 - 1);
        CHECK_INT(aggregate_settle(&lazy), 0);
        const int fields[3] = {FIELD_MEMORY, FIELD_WALL_TIME, FIELD_CPU_TIME};
        for (int k = 0; k < 3; k++) {
            const struct aggregate_field *l = &lazy.fields[fields[k]], *o = &one_by_one.fields[fields[k]];
            CHECK_INT(l->nbins, o->nbins);
            CHECK(l->nbins == o->nbins && !memcmp(l->bins, o->bins, l->nbins * sizeof *l->bins));
        }
        const struct aggregate_field *mem = &lazy.fields[FIELD_MEMORY];
        CHECK_INT(mem->nbins, 9); /* <= 0, 1e-300, 7e-12, 0.001, 4.99..5.02 (2), 2.5e9, 3e150, 1e300 */
        CHECK_INT(mem->bins[0].index, INT32_MIN);
        CHECK_INT(mem->bins[0].count, 3);
        CHECK_NEAR(mem->bins[0].max, 0, 0);
        CHECK_NEAR(mem->bins[0].sum, -2.5, 0);
        bool ascending = true;
        for (size_t k = 1; k < mem->nbins; k++)
            ascending = ascending && mem->bins[k - 1].index < mem->bins[k].index;
        CHECK(ascending);
        CHECK_INT(lazy.fields[FIELD_CPU_TIME].bins[0].index, INT32_MIN);
        CHECK_INT(lazy.fields[FIELD_CPU_TIME].bins[0].count, 6); /* i = 0, 3, ..., 15 */
        aggregate_free(&one_by_one);
        aggregate_free(&lazy);
    }

    /* more distinct bins than a settle maps on the stack (256): close
     * together (a dense map of ~2,000 indices), spread (~5,000 indices, a
     * dense map allocated) and far apart (a sorted list); the same bins as
     * one run at a time */
    {
        const double steps[3] = {1.02, 1.0505, 3.5};
        const int counts[3] = {1000, 1000, 300};
        for (int g = 0; g < 3; g++) {
            struct aggregate one_by_one, lazy;
            aggregate_init(&one_by_one);
            aggregate_init(&lazy);
            int32_t bins[FIELD_COUNT];
            double v = 1e-120;
            for (int i = 0; i < counts[g]; i++, v *= steps[g]) {
                double values[FIELD_COUNT] = {0};
                bool present[FIELD_COUNT] = {false};
                values[FIELD_MEMORY] = i % 7 == 3 ? v / steps[g] : v; /* some bins twice */
                present[FIELD_MEMORY] = true;
                CHECK_INT(aggregate_add(&one_by_one, values, present, i + 1, false), 0);
                aggregate_bins_of(values, present, bins);
                CHECK_INT(aggregate_add_binned(&lazy, values, present, bins, i + 1, false), 0);
            }
            CHECK_INT(aggregate_settle(&lazy), 0);
            const struct aggregate_field *l = &lazy.fields[FIELD_MEMORY], *o = &one_by_one.fields[FIELD_MEMORY];
            CHECK(l->nbins > 256);
            CHECK_INT(l->nbins, o->nbins);
            CHECK(l->nbins == o->nbins && !memcmp(l->bins, o->bins, l->nbins * sizeof *l->bins));
            aggregate_free(&one_by_one);
            aggregate_free(&lazy);
        }
    }

    /* merging three parts in another order, through the stored form, gives the same */
    struct aggregate merged;
    aggregate_init(&merged);
    struct aggregate *parts[3] = {&c, &a, &b};
    for (int k = 0; k < 3; k++) {
        size_t len;
        unsigned char *data = aggregate_encode(parts[k], &len);
        CHECK_INT(aggregate_decode_merge(&merged, data, len), 0);
        free(data);
    }
    const struct aggregate_field *m = &merged.fields[FIELD_MEMORY], *w = &whole.fields[FIELD_MEMORY];
    CHECK_INT(merged.runs, N);
    CHECK_INT(m->count, N);
    CHECK_NEAR(m->sum, w->sum, 1e-6);
    CHECK_NEAR(m->m2, w->m2, 1e-6 * w->m2);
    CHECK_NEAR(m->m3, w->m3, 1e-6 * fabs(w->m3));
    CHECK_NEAR(m->m4, w->m4, 1e-6 * w->m4);
    CHECK_INT(m->nbins, w->nbins);
    CHECK_NEAR(m->top[0].value, w->top[0].value, 0);
    CHECK_INT(m->top[0].id, w->top[0].id);
    CHECK_NEAR(aggregate_quantile(m, 0.9), aggregate_quantile(w, 0.9), 1e-9);
    CHECK_INT(aggregate_decode_merge(&merged, (const unsigned char *)"zz", 2), -1);
    CHECK_INT(aggregate_decode_merge(&merged, (const unsigned char *)"\x02", 1), -1); /* truncated */
    CHECK_INT(aggregate_decode_merge(&merged, (const unsigned char *)"\x01\x00\x00\x00\x00", 5),
              -1); /* the hex text form of version 1: schema 5 rebuilds those */
    /* the stored form gives back every bin to the bit, however it was shortened */
    {
        struct aggregate one, back;
        aggregate_init(&one);
        aggregate_init(&back);
        double v[FIELD_COUNT];
        bool has[FIELD_COUNT] = {false};
        has[FIELD_MEMORY] = has[FIELD_WALL_TIME] = true;
        v[FIELD_MEMORY] = 123.456;
        v[FIELD_WALL_TIME] = 7.25;
        aggregate_add(&one, v, has, 1, false);
        v[FIELD_MEMORY] = 123.457; /* the same bin: a bin of two runs */
        aggregate_add(&one, v, has, 2, true);
        has[FIELD_WALL_TIME] = false; /* untimed runs */
        v[FIELD_MEMORY] = 9000;
        aggregate_add(&one, v, has, 3, false);
        has[FIELD_WALL_TIME] = true; /* a one-run bin whose wall time is a wall_time bin's largest value */
        v[FIELD_MEMORY] = 50.5;
        v[FIELD_WALL_TIME] = 7.5;
        aggregate_add(&one, v, has, 4, false);
        v[FIELD_MEMORY] = 1.0 / 3; /* not a short decimal: stored as its 8 bytes */
        v[FIELD_WALL_TIME] = 2.0 / 3;
        aggregate_add(&one, v, has, 5, false);
        size_t len;
        unsigned char *data = aggregate_encode(&one, &len);
        CHECK_INT(aggregate_decode_merge(&back, data, len), 0);
        free(data);
        for (int f = 0; f < FIELD_COUNT; f++) {
            CHECK_INT(back.fields[f].nbins, one.fields[f].nbins);
            for (size_t k = 0; k < one.fields[f].nbins && k < back.fields[f].nbins; k++) {
                const struct aggregate_bin *x = &one.fields[f].bins[k], *y = &back.fields[f].bins[k];
                CHECK(x->index == y->index && x->count == y->count && x->max == y->max &&
                      x->sum == y->sum && x->sum_t == y->sum_t && x->sum_vt == y->sum_vt);
            }
        }
        CHECK_INT(back.stopped_count, 1);
        CHECK_INT(back.runs, 5);
        aggregate_free(&one);
        aggregate_free(&back);
    }
    /* decoding merges as it reads: 600 one-run bins whose wall times are
     * wall_time bins far past the first 256 (the decoder's inline room),
     * merged into an aggregate holding some of the same bins, give what
     * aggregate_merge gives, to the bit */
    {
        struct aggregate stored, base, by_decoding, by_merging;
        aggregate_init(&stored);
        aggregate_init(&base);
        aggregate_init(&by_decoding);
        aggregate_init(&by_merging);
        double v[FIELD_COUNT];
        bool has[FIELD_COUNT] = {false};
        has[FIELD_MEMORY] = has[FIELD_WALL_TIME] = true;
        for (int k = 0; k < 600; k++) {
            v[FIELD_WALL_TIME] = 10 * pow(1.021, k); /* a bin of its own each */
            v[FIELD_MEMORY] = 100 * pow(1.023, 600 - k);
            aggregate_add(&stored, v, has, k + 1, false);
            if (k % 3 == 0) { /* the same bins again, and bins between */
                v[FIELD_MEMORY] *= k % 2 ? 1.0001 : 1.011;
                aggregate_add(&base, v, has, 1000 + k, k % 9 == 0);
            }
        }
        size_t len;
        unsigned char *data = aggregate_encode(&stored, &len);
        CHECK(data != NULL);
        CHECK_INT(aggregate_merge(&by_decoding, &base), 0);
        CHECK_INT(aggregate_merge(&by_merging, &base), 0);
        CHECK_INT(aggregate_decode_merge(&by_decoding, data, len), 0);
        CHECK_INT(aggregate_merge(&by_merging, &stored), 0);
        /* the same day again: every stored bin is there, added in place */
        struct aggregate twice_decoded, twice_merged;
        aggregate_init(&twice_decoded);
        aggregate_init(&twice_merged);
        CHECK_INT(aggregate_merge(&twice_decoded, &by_merging), 0);
        CHECK_INT(aggregate_merge(&twice_merged, &by_merging), 0);
        struct aggregate_bin *before = twice_decoded.fields[FIELD_MEMORY].bins;
        CHECK_INT(aggregate_decode_merge(&twice_decoded, data, len), 0);
        CHECK(twice_decoded.fields[FIELD_MEMORY].bins == before); /* no new array */
        CHECK_INT(aggregate_merge(&twice_merged, &stored), 0);
        CHECK(same_aggregate(&twice_decoded, &twice_merged));
        aggregate_free(&twice_decoded);
        aggregate_free(&twice_merged);
        free(data);
        CHECK_INT(stored.fields[FIELD_WALL_TIME].nbins, 600);
        CHECK_INT(by_decoding.runs, 800);
        CHECK_INT(by_decoding.stopped_count, by_merging.stopped_count);
        for (int f = 0; f < FIELD_COUNT; f++) {
            const struct aggregate_field *x = &by_merging.fields[f], *y = &by_decoding.fields[f];
            CHECK_INT(y->nbins, x->nbins);
            CHECK(same_bits(x->m4, y->m4) && same_bits(x->sum, y->sum) && x->count == y->count && x->max == y->max &&
                  x->ntop == y->ntop && (x->ntop == 0 || x->top[0].id == y->top[0].id));
            size_t same_bins = 0;
            for (size_t k = 0; k < x->nbins && k < y->nbins; k++) {
                const struct aggregate_bin *a = &x->bins[k], *b = &y->bins[k];
                same_bins += a->index == b->index && a->count == b->count && same_bits(a->max, b->max) &&
                             same_bits(a->sum, b->sum) && same_bits(a->sum_t, b->sum_t) &&
                             same_bits(a->sum_vt, b->sum_vt);
            }
            CHECK_INT(same_bins, x->nbins);
        }
        CHECK(by_decoding.fields[FIELD_MEMORY].nbins > 600); /* merged, not only added */
        aggregate_free(&stored);
        aggregate_free(&base);
        aggregate_free(&by_decoding);
        aggregate_free(&by_merging);
    }
    /* a time field (cpu_time) and a field no limit applies to (machine_load)
     * are weighed by run: their bins keep t = 1 (sum_t = count, sum_vt =
     * sum), memory's the runs' wall times; and an aggregate stored before,
     * whose cpu_time bin has the wall times' sums, is read with t = 1 */
    {
        struct aggregate one, back;
        aggregate_init(&one);
        aggregate_init(&back);
        double v[FIELD_COUNT];
        bool has[FIELD_COUNT] = {false};
        has[FIELD_CPU_TIME] = has[FIELD_MACHINE_LOAD] = has[FIELD_MEMORY] = has[FIELD_WALL_TIME] = true;
        v[FIELD_CPU_TIME] = 10.5;
        v[FIELD_MACHINE_LOAD] = 3.25;
        v[FIELD_MEMORY] = 700.25;
        v[FIELD_WALL_TIME] = 20;
        aggregate_add(&one, v, has, 1, false);
        v[FIELD_CPU_TIME] = 10.52; /* the same bins */
        v[FIELD_MACHINE_LOAD] = 3.26;
        v[FIELD_MEMORY] = 700.5;
        v[FIELD_WALL_TIME] = 30;
        aggregate_add(&one, v, has, 2, false);
        const int by_run[2] = {FIELD_CPU_TIME, FIELD_MACHINE_LOAD};
        for (int k = 0; k < 2; k++) {
            const struct aggregate_bin *b = &one.fields[by_run[k]].bins[0];
            CHECK_INT(one.fields[by_run[k]].nbins, 1);
            CHECK(b->sum_t == 2 && b->sum_vt == b->sum);
        }
        const struct aggregate_bin *mem = &one.fields[FIELD_MEMORY].bins[0];
        CHECK(mem->sum_t == 50 && mem->sum_vt == 700.25 * 20 + 700.5 * 30);
        struct prediction pred;
        bool weighted = true;
        CHECK_INT(aggregate_predict(&one.fields[FIELD_CPU_TIME], summary_field_by_id(FIELD_CPU_TIME),
                                    0.95, &pred, &weighted), 0);
        CHECK_INT(weighted, 0);
        CHECK_INT(aggregate_predict(&one.fields[FIELD_MEMORY], summary_field_by_id(FIELD_MEMORY),
                                    0.95, &pred, &weighted), 0);
        CHECK_INT(weighted, 1);
        size_t short_len, long_len;
        unsigned char *data = aggregate_encode(&one, &short_len);
        free(data);
        struct aggregate_bin *cpu = &one.fields[FIELD_CPU_TIME].bins[0];
        cpu->sum_t = 50; /* as stored before */
        cpu->sum_vt = 10.5 * 20 + 10.52 * 30;
        data = aggregate_encode(&one, &long_len);
        CHECK_INT(long_len - short_len, 8); /* sum_t (2 bytes), sum_vt beside sum · sum_t / count (6) */
        CHECK_INT(aggregate_decode_merge(&back, data, long_len), 0);
        free(data);
        const struct aggregate_bin *b = &back.fields[FIELD_CPU_TIME].bins[0];
        CHECK(b->count == 2 && b->sum_t == 2 && b->sum_vt == b->sum && b->sum == 10.5 + 10.52);
        CHECK(back.fields[FIELD_MEMORY].bins[0].sum_t == 50);
        aggregate_free(&one);
        aggregate_free(&back);
    }
    /* every kind of bin (build_mixed) comes back to the bit from the
     * stored form, from version 3's bytes (archives written before) and
     * from version 4's, which are fewer; every shorter prefix is refused */
    {
        struct aggregate mixed, from_v3, from_v4;
        build_mixed(&mixed);
        aggregate_init(&from_v3);
        aggregate_init(&from_v4);
        CHECK_INT(mixed.runs, MIXED_RUNS);
        CHECK(mixed.nstopped == 3 && mixed.fields[FIELD_BYTES_READ].bins[0].index == INT32_MIN);
        CHECK_INT(aggregate_decode_merge(&from_v3, mixed_v3, sizeof mixed_v3), 0);
        CHECK(same_aggregate(&mixed, &from_v3));
        size_t len;
        unsigned char *data = aggregate_encode(&mixed, &len);
        CHECK(data && data[0] == 4);
        CHECK(len < sizeof mixed_v3 * 9 / 10);
        CHECK_INT(aggregate_decode_merge(&from_v4, data, len), 0);
        CHECK(same_aggregate(&mixed, &from_v4));
        int refused = 0;
        for (size_t cut = 0; cut < len; cut++) {
            struct aggregate part;
            aggregate_init(&part);
            refused += aggregate_decode_merge(&part, data, cut) == -1;
            aggregate_free(&part);
        }
        CHECK_INT(refused, len);
        free(data);
        aggregate_free(&mixed);
        aggregate_free(&from_v3);
        aggregate_free(&from_v4);
    }
    /* an aggregate stored by format version 2 (every value as its 8 bytes,
     * archives written before) is still read: one untimed run of memory 583 */
    {
        unsigned char v2[128];
        size_t n = 0;
        const unsigned char head[] = {2, 1, 0, 0, FIELD_MEMORY + 1, 1, 0};
        memcpy(v2, head, sizeof head);
        n += sizeof head;
        const double doubles[7] = {583, 583, 0, 0, 0, 583, 583}; /* sum, mean, m2, m3, m4, min, max */
        for (int k = 0; k < 7; k++, n += 8)
            memcpy(v2 + n, &doubles[k], 8); /* little-endian, as this machine */
        v2[n++] = 0;                  /* no top values */
        v2[n++] = 1;                  /* one bin */
        v2[n++] = (2 * 638 & 0x7f) | 0x80; /* index 638 (zigzag 1276) as a varint */
        v2[n++] = (2 * 638) >> 7;
        v2[n++] = 1 << 3 | 3;         /* one run, no wall time */
        memcpy(v2 + n, &doubles[0], 8);
        n += 8;
        v2[n++] = 0;
        struct aggregate old;
        aggregate_init(&old);
        CHECK_INT(aggregate_decode_merge(&old, v2, n), 0);
        CHECK_INT(old.fields[FIELD_MEMORY].nbins, 1);
        CHECK_INT(old.fields[FIELD_MEMORY].bins[0].index, 638);
        CHECK_NEAR(old.fields[FIELD_MEMORY].bins[0].max, 583, 0);
        CHECK_NEAR(old.fields[FIELD_MEMORY].bins[0].sum_t, 1, 0);
        CHECK_NEAR(old.fields[FIELD_MEMORY].max, 583, 0);
        aggregate_free(&old);
    }

    /* predict: 9 runs at 100, one at 2000 (no wall_time: equal weights) →
     * 100 MB, waste (100·1 [stopped] + 0) / 10 … as predict_first_allocation */
    double peaks[10] = {100, 100, 100, 100, 100, 100, 100, 100, 100, 2000};
    struct aggregate p;
    aggregate_init(&p);
    for (int i = 0; i < 10; i++)
        add_memory(&p, peaks[i], i + 1);
    struct prediction exact_p, agg_p;
    bool weighted;
    predict_first_allocation(peaks, NULL, 10, 0.95, &exact_p);
    CHECK_INT(aggregate_predict(&p.fields[FIELD_MEMORY], summary_field_by_id(FIELD_MEMORY), 0.95,
                                &agg_p, &weighted), 0);
    CHECK_INT(weighted, 0);
    CHECK_NEAR(agg_p.best.allocation, exact_p.best.allocation, 0);
    CHECK_NEAR(agg_p.best.expected_waste, exact_p.best.expected_waste, 1e-9);
    CHECK_NEAR(agg_p.best.retry_rate, exact_p.best.retry_rate, 1e-12);
    CHECK_NEAR(agg_p.always_max.expected_waste, exact_p.always_max.expected_waste, 1e-9);

    /* stopped runs: counted, ids kept */
    double values[FIELD_COUNT] = {0};
    bool present[FIELD_COUNT] = {false};
    aggregate_add(&p, values, present, 77, true);
    CHECK_INT(p.stopped_count, 1);
    CHECK_INT(p.stopped[0], 77);

    aggregate_free(&whole);
    aggregate_free(&a);
    aggregate_free(&b);
    aggregate_free(&c);
    aggregate_free(&merged);
    aggregate_free(&p);
    return test_done();
}
