/* Deterministic clustering of signature points into equivalence classes
 * (seed 003 §4.4) with a single parameter: the maximum distance between a
 * point and its cluster's centroid. Coordinates are divided by a scale per
 * dimension first, so one distance serves metrics of any unit.
 *
 * Algorithm (docs/contracts.md): (1) leader pass: points in input order; a
 * point joins the nearest cluster whose running centroid is within
 * max_distance, otherwise it starts a new cluster. (2) refinement passes
 * (at most 20): centroids recomputed from members; every point moves to the
 * nearest centroid (ties: lowest index), or starts a new cluster when even
 * the nearest is farther than max_distance; empty clusters are dropped and
 * the rest renumbered by their first point. Stops when nothing moves. The
 * same points in the same order always give the same clusters. */
#ifndef TALLY_CONTRACT_CLUSTER_H
#define TALLY_CONTRACT_CLUSTER_H

#include <stddef.h>

struct clustering {
    int dims;
    size_t n_clusters;
    double *centroid;  /* n_clusters x dims, in the points' own units */
    double *stddev;    /* n_clusters x dims: population standard deviation */
    size_t *count;     /* points per cluster */
    int *assign;       /* per point: its cluster */
};

/* points: n x dims (row-major); scale: dims positive divisors. Returns -1
 * on allocation failure. */
int cluster_points(const double *points, size_t n, int dims, const double *scale, double max_distance,
                   struct clustering *out);
void clustering_free(struct clustering *c);

/* Euclidean distance between a point and a centroid in scaled units. */
double cluster_distance(const double *point, const double *centroid, const double *scale, int dims);

#endif
