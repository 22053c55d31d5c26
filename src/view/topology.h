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

/* Lays out n nodes joined by edges; out[i] receives node i's position, scaled
 * into [0,1] x [0,1]. The same input and seed always give the same output.
 * Edges naming a node >= n are ignored. Returns 0, or -1 when memory runs out. */
int topology_layout(size_t n, const struct topology_edge *edges, size_t n_edges, unsigned seed,
                    struct topology_point *out);

#endif
