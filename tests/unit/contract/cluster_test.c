/* Deterministic clustering (cluster.c): one max-distance parameter, the
 * same points always give the same clusters, centroids and spreads. */
#include <stdlib.h>

#include "contract/cluster.h"
#include "test.h"

int main(void)
{
    /* two groups on a line: around 0 and around 10, one dimension */
    double pts[] = {0.0, 10.0, 0.2, 9.8, -0.2, 10.2, 0.1};
    double unit[] = {1};
    struct clustering c;
    CHECK_INT(cluster_points(pts, 7, 1, unit, 1.0, &c), 0);
    CHECK_INT(c.n_clusters, 2);
    CHECK_INT(c.assign[0], 0);
    CHECK_INT(c.assign[1], 1);
    CHECK_INT(c.assign[6], 0);
    CHECK_INT(c.count[0], 4);
    CHECK_INT(c.count[1], 3);
    CHECK_NEAR(c.centroid[0], 0.025, 1e-12);
    CHECK_NEAR(c.centroid[1], 10.0, 1e-12);
    CHECK_NEAR(c.stddev[1], sqrt((0.04 + 0.04) / 3), 1e-12);
    clustering_free(&c);

    /* a max distance larger than the gap: one cluster */
    CHECK_INT(cluster_points(pts, 7, 1, unit, 20, &c), 0);
    CHECK_INT(c.n_clusters, 1);
    clustering_free(&c);

    /* a tiny max distance: every distinct point its own cluster */
    CHECK_INT(cluster_points(pts, 7, 1, unit, 1e-9, &c), 0);
    CHECK_INT(c.n_clusters, 7);
    clustering_free(&c);

    /* scaled dimensions: the second coordinate is in thousands */
    double p2[] = {1, 1000, 1.1, 1100, 5, 1000, 5.1, 1050};
    double scale[] = {1, 1000};
    CHECK_INT(cluster_points(p2, 4, 2, scale, 0.5, &c), 0);
    CHECK_INT(c.n_clusters, 2);
    CHECK_INT(c.assign[1], c.assign[0]);
    CHECK_INT(c.assign[3], c.assign[2]);
    CHECK(c.assign[0] != c.assign[2]);
    CHECK_NEAR(cluster_distance(p2, p2 + 2, scale, 2), sqrt(0.01 + 0.01), 1e-12);
    /* every point within max distance of its centroid */
    int within = 1;
    for (int i = 0; i < 4; i++)
        within &= cluster_distance(p2 + 2 * i, c.centroid + 2 * c.assign[i], scale, 2) <= 0.5;
    CHECK(within);
    clustering_free(&c);

    /* determinism: the same input twice, identical assignment */
    double many[200];
    for (int i = 0; i < 200; i++)
        many[i] = (double)((i * 37) % 101) / 10.0;
    struct clustering a, b;
    cluster_points(many, 200, 1, unit, 0.7, &a);
    cluster_points(many, 200, 1, unit, 0.7, &b);
    int same = a.n_clusters == b.n_clusters;
    for (int i = 0; same && i < 200; i++)
        same &= a.assign[i] == b.assign[i];
    CHECK(same);
    CHECK(a.n_clusters >= 7 && a.n_clusters <= 20);
    clustering_free(&a);
    clustering_free(&b);

    /* no points */
    CHECK_INT(cluster_points(pts, 0, 1, unit, 1, &c), 0);
    CHECK_INT(c.n_clusters, 0);
    clustering_free(&c);
    return test_done();
}
