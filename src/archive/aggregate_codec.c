/* The stored form of an aggregate (aggregate_encode, aggregate_decode_merge
 * in aggregate.h): varints, values as short decimals when they are, and a
 * stored day merged into an aggregate as it is read.
 *
 * Version 4 (written since 2026-11-27) stores each field's bins first, then
 * its totals, and writes what a value's neighbour nearly gives as the
 * difference (byte_put_near): a bin's largest value after the bin before's
 * (bins ~1 % apart: 2 bytes instead of 4), a bin's sum below count × its
 * largest value, the minimum below the first bin's largest, the maximum
 * (the last bin's largest) and the top values below it; the mean as its
 * distance in units in the last place from sum / count (within a few: 1
 * byte instead of 9); a bin's index and how it is stored in one varint, its
 * run count only when it holds more than one; top and stopped run ids from
 * the first. 21 % fewer bytes than version 3 on the bench's day rows, every
 * value to the bit. Versions 3 (each value as a short decimal of its own)
 * and 2 (every value as its 8 bytes) are still read; a stored day is
 * rewritten in version 4 when next merged. */
#include "archive/aggregate.h"
#include "archive/aggregate_merge.h"
#include "util/byte_codec.h"

#include <stdlib.h>
#include <string.h>

#define FORMAT_VERSION 4
#define FORMAT_DECIMALS 3
#define FORMAT_FULL_DOUBLES 2

/* How a bin is stored: its mode with its place (version 3: with its count),
 * then only the values the others do not give back to the bit. A bin of
 * one run (many bins of a day) holds sum = max and sum_vt = max * sum_t. */
enum bin_mode {
    BIN_FULL,      /* max, sum, sum_t, sum_vt */
    BIN_ONE,       /* one run: max, sum_t */
    BIN_ONE_SELF,  /* one run timed by this value (wall_time): max (= sum_t) */
    BIN_ONE_UNIT,  /* one run without a wall_time (t = 1): max */
    BIN_UNTIMED,   /* runs without a wall_time (sum_t = count, sum_vt = sum): max, sum */
    BIN_SELF,      /* runs timed by this value (sum_t = sum): max, sum, sum_vt */
    BIN_ONE_TIMED, /* one run: max, then the position of the wall_time bin whose max is sum_t (version 3) */
};

static bool one_run(enum bin_mode mode)
{
    return mode == BIN_ONE || mode == BIN_ONE_SELF || mode == BIN_ONE_UNIT || mode == BIN_ONE_TIMED;
}

static bool has_sum(enum bin_mode mode)
{
    return mode == BIN_FULL || mode == BIN_UNTIMED || mode == BIN_SELF;
}

static bool same(double a, double b) { return !memcmp(&a, &b, sizeof a); }

static enum bin_mode mode_of(const struct aggregate_bin *b)
{
    if (b->count == 1 && same(b->sum, b->max) && same(b->sum_vt, b->max * b->sum_t)) {
        if (same(b->sum_t, b->max))
            return BIN_ONE_SELF;
        return same(b->sum_t, 1) ? BIN_ONE_UNIT : BIN_ONE;
    }
    if (same(b->sum_t, (double)b->count) && same(b->sum_vt, b->sum))
        return BIN_UNTIMED;
    return same(b->sum_t, b->sum) ? BIN_SELF : BIN_FULL;
}

/* The position of the bin of `timer` (the wall_time field) whose largest
 * value is t, or -1. Bins ascend by index, so their largest values ascend. */
