/* Finding the resource-usage anomalies of Schnorr, Legrand and Vincent,
 * "Visualization and Detection of Resource Usage Anomalies in Large Scale
 * Distributed Systems" (section 4) automatically, slice by slice: unfair
 * sharing, waste, saturation and moving bottlenecks, oscillation
 * ("blinking"), slow start, and burst then idle (work for a category whose
 * server says it is idle: the wasted computation of section 4.2). */
#ifndef TALLY_TRACE_ANOMALIES_H
#define TALLY_TRACE_ANOMALIES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "trace/trace.h"

enum anomaly_kind {
    ANOMALY_UNFAIR,
    ANOMALY_WASTE,
    ANOMALY_SATURATION,
    ANOMALY_OSCILLATION,
    ANOMALY_SLOW_START,
    ANOMALY_BURST_IDLE,
};

struct anomaly {
    enum anomaly_kind kind;
    char resource[160];     /* container name, ":kind" added when it holds several kinds */
    double from, to;
    char detail[320];       /* one line of explanation */
    double confidence;      /* how sure, 0.5 .. 1: how far past its threshold the
                               slice went (1 = at the far end of the scale) */
    char subject[64];       /* what it is about within the resource (unfair, slow start,
                               burst then idle: the category); findings of one subject
                               may be grouped */
    bool event;             /* a moment (bottleneck moved): never grouped */
    size_t slices;          /* slices it covers (1 until grouped) */
};

struct anomaly_options {
    double slice;           /* slice width; <= 0: a twentieth of the window */
    double from, to;        /* the window analysed, in trace time (the part inside
                               the trace); from >= to: the whole trace */
    const double *shares;   /* [trace.n_categories] expected weights, NULL = equal */
    const char *level;      /* container type to analyse groups at; NULL = each resource */
    double unfair_points;   /* share departure, in percentage points (default 10) */
    double waste_idle;      /* idle fraction counted as waste (default 0.5) */
    double saturation;      /* used fraction counted as saturation (default 0.95) */
    double min_activity;    /* below this used fraction a slice says nothing about
                               sharing or dominance (default 0.05) */
};

/* Fills defaults for zero fields. */
void anomaly_options_defaults(struct anomaly_options *o);

/* Finds the anomalies; *out is malloc'd (free it). Returns -1 with a reason. */
int trace_find_anomalies(const struct trace *t, const struct anomaly_options *o,
                         struct anomaly **out, size_t *n_out, char *why, size_t why_size);

/* Groups findings of one kind, resource and subject on neighbouring slices
 * into one (from the first's start to the last's end, the detail of the
 * surest, its confidence, slices = how many); keeps the order of their
 * starts. Returns the new count. */
size_t anomalies_group(struct anomaly *list, size_t n);

const char *anomaly_kind_name(enum anomaly_kind k);
json_t *anomalies_to_json(const struct anomaly *a, size_t n);

#endif
