/* Force-directed layout of the topology graph; see topology.h. Nodes start on
 * positions drawn from a small fixed-seed generator; every iteration, all pairs
 * repel (k^2/d), edges attract (d^2/k), a weak pull towards the centre keeps
 * disconnected parts together, and moves are capped by a temperature that cools
 * linearly. Iterations are fewer for big graphs so the O(n^2) cost stays bounded. */
#include "view/topology.h"

#include <math.h>
#include <stdlib.h>

/* xorshift32: deterministic across platforms, unlike rand(). */
static double next_random(unsigned *state)
{
    unsigned x = *state ? *state : 2463534242u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return (x & 0xffffff) / (double)0x1000000;
}

static void scale_into_unit_square(size_t n, struct topology_point *p)
{
    double minx = INFINITY, maxx = -INFINITY, miny = INFINITY, maxy = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        minx = fmin(minx, p[i].x), maxx = fmax(maxx, p[i].x);
        miny = fmin(miny, p[i].y), maxy = fmax(maxy, p[i].y);
    }
    double span = fmax(maxx - minx, maxy - miny);
    for (size_t i = 0; i < n; i++) {
        if (span > 0) {
            /* keep the aspect ratio; centre the shorter dimension */
            p[i].x = (p[i].x - minx) / span + (span - (maxx - minx)) / (2 * span);
            p[i].y = (p[i].y - miny) / span + (span - (maxy - miny)) / (2 * span);
        } else {
            p[i].x = p[i].y = 0.5;
        }
    }
}

int topology_layout(size_t n, const struct topology_edge *edges, size_t n_edges, unsigned seed,
                    struct topology_point *out)
{
    if (n == 0)
        return 0;
    struct topology_point *shift = calloc(n, sizeof *shift);
    if (!shift)
        return -1;
    unsigned state = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        out[i].x = next_random(&state);
        out[i].y = next_random(&state);
    }
    double k = sqrt(1.0 / (double)n); /* ideal edge length in the unit square */
    size_t iterations = 300;
    double budget = 4e7 / ((double)n * (double)n);
    if (budget < iterations)
        iterations = budget < 30 ? 30 : (size_t)budget;
    for (size_t it = 0; it < iterations; it++) {
        double temperature = 0.1 * (1.0 - (double)it / (double)iterations) + 0.002;
        for (size_t i = 0; i < n; i++) {
            shift[i].x = (0.5 - out[i].x) * 0.05 * k; /* gravity */
            shift[i].y = (0.5 - out[i].y) * 0.05 * k;
        }
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++) {
                double dx = out[i].x - out[j].x, dy = out[i].y - out[j].y;
                double d2 = dx * dx + dy * dy;
                if (d2 < 1e-12) { /* coincident: separate along a fixed direction */
                    dx = 1e-4 * (double)(i + 1), dy = 1e-4 * (double)(j + 1);
                    d2 = dx * dx + dy * dy;
                }
                double f = k * k / d2; /* (k^2/d) along the unit vector (dx,dy)/d */
                shift[i].x += dx * f, shift[i].y += dy * f;
                shift[j].x -= dx * f, shift[j].y -= dy * f;
            }
        for (size_t e = 0; e < n_edges; e++) {
            size_t a = edges[e].a, b = edges[e].b;
            if (a >= n || b >= n || a == b)
                continue;
            double dx = out[a].x - out[b].x, dy = out[a].y - out[b].y;
            double d = sqrt(dx * dx + dy * dy);
            double f = d / k; /* (d^2/k) along the unit vector */
            shift[a].x -= dx * f, shift[a].y -= dy * f;
            shift[b].x += dx * f, shift[b].y += dy * f;
        }
        for (size_t i = 0; i < n; i++) {
            double len = sqrt(shift[i].x * shift[i].x + shift[i].y * shift[i].y);
            if (len > temperature) {
                shift[i].x *= temperature / len;
                shift[i].y *= temperature / len;
            }
            out[i].x += shift[i].x;
            out[i].y += shift[i].y;
        }
    }
    free(shift);
    scale_into_unit_square(n, out);
    return 0;
}