static long timer_bin_of(const struct aggregate_field *timer, double t)
{
    size_t lo = 0, hi = timer ? timer->nbins : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (timer->bins[mid].max < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return timer && lo < timer->nbins && same(timer->bins[lo].max, t) ? (long)lo : -1;
}

/* What a bin's sum lies at or below: count × its largest value, in that
 * value's units (unknown when the product would reach 2^53). */
static struct byte_near sum_ceiling(uint64_t count, struct byte_near max)
{
    if (!max.known || count == 0 || count >= (uint64_t)BYTE_DECIMAL_LIMIT ||
        (max.m < 0 ? -max.m : max.m) >= BYTE_DECIMAL_LIMIT / (int64_t)count)
        return (struct byte_near){0, 0, false};
    return (struct byte_near){max.m * (int64_t)count, max.k, true};
}

/* a - b and a + b of run ids, wrapping (ids read from damaged rows can be
 * anything; what they give back is then damage too, never undefined) */
static long long id_minus(long long a, long long b)
{
    return (long long)((unsigned long long)a - (unsigned long long)b);
}
static long long id_plus(long long a, long long b)
{
    return (long long)((unsigned long long)a + (unsigned long long)b);
}

/* --- writing (version 4) ------------------------------------------------- */

/* A double written as its distance in units in the last place from an
 * estimate the reader computes too (the bit patterns of two doubles of one
 * sign differ by that much): the varint zigzag(distance) << 1 when it is
 * below 2^40, else 1 and the value's 8 bytes. */
static void put_beside(struct byte_writer *w, double value, double estimate)
{
    int64_t e, v;
    memcpy(&e, &estimate, sizeof e);
    memcpy(&v, &value, sizeof v);
    if ((e ^ v) >= 0 && v - e > -(INT64_C(1) << 40) && v - e < INT64_C(1) << 40) {
        byte_put_varint(w, byte_zigzag(v - e) << 1);
        return;
    }
    byte_put_varint(w, 1);
    byte_put_double(w, value);
}

/* A bin's sum of v·t beside sum · sum_t / count (the products' sum if every
 * run had the bin's mean value): 4.8 bytes on average instead of 8 on the
 * bench's day rows. */
static double product_estimate(const struct aggregate_bin *b)
{
    return b->sum * b->sum_t / (double)b->count;
}

/* A bin after the one of index `previous` (first: none before). maxes: the
 * largest value of the bin before, which becomes this one's. */
static void put_bin(struct byte_writer *w, const struct aggregate_bin *b, int64_t previous, bool first,
                    const struct aggregate_field *timer, struct byte_near *maxes)
{
    enum bin_mode mode = mode_of(b);
    long timer_bin = mode == BIN_ONE ? timer_bin_of(timer, b->sum_t) : -1;
    if (timer_bin >= 0)
        mode = BIN_ONE_TIMED;
    /* indices ascend: the next is previous + 1 + place */
    uint64_t place = first ? byte_zigzag(b->index) : (uint64_t)((int64_t)b->index - previous - 1);
    byte_put_varint(w, place << 3 | mode);
    if (!one_run(mode))
        byte_put_varint(w, b->count);
    byte_put_near(w, b->max, maxes, 1);
    if (has_sum(mode)) {
        struct byte_near ceiling = sum_ceiling(b->count, *maxes);
        byte_put_near(w, b->sum, &ceiling, -1);
    }
    if (mode == BIN_FULL || mode == BIN_ONE)
        byte_put_decimal(w, b->sum_t);
    if (mode == BIN_FULL || mode == BIN_SELF) /* a sum of products: seldom a short decimal */
        put_beside(w, b->sum_vt, product_estimate(b));
    if (mode == BIN_ONE_TIMED)
        byte_put_varint(w, (uint64_t)timer_bin);
}

static void put_field(struct byte_writer *w, size_t i, const struct aggregate_field *f,
                      const struct aggregate_field *timer)
{
    byte_put_varint(w, i + 1);
    byte_put_varint(w, f->count);
    byte_put_varint(w, f->count_timed);
    byte_put_varint(w, f->nbins);
    struct byte_near maxes = {0, 0, false}, first = maxes;
    for (size_t k = 0; k < f->nbins; k++) {
        put_bin(w, &f->bins[k], k ? f->bins[k - 1].index : 0, k == 0, timer, &maxes);
        if (k == 0)
            first = maxes;
    }
    byte_put_decimal(w, f->sum);
    put_beside(w, f->mean, f->sum / (double)f->count); /* within a few units: 1 byte */
    byte_put_decimal(w, f->m2);
    byte_put_decimal(w, f->m3);
    byte_put_decimal(w, f->m4);
    byte_put_near(w, f->min, &first, -1);
    byte_put_near(w, f->max, &maxes, 1); /* the last bin's largest: 1 byte */
    byte_put_varint(w, f->ntop);
    for (size_t k = 0; k < f->ntop; k++) { /* largest first, the first the maximum */
        byte_put_near(w, f->top[k].value, &maxes, -1);
        byte_put_signed(w, k ? id_minus(f->top[k].id, f->top[0].id) : f->top[0].id);
    }
}

unsigned char *aggregate_encode(const struct aggregate *a, size_t *len)
{
    struct byte_writer w = {NULL, 0, 0, false};
    byte_put_varint(&w, FORMAT_VERSION);
    byte_put_varint(&w, a->runs);
    byte_put_varint(&w, a->stopped_count);
    byte_put_varint(&w, a->nstopped);
    for (size_t k = 0; k < a->nstopped; k++)
        byte_put_signed(&w, k ? id_minus(a->stopped[k], a->stopped[k - 1]) : a->stopped[0]);
    /* wall_time first: the other fields' one-run bins refer to its bins */
    const struct aggregate_field *timer = &a->fields[FIELD_WALL_TIME];
    if (timer->count)
        put_field(&w, FIELD_WALL_TIME, timer, NULL);
    for (size_t i = 0; i < FIELD_COUNT; i++)
        if (a->fields[i].count && i != FIELD_WALL_TIME)
            put_field(&w, i, &a->fields[i], timer->count ? timer : NULL);
    byte_put_varint(&w, 0);
    if (w.failed) {
        free(w.data);
        return NULL;
    }
    *len = w.len;
    return w.data;
}

/* --- reading (versions 2, 3 and 4) -------------------------------------- */

/* A value as version 2 or 3 stores it. */
static inline __attribute__((always_inline)) double get_value(struct byte_reader *r,
                                                             uint64_t version)
{
    return version == FORMAT_FULL_DOUBLES ? byte_get_double(r) : byte_get_decimal(r);
}

/* The stored wall_time field's bins' largest values, in order: the run
 * times the other fields' one-run bins refer to by position. */
struct stored_timer {
    double *max;
    size_t n, capacity;
    double room[256];
};

/* Where a stored field's bins are read: the version, the index and largest
 * value of the bin before (version 4 writes the next after them), and the
 * first bin's largest value (the minimum is written below it). */
struct bin_reader {
    uint64_t version;
    int64_t index;
    size_t read;
    struct byte_near maxes, first;
};

/* Versions 2 and 3: one stored field's header (after its id): count, sums,
 * moments, extremes and top values into f. */
static void get_field_head(struct byte_reader *r, uint64_t version, struct aggregate_field *f)
{
    f->count = byte_get_varint(r);
    f->count_timed = byte_get_varint(r);
    f->sum = get_value(r, version);
    f->mean = get_value(r, version);
    f->m2 = get_value(r, version);
    f->m3 = get_value(r, version);
    f->m4 = get_value(r, version);
    f->min = get_value(r, version);
    f->max = get_value(r, version);
    size_t ntop = byte_get_varint(r);
    for (size_t k = 0; k < ntop && !r->failed; k++) {
        double value = get_value(r, version);
        long long run = byte_get_signed(r);
        if (f->ntop < AGGREGATE_TOP)
            f->top[f->ntop++] = (struct aggregate_top){value, run};
    }
}

/* Version 4: a value put_beside wrote beside estimate. */
static double get_beside(struct byte_reader *r, double estimate)
{
    uint64_t tag = byte_get_varint(r);
    if (tag & 1)
        return tag == 1 ? byte_get_double(r) : (r->failed = true, 0);
    int64_t e, v, distance = byte_unzigzag(tag >> 1);
    memcpy(&e, &estimate, sizeof e);
    /* wrapping (e may be -0's pattern, INT64_MIN): a sign changed is damage */
    v = (int64_t)((uint64_t)e + (uint64_t)distance);
    if (distance <= -(INT64_C(1) << 40) || distance >= INT64_C(1) << 40 || (v ^ e) < 0) {
        r->failed = true; /* never written */
        return 0;
    }
    double value;
    memcpy(&value, &v, sizeof value);
    return value;
}

/* Version 4: the totals after a field's bins (count and count_timed read
 * before them). */
static void get_field_totals(struct byte_reader *r, struct bin_reader *bins, struct aggregate_field *f)
{
    f->sum = byte_get_decimal(r);
    if (f->count == 0)
        r->failed = true; /* never written */
    f->mean = get_beside(r, f->sum / (double)(f->count ? f->count : 1));
    f->m2 = byte_get_decimal(r);
    f->m3 = byte_get_decimal(r);
    f->m4 = byte_get_decimal(r);
    f->min = byte_get_near(r, &bins->first, -1);
    f->max = byte_get_near(r, &bins->maxes, 1);
    size_t ntop = byte_get_varint(r);
    long long first_id = 0;
    for (size_t k = 0; k < ntop && !r->failed; k++) {
        double value = byte_get_near(r, &bins->maxes, -1);
        long long run = byte_get_signed(r);
        if (k == 0)
            first_id = run;
        else
            run = id_plus(run, first_id);
        if (f->ntop < AGGREGATE_TOP)
            f->top[f->ntop++] = (struct aggregate_top){value, run};
    }
}

/* Where the next stored bin is and how it is stored; false when damaged. */
static bool get_bin_place(struct byte_reader *r, struct bin_reader *at, struct aggregate_bin *b,
                          enum bin_mode *mode)
{
    int64_t index;
    if (at->version == FORMAT_VERSION) {
        uint64_t head = byte_get_varint(r), place = head >> 3;
        *mode = (enum bin_mode)(head & 7);
        if (place > (UINT64_C(1) << 33))
            return false;
        index = at->read == 0 ? byte_unzigzag(place) : at->index + 1 + (int64_t)place;
        b->count = one_run(*mode) ? 1 : byte_get_varint(r);
    } else {
        int64_t delta = byte_get_signed(r);
        /* a bin index is an int32: anything else is damage (found by
         * stored_archive_fuzz: a delta overflowing the sum) */
        if (delta < -(INT64_C(1) << 33) || delta > (INT64_C(1) << 33))
            return false;
        index = at->index + delta;
        if (at->read > 0 && delta <= 0)
            return false; /* bins ascend: never written */
        uint64_t head = byte_get_varint(r);
        *mode = (enum bin_mode)(head & 7);
        b->count = head >> 3;
    }
    if (r->failed || index < INT32_MIN || index > INT32_MAX)
        return false;
    b->index = (int32_t)(at->index = index);
    return true;
}

/* The next stored bin; false when it is damaged. weighted: whether the
 * field's bins keep the runs' wall times (aggregate_weighted_by_time);
 * timer: the stored wall_time bins (none while that field itself is read). */
static bool get_bin(struct byte_reader *r, struct bin_reader *at, bool weighted,
                    const struct stored_timer *timer, struct aggregate_bin *b)
{
    enum bin_mode mode;
    if (!get_bin_place(r, at, b, &mode))
        return false;
    bool v4 = at->version == FORMAT_VERSION;
    b->max = v4 ? byte_get_near(r, &at->maxes, 1) : get_value(r, at->version);
    if (at->read++ == 0)
        at->first = at->maxes;
    if (has_sum(mode)) {
        struct byte_near ceiling = sum_ceiling(b->count, at->maxes);
        b->sum = v4 ? byte_get_near(r, &ceiling, -1) : get_value(r, at->version);
    }
    switch (mode) {
    case BIN_FULL:
        b->sum_t = get_value(r, at->version);
        b->sum_vt = v4 ? get_beside(r, product_estimate(b)) : byte_get_double(r);
        break;
    case BIN_ONE:
        b->sum = b->max;
        b->sum_t = get_value(r, at->version);
        b->sum_vt = b->max * b->sum_t;
        break;
    case BIN_ONE_SELF:
        b->sum = b->sum_t = b->max;
        b->sum_vt = b->max * b->max;
        break;
    case BIN_ONE_UNIT:
        b->sum = b->max;
        b->sum_t = 1;
        b->sum_vt = b->max * 1.0;
        break;
    case BIN_UNTIMED:
        b->sum_t = (double)b->count;
        b->sum_vt = b->sum;
        break;
    case BIN_SELF:
        b->sum_t = b->sum;
        b->sum_vt = v4 ? get_beside(r, product_estimate(b)) : byte_get_double(r);
        break;
    case BIN_ONE_TIMED: {
        uint64_t position = byte_get_varint(r);
        if (at->version == FORMAT_FULL_DOUBLES || !timer || position >= timer->n)
            return false;
        b->sum = b->max;
        b->sum_t = timer->max[position];
        b->sum_vt = b->max * b->sum_t;
        break;
    }
    default:
        return false;
    }
    if (!weighted) { /* stored before: t = 1 now */
        b->sum_t = (double)b->count;
        b->sum_vt = b->sum;
    }
    return !r->failed;
}

/* Room in the stored timer for n values; -1 when out of memory. */
static int timer_reserve(struct stored_timer *t, size_t n)
{
    if (n <= t->capacity)
        return 0;
    double *more = malloc(n * sizeof *more);
    if (!more)
        return -1;
    if (t->max != t->room)
        free(t->max);
    t->max = more;
    t->capacity = n;
    return 0;
}

/* A stored field's bins as read, and where each is among the bins it is
 * merged into; room on the stack for most day rows' fields. */
struct stored_bins {
    struct aggregate_bin *bins;
    size_t *at;
    size_t capacity;
    struct aggregate_bin room[512];
    size_t room_at[512];
};

/* Room for n stored bins; -1 when out of memory. */
static int stored_reserve(struct stored_bins *s, size_t n)
{
    if (n <= s->capacity)
        return 0;
    struct aggregate_bin *bins = malloc(n * sizeof *bins);
    size_t *at = malloc(n * sizeof *at);
    if (!bins || !at) {
        free(bins);
        free(at);
        return -1;
    }
    if (s->bins != s->room) {
        free(s->bins);
        free(s->at);
    }
    s->bins = bins;
    s->at = at;
    s->capacity = n;
    return 0;
}

/* The first position from `from` on of a bin of f whose index is at least
 * index (f's bins ascend): galloping, since the stored bins that follow
 * are found in order, most of them near the one before. */
static size_t seek_bin(const struct aggregate_field *f, size_t from, int32_t index)
{
    size_t step = 1;
    while (from + step < f->nbins && f->bins[from + step - 1].index < index)
        step *= 2;
    size_t lo = from + step / 2, hi = from + step < f->nbins ? from + step : f->nbins;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->bins[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One stored field's bins (field: its id - 1) read, then merged with
 * into's as aggregate_merge merges them: added in place when into has a
 * bin of each one's index (a question merging a name's days: after its
 * first days, nearly always), otherwise into a new array (*merged, *n of
 * them). *merged is into's own bins when merged in place, NULL when the
 * stored field counts no run (`counted` false: its bins are read past).
 * A merged array copied at every day row (a new one each time, most of it
 * into's bins) was a fifth of a question's time. 0, -1 when out of memory,
 * 1 when the bins are damaged. */
static int merge_stored_bins(struct byte_reader *r, struct bin_reader *at, size_t field,
                             struct aggregate_field *into, bool counted, size_t nbins,
                             struct stored_timer *timer, struct stored_bins *stored,
                             struct aggregate_bin **merged, size_t *n)
{
    bool is_timer = field == FIELD_WALL_TIME,
         weighted = aggregate_weighted_by_time(summary_field_by_id(field));
    *merged = NULL;
    *n = 0;
    if ((is_timer && timer_reserve(timer, nbins) < 0) || stored_reserve(stored, nbins) < 0)
        return -1;
    for (size_t k = 0; k < nbins; k++) {
        if (!get_bin(r, at, weighted, is_timer ? NULL : timer, &stored->bins[k]))
            return 1;
        if (is_timer)
            timer->max[timer->n++] = stored->bins[k].max;
    }
    if (!counted)
        return 0;
    size_t found = 0, i = 0;
    for (size_t k = 0; k < nbins; k++) {
        i = seek_bin(into, i, stored->bins[k].index);
        stored->at[k] = i;
        found += i < into->nbins && into->bins[i].index == stored->bins[k].index;
    }
    if (found == nbins && into->bins) {
        for (size_t k = 0; k < nbins; k++)
            into->bins[stored->at[k]] = aggregate_bin_sum(into->bins[stored->at[k]], &stored->bins[k]);
        *merged = into->bins;
        *n = into->nbins;
        return 0;
    }
    struct aggregate_bin *bins = malloc((into->nbins + nbins ? into->nbins + nbins : 1) * sizeof *bins);
    if (!bins)
        return -1;
    size_t k = 0;
    i = 0;
    for (size_t read = 0; read < nbins; read++) {
        const struct aggregate_bin *b = &stored->bins[read];
        while (i < into->nbins && into->bins[i].index < b->index)
            bins[k++] = into->bins[i++];
        bins[k++] = i < into->nbins && into->bins[i].index == b->index
                        ? aggregate_bin_sum(into->bins[i++], b)
                        : *b;
    }
    while (i < into->nbins)
        bins[k++] = into->bins[i++];
    *merged = bins;
    *n = k;
    return 0;
}

/* One stored field (id: its field + 1, read) merged into a. 0, -1 when out
 * of memory, 1 when it is damaged. */
static int merge_stored_field(struct byte_reader *r, uint64_t version, size_t id, struct aggregate *a,
                              struct stored_timer *timer, struct stored_bins *stored)
{
    struct aggregate_field from = {0};
    struct bin_reader at = {version, 0, 0, {0, 0, false}, {0, 0, false}};
    if (version == FORMAT_VERSION) {
        from.count = byte_get_varint(r);
        from.count_timed = byte_get_varint(r);
    } else {
        get_field_head(r, version, &from);
    }
    size_t nbins = byte_get_varint(r);
    /* a bin takes 2 bytes or more (3 before version 4) */
    if (r->failed || nbins > (size_t)(r->end - r->p) / (version == FORMAT_VERSION ? 2 : 3))
        return 1;
    struct aggregate_field *into = &a->fields[id - 1];
    struct aggregate_bin *bins;
    size_t n;
    int rc = merge_stored_bins(r, &at, id - 1, into, from.count != 0, nbins, timer, stored, &bins, &n);
    if (rc != 0)
        return rc;
    if (version == FORMAT_VERSION)
        get_field_totals(r, &at, &from);
    if (r->failed) {
        if (bins != into->bins)
            free(bins);
        return 1;
    }
    if (bins)
        aggregate_merge_totals(into, bins, n, &from);
    return 0;
}

/* Decoding merges each field as it is read (a day's stored aggregate into
 * an ingest's, most of what an ingest into days already stored does): no
 * bin is held apart from the merged ones, which took as many arrays again,
 * each of them past malloc's cached sizes. */
int aggregate_decode_merge(struct aggregate *a, const unsigned char *data, size_t len)
{
    struct byte_reader r = {data, data + len, false};
    uint64_t version = byte_get_varint(&r);
    if (version != FORMAT_VERSION && version != FORMAT_DECIMALS && version != FORMAT_FULL_DOUBLES)
        return -1;
    if (aggregate_settle(a) < 0)
        return -1;
    uint64_t runs = byte_get_varint(&r), stopped_count = byte_get_varint(&r);
    size_t nstopped = byte_get_varint(&r);
    long long stopped[AGGREGATE_STOPPED], id = 0;
    size_t listed = 0;
    for (size_t k = 0; k < nstopped && !r.failed; k++) {
        long long read = byte_get_signed(&r);
        /* version 4: each after the one before */
        id = version == FORMAT_VERSION && k ? id_plus(id, read) : read;
        if (listed < AGGREGATE_STOPPED)
            stopped[listed++] = id;
    }
    if (r.failed)
        return -1;
    /* stopped_count counts every stopped run; aggregate_keep_stopped adds the listed ones */
    a->runs += runs;
    a->stopped_count += stopped_count - listed;
    for (size_t k = 0; k < listed; k++)
        aggregate_keep_stopped(a, stopped[k], 1);
    struct stored_timer timer;
    timer.max = timer.room;
    timer.n = 0;
    timer.capacity = sizeof timer.room / sizeof timer.room[0];
    struct stored_bins stored;
    stored.bins = stored.room;
    stored.at = stored.room_at;
    stored.capacity = sizeof stored.room / sizeof stored.room[0];
    bool seen[FIELD_COUNT] = {false};
    int rc = 0;
    for (uint64_t field; rc == 0 && !r.failed && (field = byte_get_varint(&r)) != 0;) {
        if (field > FIELD_COUNT || seen[field - 1]) { /* twice */
            r.failed = true;
            break;
        }
        seen[field - 1] = true;
        rc = merge_stored_field(&r, version, field, a, &timer, &stored);
    }
    if (timer.max != timer.room)
        free(timer.max);
    if (stored.bins != stored.room) {
        free(stored.bins);
        free(stored.at);
    }
    return r.failed || rc != 0 ? -1 : 0;
}
