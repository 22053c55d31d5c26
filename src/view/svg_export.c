/* One slice as a standalone SVG; see svg_export.h. Each cell keeps the same
 * data-resource / data-category / data-value attributes as the HTML page, and
 * a <title> with the numbers so viewers show them as tooltips. */
#include "view/svg_export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/aggregate.h"
#include "view/choices.h"
#include "view/topology_graph.h"
#include "view/treemap.h"

#define SVG_WIDTH 1000.0
#define SVG_ROOT_HEIGHT 48.0
#define SVG_TREEMAP_HEIGHT 620.0
#define SVG_TOPOLOGY_HEIGHT 700.0
#define SVG_GAP 12.0

/* Same palette as the page (Tableau 10). */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

static const char *category_color(size_t c)
{
    return palette[c % (sizeof palette / sizeof palette[0])];
}

/* Writes text with &, <, >, " escaped. */
static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
}

/* <rect .../> with a fill and, when not NULL, a stroke. */
static void put_rect(FILE *out, double x, double y, double w, double h, const char *fill,
                     const char *stroke)
{
    fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"", x, y, w, h,
            fill);
    if (stroke)
        fprintf(out, " stroke=\"%s\"", stroke);
    fputs("/>\n", out);
}

struct part {
    const char *category; /* "idle" for idle */
    const char *color;
    double value;
};

/* The parts of one group: selected categories, then idle when asked for. */
static size_t group_parts(const struct trace *t, const struct trace_group *g,
                          const struct svg_export_options *o, struct part *parts, double *used)
{
    size_t n = 0;
    *used = 0;
    for (size_t c = 0; c < t->n_categories; c++) {
        if (o->categories && !o->categories[c])
            continue;
        parts[n++] = (struct part){t->categories[c], category_color(c), g->usage[c]};
        *used += g->usage[c];
    }
    if (o->idle)
        parts[n++] = (struct part){"idle", "#ffffff", fmax(0, g->capacity - *used)};
    return n;
}

