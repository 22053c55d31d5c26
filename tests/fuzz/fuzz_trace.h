/* A small Paje trace for the harnesses that fuzz what goes with a trace
 * (--hierarchy files, --map rules) rather than the trace itself, and the
 * checks every harness makes on a trace that was read: the model's
 * invariants (trace.h) and a round trip through tally's Paje writer. */
#ifndef TALLY_FUZZ_TRACE_H
#define TALLY_FUZZ_TRACE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "trace/aggregate.h"
#include "trace/anomalies.h"
#include "trace/paje_writer.h"
#include "trace/trace.h"
#include "view/view_data.h"

/* Hosts h1..h3 and a link directly under the root, h4 in a cluster c1;
 * SimGrid variable names (speed x core_count, p<category>, bandwidth,
 * b<category>) and one variable named for a --map rule (power, u<category>). */
static const char fuzz_base_trace[] =
    "%EventDef PajeDefineContainerType 0\n%  Alias string\n%  Type string\n%  Name string\n%EndEventDef\n"
    "%EventDef PajeDefineVariableType 1\n%  Alias string\n%  Type string\n%  Name string\n%  Color color\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 2\n%  Time date\n%  Alias string\n%  Type string\n%  Container string\n%  Name string\n%EndEventDef\n"
    "%EventDef PajeDestroyContainer 3\n%  Time date\n%  Type string\n%  Name string\n%EndEventDef\n"
    "%EventDef PajeSetVariable 4\n%  Time date\n%  Type string\n%  Container string\n%  Value double\n%EndEventDef\n"
    "%EventDef PajeAddVariable 5\n%  Time date\n%  Type string\n%  Container string\n%  Value double\n%EndEventDef\n"
    "%EventDef PajeSubVariable 6\n%  Time date\n%  Type string\n%  Container string\n%  Value double\n%EndEventDef\n"
    "%EventDef PajeStartLink 7\n%  Time date\n%  Type string\n%  Container string\n%  StartContainerType string\n%  StartContainer string\n%  Value string\n%  Key string\n%EndEventDef\n"
    "%EventDef PajeEndLink 8\n%  Time date\n%  Type string\n%  Container string\n%  EndContainerType string\n%  EndContainer string\n%  Value string\n%  Key string\n%EndEventDef\n"
    "%EventDef PajeDefineLinkType 9\n%  Alias string\n%  Type string\n%  StartContainerType string\n%  EndContainerType string\n%  Name string\n%EndEventDef\n"
    "0 C 0 CLUSTER\n0 H 0 HOST\n0 HC C HOST\n0 L 0 LINK\n"
    "9 E 0 HOST LINK edge\n"
    "1 sp H speed \"1 1 1\"\n1 cc H core_count \"1 1 1\"\n1 pa H pa \"1 0 0\"\n1 pb H pb \"0 1 0\"\n"
    "1 sp2 HC speed \"1 1 1\"\n1 pa2 HC pa \"1 0 0\"\n1 pw H power \"1 1 1\"\n1 ux H ux \"1 1 1\"\n"
    "1 bw L bandwidth \"1 1 1\"\n1 ba L ba \"1 0 0\"\n"
    "2 0 c1 C 0 c1\n2 0 h1 H 0 h1\n2 0 h2 H 0 h2\n2 0 h3 H 0 h3\n2 0 h4 HC c1 h4\n2 0 l1 L 0 l1\n"
    "4 0 sp h1 100\n4 0 cc h1 2\n4 0 sp h2 100\n4 0 sp h3 50\n4 0 sp2 h4 200\n4 0 bw l1 1000\n"
    "4 0 pw h3 10\n5 1 ux h3 4\n"
    "5 0 pa h1 100\n5 0 pb h2 100\n5 0 pa2 h4 250\n5 0 ba l1 500\n6 2 ba l1 500\n"
    "5 2 pb h3 50\n6 4 pb h3 50\n6 5 pa h1 100\n"
    "7 1 E 0 HOST h1 x k1\n8 1 E 0 LINK l1 x k1\n7 1 E 0 HOST h2 x k2\n8 1 E 0 LINK l1 x k2\n"
    "3 10 HOST h1\n3 10 HOST h2\n3 10 LINK l1\n";

