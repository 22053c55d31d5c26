/* The data the view page consumes, built from a trace (src/trace/trace.h):
 *  - meta: title, time bounds, time quantum, container types and hierarchy,
 *    categories, resource kinds, levels, the largest capacity per kind, the
 *    topology (vertices with their fixed-seed layout, edges) and what tally
 *    found in the trace (anomalies, eq. 1 violations; see findings.h);
 *  - signals (offline reports only): per resource the breakpoints of capacity
 *    and of each category's usage, times as delta-encoded integer ticks of
 *    meta.quantum (a power of ten giving >= 2^32 ticks over the trace span) and values rounded to 7
 *    significant digits. The page builds the cumulative integrals from them
 *    on load (rounding the values, not the integrals, keeps short slices exact).
 *    That is the full resolution, embedded while the trace holds at most
 *    VIEW_FULL_MAX_BREAKPOINTS breakpoints. Beyond (or when asked with
 *    coarse_steps), the page gets a coarse level instead: each signal's time
 *    averages over `steps` equal steps spanning the trace (the same kind of
 *    piecewise-constant signal, breakpoints only where the average changes,
 *    times in steps), so the file size is bounded by the number of steps,
 *    not of events; slices made of whole steps stay exact there.
 * The meta is a jansson object, written by view_json_dump(); the signals are
 * streamed by view_signals_write(). */
#ifndef TALLY_VIEW_VIEW_DATA_H
#define TALLY_VIEW_VIEW_DATA_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "trace/trace.h"

#define VIEW_TICKS_PER_SPAN 4294967296.0 /* at least 2^32 ticks over the trace span */
#define VIEW_VALUE_DIGITS 7
#define VIEW_TOPOLOGY_WIDTH 800  /* the page's topology pane (its SVG viewBox) */
#define VIEW_TOPOLOGY_HEIGHT 640
#define VIEW_FULL_MAX_BREAKPOINTS 500000 /* embedded at full resolution up to this many */
#define VIEW_COARSE_BUDGET 1200000      /* values over all signals at the coarse level */
#define VIEW_COARSE_MIN_STEPS 100
#define VIEW_COARSE_MAX_STEPS 2000

struct view_page_options {
    const char *title;      /* caption */
    bool serve;             /* slices come from the server: no signals embedded */
    double anomaly_slice;   /* slice width for the anomalies shown; <= 0: a twentieth */
    /* what the page shows first (URL parameters still override it) */
    double from, to;        /* the first slice; from >= to: the whole trace */
    const char *level;      /* NULL: the page's default (finest level of the kind) */
    const char *kind;       /* NULL: cpu, else the first kind */
    const char *categories; /* "c1,c2" ticked; NULL: all */
    bool no_idle;           /* idle unticked */
    size_t coarse_steps;    /* offline: embed this many steps; 0: full resolution when it fits */
};

/* What an offline page embeds: every breakpoint, or a coarse level. */
struct view_resolution {
    bool coarse;
    size_t steps;           /* coarse only */
    double step;            /* its width (trace time units) */
    size_t breakpoints;     /* of the trace, over all signals */
};
/* Full resolution unless o->coarse_steps is given or the trace holds more
 * than VIEW_FULL_MAX_BREAKPOINTS breakpoints; then as many steps as
 * VIEW_COARSE_BUDGET allows over the signals that vary, within
 * [VIEW_COARSE_MIN_STEPS, VIEW_COARSE_MAX_STEPS]. */
void view_resolution_choose(const struct trace *t, const struct view_page_options *o,
                            struct view_resolution *r);

json_t *view_meta_json(const struct trace *t, const struct view_page_options *o);
/* Writes the signals document {"resources":[{"c","k","cap","use":[...]}]}
 * one signal at a time (jansson per signal), so memory stays that of the
 * largest signal however big the trace. Returns -1 on a write error. */
int view_signals_write(const struct trace *t, FILE *out);
/* The same document at a coarse level (r->coarse), with "quantum": the step
 * and "coarse": true: ticks count steps from the trace start. */
int view_coarse_signals_write(const struct trace *t, const struct view_resolution *r, FILE *out);

/* One signal as [[tick deltas], [values]] given the trace start and quantum. */
json_t *view_signal_json(const struct trace_signal *s, double start, double quantum);
/* The quantum used for times: the smallest power of ten that is at least
 * span / 2^32 (1 when the span is 0). */
double view_time_quantum(const struct trace *t);
/* A number as the page gets it: an integer when it is one (and small), else a
 * real rounded to VIEW_VALUE_DIGITS significant digits. */
json_t *view_number(double v);

/* Writes compact JSON safe inside a <script> element (no '<' at all: it is
 * written \u003c, so neither "</script" nor "<!--" can end or escape it),
 * reals with `digits` significant digits (17 keeps doubles exact). Returns -1
 * on a write error. */
int view_json_dump(json_t *doc, int digits, FILE *out);

#endif
