/* Unit tests for the robust centre and scale behind 'tally archive outliers'
 * (src/archive/outliers.c), with values worked out by hand. */
#include <stdlib.h>

#include "archive/outliers.h"
#include "test.h"

int main(void)
{
    struct robust_center c;
    /* {1,2,3,4,100}: median 3; |x−3| = 2,1,0,1,97 → MAD = 1; scale 1.4826;
     * z(100) = 97 / 1.4826 = 65.43 */
    double v[] = {100, 2, 4, 1, 3};
    CHECK_INT(robust_center_of(v, 5, &c), 0);
    CHECK_NEAR(c.median, 3, 0);
    CHECK_NEAR(c.scale, 1.4826, 1e-12);
    CHECK_NEAR(v[0], 100, 0); /* input untouched */

    /* even count: {1,2,3,10}: median 2.5; deviations 1.5,0.5,0.5,7.5 → MAD 1 */
    double even[] = {10, 1, 3, 2};
    robust_center_of(even, 4, &c);
    CHECK_NEAR(c.median, 2.5, 1e-12);
    CHECK_NEAR(c.scale, 1.4826, 1e-12);

    /* MAD = 0: {5,5,5,5,9}: median 5, MAD 0; mean |x−5| = 0.8 → scale 1.00264 */
    double ties[] = {5, 5, 9, 5, 5};
    robust_center_of(ties, 5, &c);
    CHECK_NEAR(c.median, 5, 0);
    CHECK_NEAR(c.scale, 1.2533 * 0.8, 1e-12);

    /* all equal: scale 0, nothing can be an outlier */
    double flat[] = {4, 4, 4};
    robust_center_of(flat, 3, &c);
    CHECK_NEAR(c.scale, 0, 0);

    /* find_outliers on a two-resource history: memory of run 3 is far out */
    const struct summary_field *resources[2] = {summary_field_find("memory"),
                                                summary_field_find("wall_time")};
    double values[2 * 6] = {100, 101, 99, 400, 100, 102, /* memory column */
                            10,  11,  10, 10,  12,  11}; /* wall_time column */
    size_t present[2] = {6, 6};
    long long ids[6] = {1, 2, 3, 4, 5, 6};
    struct history h = {.rows = 6, .nresources = 2, .resources = resources, .values = values,
                        .present = present, .ids = ids, .capacity = 6};
    struct outlier *list;
    long n = find_outliers(&h, 3.5, OUTLIER_DEFAULT_RATIO, &list);
    CHECK_INT(n, 1);
    if (n == 1) {
        CHECK_INT(list[0].row, 3);
        CHECK_INT(list[0].resource, 0);
        CHECK_NEAR(list[0].value, 400, 0);
        CHECK_NEAR(list[0].median, 100.5, 1e-12);
        /* deviations from 100.5: .5,.5,1.5,299.5,.5,1.5 → MAD 1 */
        CHECK_NEAR(list[0].robust_z, 299.5 / 1.4826, 1e-9);
    }
    free(list);

    /* two humps (10 and 100 MB) make the MAD wide: 2000 MB has z = 1990/66.7
     * = 29.8 > 3.5 anyway; 700 MB among {10,10,10,100,100,100,100}: median
     * 100, MAD 90 → scale 133.4, z = 4.5: flagged by z. With threshold 10 it
     * is flagged only by the ratio rule (700 > 5 × 100) */
    double humps[8] = {10, 10, 10, 100, 100, 100, 100, 700};
    const struct summary_field *mem[1] = {summary_field_find("memory")};
    size_t present1[1] = {8};
    long long ids8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    char *exits[8] = {NULL, NULL, "limits", NULL, NULL, NULL, NULL, NULL};
    struct history two = {.rows = 8, .nresources = 1, .resources = mem, .values = humps,
                          .present = present1, .ids = ids8, .capacity = 8, .exit_types = exits};
    n = find_outliers(&two, 10, 5, &list);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_INT(list[0].row, 7);
        CHECK_INT(list[0].reason, OUTLIER_RATIO);
        CHECK_NEAR(list[0].median, 100, 0);
        /* the run stopped by a limit comes last, whatever its values */
        CHECK_INT(list[1].row, 2);
        CHECK_INT(list[1].reason, OUTLIER_LIMIT);
    }
    free(list);
    /* ratio 10: 700 is 7× the median, not flagged; the stopped run still is */
    n = find_outliers(&two, 10, 10, &list);
    CHECK_INT(n, 1);
    if (n == 1)
        CHECK_INT(list[0].reason, OUTLIER_LIMIT);
    free(list);
    return test_done();
}
