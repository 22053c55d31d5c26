/* The Paje writer: one trace model out as a Paje file that pj_dump (PajeNG)
 * and tally's reader read back to the same values. Variables are named in
 * tally's convention, "K.capacity" and "K.<category>" for a resource of kind
 * K, so the mapping survives without --map; a server's activity is
 * "active.<category>" as the reader takes it. Topology edges become links at
 * the trace start. Written atomically. Names are written in double quotes;
 * Paje has no escape inside them, so a '"' is written as '\'' and a line
 * break as a blank (names from summaries and --hierarchy files may hold
 * them), and the file stays readable. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/paje_writer.h"
#include "util/atomic_file.h"
#include "util/vec.h"

static const char header[] =
    "%EventDef PajeDefineContainerType 0\n%  Alias string\n%  Type string\n%  Name string\n%EndEventDef\n"
    "%EventDef PajeDefineVariableType 1\n%  Alias string\n%  Type string\n%  Name string\n%  Color color\n%EndEventDef\n"
    "%EventDef PajeDefineLinkType 4\n%  Alias string\n%  Type string\n%  StartContainerType string\n%  EndContainerType string\n%  Name string\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 6\n%  Time date\n%  Alias string\n%  Type string\n%  Container string\n%  Name string\n%EndEventDef\n"
    "%EventDef PajeDestroyContainer 7\n%  Time date\n%  Type string\n%  Name string\n%EndEventDef\n"
    "%EventDef PajeSetVariable 8\n%  Time date\n%  Type string\n%  Container string\n%  Value double\n%EndEventDef\n"
    "%EventDef PajeStartLink 15\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n%  StartContainer string\n%  Key string\n%EndEventDef\n"
    "%EventDef PajeEndLink 16\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n%  EndContainer string\n%  Key string\n%EndEventDef\n";

/* Writes s as the inside of a Paje quoted string (see the top of the file). */
static void put_name(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '"' ? '\'' : (*s == '\n' || *s == '\r') ? ' ' : *s, f);
}

/* Writes "a" followed by the optional "sep b", quoted, then `after`. */
static void put_quoted(FILE *f, const char *a, const char *sep, const char *b, const char *after)
{
    fputc('"', f);
    put_name(f, a);
    if (sep) {
        fputs(sep, f);
        put_name(f, b);
    }
    fputc('"', f);
    fputs(after, f);
}

/* One variable breakpoint to emit. */
struct point {
    double time, value;
    int container;
    int var;      /* variable type alias number */
};

static int by_time(const void *x, const void *y)
{
    const struct point *a = x, *b = y;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return 0;
}

/* Variable type number for (Paje container type, kind, category; -1 = capacity,
 * -2 = capacity inferred from the peak), or for (Paje container type, the
 * category of a server's activity; kind NULL), defined on first use. */
struct vardef {
    int ctype;
    const char *kind;
    int category;
    const char *activity;
};

static int vardef_for(struct vardef **defs, size_t *n, size_t *cap, int ctype, const char *kind,
                      int category, const char *activity)
{
    for (size_t i = 0; i < *n; i++)
        if ((*defs)[i].ctype == ctype && (*defs)[i].kind == kind &&
            (*defs)[i].category == category && (*defs)[i].activity == activity)
            return (int)i;
    struct vardef *d = VEC_PUSH(*defs, *n, *cap);
    if (!d)
        return -1;
    *d = (struct vardef){ctype, kind, category, activity};
    return (int)*n - 1;
}

static int add_points(struct point **pts, size_t *n, size_t *cap, const struct trace_signal *s,
                      int container, int var, double end)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->t[i] > end)
            break;
        struct point *p = VEC_PUSH(*pts, *n, *cap);
        if (!p)
            return -1;
        *p = (struct point){s->t[i], s->v[i], container, var};
    }
    return 0;
}

