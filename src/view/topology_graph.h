/* The topology drawn by the view, taken from a trace: its vertices are the
 * containers that hold resources or that a topology edge names (hosts, links,
 * routers), placed once by topology_layout() with a fixed seed so that every
 * slice, every report and the SVG export agree. */
#ifndef TALLY_VIEW_TOPOLOGY_GRAPH_H
#define TALLY_VIEW_TOPOLOGY_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "trace/trace.h"

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
void topology_graph_free(struct topology_graph *g);

/* The resource kind shown for a vertex: "bandwidth" for links when they have
 * one; otherwise `preferred` when the container has it, else its first kind
 * that is not bandwidth. NULL when the container holds no resource. */
const char *topology_vertex_kind(const struct trace *t, const struct topology_vertex *v,
                                 const char *preferred);

#endif