static int draw_cells(FILE *out, const char *name, const struct part *parts, size_t n,
                      double capacity, struct treemap_rect box)
{
    double *values = calloc(n ? n : 1, sizeof *values);
    struct treemap_rect *cells = calloc(n ? n : 1, sizeof *cells);
    if (!values || !cells) {
        free(values), free(cells);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        values[i] = parts[i].value;
    treemap_squarify(values, n, box, cells); /* cannot fail for lack of memory: n is tiny */
    for (size_t i = 0; i < n; i++) {
        if (!(parts[i].value > 0))
            continue;
        fprintf(out, "<rect x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\" fill=\"%s\" "
                     "stroke=\"%s\" stroke-width=\"0.5\" data-resource=\"",
                cells[i].x, cells[i].y, cells[i].w, cells[i].h, parts[i].color,
                strcmp(parts[i].category, "idle") ? "#ffffff" : "#cccccc");
        put_escaped(out, name);
        fputs("\" data-category=\"", out);
        put_escaped(out, parts[i].category);
        fprintf(out, "\" data-value=\"%.9g\"><title>", parts[i].value);
        put_escaped(out, name);
        fputs(" \xc2\xb7 ", out);
        put_escaped(out, parts[i].category);
        fprintf(out, ": %.6g", parts[i].value);
        if (capacity > 0)
            fprintf(out, " (%.1f%% of capacity %.6g)", 100 * parts[i].value / capacity, capacity);
        fputs("</title></rect>\n", out);
    }
    free(values), free(cells);
    return 0;
}

static int draw_treemap(const struct trace *t, const struct trace_aggregation *a,
                        const struct svg_export_options *o, const char *kind, double top, FILE *out)
{
    size_t ng = 0;
    struct trace_group **groups = calloc(a->n_groups ? a->n_groups : 1, sizeof *groups);
    double *values = calloc(a->n_groups ? a->n_groups : 1, sizeof *values);
    struct treemap_rect *boxes = calloc(a->n_groups ? a->n_groups : 1, sizeof *boxes);
    struct part *parts = calloc(t->n_categories + 1, sizeof *parts);
    double *root_usage = calloc(t->n_categories ? t->n_categories : 1, sizeof *root_usage);
    int rc = -1;
    if (!groups || !values || !boxes || !parts || !root_usage)
        goto done;
    struct trace_group root = {.name = "root", .usage = root_usage};
    for (size_t i = 0; i < a->n_groups; i++) {
        struct trace_group *g = &a->groups[i];
        if (strcmp(g->kind, kind))
            continue;
        double used;
        group_parts(t, g, o, parts, &used);
        groups[ng] = g;
        values[ng++] = o->idle ? fmax(g->capacity, used) : used;
        root.capacity += g->capacity;
        for (size_t c = 0; c < t->n_categories; c++)
            root_usage[c] += g->usage[c];
    }
    /* the aggregated root on top (eq. 3 over the groups drawn) */
    double used;
    size_t np = group_parts(t, &root, o, parts, &used);
    fprintf(out, "<g class=\"root\" data-capacity=\"%.9g\" data-used=\"%.9g\">\n", root.capacity, used);
    struct treemap_rect root_box = {0, top, SVG_WIDTH, SVG_ROOT_HEIGHT};
    if (draw_cells(out, "root", parts, np, root.capacity, root_box) < 0)
        goto done;
    fprintf(out, "<rect x=\"0\" y=\"%.3f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#000\" "
                 "stroke-width=\"2\"/>\n",
            top, SVG_WIDTH, SVG_ROOT_HEIGHT);
    fprintf(out, "<text x=\"4\" y=\"%.3f\" font-size=\"11\" paint-order=\"stroke\" stroke=\"#fff\" "
                 "stroke-width=\"3\">all %s (%zu %s): used %.4g of %.4g",
            top + 13, kind, ng, a->level, used, root.capacity);
    if (root.capacity > 0)
        fprintf(out, " (%.1f%%)", 100 * used / root.capacity);
    fputs("</text>\n</g>\n<g class=\"treemap\">\n", out);
    struct treemap_rect box = {0, top + SVG_ROOT_HEIGHT + SVG_GAP, SVG_WIDTH, SVG_TREEMAP_HEIGHT};
    if (treemap_squarify(values, ng, box, boxes) < 0)
        goto done;
    for (size_t i = 0; i < ng; i++) {
        if (!(values[i] > 0))
            continue;
        np = group_parts(t, groups[i], o, parts, &used);
        if (draw_cells(out, groups[i]->name, parts, np, groups[i]->capacity, boxes[i]) < 0)
            goto done;
    }
    for (size_t i = 0; i < ng; i++) {
        if (!(values[i] > 0))
            continue;
        fprintf(out, "<rect x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\" fill=\"none\" "
                     "stroke=\"#000\" stroke-width=\"2\"/>\n",
                boxes[i].x, boxes[i].y, boxes[i].w, boxes[i].h);
        if (boxes[i].w > 30 && boxes[i].h > 14) {
            fprintf(out, "<text x=\"%.3f\" y=\"%.3f\" font-size=\"11\" paint-order=\"stroke\" "
                         "stroke=\"#fff\" stroke-width=\"3\">",
                    boxes[i].x + 3, boxes[i].y + 12);
            put_escaped(out, groups[i]->name);
            fputs("</text>\n", out);
        }
    }
    fputs("</g>\n", out);
    rc = 0;
done:
    free(groups), free(values), free(boxes), free(parts), free(root_usage);
    return rc;
}

/* Averages of vertex v's resource of `kind` over the slice. */
static void vertex_average(const struct trace *t, int container, const char *kind, double from,
                           double to, double *capacity, double *usage)
{
    double *one = calloc(t->n_categories ? t->n_categories : 1, sizeof *one);
    *capacity = 0;
    for (size_t c = 0; c < t->n_categories; c++)
        usage[c] = 0;
    for (size_t r = 0; r < t->n_resources && one; r++) {
        if (t->resources[r].container != container || strcmp(t->resources[r].kind, kind))
            continue;
        double cap;
        trace_resource_average(t, (int)r, from, to, &cap, one);
        *capacity += cap;
        for (size_t c = 0; c < t->n_categories; c++)
            usage[c] += one[c];
    }
    free(one);
}

static double kind_max_capacity(const struct trace *t, const char *kind)
{
    double max = 0;
    for (size_t r = 0; r < t->n_resources; r++)
        if (!strcmp(t->resources[r].kind, kind))
            for (size_t i = 0; i < t->resources[r].capacity.n; i++)
                max = fmax(max, t->resources[r].capacity.v[i]);
    return max > 0 ? max : 1;
}

static int draw_topology(const struct trace *t, const struct svg_export_options *o,
                         const char *kind, double from, double to, double top, FILE *out)
{
    struct topology_graph g;
    if (topology_graph_build(t, &g) < 0)
        return -1;
    double *usage = calloc(t->n_categories ? t->n_categories : 1, sizeof *usage);
    struct topology_point *at = malloc((g.n_vertices ? g.n_vertices : 1) * sizeof *at);
    if (!usage || !at) {
        free(usage), free(at);
        topology_graph_free(&g);
        return -1;
    }
    /* every shape and name inside the pane, as on the page (labels always drawn here) */
    double max_side = topology_max_side(g.n_vertices);
    struct topology_drawing d = {.width = SVG_WIDTH, .height = SVG_TOPOLOGY_HEIGHT, .margin = 8,
                                 .max_side = max_side, .font_px = 10, .label_gap = 11, .labelled = true};
    topology_graph_place(t, &g, &d, at);
    for (size_t v = 0; v < g.n_vertices; v++)
        at[v].y += top;
    fprintf(out, "<g class=\"topology\">\n");
    for (size_t e = 0; e < t->n_edges; e++) {
        const struct topology_point *a = &at[g.vertex_of[t->edges[e].a]];
        const struct topology_point *b = &at[g.vertex_of[t->edges[e].b]];
        fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#999\"/>\n",
                a->x, a->y, b->x, b->y);
    }
    for (size_t v = 0; v < g.n_vertices; v++) {
        const struct topology_vertex *vx = &g.vertices[v];
        const char *vkind = topology_vertex_kind(t, vx, kind);
        double cap = 0, x = at[v].x, y = at[v].y;
        if (vkind)
            vertex_average(t, vx->container, vkind, from, to, &cap, usage);
        double max = vkind ? kind_max_capacity(t, vkind) : 1;
        const char *name = t->containers[vx->container].name;
        double angle = 0;
        if (vx->is_link) { /* along the line between its first two neighbours */
            int nb[2], k = 0;
            for (size_t e = 0; e < t->n_edges && k < 2; e++) {
                if (t->edges[e].a == vx->container)
                    nb[k++] = g.vertex_of[t->edges[e].b];
                else if (t->edges[e].b == vx->container)
                    nb[k++] = g.vertex_of[t->edges[e].a];
            }
            if (k == 2)
                angle = atan2(at[nb[1]].y - at[nb[0]].y, at[nb[1]].x - at[nb[0]].x) * 180 / M_PI;
            else if (k == 1)
                angle = atan2(at[nb[0]].y - y, at[nb[0]].x - x) * 180 / M_PI;
        }
        fprintf(out, "<g transform=\"translate(%.2f,%.2f)\" %s=\"", x, y,
                vx->is_link ? "data-link" : "data-node");
        put_escaped(out, name);
        fprintf(out, "\" data-capacity=\"%.9g\"><title>", cap);
        put_escaped(out, name);
        fprintf(out, " capacity %.6g", cap);
        for (size_t c = 0; c < t->n_categories; c++)
            if (!o->categories || o->categories[c])
                fprintf(out, ", %s %.6g", t->categories[c], usage[c]);
        fprintf(out, "</title>\n<g transform=\"rotate(%.2f)\">\n", angle);
        /* hosts: area by capacity, filled bottom-up; links: width by bandwidth, filled along */
        double len = vx->is_link ? max_side * 1.1 : (cap > 0 ? fmax(4, max_side * sqrt(cap / max)) : 6);
        double thick = vx->is_link ? (cap > 0 ? fmax(2, max_side * 0.45 * cap / max) : 2) : len;
        put_rect(out, -len / 2, -thick / 2, len, thick, "#fff", "#333");
        double offset = 0;
        for (size_t c = 0; c < t->n_categories && cap > 0; c++) {
            if (o->categories && !o->categories[c])
                continue;
            double share = fmin(1, usage[c] / cap);
            if (!(share > 0))
                continue;
            if (vx->is_link)
                put_rect(out, -len / 2 + offset, -thick / 2, len * share, thick, category_color(c), NULL);
            else
                put_rect(out, -len / 2, thick / 2 - offset - thick * share, len, thick * share,
                         category_color(c), NULL);
            offset += (vx->is_link ? len : thick) * share;
        }
        /* the label below the shape, whatever its direction */
        double a = angle * M_PI / 180;
        double below = fabs(sin(a)) * len / 2 + fabs(cos(a)) * thick / 2 + 11;
        fprintf(out, "</g>\n<text y=\"%.2f\" font-size=\"10\" text-anchor=\"middle\"%s>", below,
                vx->is_link ? " fill=\"#777\" font-style=\"italic\"" : "");
        put_escaped(out, name);
        fputs("</text>\n</g>\n", out);
    }
    fputs("</g>\n", out);
    free(usage);
    free(at);
    topology_graph_free(&g);
    return 0;
}

