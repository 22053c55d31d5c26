/* Two traces compared phase by phase (see diff.h). */
#include "trace/diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/aggregate.h"
#include "trace/host_load.h"
#include "util/vec.h"

static int find_row(const struct trace_diff *d, const char *container, const char *kind,
                    const char *category)
{
    for (size_t i = 0; i < d->n_rows; i++)
        if (!strcmp(d->rows[i].container, container) && !strcmp(d->rows[i].kind, kind) &&
            !strcmp(d->rows[i].category, category))
            return (int)i;
    return -1;
}

static int add_row(struct trace_diff *d, size_t *cap, const char *container, const char *kind,
                   const char *category)
{
    int found = find_row(d, container, kind, category);
    if (found >= 0)
        return found;
    struct diff_row *row = VEC_PUSH(d->rows, d->n_rows, *cap);
    if (!row)
        return -1;
    snprintf(row->container, sizeof row->container, "%s", container);
    snprintf(row->kind, sizeof row->kind, "%s", kind);
    snprintf(row->category, sizeof row->category, "%s", category);
    row->cells = calloc(d->n_phases, sizeof *row->cells);
    if (!row->cells)
        return -1;
    return (int)d->n_rows - 1;
}

/* The span during which the category used the resource at all. */
static double active_span(const struct trace_signal *s, double end)
{
    double first = INFINITY, last = -INFINITY;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] > 0) {
            if (s->t[i] < first)
                first = s->t[i];
            double until = i + 1 < s->n ? s->t[i + 1] : end;
            if (until > last)
                last = until;
        }
    return last > first ? last - first : 0;
}

/* Fills the rows with one trace's resource-seconds (side 0: A, 1: B). */
static int fill(struct trace_diff *d, size_t *cap, const struct trace *t, int side)
{
    size_t nc = t->n_categories;
    double *use = calloc(nc ? nc : 1, sizeof *use);
    if (!use)
        return -1;
    for (size_t r = 0; r < t->n_resources; r++) {
        const struct trace_resource *res = &t->resources[r];
        const char *cname = t->containers[res->container].name;
        double cap_sum = 0, cap_time = 0;
        for (size_t c = 0; c < nc; c++) {
            if (!res->usage[c].n)
                continue;
            int row = add_row(d, cap, cname, res->kind, t->categories[c]);
            if (row < 0) {
                free(use);
                return -1;
            }
            double span = active_span(&res->usage[c], t->containers[res->container].end);
            if (side == 0)
                d->rows[row].active_a = span;
            else
                d->rows[row].active_b = span;
        }
        for (size_t k = 0; k < d->n_phases; k++) {
            double from = t->start + d->phase * (double)k, to = from + d->phase;
            if (from >= t->end)
                break;
            if (to > t->end)
                to = t->end;
            double capacity;
            trace_resource_average(t, (int)r, from, to, &capacity, use);
            cap_sum += capacity * (to - from);
            cap_time += to - from;
            for (size_t c = 0; c < nc; c++) {
                if (!res->usage[c].n)
                    continue;
                int row = find_row(d, cname, res->kind, t->categories[c]);
                double rs = use[c] * (to - from);
                if (side == 0)
                    d->rows[row].cells[k].a += rs;
                else
                    d->rows[row].cells[k].b += rs;
            }
        }
        double mean_cap = cap_time > 0 ? cap_sum / cap_time : 0;
        for (size_t c = 0; c < nc; c++) {
            if (!res->usage[c].n)
                continue;
            struct diff_row *row = &d->rows[find_row(d, cname, res->kind, t->categories[c])];
            if (mean_cap > row->capacity)
                row->capacity = mean_cap;
        }
    }
    free(use);
    return 0;
}

static const char *unit_of(const char *kind)
{
    if (!strcmp(kind, "cpu"))
        return "core";
    if (!strcmp(kind, "memory"))
        return "MB";
    if (!strcmp(kind, "io") || !strcmp(kind, "network"))
        return "MB/s";
    return "";
}

static int by_weight(const void *x, const void *y)
{
    const struct diff_change *a = x, *b = y;
    return a->weight < b->weight ? 1 : a->weight > b->weight ? -1 : 0;
}

/* "solver slowed by 38 %": the monitored categories on the same resource
 * whose active span grew or shrank by 5 % or more (other than the changed
 * one; other-load has no span of its own to speak of). */
static void say_effects(const struct trace_diff *d, const struct diff_row *changed, char *buf,
                        size_t len)
{
    size_t used = strlen(buf);
    for (size_t i = 0; i < d->n_rows && used + 1 < len; i++) {
        const struct diff_row *r = &d->rows[i];
        if (r == changed || strcmp(r->container, changed->container) || strcmp(r->kind, changed->kind) ||
            !strcmp(r->category, HOST_OTHER_LOAD) || !(r->active_a > 0) || !(r->active_b > 0))
            continue;
        double pct = (r->active_b / r->active_a - 1) * 100;
        if (fabs(pct) < 5)
            continue;
        used += (size_t)snprintf(buf + used, len - used, ", %s %s by %.0f %%", r->category,
                                 pct > 0 ? "slowed" : "sped up", fabs(pct));
        if (used >= len)
            used = len - 1;
    }
}

