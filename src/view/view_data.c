/* Builds the page's data (see view_data.h) from a trace. */
#include "view/view_data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/findings.h"
#include "view/topology_graph.h"

double view_time_quantum(const struct trace *t)
{
    double span = t->end - t->start;
    if (!(span > 0) || !isfinite(span))
        return 1.0;
    /* a power of ten, so that decimal times as written in traces stay exact */
    return pow(10, ceil(log10(span / VIEW_TICKS_PER_SPAN)));
}

/* v with VIEW_VALUE_DIGITS significant digits, as the page gets it. */
static double rounded(double v)
{
    char text[32];
    snprintf(text, sizeof text, "%.*g", VIEW_VALUE_DIGITS, v);
    return strtod(text, NULL);
}

json_t *view_number(double v)
{
    if (!isfinite(v))
        return json_integer(0);
    if (v == floor(v) && fabs(v) < 1e6)
        return json_integer((json_int_t)v);
    return json_real(rounded(v));
}

json_t *view_signal_json(const struct trace_signal *s, double start, double quantum)
{
    if (!s || s->n == 0)
        return json_null();
    json_t *ticks = json_array(), *values = json_array();
    long long previous = 0;
    for (size_t i = 0; i < s->n; i++) {
        /* A breakpoint far outside the trace's span (from-runs puts capacities
         * at time 0, a series may run past its summary's end) is moved to
         * +-2^53 ticks, still outside the span and in order: llround would
         * overflow, and so would the difference of two ticks. */
        double exact = round((s->t[i] - start) / quantum);
        long long tick = (long long)fmax(-0x1p53, fmin(0x1p53, exact));
        json_array_append_new(ticks, json_integer(tick - previous));
        json_array_append_new(values, view_number(s->v[i]));
        previous = tick;
    }
    return json_pack("[oo]", ticks, values);
}

/* Index of kind in the array of kind names, appended when new. */
static int kind_index(json_t *kinds, const char *kind)
{
    size_t i;
    json_t *k;
    json_array_foreach(kinds, i, k)
    {
        if (!strcmp(json_string_value(k), kind))
            return (int)i;
    }
    json_array_append_new(kinds, json_string(kind));
    return (int)json_array_size(kinds) - 1;
}

/* Levels offered: root, then every type that is the type of a resource's
 * container or of one of its ancestors, in type order. */
static json_t *levels_json(const struct trace *t)
{
    bool *used = calloc(t->n_types ? t->n_types : 1, sizeof *used);
    for (size_t r = 0; r < t->n_resources && used; r++)
        for (int c = t->resources[r].container; c >= 0; c = t->containers[c].parent)
            used[t->containers[c].type] = true;
    json_t *levels = json_array();
    json_array_append_new(levels, json_string("root"));
    for (size_t i = 0; i < t->n_types && used; i++)
        if (used[i] && t->types[i].parent >= 0) /* the root type is "root" already */
            json_array_append_new(levels, json_string(t->types[i].name));
    free(used);
    return levels;
}

/* Topology vertices with their fixed places in the page's pane (x, y in
 * pixels of its width x height, every shape and name inside), the edges
 * (container indices), and how the page draws them (maxSide, labelled). */
static json_t *topology_json(const struct trace *t)
{
    json_t *topo = json_object(), *vertices = json_array(), *edges = json_array();
    json_object_set_new(topo, "vertices", vertices);
    json_object_set_new(topo, "edges", edges);
    struct topology_graph g;
    if (topology_graph_build(t, &g) < 0)
        return topo;
    struct topology_drawing d = {.width = VIEW_TOPOLOGY_WIDTH, .height = VIEW_TOPOLOGY_HEIGHT,
                                 .margin = 8, .max_side = topology_max_side(g.n_vertices),
                                 .font_px = 10, .label_gap = 11,
                                 .labelled = topology_labelled(g.n_vertices)};
    struct topology_point *at = malloc((g.n_vertices ? g.n_vertices : 1) * sizeof *at);
    if (!at) {
        topology_graph_free(&g);
        return topo;
    }
    topology_graph_place(t, &g, &d, at);
    json_object_set_new(topo, "width", json_real(d.width));
    json_object_set_new(topo, "height", json_real(d.height));
    json_object_set_new(topo, "maxSide", json_real(d.max_side));
    json_object_set_new(topo, "labelled", json_boolean(d.labelled));
    for (size_t v = 0; v < g.n_vertices; v++) {
        int c = g.vertices[v].container;
        json_t *kinds = json_array();
        for (size_t r = 0; r < t->n_resources; r++)
            if (t->resources[r].container == c)
                kind_index(kinds, t->resources[r].kind);
        double x = round(at[v].x * 100) / 100, y = round(at[v].y * 100) / 100; /* to 0.01 px */
        json_array_append_new(vertices, json_pack("{s:i,s:f,s:f,s:b,s:o}", "c", c, "x", x, "y", y,
                                                  "link", g.vertices[v].is_link, "kinds", kinds));
    }
    for (size_t e = 0; e < t->n_edges; e++)
        json_array_append_new(edges, json_pack("[ii]", t->edges[e].a, t->edges[e].b));
    free(at);
    topology_graph_free(&g);
    return topo;
}