static void draw_legend(const struct trace *t, const struct svg_export_options *o, double y, FILE *out)
{
    double x = 0;
    for (size_t c = 0; c < t->n_categories; c++) {
        if (o->categories && !o->categories[c])
            continue;
        put_rect(out, x, y, 12, 12, category_color(c), "#555");
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">", x + 16, y + 11);
        put_escaped(out, t->categories[c]);
        fputs("</text>\n", out);
        x += 30 + 8 * (double)strlen(t->categories[c]);
    }
    if (o->idle) {
        put_rect(out, x, y, 12, 12, "#fff", "#555");
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">idle</text>\n", x + 16, y + 11);
    }
}

int svg_export(const struct trace *t, const struct svg_export_options *o, FILE *out, char *why,
               size_t why_size)
{
    const char *kind = o->kind ? o->kind : view_default_kind(t);
    if (!kind) {
        snprintf(why, why_size, "the trace holds no resource");
        return -1;
    }
    if (!view_has_kind(t, kind)) {
        snprintf(why, why_size, "unknown resource kind '%s'", kind);
        return -1;
    }
    struct trace_aggregate_options ao = {
        .from = o->from, .to = o->to, .level = o->level ? o->level : view_leaf_level(t, kind),
        .categories = o->categories, .kind = kind};
    struct trace_aggregation a;
    if (trace_aggregate(t, &ao, &a, why, why_size) < 0)
        return -1;
    int views = o->views ? o->views : SVG_TREEMAP;
    double treemap_height = SVG_ROOT_HEIGHT + SVG_GAP + SVG_TREEMAP_HEIGHT + SVG_GAP;
    double height = 48 + ((views & SVG_TREEMAP) ? treemap_height : 0) +
                    ((views & SVG_TOPOLOGY) ? SVG_TOPOLOGY_HEIGHT : 0);
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                 "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" data-from=\"%.9g\" "
                 "data-to=\"%.9g\" data-level=\"",
            SVG_WIDTH, height, SVG_WIDTH, height, a.from, a.to);
    put_escaped(out, a.level);
    fputs("\" data-kind=\"", out);
    put_escaped(out, kind);
    fputs("\">\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", out);
    fputs("<text x=\"0\" y=\"16\" font-size=\"14\">", out);
    if (o->title) {
        put_escaped(out, o->title);
        fputs(" \xe2\x80\x94 ", out);
    }
    char origin[64];
    trace_format_date(t->start, origin, sizeof origin);
    fprintf(out, "%s at level %s, slice t+%.6g s \xe2\x80\x93 t+%.6g s%s%s%s</text>\n", kind, a.level,
            a.from - t->start, a.to - t->start, origin[0] ? " (t+0 = " : "", origin, origin[0] ? ")" : "");
    draw_legend(t, o, 24, out);
    int rc = 0;
    double top = 48;
    if (views & SVG_TREEMAP) {
        rc = draw_treemap(t, &a, o, kind, top, out);
        top += treemap_height;
    }
    if (rc == 0 && (views & SVG_TOPOLOGY))
        rc = draw_topology(t, o, kind, a.from, a.to, top, out);
    fputs("</svg>\n", out);
    trace_aggregation_free(&a);
    if (rc < 0)
        snprintf(why, why_size, "out of memory");
    else if (ferror(out)) {
        snprintf(why, why_size, "write error");
        rc = -1;
    }
    return rc;
}