/* The model's invariants on a trace that was read. */
static inline void fuzz_check_trace(const struct trace *t)
{
    if (t->n_containers == 0 || t->containers[0].parent != -1)
        abort();
    for (size_t c = 1; c < t->n_containers; c++) {
        /* every container reaches the root in fewer steps than there are containers */
        int p = (int)c;
        size_t steps = 0;
        while (p > 0 && steps <= t->n_containers) {
            p = t->containers[p].parent;
            steps++;
            if (p < 0 || (size_t)p >= t->n_containers)
                abort();
        }
        if (p != 0)
            abort();
        const struct trace_container *parent = &t->containers[t->containers[c].parent];
        size_t seen = 0;
        for (size_t i = 0; i < parent->n_children; i++)
            seen += parent->children[i] == (int)c;
        if (seen != 1)
            abort();
        if (t->containers[c].type < 0 || (size_t)t->containers[c].type >= t->n_types)
            abort();
    }
    for (size_t ty = 0; ty < t->n_types; ty++) {
        /* the type tree has no cycle either */
        int p = (int)ty;
        size_t steps = 0;
        while (p >= 0 && steps <= t->n_types) {
            p = t->types[p].parent;
            steps++;
        }
        if (p >= 0)
            abort();
    }
    for (size_t r = 0; r < t->n_resources; r++) {
        const struct trace_resource *res = &t->resources[r];
        for (size_t c = 0; c <= t->n_categories; c++) {
            const struct trace_signal *s = c == t->n_categories ? &res->capacity : &res->usage[c];
            for (size_t i = 0; i < s->n; i++)
                if (!isfinite(s->t[i]) || (i > 0 && s->t[i] < s->t[i - 1]))
                    abort();
        }
    }
}

/* Uses a trace as the commands do: aggregates the whole trace at every level
 * (tally trace aggregate), looks for anomalies (tally trace anomalies), builds
 * the view page's data (tally view), and writes it with tally's Paje writer:
 * what tally writes, tally must read back, with the same containers and
 * resources. */
static inline void fuzz_use_trace(const struct trace *t)
{
    char why[512];
    for (size_t ty = 0; ty <= t->n_types; ty++) {
        struct trace_aggregate_options opts = {0, 0, ty == t->n_types ? NULL : t->types[ty].name,
                                               NULL, NULL};
        struct trace_aggregation a;
        if (trace_aggregate(t, &opts, &a, why, sizeof why) == 0)
            trace_aggregation_free(&a);
    }
    struct anomaly_options aopts = {0};
    anomaly_options_defaults(&aopts);
    struct anomaly *found = NULL;
    size_t n_found = 0;
    if (trace_find_anomalies(t, &aopts, &found, &n_found, why, sizeof why) == 0)
        free(found);
    struct view_page_options vopts = {.title = "fuzz"};
    json_t *meta = view_meta_json(t, &vopts);
    json_decref(meta);
    FILE *devnull = fopen("/dev/null", "w");
    if (!devnull || view_signals_write(t, devnull) < 0)
        abort();
    fclose(devnull);
    if (t->n_containers <= 1)
        return; /* only definitions, no container: tally writes a file without any
                 * event, which its reader refuses (known; docs/fuzzing.md) */
    const char *path = fuzz_path("written.paje");
    if (trace_write_paje(t, path, why, sizeof why) < 0) {
        fprintf(stderr, "fuzz: tally cannot write the trace it read: %s\n", why);
        abort();
    }
    struct trace again;
    if (trace_read_file(path, NULL, &again, why, sizeof why) < 0) {
        fprintf(stderr, "fuzz: tally cannot read the trace it wrote: %s\n", why);
        abort();
    }
    if (again.n_containers != t->n_containers || again.n_resources != t->n_resources) {
        fprintf(stderr, "fuzz: round trip changed the trace: %zu -> %zu containers, %zu -> %zu resources\n",
                t->n_containers, again.n_containers, t->n_resources, again.n_resources);
        abort();
    }
    trace_free(&again);
}

#endif