static double signal_max(const struct trace_signal *s)
{
    double max = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] > max)
            max = s->v[i];
    return max;
}

/* The first view asked for on the command line, as the page's defaults. */
static json_t *initial_json(const struct view_page_options *o)
{
    json_t *initial = json_object();
    if (o->from < o->to) {
        json_object_set_new(initial, "from", json_real(o->from));
        json_object_set_new(initial, "to", json_real(o->to));
    }
    if (o->level)
        json_object_set_new(initial, "level", json_string(o->level));
    if (o->kind)
        json_object_set_new(initial, "kind", json_string(o->kind));
    if (o->categories)
        json_object_set_new(initial, "categories", json_string(o->categories));
    if (o->no_idle)
        json_object_set_new(initial, "idle", json_false());
    return initial;
}

json_t *view_meta_json(const struct trace *t, const struct view_page_options *o)
{
    json_t *types = json_array(), *containers = json_array(), *categories = json_array();
    json_t *kinds = json_array(), *resources = json_array(), *max_capacity = json_object();
    for (size_t i = 0; i < t->n_types; i++)
        json_array_append_new(types, json_pack("{s:s,s:i}", "name", t->types[i].name, "parent",
                                               t->types[i].parent));
    for (size_t i = 0; i < t->n_containers; i++)
        json_array_append_new(containers, json_pack("{s:s,s:i,s:i}", "n", t->containers[i].name, "t",
                                                    t->containers[i].type, "p",
                                                    t->containers[i].parent));
    for (size_t i = 0; i < t->n_categories; i++)
        json_array_append_new(categories, json_string(t->categories[i]));
    for (size_t r = 0; r < t->n_resources; r++) {
        const struct trace_resource *res = &t->resources[r];
        int k = kind_index(kinds, res->kind);
        json_array_append_new(resources, json_pack("{s:i,s:i}", "c", res->container, "k", k));
        json_t *old = json_object_get(max_capacity, res->kind);
        double max = signal_max(&res->capacity);
        if (!old || json_number_value(old) < max)
            json_object_set_new(max_capacity, res->kind, view_number(max));
    }
    struct view_resolution res;
    view_resolution_choose(t, o, &res);
    json_t *resolution = json_pack("{s:b,s:I,s:f,s:I}", "coarse", res.coarse && !o->serve, "steps",
                                   (json_int_t)res.steps, "step", res.step, "breakpoints",
                                   (json_int_t)res.breakpoints);
    return json_pack("{s:i,s:s,s:b,s:f,s:f,s:f,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
                     "version", 1,
                     "title", o->title ? o->title : "",
                     "serve", o->serve,
                     "start", t->start,
                     "end", t->end,
                     "quantum", view_time_quantum(t),
                     "types", types,
                     "containers", containers,
                     "categories", categories,
                     "kinds", kinds,
                     "levels", levels_json(t),
                     "resources", resources,
                     "maxCapacity", max_capacity,
                     "topology", topology_json(t),
                     "findings", view_findings_json(t, o->anomaly_slice),
                     "initial", initial_json(o),
                     "resolution", resolution);
}

void view_resolution_choose(const struct trace *t, const struct view_page_options *o,
                            struct view_resolution *r)
{
    *r = (struct view_resolution){0};
    size_t varying = 0, constant = 0;
    for (size_t i = 0; i < t->n_resources; i++) {
        const struct trace_resource *res = &t->resources[i];
        for (size_t c = 0; c <= t->n_categories; c++) {
            const struct trace_signal *s = c == 0 ? &res->capacity : &res->usage[c - 1];
            r->breakpoints += s->n;
            if (s->n > 1)
                varying++;
            else if (s->n == 1)
                constant++;
        }
    }
    double span = t->end - t->start;
    if (!(span > 0) || (o->coarse_steps == 0 && r->breakpoints <= VIEW_FULL_MAX_BREAKPOINTS))
        return;
    size_t steps = o->coarse_steps;
    if (steps == 0) {
        size_t budget = VIEW_COARSE_BUDGET > constant ? VIEW_COARSE_BUDGET - constant : 0;
        steps = varying ? budget / varying : VIEW_COARSE_MAX_STEPS;
        if (steps < VIEW_COARSE_MIN_STEPS)
            steps = VIEW_COARSE_MIN_STEPS;
        if (steps > VIEW_COARSE_MAX_STEPS)
            steps = VIEW_COARSE_MAX_STEPS;
    }
    r->coarse = true;
    r->steps = steps;
    r->step = span / (double)steps;
}

