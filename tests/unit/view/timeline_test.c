/* The timeline chart's data computed in C (GET /timeline of --serve): per
 * step, the numbers tally trace aggregate gives for the group over that
 * step; unknown levels, groups and kinds refused with a reason. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "trace/aggregate.h"
#include "trace/trace.h"
#include "view/timeline.h"

/* root > site s1 > hosts h1 h2 (cpu); link l1 (bandwidth) under root. */
static void build_trace(struct trace *t)
{
    trace_init(t);
    int root_type = trace_add_type(t, "root", -1);
    int site = trace_add_type(t, "SITE", root_type);
    int host = trace_add_type(t, "HOST", site);
    int link = trace_add_type(t, "LINK", root_type);
    int root = trace_add_container(t, "root", NULL, root_type, -1, 0);
    int s1 = trace_add_container(t, "s1", NULL, site, root, 0);
    int h1 = trace_add_container(t, "h1", NULL, host, s1, 0);
    int h2 = trace_add_container(t, "h2", NULL, host, s1, 0);
    int l1 = trace_add_container(t, "l1", NULL, link, root, 0);
    int burst = trace_add_category(t, "burst");
    int steady = trace_add_category(t, "steady");
    int r1 = trace_resource_for(t, h1, "cpu");
    trace_signal_push(&t->resources[r1].capacity, 0, 200);
    trace_signal_push(&t->resources[r1].capacity, 60, 100);
    trace_signal_push(trace_usage_signal(t, r1, burst), 3, 150);
    trace_signal_push(trace_usage_signal(t, r1, burst), 12.5, 20);
    trace_signal_push(trace_usage_signal(t, r1, steady), 0, 30);
    int r2 = trace_resource_for(t, h2, "cpu");
    trace_signal_push(&t->resources[r2].capacity, 0, 50);
    trace_signal_push(trace_usage_signal(t, r2, steady), 41, 25);
    int r3 = trace_resource_for(t, l1, "bandwidth");
    trace_signal_push(&t->resources[r3].capacity, 0, 1e8);
    t->start = 0;
    t->end = 100;
    trace_finish(t);
}

/* Every step of the timeline of (level, group, kind) equals trace_aggregate over that step. */
static void check_against_aggregate(const struct trace *t, const char *level, const char *group,
                                    const char *kind, size_t steps)
{
    char why[256];
    json_t *doc = view_timeline_json(t, &(struct view_timeline_request){.level = level, .group = group,
                                                                        .kind = kind, .steps = steps},
                                     why, sizeof why);
    CHECK(doc != NULL);
    if (!doc)
        return;
    CHECK_INT(json_integer_value(json_object_get(doc, "steps")), steps);
    json_t *capacity = json_object_get(doc, "capacity"), *usage = json_object_get(doc, "usage");
    CHECK_INT(json_array_size(capacity), steps);
    int agree = 1;
    for (size_t i = 0; i < steps; i++) {
        double a = 100.0 * (double)i / (double)steps, b = 100.0 * (double)(i + 1) / (double)steps;
        struct trace_aggregation agg;
        struct trace_aggregate_options o = {.from = a, .to = b, .level = level, .kind = kind};
        if (trace_aggregate(t, &o, &agg, why, sizeof why) < 0) {
            agree = 0;
            continue;
        }
        for (size_t g = 0; g < agg.n_groups; g++) {
            if (strcmp(agg.groups[g].name, group ? group : "root"))
                continue;
            agree &= fabs(agg.groups[g].capacity - json_number_value(json_array_get(capacity, i))) < 1e-9;
            for (size_t c = 0; c < t->n_categories; c++)
                agree &= fabs(agg.groups[g].usage[c] -
                              json_number_value(json_array_get(json_object_get(usage, t->categories[c]), i))) < 1e-9;
        }
        trace_aggregation_free(&agg);
    }
    CHECK(agree);
    json_decref(doc);
}

static void check_refused(const struct trace *t, struct view_timeline_request rq, const char *detail)
{
    char why[256] = "";
    json_t *doc = view_timeline_json(t, &rq, why, sizeof why);
    CHECK(doc == NULL);
    CHECK_CONTAINS(why, detail);
    json_decref(doc);
}

int main(void)
{
    struct trace t;
    build_trace(&t);
    check_against_aggregate(&t, "root", NULL, "cpu", 8);
    check_against_aggregate(&t, "HOST", "h1", "cpu", 40);
    check_against_aggregate(&t, "site", "s1", "cpu", 7);
    check_against_aggregate(&t, "LINK", "l1", "bandwidth", 3);

    /* h1 over [0, 25] in 2 steps: burst 150 from 3 to 12.5 then 20; capacity 200 */
    char why[256];
    json_t *doc = view_timeline_json(&t, &(struct view_timeline_request){.level = "HOST", .group = "h1",
                                     .kind = "cpu", .from = 0, .to = 25, .steps = 2}, why, sizeof why);
    json_t *burst = json_object_get(json_object_get(doc, "usage"), "burst");
    CHECK_NEAR(json_number_value(json_array_get(burst, 0)), (150 * 9.5 + 20 * 0) / 12.5, 1e-9);
    CHECK_NEAR(json_number_value(json_array_get(burst, 1)), 20, 1e-9);
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(doc, "capacity"), 1)), 200, 1e-9);
    CHECK_INT(json_integer_value(json_object_get(doc, "resources")), 1);
    json_decref(doc);

    check_refused(&t, (struct view_timeline_request){.level = "rack", .group = "x", .kind = "cpu", .steps = 4}, "level 'rack'");
    check_refused(&t, (struct view_timeline_request){.level = "HOST", .group = "h9", .kind = "cpu", .steps = 4}, "group 'h9'");
    check_refused(&t, (struct view_timeline_request){.level = "HOST", .group = "h1", .kind = "gpu", .steps = 4}, "kind 'gpu'");
    check_refused(&t, (struct view_timeline_request){.level = "root", .kind = "cpu", .steps = 0}, "steps");
    check_refused(&t, (struct view_timeline_request){.level = "root", .steps = 4}, "kind: missing");
    trace_free(&t);
    return test_done();
}
