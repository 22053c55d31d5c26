/* Positions for the topology view: a force-directed layout (Fruchterman &
 * Reingold, 1991) of the resource graph, computed once per trace with a fixed
 * seed so that hosts and links keep their places in every time slice and in
 * every report written from the same trace. */
#ifndef TALLY_VIEW_TOPOLOGY_H
#define TALLY_VIEW_TOPOLOGY_H

#include <stddef.h>

struct topology_point {
    double x, y;
};

struct topology_edge {
    size_t a, b;
};

/* Lays out n nodes joined by edges; out[i] receives node i's position in
 * [0,1] x [0,1], turned so that the layout's longest axis is horizontal and
 * stretched to fill the square on each axis (the panes are wider than high;
 * an axis along which all nodes lie is 0.5). The same input and seed always
 * give the same output. Edges naming a node >= n are ignored. Returns 0, or
 * -1 when memory runs out. */
int topology_layout(size_t n, const struct topology_edge *edges, size_t n_edges, unsigned seed,
                    struct topology_point *out);

/* How far one node's drawing (shape and label) reaches around its point. */
struct topology_extent {
    double left, right, top, bottom;
};

/* Places n points of [0,1] x [0,1] in a width x height pane, each axis
 * scaled on its own as far as the drawings allow: every node's extent stays
 * margin inside the pane, and the drawing is centred in what is left. When
 * the extents alone do not fit, the points are put where they overflow the
 * least. */
void topology_fit(size_t n, const struct topology_point *unit, const struct topology_extent *ext,
                  double width, double height, double margin, struct topology_point *out);

#endif
