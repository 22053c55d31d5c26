/* Aggregates kept at ingest: adding, merging, reading (see aggregate.h). */
#include "archive/aggregate.h"
#include "archive/aggregate_merge.h"
#include "archive/quicksort.h"
#include "util/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A field's pending values are a list of chunks, each twice the size of
 * the one before (from PENDING_FIRST to PENDING_MOST values): appending
 * never copies what is there (growing one array by realloc copied each
 * value again, cold, 10 % of the reading thread's CPU). Where the next
 * value goes is kept in the field (hot: its sums are updated with it), so
 * that appending only writes to the chunk: reading a count there waited
 * for its cold line, a sixth of adding a run. */
struct aggregate_pending_chunk {
    struct aggregate_pending_chunk *next;
    size_t capacity;
    struct aggregate_pending item[];
};
#define PENDING_FIRST 8
#define PENDING_MOST 4096

static void drop_pending(struct aggregate_field *f)
{
    for (struct aggregate_pending_chunk *c = f->pending, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    f->pending = f->pending_last = NULL;
    f->pending_next = f->pending_end = NULL;
    f->npending = 0;
}

/* Appends a pending value; -1 when out of memory. */
static inline int push_pending(struct aggregate_field *f, int32_t index, double v, double t)
{
    if (f->pending_next == f->pending_end) {
        struct aggregate_pending_chunk *c = f->pending_last;
        size_t capacity = !c ? PENDING_FIRST : c->capacity < PENDING_MOST ? 2 * c->capacity : PENDING_MOST;
        struct aggregate_pending_chunk *more = malloc(sizeof *more + capacity * sizeof more->item[0]);
        if (!more)
            return -1;
        more->next = NULL;
        more->capacity = capacity;
        *(c ? &c->next : &f->pending) = more;
        f->pending_last = more;
        f->pending_next = more->item;
        f->pending_end = more->item + capacity;
    }
    *f->pending_next++ = (struct aggregate_pending){index, v, t};
    f->npending++;
    return 0;
}

/* For each pending value p of f, in arrival order. */
#define FOR_PENDING(f, p)                                                                      \
    for (const struct aggregate_pending_chunk *c_ = (f)->pending; c_; c_ = c_->next)          \
        for (const struct aggregate_pending *p = c_->item,                                     \
                                            *end_ = c_ == (f)->pending_last ? (f)->pending_next \
                                                                            : c_->item + c_->capacity; \
             p < end_; p++)

void aggregate_init(struct aggregate *a) { memset(a, 0, sizeof *a); }

void aggregate_free(struct aggregate *a)
{
    for (size_t f = 0; f < FIELD_COUNT; f++) {
        free(a->fields[f].bins);
        drop_pending(&a->fields[f]);
    }
    memset(a, 0, sizeof *a);
}

static int32_t bin_index(double v)
{
    if (!(v > 0))
        return INT32_MIN;
    double i = floor(log(v) / log(AGGREGATE_GAMMA));
    return i < -2e9 ? -2000000000 : i > 2e9 ? 2000000000 : (int32_t)i;
}

/* The values of a field being added to wait in a list in arrival order
 * (f->pending: appending is all an added run does to the field's bins) and
 * join the bins in one pass when the field is read (settle_field). Finding
 * each run's bin as it came (a sorted list with a hashed tail of new bins)
 * took 14 % of the reading thread's CPU: a transaction's aggregates hold
 * ~35 MB of bins, and each run touched two random bins of each field
 * (cache misses) and grew the bin arrays by realloc; the pending lists are
 * written in order, and a field's settle works in a few kilobytes. A bin's
 * sums take its runs in arrival order either way (the same bits). */

/* distinct pending indices sorted, the comparison inlined (the sparse case) */
#define KEY_INDEX(i) ((double)(i))
DEFINE_QUICKSORT(sort_indices, int32_t, KEY_INDEX)

/* A dense map of the pending indices (4 bytes an index of their span) when
 * the span is at most this, given n pending values; else a sorted list. */
#define DENSE_SPAN(n) (8 * (int64_t)(n) + 1024)

/* Where the distinct indices of a field's pending values are: either a
 * dense map (slot k of index lo + k - 1, slot 0 for INT32_MIN, holding the
 * index's position + 1 in `distinct`), or `distinct` searched; at: each
 * distinct index's bin. A field of at most MAP_SMALL pending values (most
 * of a transaction's) is mapped in the arrays here, on the stack: four
 * allocations a field settled were a tenth of the settle. */
#define MAP_SMALL 256
struct pending_map {
    int32_t *distinct; /* ascending */
    size_t ndistinct;
    uint32_t *at;
    uint32_t *dense;   /* or NULL */
    int64_t lo;
    int32_t small_distinct[MAP_SMALL];
    uint32_t small_at[MAP_SMALL];
    uint32_t small_dense[DENSE_SPAN(MAP_SMALL)];
};

static void map_free(struct pending_map *m)
{
    if (m->distinct != m->small_distinct)
        free(m->distinct); /* (at with it) */
    if (m->dense != m->small_dense)
        free(m->dense);
}

static size_t dense_slot(const struct pending_map *m, int32_t index)
{
    return index == INT32_MIN ? 0 : (size_t)((int64_t)index - m->lo + 1);
}

static size_t distinct_of(const struct pending_map *m, int32_t index)
{
    if (m->dense)
        return m->dense[dense_slot(m, index)] - 1;
    size_t lo = 0, hi = m->ndistinct;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->distinct[mid] <= index)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The distinct indices of f's pending values, ascending; -1 when out of memory. */
static int map_pending(const struct aggregate_field *f, struct pending_map *m)
{
    m->ndistinct = 0;
    m->dense = NULL;
    m->lo = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    FOR_PENDING(f, p) {
        int32_t i = p->index;
        if (i != INT32_MIN) {
            lo = i < lo ? i : lo;
            hi = i > hi ? i : hi;
        }
    }
    int64_t span = hi >= lo ? hi - lo + 2 : 1; /* + the slot of INT32_MIN */
    size_t most = f->npending < (uint64_t)span ? f->npending : (size_t)span;
    if (most <= MAP_SMALL) {
        m->distinct = m->small_distinct;
        m->at = m->small_at;
    } else if ((m->distinct = malloc(most * (sizeof *m->distinct + sizeof *m->at)))) {
        m->at = (uint32_t *)(m->distinct + most);
    } else {
        return -1;
    }
    if (span <= DENSE_SPAN(f->npending)) {
        m->lo = lo;
        if (span <= DENSE_SPAN(MAP_SMALL)) {
            m->dense = m->small_dense;
            memset(m->dense, 0, (size_t)span * sizeof *m->dense);
        } else if (!(m->dense = calloc((size_t)span, sizeof *m->dense))) {
            map_free(m);
            return -1;
        }
        FOR_PENDING(f, p)
            m->dense[dense_slot(m, p->index)] = 1;
        for (size_t slot = 0; slot < (size_t)span; slot++)
            if (m->dense[slot]) {
                m->distinct[m->ndistinct] = slot == 0 ? INT32_MIN : (int32_t)(lo + (int64_t)slot - 1);
                m->dense[slot] = (uint32_t)++m->ndistinct;
            }
        return 0;
    }
    size_t n = 0;
    FOR_PENDING(f, p)
        m->distinct[n++] = p->index;
    sort_indices(m->distinct, f->npending);
    for (size_t k = 0; k < f->npending; k++)
        if (m->ndistinct == 0 || m->distinct[m->ndistinct - 1] != m->distinct[k])
            m->distinct[m->ndistinct++] = m->distinct[k];
    return 0;
}

/* Every pending value in its bin: the bins (and the new ones, empty) merged
 * by index into a new array, then each value added to its bin in arrival
 * order. -1 when out of memory (f unchanged). */
static int settle_field(struct aggregate_field *f)
{
    if (f->npending == 0)
        return 0;
    struct pending_map m;
    if (map_pending(f, &m) < 0)
        return -1;
    size_t most = f->nbins + m.ndistinct;
    struct aggregate_bin *bins = malloc(most * sizeof *bins);
    if (!bins) {
        map_free(&m);
        return -1;
    }
    size_t i = 0, d = 0, n = 0;
    while (i < f->nbins || d < m.ndistinct) {
        if (d == m.ndistinct || (i < f->nbins && f->bins[i].index < m.distinct[d])) {
            bins[n++] = f->bins[i++];
            continue;
        }
        if (i < f->nbins && f->bins[i].index == m.distinct[d])
            bins[n] = f->bins[i++];
        else
            bins[n] = (struct aggregate_bin){m.distinct[d], 0, -INFINITY, 0, 0, 0};
        m.at[d++] = (uint32_t)n++;
    }
    FOR_PENDING(f, p) {
        struct aggregate_bin *b = &bins[m.at[distinct_of(&m, p->index)]];
        b->count++;
        if (p->v > b->max)
            b->max = p->v;
        b->sum += p->v;
        b->sum_t += p->t;
        b->sum_vt += p->v * p->t;
    }
    map_free(&m);
    free(f->bins);
    f->bins = bins;
    f->nbins = n;
    f->capacity = most;
    drop_pending(f);
    return 0;
}

int aggregate_settle(struct aggregate *a)
{
    for (size_t i = 0; i < FIELD_COUNT; i++)
        if (settle_field(&a->fields[i]) < 0)
            return -1;
    return 0;
}

static void keep_top(struct aggregate_field *f, double value, long long id)
{
    size_t k = f->ntop;
    if (k == AGGREGATE_TOP && !(value > f->top[k - 1].value))
        return;
    if (k < AGGREGATE_TOP)
        f->ntop++;
    else
        k--;
    while (k > 0 && f->top[k - 1].value < value) {
        f->top[k] = f->top[k - 1];
        k--;
    }
    f->top[k] = (struct aggregate_top){value, id};
}

void aggregate_keep_stopped(struct aggregate *a, long long id, uint64_t count)
{
    a->stopped_count += count;
    if (id && a->nstopped < AGGREGATE_STOPPED)
        a->stopped[a->nstopped++] = id;
}

/* The moments of b merged into a (Pébay 2008, the pairwise update);
 * inlined, so that adding one run (nb = 1, no moments) folds its constants. */
static inline __attribute__((always_inline)) void merge_moments(struct aggregate_field *a, uint64_t nb_count, double mean_b, double m2b,
                          double m3b, double m4b)
{
    double na = (double)a->count, nb = (double)nb_count, n = na + nb;
    if (a->count == 0) {
        a->mean = mean_b;
        a->m2 = m2b;
        a->m3 = m3b;
        a->m4 = m4b;
        return;
    }
    double d = mean_b - a->mean, d2 = d * d, d3 = d2 * d, d4 = d2 * d2;
    double m2 = a->m2 + m2b + d2 * na * nb / n;
    double m3 = a->m3 + m3b + d3 * na * nb * (na - nb) / (n * n) +
                3 * d * (na * m2b - nb * a->m2) / n;
    double m4 = a->m4 + m4b + d4 * na * nb * (na * na - na * nb + nb * nb) / (n * n * n) +
                6 * d2 * (na * na * m2b + nb * nb * a->m2) / (n * n) +
                4 * d * (na * m3b - nb * a->m3) / n;
    a->mean += d * nb / n;
    a->m2 = m2;
    a->m3 = m3;
    a->m4 = m4;
}

void aggregate_bins_of(const double *values, const bool *present, int32_t *bins)
{
    for (size_t i = 0; i < FIELD_COUNT; i++)
        bins[i] = present[i] && !isnan(values[i]) ? bin_index(values[i]) : INT32_MIN;
}

int aggregate_add(struct aggregate *a, const double *values, const bool *present, long long id,
                  bool stopped)
{
    int32_t bins[FIELD_COUNT];
    aggregate_bins_of(values, present, bins);
    int rc = aggregate_add_binned(a, values, present, bins, id, stopped);
    return aggregate_settle(a) < 0 ? -1 : rc;
}

/* Whether the bins of a field keep the sums of the runs' wall time t and of
 * v·t, which only predict reads: not for a time field (predict weighs it by
 * run) nor for one no limit applies to (never predicted). Their bins hold
 * t = 1 for every run (sum_t = count, sum_vt = sum), which the bins' short
 * forms store as nothing. */
bool aggregate_weighted_by_time(const struct summary_field *field)
{
    return field->limitable && field->dim != DIM_TIME;
}

int aggregate_add_binned(struct aggregate *a, const double *values, const bool *present,
                         const int32_t *bins, long long id, bool stopped)
{
    a->runs++;
    if (stopped)
        aggregate_keep_stopped(a, id, 1);
    bool timed = present[FIELD_WALL_TIME];
    double run_t = timed ? values[FIELD_WALL_TIME] : 1;
    for (size_t i = 0; i < FIELD_COUNT; i++) {
        if (!present[i] || isnan(values[i]))
            continue;
        struct aggregate_field *f = &a->fields[i];
        double v = values[i], t = aggregate_weighted_by_time(summary_field_by_id(i)) ? run_t : 1;
        if (push_pending(f, bins[i], v, t) < 0)
            return -1;
        merge_moments(f, 1, v, 0, 0, 0);
        if (f->count == 0 || v < f->min)
            f->min = v;
        if (f->count == 0 || v > f->max)
            f->max = v;
        f->count++;
        f->count_timed += timed;
        f->sum += v;
        keep_top(f, v, id);
    }
    return 0;
}

/* The bins of into and from, merged (n of them, malloc'd), put in place of
 * into's (unless they are into's own, merged in place), and from's count,
 * sums, moments, extremes and top values added. */
void aggregate_merge_totals(struct aggregate_field *into, struct aggregate_bin *bins, size_t n,
                            const struct aggregate_field *from)
{
    if (bins != into->bins) {
        free(into->bins);
        into->bins = bins;
        into->nbins = into->capacity = n;
    }
    merge_moments(into, from->count, from->mean, from->m2, from->m3, from->m4);
    if (into->count == 0 || from->min < into->min)
        into->min = from->min;
    if (into->count == 0 || from->max > into->max)
        into->max = from->max;
    into->count += from->count;
    into->count_timed += from->count_timed;
    into->sum += from->sum;
    for (size_t k = 0; k < from->ntop; k++)
        keep_top(into, from->top[k].value, from->top[k].id);
}

static int merge_field(struct aggregate_field *into, const struct aggregate_field *from)
{
    if (settle_field(into) < 0)
        return -1;
    if (from->count == 0)
        return 0;
    /* both bin lists are sorted by index: one linear merge into a new list */
    struct aggregate_bin *bins = malloc((into->nbins + from->nbins) * sizeof *bins);
    if (!bins)
        return -1;
    size_t i = 0, j = 0, n = 0;
    while (i < into->nbins || j < from->nbins) {
        if (j == from->nbins || (i < into->nbins && into->bins[i].index < from->bins[j].index)) {
            bins[n++] = into->bins[i++];
        } else if (i == into->nbins || from->bins[j].index < into->bins[i].index) {
            bins[n++] = from->bins[j++];
        } else {
            bins[n++] = aggregate_bin_sum(into->bins[i++], &from->bins[j++]);
        }
    }
    aggregate_merge_totals(into, bins, n, from);
    return 0;
}

int aggregate_merge(struct aggregate *into, const struct aggregate *from)
{
    into->runs += from->runs;
    into->stopped_count += from->stopped_count - from->nstopped;
    for (size_t k = 0; k < from->nstopped; k++)
        aggregate_keep_stopped(into, from->stopped[k], 1);
    for (size_t i = 0; i < FIELD_COUNT; i++)
        if (merge_field(&into->fields[i], &from->fields[i]) < 0)
            return -1;
    return 0;
}

static long long renumbered(long long id, const long long *ids, size_t n)
{
    return id >= 1 && (unsigned long long)id <= n ? ids[id - 1] : id;
}

void aggregate_renumber(struct aggregate *a, const long long *ids, size_t n)
{
    for (size_t k = 0; k < a->nstopped; k++)
        a->stopped[k] = renumbered(a->stopped[k], ids, n);
    for (size_t i = 0; i < FIELD_COUNT; i++)
        for (size_t k = 0; k < a->fields[i].ntop; k++)
            a->fields[i].top[k].id = renumbered(a->fields[i].top[k].id, ids, n);
}

/* --- reading ------------------------------------------------------------- */

/* The lower edge of bin b, never below the field's minimum. */
static double bin_low(const struct aggregate_field *f, const struct aggregate_bin *b)
{
    double low = b->index == INT32_MIN ? f->min : pow(AGGREGATE_GAMMA, b->index);
    return low < f->min ? f->min : low > b->max ? b->max : low;
}

/* The value of rank r (0-based, may be fractional) with each bin's runs
 * spread evenly between its lower edge and its largest value. */
static double value_at_rank(const struct aggregate_field *f, double rank)
{
    double before = 0;
    for (size_t k = 0; k < f->nbins; k++) {
        const struct aggregate_bin *b = &f->bins[k];
        double c = (double)b->count;
        if (rank < before + c || k + 1 == f->nbins) {
            double lo = bin_low(f, b), hi = b->max;
            double within = c > 1 ? (rank - before) / (c - 1) : 1;
            within = within < 0 ? 0 : within > 1 ? 1 : within;
            return lo + within * (hi - lo);
        }
        before += c;
    }
    return NAN;
}

double aggregate_quantile(const struct aggregate_field *f, double q)
{
    if (f->count == 0)
        return NAN;
    if (q <= 0)
        return f->min;
    if (q >= 1)
        return f->max;
    /* numpy's linear interpolation between the order statistics around (n−1)q */
    double h = (double)(f->count - 1) * q, lo = floor(h);
    double a = value_at_rank(f, lo), b = value_at_rank(f, lo + 1 < (double)f->count ? lo + 1 : lo);
    return a + (h - lo) * (b - a);
}

void aggregate_stats(const struct aggregate_field *f, struct resource_stats *out)
{
    memset(out, 0, sizeof *out);
    double n = (double)f->count;
    out->count = f->count;
    out->mean = f->count ? f->sum / n : NAN;
    out->std = f->count > 1 ? sqrt(f->m2 / (n - 1)) : NAN;
    bool shaped = f->count > 1 && f->m2 > 0;
    out->skewness = shaped ? sqrt(n) * f->m3 / pow(f->m2, 1.5) : NAN;
    out->kurtosis = shaped ? n * f->m4 / (f->m2 * f->m2) - 3 : NAN;
    out->min = f->count ? f->min : NAN;
    out->max = f->count ? f->max : NAN;
    out->p50 = aggregate_quantile(f, 0.5);
    out->p90 = aggregate_quantile(f, 0.9);
    out->p95 = aggregate_quantile(f, 0.95);
    out->p99 = aggregate_quantile(f, 0.99);
    double width = (f->max - f->min) / STATS_HISTOGRAM_BINS;
    for (size_t k = 0; k < f->nbins; k++) {
        const struct aggregate_bin *b = &f->bins[k];
        double mid = b->count ? b->sum / (double)b->count : b->max; /* the bin's mean */
        size_t slot = width > 0 ? (size_t)((mid - f->min) / width) : 0;
        out->histogram[slot >= STATS_HISTOGRAM_BINS ? STATS_HISTOGRAM_BINS - 1 : slot] += b->count;
    }
}

static struct allocation_outcome outcome_at(const struct aggregate_field *f, bool weighted,
                                            size_t fit_bins, double a)
{
    double fit_w = 0, fit_vw = 0, all_w = 0, all_vw = 0;
    uint64_t fit_count = 0;
    for (size_t k = 0; k < f->nbins; k++) {
        const struct aggregate_bin *b = &f->bins[k];
        double w = weighted ? b->sum_t : (double)b->count, vw = weighted ? b->sum_vt : b->sum;
        all_w += w;
        all_vw += vw;
        if (k < fit_bins) {
            fit_w += w;
            fit_vw += vw;
            fit_count += b->count;
        }
    }
    double over_w = all_w - fit_w, over_vw = all_vw - fit_vw;
    double waste = (a * fit_w - fit_vw) + (a * over_w + f->max * over_w - over_vw);
    double size = (a + f->max) * all_w + all_vw;
    if (!(waste > 1e-12 * size)) /* rounding, never a negative or -0 waste (predict.c) */
        waste = 0;
    double n = (double)f->count;
    return (struct allocation_outcome){a, waste / n, (double)(f->count - fit_count) / n};
}

int aggregate_predict(const struct aggregate_field *f, const struct summary_field *field,
                      double quantile, struct prediction *out, bool *time_weighted)
{
    memset(out, 0, sizeof *out);
    if (f->count == 0)
        return -1;
    bool weighted = aggregate_weighted_by_time(field) && f->count_timed == f->count;
    *time_weighted = weighted;
    out->samples = f->count;
    out->max_seen = f->max;
    /* candidates: each bin's largest value (prefix sums over the bins make
     * it O(bins²) here; bins are a few hundred) */
    for (size_t k = 0; k < f->nbins; k++) {
        struct allocation_outcome o = outcome_at(f, weighted, k + 1, f->bins[k].max);
        if (k == 0 || o.expected_waste <= out->best.expected_waste)
            out->best = o;
    }
    out->always_max = outcome_at(f, weighted, f->nbins, f->max);
    /* the quantile, rounded up to the largest value of its bin */
    double q = aggregate_quantile(f, quantile);
    size_t k = 0;
    while (k + 1 < f->nbins && f->bins[k].max < q)
        k++;
    out->quantile = outcome_at(f, weighted, k + 1, f->bins[k].max);
    return 0;
}

struct weighted_point {
    double value, weight;
};

static int by_value(const void *a, const void *b)
{
    double x = ((const struct weighted_point *)a)->value, y = ((const struct weighted_point *)b)->value;
    return (x > y) - (x < y);
}

static double weighted_median(struct weighted_point *p, size_t n, double total)
{
    qsort(p, n, sizeof *p, by_value);
    double seen = 0;
    for (size_t i = 0; i < n; i++) {
        seen += p[i].weight;
        if (seen >= total / 2)
            return p[i].value;
    }
    return n ? p[n - 1].value : NAN;
}

#define POINTS_PER_BIN 16

int aggregate_robust_center(const struct aggregate_field *f, double *median, double *scale)
{
    if (f->count == 0)
        return -1;
    struct weighted_point *p = malloc(f->nbins * POINTS_PER_BIN * sizeof *p);
    if (!p)
        return -1;
    double m = aggregate_quantile(f, 0.5), total = (double)f->count, mean_deviation = 0;
    size_t n = 0;
    for (size_t k = 0; k < f->nbins; k++) {
        const struct aggregate_bin *b = &f->bins[k];
        size_t points = b->count < POINTS_PER_BIN ? b->count : POINTS_PER_BIN;
        double lo = bin_low(f, b), hi = b->max;
        for (size_t i = 0; i < points; i++) {
            double v = points > 1 ? lo + (hi - lo) * (double)i / (double)(points - 1) : hi;
            double w = (double)b->count / (double)points;
            p[n++] = (struct weighted_point){fabs(v - m), w};
            mean_deviation += w * fabs(v - m);
        }
    }
    double mad = weighted_median(p, n, total);
    free(p);
    *median = m;
    *scale = mad > 0 ? 1.4826 * mad : 1.2533 * mean_deviation / total;
    return 0;
}
