/* Squarified treemap layout; see treemap.h. The algorithm, as in the paper:
 * take the values in decreasing order; keep adding the next one to the current
 * row along the shorter side of the free rectangle while that does not make the
 * row's worst aspect ratio worse; otherwise fix the row (a strip across the
 * shorter side) and continue in what remains. */
#include "view/treemap.h"

#include <math.h>
#include <stdlib.h>

struct indexed_value {
    double value;
    size_t index;
};

static int by_value_descending(const void *a, const void *b)
{
    const struct indexed_value *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index; /* stable: input order */
}

double treemap_worst_ratio(const double *areas, size_t n, double side)
{
    if (n == 0 || side <= 0)
        return INFINITY;
    double sum = 0, min = INFINITY, max = 0;
    for (size_t i = 0; i < n; i++) {
        sum += areas[i];
        if (areas[i] < min)
            min = areas[i];
        if (areas[i] > max)
            max = areas[i];
    }
    if (sum <= 0 || min <= 0)
        return INFINITY;
    double s2 = side * side, sum2 = sum * sum;
    double a = s2 * max / sum2, b = sum2 / (s2 * min);
    return a > b ? a : b;
}

/* Places areas[0..n) as one strip along the shorter side of *free and shrinks
 * *free to what is left. */
static void place_row(const double *areas, const size_t *index, size_t n, struct treemap_rect *free,
                      struct treemap_rect *out, int last_row)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += areas[i];
    int horizontal = free->w >= free->h; /* strip is a column on the left when wider than tall */
    if (horizontal) {
        double strip = last_row ? free->w : sum / free->h;
        double y = free->y;
        for (size_t i = 0; i < n; i++) {
            double h = (i + 1 == n) ? free->y + free->h - y : areas[i] / strip;
            out[index[i]] = (struct treemap_rect){free->x, y, strip, h};
            y += h;
        }
        free->x += strip;
        free->w -= strip;
    } else {
        double strip = last_row ? free->h : sum / free->w;
        double x = free->x;
        for (size_t i = 0; i < n; i++) {
            double w = (i + 1 == n) ? free->x + free->w - x : areas[i] / strip;
            out[index[i]] = (struct treemap_rect){x, free->y, w, strip};
            x += w;
        }
        free->y += strip;
        free->h -= strip;
    }
    if (free->w < 0)
        free->w = 0;
    if (free->h < 0)
        free->h = 0;
}

int treemap_squarify(const double *values, size_t n, struct treemap_rect bounds,
                     struct treemap_rect *out)
{
    struct indexed_value *sorted = calloc(n ? n : 1, sizeof *sorted);
    double *areas = calloc(n ? n : 1, sizeof *areas);
    size_t *index = calloc(n ? n : 1, sizeof *index);
    if (!sorted || !areas || !index) {
        free(sorted), free(areas), free(index);
        return -1;
    }
    size_t count = 0;
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = (struct treemap_rect){bounds.x, bounds.y, 0, 0};
        if (values[i] > 0 && isfinite(values[i])) {
            sorted[count++] = (struct indexed_value){values[i], i};
            total += values[i];
        }
    }
    qsort(sorted, count, sizeof *sorted, by_value_descending);
    double scale = total > 0 ? bounds.w * bounds.h / total : 0;
    for (size_t i = 0; i < count; i++) {
        areas[i] = sorted[i].value * scale;
        index[i] = sorted[i].index;
    }

    struct treemap_rect free_space = bounds;
    size_t row_start = 0;
    while (row_start < count) {
        double side = free_space.w < free_space.h ? free_space.w : free_space.h;
        size_t row_len = 1;
        while (row_start + row_len < count &&
               treemap_worst_ratio(areas + row_start, row_len + 1, side) <=
                   treemap_worst_ratio(areas + row_start, row_len, side))
            row_len++;
        int last_row = row_start + row_len == count;
        place_row(areas + row_start, index + row_start, row_len, &free_space, out, last_row);
        row_start += row_len;
    }
    free(sorted), free(areas), free(index);
    return 0;
}
