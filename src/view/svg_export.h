/* Exports one time slice as a standalone SVG for papers: the squarified
 * treemap (resources at a level, split by category, optionally with idle,
 * the aggregated root on top) and/or the topology (hosts sized by capacity,
 * links by bandwidth, both filled by category shares). Computed in C with the
 * same aggregation as `tally trace aggregate` and the layout of treemap.c. */
#ifndef TALLY_VIEW_SVG_EXPORT_H
#define TALLY_VIEW_SVG_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "trace/trace.h"

enum svg_export_views { SVG_TREEMAP = 1, SVG_TOPOLOGY = 2 };

struct svg_export_options {
    double from, to;          /* from >= to: the whole trace */
    const char *level;        /* NULL: the finest level holding resources of `kind` */
    const char *kind;         /* NULL: "cpu" when present, else the first kind */
    const bool *categories;   /* NULL: all */
    bool idle;                /* show idle capacity */
    int views;                /* SVG_TREEMAP | SVG_TOPOLOGY */
    const char *title;        /* caption; NULL for none */
};

/* Returns -1 with a reason in err (unknown level or kind, write error). */
int svg_export(const struct trace *t, const struct svg_export_options *o, FILE *out, char *why,
               size_t why_size);

#endif
