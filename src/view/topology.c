/* Force-directed layout of the topology graph; see topology.h. Nodes start on
 * positions drawn from a small fixed-seed generator; every iteration, all pairs
 * repel (k^2/d), edges attract (d^2/k), a weak pull towards the centre keeps
 * disconnected parts together, and moves are capped by a temperature that cools
 * linearly. Iterations are fewer for big graphs so the O(n^2) cost stays bounded.
 * The result is turned along its principal axis and stretched to the square;
 * topology_fit() then places it in a pane around the drawings' sizes. */
#include "view/topology.h"

#include <math.h>
#include <stdbool.h>
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

/* Turns the points about their centroid so that their principal axis (the
 * direction of largest spread) is horizontal, then stretches each axis to
 * [0, 1] (0.5 when all points share that coordinate). */
static void fill_unit_square(size_t n, struct topology_point *p)
{
    double cx = 0, cy = 0;
    for (size_t i = 0; i < n; i++)
        cx += p[i].x, cy += p[i].y;
    cx /= (double)n, cy /= (double)n;
    double sxx = 0, syy = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = p[i].x - cx, dy = p[i].y - cy;
        sxx += dx * dx, syy += dy * dy, sxy += dx * dy;
    }
    double angle = 0.5 * atan2(2 * sxy, sxx - syy); /* of the principal axis */
    double c = cos(angle), s = sin(angle);
    double minx = INFINITY, maxx = -INFINITY, miny = INFINITY, maxy = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double dx = p[i].x - cx, dy = p[i].y - cy;
        p[i].x = c * dx + s * dy;
        p[i].y = -s * dx + c * dy;
        minx = fmin(minx, p[i].x), maxx = fmax(maxx, p[i].x);
        miny = fmin(miny, p[i].y), maxy = fmax(maxy, p[i].y);
    }
    /* spreads below a millionth of the other axis' are rounding: one line */
    double tiny = 1e-6 * fmax(maxx - minx, maxy - miny);
    for (size_t i = 0; i < n; i++) {
        p[i].x = maxx - minx > tiny ? (p[i].x - minx) / (maxx - minx) : 0.5;
        p[i].y = maxy - miny > tiny ? (p[i].y - miny) / (maxy - miny) : 0.5;
    }
}

/* One axis of topology_fit: positions u in [0,1] with extents lo (before)
 * and hi (after) into [margin, length - margin]. The scale is the largest
 * for which no pair overlaps the pane's ends: for u_i > u_j,
 * s (u_i - u_j) <= length - 2 margin - hi_i - lo_j; the offset is then the
 * middle of the ones that keep every extent inside. */
static void fit_axis(size_t n, const double *u, const double *lo, const double *hi, double length,
                     double margin, double *out)
{
    double room = length - 2 * margin, scale = room;
    bool same = true; /* the same extents for all (no labels): the two ends decide */
    double umin = INFINITY, umax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        same &= lo[i] == lo[0] && hi[i] == hi[0];
        umin = fmin(umin, u[i]), umax = fmax(umax, u[i]);
    }
    if (same && umax > umin)
        scale = fmin(scale, (room - hi[0] - lo[0]) / (umax - umin));
    for (size_t i = 0; i < n && !same; i++)
        for (size_t j = 0; j < n; j++)
            if (u[i] > u[j])
                scale = fmin(scale, (room - hi[i] - lo[j]) / (u[i] - u[j]));
    if (scale < 0)
        scale = 0;
    double from = -INFINITY, to = INFINITY; /* the offsets that keep every extent inside */
    for (size_t i = 0; i < n; i++) {
        from = fmax(from, margin + lo[i] - scale * u[i]);
        to = fmin(to, length - margin - hi[i] - scale * u[i]);
    }
    double offset = (from + to) / 2;
    for (size_t i = 0; i < n; i++)
        out[i] = offset + scale * u[i];
}

void topology_fit(size_t n, const struct topology_point *unit, const struct topology_extent *ext,
                  double width, double height, double margin, struct topology_point *out)
{
    if (n == 0)
        return;
    double *buf = malloc(4 * n * sizeof *buf);
    if (!buf) { /* no room to weigh the extents: the margin alone */
        for (size_t i = 0; i < n; i++)
            out[i] = (struct topology_point){margin + unit[i].x * (width - 2 * margin),
                                             margin + unit[i].y * (height - 2 * margin)};
        return;
    }
    double *u = buf, *lo = buf + n, *hi = buf + 2 * n, *pos = buf + 3 * n;
    for (size_t i = 0; i < n; i++)
        u[i] = unit[i].x, lo[i] = ext[i].left, hi[i] = ext[i].right;
    fit_axis(n, u, lo, hi, width, margin, pos);
    for (size_t i = 0; i < n; i++)
        out[i].x = pos[i], u[i] = unit[i].y, lo[i] = ext[i].top, hi[i] = ext[i].bottom;
    fit_axis(n, u, lo, hi, height, margin, pos);
    for (size_t i = 0; i < n; i++)
        out[i].y = pos[i];
    free(buf);
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
    fill_unit_square(n, out);
    return 0;
}