/* The step edges of a coarse level, and room for one signal's integrals. */
struct coarse_grid {
    size_t steps;
    double *edges;      /* [steps + 1] */
    double *integrals;  /* [steps] */
};

/* One signal's averages over the steps, a breakpoint where the rounded
 * average changes: [[step deltas], [values]]. */
static json_t *coarse_signal_json(const struct trace *t, const struct trace_signal *s,
                                  const struct coarse_grid *g)
{
    if (!s || s->n == 0)
        return json_null();
    memset(g->integrals, 0, g->steps * sizeof *g->integrals);
    trace_signal_add_integrals(s, g->edges, g->steps + 1, t->end, g->integrals);
    json_t *ticks = json_array(), *values = json_array();
    long long previous = 0;
    double last = NAN;
    for (size_t i = 0; i < g->steps; i++) {
        double v = rounded(g->integrals[i] / (g->edges[i + 1] - g->edges[i]));
        if (i > 0 && v == last)
            continue;
        json_array_append_new(ticks, json_integer((long long)i - previous));
        json_array_append_new(values, view_number(v));
        previous = (long long)i;
        last = v;
    }
    return json_pack("[oo]", ticks, values);
}

/* How one signal is written: every breakpoint, or the averages over the steps. */
struct signal_encoding {
    double start, quantum;          /* full resolution */
    const struct coarse_grid *grid; /* coarse level; NULL for full resolution */
};

/* Dumps one signal and frees it. */
static int dump_signal(const struct trace *t, const struct trace_signal *s,
                       const struct signal_encoding *e, FILE *out)
{
    json_t *doc = e->grid ? coarse_signal_json(t, s, e->grid) : view_signal_json(s, e->start, e->quantum);
    int rc = doc ? view_json_dump(doc, VIEW_VALUE_DIGITS, out) : -1;
    json_decref(doc);
    return rc;
}

/* The signals document after its opening "{": the resources, one signal at a time. */
static int write_resources(const struct trace *t, const struct signal_encoding *e, FILE *out)
{
    json_t *kinds = json_array();
    int rc = kinds ? 0 : -1;
    fputs("\"resources\":[", out);
    for (size_t r = 0; r < t->n_resources && rc == 0; r++) {
        const struct trace_resource *res = &t->resources[r];
        fprintf(out, "%s{\"c\":%d,\"k\":%d,\"cap\":", r ? "," : "", res->container,
                kind_index(kinds, res->kind));
        rc = dump_signal(t, &res->capacity, e, out);
        fputs(",\"use\":[", out);
        for (size_t c = 0; c < t->n_categories && rc == 0; c++) {
            if (c)
                fputc(',', out);
            rc = dump_signal(t, &res->usage[c], e, out);
        }
        fputs("]}", out);
    }
    fputs("]}", out);
    json_decref(kinds);
    return rc < 0 || ferror(out) ? -1 : 0;
}

int view_signals_write(const struct trace *t, FILE *out)
{
    struct signal_encoding e = {.start = t->start, .quantum = view_time_quantum(t)};
    fputc('{', out);
    return write_resources(t, &e, out);
}

int view_coarse_signals_write(const struct trace *t, const struct view_resolution *r, FILE *out)
{
    struct coarse_grid g = {.steps = r->steps, .edges = malloc((r->steps + 1) * sizeof *g.edges),
                            .integrals = malloc(r->steps * sizeof *g.integrals)};
    int rc = -1;
    if (g.edges && g.integrals) {
        for (size_t i = 0; i <= g.steps; i++)
            g.edges[i] = i == g.steps ? t->end : t->start + r->step * (double)i;
        struct signal_encoding e = {.grid = &g};
        fprintf(out, "{\"coarse\":true,\"quantum\":%.17g,", r->step);
        rc = write_resources(t, &e, out);
    }
    free(g.edges);
    free(g.integrals);
    return rc;
}

/* json_dump_callback's writer: every '<' (only ever inside a string) as
 * \u003c, so that no "<!--", "<script" or "</script" reaches the HTML
 * parser from a name (a file named "<!--<script>" made the parser take the
 * element's end tag as text, and the page's own script with it). */
static int write_html_safe(const char *buffer, size_t size, void *data)
{
    FILE *out = data;
    for (size_t i = 0; i < size; i++)
        if (buffer[i] == '<' ? fputs("\\u003c", out) < 0 : putc(buffer[i], out) == EOF)
            return -1;
    return 0;
}

int view_json_dump(json_t *doc, int digits, FILE *out)
{
    /* JSON_ESCAPE_SLASH as well: "</" never appears, even in a raw view of the file. */
    return json_dump_callback(doc, write_html_safe, out,
                              JSON_COMPACT | JSON_ENCODE_ANY | JSON_ESCAPE_SLASH |
                                  JSON_REAL_PRECISION(digits));
}
