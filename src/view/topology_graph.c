/* Builds the view's topology graph from a trace; see topology_graph.h. */
#include "view/topology_graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool has_kind(const struct trace *t, int container, const char *kind)
{
    for (size_t r = 0; r < t->n_resources; r++)
        if (t->resources[r].container == container && !strcmp(t->resources[r].kind, kind))
            return true;
    return false;
}

int topology_graph_build(const struct trace *t, struct topology_graph *g)
{
    memset(g, 0, sizeof *g);
    size_t nc = t->n_containers ? t->n_containers : 1;
    g->vertex_of = malloc(nc * sizeof *g->vertex_of);
    g->vertices = calloc(nc, sizeof *g->vertices);
    struct topology_edge *edges = calloc(t->n_edges ? t->n_edges : 1, sizeof *edges);
    struct topology_point *points = calloc(nc, sizeof *points);
    if (!g->vertex_of || !g->vertices || !edges || !points) {
        free(edges), free(points);
        topology_graph_free(g);
        return -1;
    }
    for (size_t c = 0; c < t->n_containers; c++)
        g->vertex_of[c] = -1;
    for (size_t r = 0; r < t->n_resources; r++)
        g->vertex_of[t->resources[r].container] = 0;
    for (size_t e = 0; e < t->n_edges; e++)
        g->vertex_of[t->edges[e].a] = g->vertex_of[t->edges[e].b] = 0;
    for (size_t c = 0; c < t->n_containers; c++) {
        if (g->vertex_of[c] < 0)
            continue;
        g->vertex_of[c] = (int)g->n_vertices;
        const char *type = t->types[t->containers[c].type].name;
        g->vertices[g->n_vertices++] = (struct topology_vertex){
            (int)c, strcasestr(type, "link") != NULL || has_kind(t, (int)c, "bandwidth"), 0, 0};
    }
    for (size_t e = 0; e < t->n_edges; e++)
        edges[e] = (struct topology_edge){(size_t)g->vertex_of[t->edges[e].a],
                                          (size_t)g->vertex_of[t->edges[e].b]};
    int rc = topology_layout(g->n_vertices, edges, t->n_edges, TOPOLOGY_GRAPH_SEED, points);
    for (size_t v = 0; v < g->n_vertices; v++) {
        g->vertices[v].x = points[v].x;
        g->vertices[v].y = points[v].y;
    }
    free(edges), free(points);
    if (rc < 0)
        topology_graph_free(g);
    return rc;
}

void topology_graph_free(struct topology_graph *g)
{
    free(g->vertices);
    free(g->vertex_of);
    memset(g, 0, sizeof *g);
}

const char *topology_vertex_kind(const struct trace *t, const struct topology_vertex *v,
                                 const char *preferred)
{
    if (v->is_link && has_kind(t, v->container, "bandwidth"))
        return "bandwidth";
    if (preferred && strcmp(preferred, "bandwidth") && has_kind(t, v->container, preferred))
        return preferred;
    const char *first = NULL;
    for (size_t r = 0; r < t->n_resources; r++)
        if (t->resources[r].container == v->container) {
            if (strcmp(t->resources[r].kind, "bandwidth"))
                return t->resources[r].kind;
            if (!first)
                first = t->resources[r].kind;
        }
    return first;
}

double topology_max_side(size_t n)
{
    return fmax(10, fmin(64, 520 / sqrt((double)(n ? n : 1))));
}

bool topology_labelled(size_t n)
{
    return n <= 300;
}

/* A bound on the width of a name in font_px sans-serif type: wide letters
 * (m, w, M, W, @, %) a full em, other capitals 0.8 em, the rest 0.65 em;
 * a UTF-8 sequence counts once, as a wide letter. */
static double label_width(const char *name, double font_px)
{
    double em = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if ((*p & 0xc0) == 0x80)
            continue; /* continuation byte */
        if (*p >= 0x80 || strchr("mwMW@%", *p))
            em += 1;
        else if (*p >= 'A' && *p <= 'Z')
            em += 0.8;
        else
            em += 0.65;
    }
    return em * font_px;
}

void topology_graph_place(const struct trace *t, const struct topology_graph *g,
                          const struct topology_drawing *d, struct topology_point *out)
{
    size_t n = g->n_vertices;
    struct topology_point *unit = malloc((n ? n : 1) * sizeof *unit);
    struct topology_extent *ext = malloc((n ? n : 1) * sizeof *ext);
    if (!unit || !ext) {
        for (size_t v = 0; v < n; v++) /* no room to weigh the names: the margin alone */
            out[v] = (struct topology_point){d->margin + g->vertices[v].x * (d->width - 2 * d->margin),
                                             d->margin + g->vertices[v].y * (d->height - 2 * d->margin)};
        free(unit), free(ext);
        return;
    }
    for (size_t v = 0; v < n; v++) {
        unit[v] = (struct topology_point){g->vertices[v].x, g->vertices[v].y};
        /* a link's bar turned any way reaches at most half its length plus half its thickness */
        double half = g->vertices[v].is_link ? d->max_side * (1.1 + 0.45) / 2 : d->max_side / 2;
        double name = d->labelled ? label_width(t->containers[g->vertices[v].container].name, d->font_px) / 2 : 0;
        /* the label's baseline label_gap below the shape, its descenders a third of the type below that */
        double below = d->labelled ? half + d->label_gap + d->font_px / 3 : half;
        ext[v] = (struct topology_extent){fmax(half, name), fmax(half, name), half, below};
    }
    topology_fit(n, unit, ext, d->width, d->height, d->margin, out);
    free(unit), free(ext);
}
