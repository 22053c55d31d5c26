/* The topology drawn by the view, taken from a trace: its vertices are the
 * containers that hold resources or that a topology edge names (hosts, links,
 * routers), placed once by topology_layout() with a fixed seed so that every
 * slice, every report and the SVG export agree. */
#ifndef TALLY_VIEW_TOPOLOGY_GRAPH_H
#define TALLY_VIEW_TOPOLOGY_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "trace/trace.h"
#include "view/topology.h"

#define TOPOLOGY_GRAPH_SEED 1

struct topology_vertex {
    int container;   /* index into trace.containers */
    bool is_link;    /* drawn as a link: type name contains "link" or has a bandwidth resource */
    double x, y;     /* position in [0,1] x [0,1] */
};

struct topology_graph {
    struct topology_vertex *vertices;
    size_t n_vertices;
    int *vertex_of;  /* [trace.n_containers]: vertex index or -1 */
};

/* Returns -1 when memory runs out. */
int topology_graph_build(const struct trace *t, struct topology_graph *g);

/* How a pane draws the vertices: a host is a square of side up to max_side,
 * a link a bar 1.1 max_side long and up to 0.45 max_side thick turned along
 * its neighbours, each with its name centred below it in font_px type when
 * labelled (the page and the SVG export draw them so). */
struct topology_drawing {
    double width, height;   /* the pane */
    double margin;          /* kept free along its edges */
    double max_side;        /* topology_max_side() */
    double font_px;
    double label_gap;       /* from a host's square (a link's bar) to its label's baseline */
    bool labelled;
};

/* The largest side of a host's square for n vertices: smaller as there are
 * more of them, between 10 and 64. */
double topology_max_side(size_t n);
/* Whether n vertices are drawn with their names (beyond, names overlap). */
bool topology_labelled(size_t n);
/* Where each vertex goes in the pane (out[g->n_vertices]): the layout fitted
 * with topology_fit() around each vertex's shape and name, the width of a
 * name taken at its widest for a sans-serif type (a bound, not a measure). */
void topology_graph_place(const struct trace *t, const struct topology_graph *g,
                          const struct topology_drawing *d, struct topology_point *out);
void topology_graph_free(struct topology_graph *g);

/* The resource kind shown for a vertex: "bandwidth" for links when they have
 * one; otherwise `preferred` when the container has it, else its first kind
 * that is not bandwidth. NULL when the container holds no resource. */
const char *topology_vertex_kind(const struct trace *t, const struct topology_vertex *v,
                                 const char *preferred);

#endif