static int by_depth_desc(const void *x, const void *y, void *arg)
{
    const struct trace *t = arg;
    int a = *(const int *)x, b = *(const int *)y;
    const struct trace_container *ca = &t->containers[a], *cb = &t->containers[b];
    if (ca->end != cb->end)
        return ca->end < cb->end ? -1 : 1;
    return cb->depth - ca->depth;
}

/* Paje types must nest as containers do, and a regrouped trace may put one
 * type under several parents: a Paje container type is one (trace type,
 * parent Paje type) pair. */
struct paje_ctype {
    int type;     /* trace type */
    int parent;   /* Paje container type of the parent, -1 = root "0" */
};

static int ctype_for(struct paje_ctype **list, size_t *n, size_t *cap, int type, int parent)
{
    for (size_t i = 0; i < *n; i++)
        if ((*list)[i].type == type && (*list)[i].parent == parent)
            return (int)i;
    struct paje_ctype *l = VEC_PUSH(*list, *n, *cap);
    if (!l)
        return -1;
    *l = (struct paje_ctype){type, parent};
    return (int)*n - 1;
}

int trace_write_paje(const struct trace *t, const char *path, char *why, size_t why_size)
{
    struct vardef *defs = NULL;
    size_t n_defs = 0, cap_defs = 0;
    struct point *pts = NULL;
    size_t n_pts = 0, cap_pts = 0;
    struct paje_ctype *ctypes = NULL;
    size_t n_ctypes = 0, cap_ctypes = 0;
    int *order = NULL, *ctype_of = NULL;
    int rc = -1;
    size_t nc = t->n_containers ? t->n_containers : 1;
    order = malloc(nc * sizeof *order);
    ctype_of = malloc(nc * sizeof *ctype_of);
    if (!order || !ctype_of)
        goto oom;
    /* containers, parents before children (regrouped traces may list a group late) */
    size_t n_order = 0;
    for (int depth = 1; n_order + 1 < t->n_containers; depth++) {
        size_t before = n_order;
        for (size_t c = 1; c < t->n_containers; c++)
            if (t->containers[c].depth == depth)
                order[n_order++] = (int)c;
        if (n_order == before)
            break;
    }
    ctype_of[0] = -1;
    for (size_t i = 0; i < n_order; i++) {
        const struct trace_container *c = &t->containers[order[i]];
        ctype_of[order[i]] = ctype_for(&ctypes, &n_ctypes, &cap_ctypes, c->type, ctype_of[c->parent]);
        if (ctype_of[order[i]] < 0)
            goto oom;
    }
    for (size_t r = 0; r < t->n_resources; r++) {
        const struct trace_resource *res = &t->resources[r];
        int ctype = ctype_of[res->container];
        double end = t->containers[res->container].end;
        if (res->container == 0)
            continue; /* Paje variables live in non-root containers */
        int v = vardef_for(&defs, &n_defs, &cap_defs, ctype, res->kind, res->capacity_inferred ? -2 : -1,
                           NULL);
        if (v < 0 || add_points(&pts, &n_pts, &cap_pts, &res->capacity, res->container, v, end) < 0)
            goto oom;
        for (size_t c = 0; c < t->n_categories; c++) {
            if (!res->usage[c].n)
                continue;
            v = vardef_for(&defs, &n_defs, &cap_defs, ctype, res->kind, (int)c, NULL);
            if (v < 0 || add_points(&pts, &n_pts, &cap_pts, &res->usage[c], res->container, v, end) < 0)
                goto oom;
        }
    }
    for (size_t a = 0; a < t->n_activities; a++) {
        const struct trace_activity *act = &t->activities[a];
        if (act->container == 0)
            continue; /* as resources: variables live in non-root containers */
        int v = vardef_for(&defs, &n_defs, &cap_defs, ctype_of[act->container], NULL, 0, act->category);
        if (v < 0 || add_points(&pts, &n_pts, &cap_pts, &act->active, act->container, v,
                                t->containers[act->container].end) < 0)
            goto oom;
    }
    if (n_pts) /* a trace without any variable has no points (and pts is NULL) */
        qsort(pts, n_pts, sizeof *pts, by_time); /* ties: any order, the signals are disjoint */
    struct atomic_file af;
    if (atomic_file_open(&af, path) < 0) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        goto out;
    }
    FILE *f = af.fp;
    fprintf(f, "# Paje trace written by tally (variables: KIND.capacity, KIND.<category>)\n%s", header);
    for (size_t i = 0; i < n_ctypes; i++) {
        bool repeated = false;
        for (size_t j = 0; j < i; j++)
            repeated |= ctypes[j].type == ctypes[i].type;
        fprintf(f, "0 t%zu %s%d ", i, ctypes[i].parent < 0 ? "" : "t",
                ctypes[i].parent < 0 ? 0 : ctypes[i].parent);
        put_quoted(f, t->types[ctypes[i].type].name, repeated ? "'" : NULL, "", "\n");
    }
    for (size_t i = 0; i < n_defs; i++) {
        const struct vardef *d = &defs[i];
        fprintf(f, "1 v%zu t%d ", i, d->ctype);
        if (d->activity) {
            put_quoted(f, "active", ".", d->activity, " \"1 1 1\"\n");
            continue;
        }
        put_quoted(f, d->kind, ".",
                   d->category == -2 ? "peak-capacity"
                   : d->category < 0 ? "capacity"
                                     : t->categories[d->category],
                   " \"1 1 1\"\n");
    }
    /* link types per (type a, type b) pair, under the root type */
    for (size_t e = 0; e < t->n_edges; e++) {
        int ta = ctype_of[t->edges[e].a], tb = ctype_of[t->edges[e].b];
        bool seen = false;
        for (size_t k = 0; k < e && !seen; k++)
            seen = ctype_of[t->edges[k].a] == ta && ctype_of[t->edges[k].b] == tb;
        if (seen || ta < 0 || tb < 0)
            continue;
        fprintf(f, "4 l%d_%d 0 t%d t%d ", ta, tb, ta, tb);
        put_quoted(f, t->types[ctypes[ta].type].name, "-", t->types[ctypes[tb].type].name, "\n");
    }
    for (size_t i = 0; i < n_order; i++) {
        const struct trace_container *c = &t->containers[order[i]];
        fprintf(f, "6 %.17g c%d t%d %s%d ", c->start, order[i], ctype_of[order[i]],
                c->parent == 0 ? "" : "c", c->parent);
        put_quoted(f, c->name, NULL, "", "\n");
    }
    for (size_t e = 0; e < t->n_edges; e++) {
        int a = t->edges[e].a, b = t->edges[e].b;
        int ta = ctype_of[a], tb = ctype_of[b];
        if (ta < 0 || tb < 0)
            continue;
        fprintf(f, "15 %.17g l%d_%d 0 topology c%d e%zu\n16 %.17g l%d_%d 0 topology c%d e%zu\n",
                t->start, ta, tb, a, e, t->start, ta, tb, b, e);
    }
    for (size_t i = 0; i < n_pts; i++)
        fprintf(f, "8 %.17g v%d c%d %.17g\n", pts[i].time, pts[i].var, pts[i].container,
                pts[i].value);
    qsort_r(order, n_order, sizeof *order, by_depth_desc, (void *)t);
    for (size_t i = 0; i < n_order; i++)
        fprintf(f, "7 %.17g t%d c%d\n", t->containers[order[i]].end, ctype_of[order[i]], order[i]);
    if (ferror(f) || atomic_file_commit(&af) < 0) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno ? errno : EIO));
        goto out;
    }
    rc = 0;
    goto out;
oom:
    snprintf(why, why_size, "%s: out of memory", path);
out:
    free(order);
    free(ctype_of);
    free(ctypes);
    free(defs);
    free(pts);
    return rc;
}
