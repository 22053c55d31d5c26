/* Leader clustering with refinement passes (see cluster.h). */
#include "contract/cluster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REFINE_PASSES 20

double cluster_distance(const double *p, const double *c, const double *scale, int dims)
{
    double s = 0;
    for (int d = 0; d < dims; d++) {
        double x = (p[d] - c[d]) / scale[d];
        s += x * x;
    }
    return sqrt(s);
}

/* Nearest centroid among k; returns its index and distance. */
static size_t nearest(const double *p, const double *centroids, size_t k, const double *scale, int dims,
                      double *dist)
{
    size_t best = 0;
    double bd = INFINITY;
    for (size_t c = 0; c < k; c++) {
        double dd = cluster_distance(p, centroids + c * (size_t)dims, scale, dims);
        if (dd < bd) {
            bd = dd;
            best = c;
        }
    }
    *dist = bd;
    return best;
}

void clustering_free(struct clustering *c)
{
    free(c->centroid);
    free(c->stddev);
    free(c->count);
    free(c->assign);
    memset(c, 0, sizeof *c);
}

/* Centroids, counts and spreads from the assignment; k clusters. */
static void recompute(const double *points, size_t n, int dims, struct clustering *c, size_t k)
{
    memset(c->centroid, 0, k * (size_t)dims * sizeof(double));
    memset(c->stddev, 0, k * (size_t)dims * sizeof(double));
    memset(c->count, 0, k * sizeof(size_t));
    for (size_t i = 0; i < n; i++) {
        size_t a = (size_t)c->assign[i];
        c->count[a]++;
        for (int d = 0; d < dims; d++)
            c->centroid[a * dims + d] += points[i * dims + d];
    }
    for (size_t a = 0; a < k; a++)
        for (int d = 0; d < dims; d++)
            if (c->count[a])
                c->centroid[a * dims + d] /= (double)c->count[a];
    for (size_t i = 0; i < n; i++) {
        size_t a = (size_t)c->assign[i];
        for (int d = 0; d < dims; d++) {
            double x = points[i * dims + d] - c->centroid[a * dims + d];
            c->stddev[a * dims + d] += x * x;
        }
    }
    for (size_t a = 0; a < k; a++)
        for (int d = 0; d < dims; d++)
            if (c->count[a])
                c->stddev[a * dims + d] = sqrt(c->stddev[a * dims + d] / (double)c->count[a]);
}

/* Drops empty clusters and renumbers by first point; returns the new k. */
static size_t renumber(size_t n, struct clustering *c, size_t k, int *map)
{
    for (size_t a = 0; a < k; a++)
        map[a] = -1;
    size_t next = 0;
    for (size_t i = 0; i < n; i++) {
        int a = c->assign[i];
        if (map[a] < 0)
            map[a] = (int)next++;
        c->assign[i] = map[a];
    }
    return next;
}

int cluster_points(const double *points, size_t n, int dims, const double *scale, double max_distance,
                   struct clustering *out)
{
    memset(out, 0, sizeof *out);
    out->dims = dims;
    size_t cap = n ? n : 1; /* at most one cluster per point */
    out->centroid = calloc(cap * (size_t)dims + 1, sizeof(double));
    out->stddev = calloc(cap * (size_t)dims + 1, sizeof(double));
    out->count = calloc(cap, sizeof(size_t));
    out->assign = calloc(cap, sizeof(int));
    int *map = calloc(cap, sizeof(int));
    if (!out->centroid || !out->stddev || !out->count || !out->assign || !map) {
        free(map);
        clustering_free(out);
        return -1;
    }
    size_t k = 0;
    /* (1) leader pass with running centroids */
    for (size_t i = 0; i < n; i++) {
        const double *p = points + i * (size_t)dims;
        double dist;
        size_t c = k ? nearest(p, out->centroid, k, scale, dims, &dist) : 0;
        if (k == 0 || dist > max_distance) {
            c = k++;
            memcpy(out->centroid + c * dims, p, (size_t)dims * sizeof(double));
            out->count[c] = 0;
        }
        out->assign[i] = (int)c;
        out->count[c]++;
        for (int d = 0; d < dims; d++)
            out->centroid[c * dims + d] += (p[d] - out->centroid[c * dims + d]) / (double)out->count[c];
    }
    /* (2) refinement */
    for (int pass = 0; pass < REFINE_PASSES && n > 0; pass++) {
        recompute(points, n, dims, out, k);
        int moved = 0;
        size_t k_before = k;
        for (size_t i = 0; i < n; i++) {
            const double *p = points + i * (size_t)dims;
            double dist;
            size_t c = nearest(p, out->centroid, k_before, scale, dims, &dist);
            if (dist > max_distance) {
                /* a new cluster seeded at this point (centroid fixed until the next pass) */
                double d2;
                size_t c2 = k > k_before ? nearest(p, out->centroid + k_before * dims, k - k_before, scale, dims, &d2) + k_before : 0;
                if (k > k_before && d2 <= max_distance) {
                    c = c2;
                } else {
                    c = k++;
                    memcpy(out->centroid + c * dims, p, (size_t)dims * sizeof(double));
                }
            }
            if ((size_t)out->assign[i] != c) {
                out->assign[i] = (int)c;
                moved = 1;
            }
        }
        k = renumber(n, out, k, map);
        if (!moved)
            break;
    }
    recompute(points, n, dims, out, k);
    out->n_clusters = k;
    free(map);
    return 0;
}
