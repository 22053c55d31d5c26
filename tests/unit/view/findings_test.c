/* The findings the view page lists: anomalies and eq. 1 breaks grouped by
 * (kind, resource), consecutive slices merged into ranges, counts and time
 * covered per group, the worst group first. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "trace/trace.h"
#include "view/findings.h"

/* h1 saturated on [0, 50] and [70, 80]; h2 idle meanwhile, then over its
 * capacity on [90, 95] (eq. 1); slices of 5 over [0, 100]. */
static void build_trace(struct trace *t)
{
    trace_init(t);
    int root_type = trace_add_type(t, "root", -1);
    int host = trace_add_type(t, "HOST", root_type);
    int root = trace_add_container(t, "root", NULL, root_type, -1, 0);
    int h1 = trace_add_container(t, "h1", NULL, host, root, 0);
    int h2 = trace_add_container(t, "h2", NULL, host, root, 0);
    int a = trace_add_category(t, "a");
    int r1 = trace_resource_for(t, h1, "cpu");
    int r2 = trace_resource_for(t, h2, "cpu");
    trace_signal_push(&t->resources[r1].capacity, 0, 100);
    trace_signal_push(&t->resources[r2].capacity, 0, 100);
    struct trace_signal *u1 = trace_usage_signal(t, r1, a), *u2 = trace_usage_signal(t, r2, a);
    trace_signal_push(u1, 0, 100);
    trace_signal_push(u1, 50, 0);
    trace_signal_push(u1, 70, 100);
    trace_signal_push(u1, 80, 0);
    trace_signal_push(u2, 0, 0);
    trace_signal_push(u2, 90, 150);
    trace_signal_push(u2, 95, 0);
    t->start = 0;
    t->end = 100;
    trace_finish(t);
}

static json_t *group_of(json_t *groups, const char *kind, const char *resource)
{
    size_t i;
    json_t *g;
    json_array_foreach(groups, i, g)
    {
        if (!strcmp(json_string_value(json_object_get(g, "kind")), kind) &&
            !strcmp(json_string_value(json_object_get(g, "resource")), resource))
            return g;
    }
    return NULL;
}

static double range_at(json_t *g, size_t i, size_t k)
{
    return json_number_value(json_array_get(json_array_get(json_object_get(g, "ranges"), i), k));
}

int main(void)
{
    struct trace t;
    build_trace(&t);
    json_t *f = view_findings_json(&t, 0);
    json_t *groups = json_object_get(f, "groups");
    CHECK_NEAR(json_number_value(json_object_get(f, "anomalySlice")), 5, 1e-12);

    json_t *sat = group_of(groups, "saturation", "h1");
    CHECK(sat != NULL);
    CHECK_INT(json_integer_value(json_object_get(sat, "slices")), 12);
    CHECK_NEAR(json_number_value(json_object_get(sat, "duration")), 60, 1e-9);
    CHECK_INT(json_array_size(json_object_get(sat, "ranges")), 2); /* 10 + 2 slices merged */
    CHECK_NEAR(range_at(sat, 0, 0), 0, 1e-12);
    CHECK_NEAR(range_at(sat, 0, 1), 50, 1e-12);
    CHECK_NEAR(range_at(sat, 0, 2), 10, 0);
    CHECK_NEAR(range_at(sat, 1, 0), 70, 1e-12);
    CHECK_NEAR(range_at(sat, 1, 1), 80, 1e-12);
    CHECK_NEAR(range_at(sat, 1, 2), 2, 0);

    json_t *violation = group_of(groups, "violation", "h2");
    CHECK(violation != NULL);
    CHECK_INT(json_integer_value(json_object_get(violation, "slices")), 1);
    CHECK_NEAR(range_at(violation, 0, 0), 90, 1e-12);
    CHECK_NEAR(range_at(violation, 0, 1), 95, 1e-12);
    CHECK_CONTAINS(json_string_value(json_array_get(json_array_get(json_object_get(violation, "ranges"), 0), 3)),
                   "above capacity");

    /* worst first: time covered never grows down the list; every finding counted once */
    size_t i;
    json_t *g;
    double previous = 1e300;
    int ordered = 1;
    json_int_t slices = 0;
    json_array_foreach(groups, i, g)
    {
        double d = json_number_value(json_object_get(g, "duration"));
        ordered &= d <= previous;
        previous = d;
        slices += json_integer_value(json_object_get(g, "slices"));
    }
    CHECK(ordered);
    CHECK_INT(json_integer_value(json_object_get(f, "findings")), slices);
    CHECK_INT(json_integer_value(json_object_get(f, "omittedGroups")), 0);
    json_decref(f);
    trace_free(&t);
    return test_done();
}
