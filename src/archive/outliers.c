/* Robust outlier detection by the modified z-score (see outliers.h). */
#include "archive/outliers.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "archive/stats.h"
#include "util/vec.h"

static double median_in_place(double *a, size_t n)
{
    stats_select(a, n, n / 2);
    double upper = a[n / 2];
    if (n % 2)
        return upper;
    double lower = a[0]; /* the largest of the lower half */
    for (size_t i = 1; i < n / 2; i++)
        if (a[i] > lower)
            lower = a[i];
    return (lower + upper) / 2;
}

int robust_center_of(const double *values, size_t n, struct robust_center *out)
{
    double *a = malloc((n ? n : 1) * sizeof *a);
    if (!a)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(values[i]))
            a[m++] = values[i];
    if (m == 0) {
        free(a);
        return -1;
    }
    double median = median_in_place(a, m), mean_deviation = 0;
    for (size_t i = 0; i < m; i++) {
        a[i] = fabs(a[i] - median);
        mean_deviation += a[i];
    }
    mean_deviation /= (double)m;
    double mad = median_in_place(a, m);
    out->median = median;
    out->scale = mad > 0 ? 1.4826 * mad : 1.2533 * mean_deviation;
    free(a);
    return 0;
}

static int by_z_descending(const void *a, const void *b)
{
    const struct outlier *p = a, *q = b;
    if ((p->reason == OUTLIER_LIMIT) != (q->reason == OUTLIER_LIMIT))
        return p->reason == OUTLIER_LIMIT ? 1 : -1;
    double x = p->robust_z, y = q->robust_z;
    return (x < y) - (x > y);
}

static bool describes_the_host(const char *field)
{
    return !strcmp(field, "machine_cpus") || !strcmp(field, "machine_load");
}

struct outlier_list {
    struct outlier *items;
    size_t count, capacity;
};

static int push(struct outlier_list *l, struct outlier o)
{
    struct outlier *item = VEC_PUSH(l->items, l->count, l->capacity);
    if (!item)
        return -1;
    *item = o;
    return 0;
}

long find_outliers(const struct history *h, double threshold, double ratio,
                   struct outlier **out)
{
    struct outlier_list l = {NULL, 0, 0};
    for (size_t k = 0; k < h->nresources; k++) {
        if (h->present[k] == 0 || describes_the_host(h->resources[k]->name))
            continue;
        struct robust_center c;
        const double *column = history_column(h, k);
        if (robust_center_of(column, h->rows, &c) < 0)
            continue;
        for (size_t r = 0; r < h->rows; r++) {
            if (isnan(column[r]))
                continue;
            double z = c.scale > 0 ? fabs(column[r] - c.median) / c.scale : 0;
            enum outlier_reason reason;
            if (z > threshold)
                reason = OUTLIER_ROBUST_Z;
            else if (c.median > 0 && column[r] > ratio * c.median)
                reason = OUTLIER_RATIO;
            else
                continue;
            if (push(&l, (struct outlier){r, k, column[r], c.median, z, reason}) < 0)
                goto fail;
        }
    }
    for (size_t r = 0; r < h->rows && h->exit_types; r++)
        if (h->exit_types[r] && !strcmp(h->exit_types[r], "limits") &&
            push(&l, (struct outlier){r, SIZE_MAX, NAN, NAN, 0, OUTLIER_LIMIT}) < 0)
            goto fail;
    if (l.count)
        qsort(l.items, l.count, sizeof *l.items, by_z_descending);
    *out = l.items ? l.items : malloc(1);
    return *out ? (long)l.count : -1;
fail:
    free(l.items);
    return -1;
}
