/* Robust outlier detection by the modified z-score (see outliers.h). */
#include "archive/outliers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archive/stats.h"

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
    double x = ((const struct outlier *)a)->robust_z, y = ((const struct outlier *)b)->robust_z;
    return (x < y) - (x > y);
}

static bool describes_the_host(const char *field)
{
    return !strcmp(field, "machine_cpus") || !strcmp(field, "machine_load");
}

long find_outliers(const struct history *h, double threshold, struct outlier **out)
{
    size_t count = 0, capacity = 16;
    struct outlier *list = malloc(capacity * sizeof *list);
    if (!list)
        return -1;
    for (size_t k = 0; k < h->nresources; k++) {
        if (h->present[k] == 0 || describes_the_host(h->resources[k]->name))
            continue;
        struct robust_center c;
        const double *column = history_column(h, k);
        if (robust_center_of(column, h->rows, &c) < 0 || c.scale == 0)
            continue;
        for (size_t r = 0; r < h->rows; r++) {
            if (isnan(column[r]))
                continue;
            double z = fabs(column[r] - c.median) / c.scale;
            if (!(z > threshold))
                continue;
            if (count == capacity) {
                struct outlier *bigger = realloc(list, (capacity *= 2) * sizeof *list);
                if (!bigger) {
                    free(list);
                    return -1;
                }
                list = bigger;
            }
            list[count++] = (struct outlier){r, k, column[r], c.median, z};
        }
    }
    qsort(list, count, sizeof *list, by_z_descending);
    *out = list;
    return (long)count;
}