int trace_diff(const struct trace *a, const struct trace *b, double phase, double min_share,
               struct trace_diff *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    out->span_a = a->end - a->start;
    out->span_b = b->end - b->start;
    double longest = out->span_a > out->span_b ? out->span_a : out->span_b;
    if (!(longest > 0)) {
        snprintf(why, why_size, "both traces are empty (no time between their start and end)");
        return -1;
    }
    out->phase = phase > 0 ? phase : longest / 10;
    double n = ceil(longest / out->phase - 1e-9);
    if (n > 100000) {
        snprintf(why, why_size, "--phase %g makes %.0f phases (at most 100000)", out->phase, n);
        return -1;
    }
    out->n_phases = n < 1 ? 1 : (size_t)n;
    trace_format_date(a->start, out->start_a, sizeof out->start_a);
    trace_format_date(b->start, out->start_b, sizeof out->start_b);
    size_t cap = 0;
    if (fill(out, &cap, a, 0) < 0 || fill(out, &cap, b, 1) < 0)
        goto oom;
    size_t cap_changes = 0;
    for (size_t i = 0; i < out->n_rows; i++) {
        struct diff_row *row = &out->rows[i];
        double scale = row->capacity > 0 ? row->capacity : 1;
        for (size_t k = 0; k < out->n_phases;) {
            double dk = row->cells[k].b - row->cells[k].a;
            if (fabs(dk) / scale < 1e-12) {
                k++;
                continue;
            }
            size_t last = k;
            double delta = dk;
            while (last + 1 < out->n_phases) {
                double next = row->cells[last + 1].b - row->cells[last + 1].a;
                if ((next > 0) != (dk > 0) || fabs(next) / scale < 1e-12)
                    break;
                delta += next;
                last++;
            }
            double weight = fabs(delta) / scale;
            if (weight >= min_share) {
                struct diff_change *ch = VEC_PUSH(out->changes, out->n_changes, cap_changes);
                if (!ch)
                    goto oom;
                *ch = (struct diff_change){i, k, last, delta, weight, ""};
            }
            k = last + 1;
        }
    }
    if (out->n_changes)
        qsort(out->changes, out->n_changes, sizeof *out->changes, by_weight);
    for (size_t i = 0; i < out->n_changes; i++) {
        struct diff_change *c = &out->changes[i];
        const struct diff_row *row = &out->rows[c->row];
        double from = out->phase * (double)c->first, to = out->phase * (double)(c->last + 1);
        double dur = to - from;
        snprintf(c->text, sizeof c->text, "%s %s: %s took %.3g %s %s for %.3g s at t+%.3g s (%+.3g %s-s)",
                 row->container, row->kind, row->category, fabs(c->delta) / dur, unit_of(row->kind),
                 c->delta > 0 ? "more" : "less", dur, from, c->delta, unit_of(row->kind));
        say_effects(out, row, c->text, sizeof c->text);
    }
    return 0;
oom:
    snprintf(why, why_size, "out of memory");
    trace_diff_free(out);
    return -1;
}

void trace_diff_free(struct trace_diff *d)
{
    for (size_t i = 0; i < d->n_rows; i++)
        free(d->rows[i].cells);
    free(d->rows);
    free(d->changes);
    memset(d, 0, sizeof *d);
}

json_t *trace_diff_to_json(const struct trace_diff *d)
{
    json_t *rows = json_array(), *changes = json_array();
    for (size_t i = 0; i < d->n_rows; i++) {
        const struct diff_row *r = &d->rows[i];
        json_t *a = json_array(), *b = json_array();
        for (size_t k = 0; k < d->n_phases; k++) {
            json_array_append_new(a, json_real(r->cells[k].a));
            json_array_append_new(b, json_real(r->cells[k].b));
        }
        json_array_append_new(rows, json_pack("{s:s,s:s,s:s,s:f,s:f,s:f,s:o,s:o}", "resource",
                                              r->container, "kind", r->kind, "category", r->category,
                                              "capacity", r->capacity, "active_a", r->active_a,
                                              "active_b", r->active_b, "a", a, "b", b));
    }
    for (size_t i = 0; i < d->n_changes; i++) {
        const struct diff_change *c = &d->changes[i];
        const struct diff_row *r = &d->rows[c->row];
        json_array_append_new(changes,
                              json_pack("{s:s,s:s,s:s,s:f,s:f,s:f,s:f,s:s}", "resource", r->container,
                                        "kind", r->kind, "category", r->category, "from",
                                        d->phase * (double)c->first, "to", d->phase * (double)(c->last + 1),
                                        "delta", c->delta, "weight", c->weight, "text", c->text));
    }
    return json_pack("{s:f,s:I,s:f,s:f,s:s,s:s,s:o,s:o}", "phase", d->phase, "phases",
                     (json_int_t)d->n_phases, "span_a", d->span_a, "span_b", d->span_b, "start_a",
                     d->start_a, "start_b", d->start_b, "changes", changes, "rows", rows);
}
