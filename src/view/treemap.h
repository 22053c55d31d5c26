/* Squarified treemap layout (Bruls, Huizing & van Wijk, "Squarified
 * treemaps", 2000): splits a rectangle into one rectangle per value, each with
 * an area proportional to its value, laid out in rows along the shorter side
 * so that the rectangles stay close to squares. Used by the SVG export; the
 * HTML page runs the same algorithm in JavaScript (web/page_treemap.js.inc). */
#ifndef TALLY_VIEW_TREEMAP_H
#define TALLY_VIEW_TREEMAP_H

#include <stddef.h>

struct treemap_rect {
    double x, y, w, h;
};

/* Lays out values[0..n) inside bounds; out[i] receives the rectangle of
 * values[i] (the input order is kept; sorting happens inside). Values that are
 * zero, negative or not finite get an empty rectangle at bounds' origin. The
 * rectangles of the positive values tile bounds exactly (up to rounding).
 * Returns 0, or -1 when memory runs out. */
int treemap_squarify(const double *values, size_t n, struct treemap_rect bounds,
                     struct treemap_rect *out);

/* The worst aspect ratio (max of w/h and h/w, >= 1) of a row of areas laid
 * along a side of the given length: the quantity the algorithm minimises. */
double treemap_worst_ratio(const double *areas, size_t n, double side);

#endif
