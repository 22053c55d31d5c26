/* Squarified treemap layout: the worked example of Bruls et al. (2000), areas
 * proportional to values, exact tiling of the parent, empty values. */
#include <stdlib.h>

#include "test.h"
#include "view/treemap.h"

static double overlap(struct treemap_rect a, struct treemap_rect b)
{
    double w = fmin(a.x + a.w, b.x + b.w) - fmax(a.x, b.x);
    double h = fmin(a.y + a.h, b.y + b.h) - fmax(a.y, b.y);
    return (w > 0 && h > 0) ? w * h : 0;
}

/* Checks that rects of the positive values tile bounds: inside it, no overlap,
 * areas summing to the whole, each area proportional to its value. */
static void check_tiling(const double *values, const struct treemap_rect *r, size_t n,
                         struct treemap_rect bounds)
{
    double total = 0, area_sum = 0, worst_overlap = 0, worst_proportion = 0;
    int inside = 1;
    for (size_t i = 0; i < n; i++)
        total += values[i] > 0 ? values[i] : 0;
    for (size_t i = 0; i < n; i++) {
        double area = r[i].w * r[i].h;
        area_sum += area;
        double want = values[i] > 0 ? values[i] / total * bounds.w * bounds.h : 0;
        worst_proportion = fmax(worst_proportion, fabs(area - want));
        if (r[i].x < bounds.x - 1e-9 || r[i].y < bounds.y - 1e-9 ||
            r[i].x + r[i].w > bounds.x + bounds.w + 1e-9 || r[i].y + r[i].h > bounds.y + bounds.h + 1e-9)
            inside = 0;
        for (size_t j = i + 1; j < n; j++)
            worst_overlap = fmax(worst_overlap, overlap(r[i], r[j]));
    }
    CHECK(inside);
    CHECK_NEAR(worst_overlap, 0, 1e-9);
    CHECK_NEAR(area_sum, bounds.w * bounds.h, 1e-9 * bounds.w * bounds.h);
    CHECK_NEAR(worst_proportion, 0, 1e-9 * bounds.w * bounds.h);
}

static void test_paper_example(void)
{
    /* Figure 4 of the paper: 6,6,4,3,2,2,1 in a 6 x 4 rectangle. */
    double v[] = {6, 6, 4, 3, 2, 2, 1};
    struct treemap_rect r[7], b = {0, 0, 6, 4};
    CHECK_INT(treemap_squarify(v, 7, b, r), 0);
    /* row 1: the two 6s as a column of width 3 */
    CHECK_NEAR(r[0].x, 0, 1e-12); CHECK_NEAR(r[0].w, 3, 1e-12); CHECK_NEAR(r[0].h, 2, 1e-12);
    CHECK_NEAR(r[1].y, 2, 1e-12); CHECK_NEAR(r[1].w, 3, 1e-12);
    /* row 2: 4 and 3 as a strip of height 7/3 across the remaining 3 x 4 */
    CHECK_NEAR(r[2].x, 3, 1e-12); CHECK_NEAR(r[2].y, 0, 1e-12);
    CHECK_NEAR(r[2].h, 7.0 / 3, 1e-12); CHECK_NEAR(r[2].w, 12.0 / 7, 1e-12);
    CHECK_NEAR(r[3].x, 3 + 12.0 / 7, 1e-12); CHECK_NEAR(r[3].w, 9.0 / 7, 1e-12);
    /* rows 3-5: 2, 2 and 1 as columns of height 5/3 */
    CHECK_NEAR(r[4].y, 7.0 / 3, 1e-12); CHECK_NEAR(r[4].h, 5.0 / 3, 1e-12); CHECK_NEAR(r[4].w, 1.2, 1e-12);
    CHECK_NEAR(r[5].x, 4.2, 1e-12); CHECK_NEAR(r[5].w, 1.2, 1e-12);
    CHECK_NEAR(r[6].x, 5.4, 1e-12); CHECK_NEAR(r[6].w, 0.6, 1e-12); CHECK_NEAR(r[6].h, 5.0 / 3, 1e-12);
    /* the aspect ratios the algorithm gives: 1.5 for the first row */
    CHECK_NEAR(treemap_worst_ratio((double[]){6, 6}, 2, 4), 1.5, 1e-12);
    check_tiling(v, r, 7, b);
}

static void test_input_order_kept(void)
{
    double v[] = {1, 6, 2, 6, 3, 2, 4};
    struct treemap_rect r[7], b = {10, 20, 6, 4};
    CHECK_INT(treemap_squarify(v, 7, b, r), 0);
    CHECK_NEAR(r[1].x, 10, 1e-12); /* the first 6 goes first, top-left */
    CHECK_NEAR(r[1].y, 20, 1e-12);
    CHECK_NEAR(r[0].w * r[0].h, 1, 1e-12); /* the 1 keeps its area wherever it is */
    check_tiling(v, r, 7, b);
}

static void test_zero_and_bad_values(void)
{
    double v[] = {0, 5, -1, NAN, 5};
    struct treemap_rect r[5], b = {0, 0, 100, 10};
    CHECK_INT(treemap_squarify(v, 5, b, r), 0);
    CHECK_NEAR(r[0].w * r[0].h, 0, 0);
    CHECK_NEAR(r[2].w * r[2].h, 0, 0);
    CHECK_NEAR(r[3].w * r[3].h, 0, 0);
    CHECK_NEAR(r[1].w * r[1].h, 500, 1e-9);
    CHECK_NEAR(r[4].w * r[4].h, 500, 1e-9);
    /* all zero: nothing drawn, no crash */
    double z[] = {0, 0};
    CHECK_INT(treemap_squarify(z, 2, b, r), 0);
    CHECK_NEAR(r[0].w + r[1].w, 0, 0);
    CHECK_INT(treemap_squarify(NULL, 0, b, r), 0);
}

static void test_many_random_values(void)
{
    enum { N = 500 };
    double v[N];
    struct treemap_rect r[N], b = {0, 0, 1600, 900};
    srand(42);
    for (int i = 0; i < N; i++)
        v[i] = (i % 7 == 0) ? 0 : 1 + rand() % 100000;
    CHECK_INT(treemap_squarify(v, N, b, r), 0);
    check_tiling(v, r, N, b);
    /* squarified: most rectangles are close to squares */
    int squarish = 0, drawn = 0;
    for (int i = 0; i < N; i++)
        if (v[i] > 0) {
            drawn++;
            double ratio = fmax(r[i].w / r[i].h, r[i].h / r[i].w);
            squarish += ratio < 3;
        }
    CHECK(squarish > drawn * 9 / 10);
}

int main(void)
{
    test_paper_example();
    test_input_order_kept();
    test_zero_and_bad_values();
    test_many_random_values();
    return test_done();
}
