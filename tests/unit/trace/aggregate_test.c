/* Signals and aggregation against integrals computed by hand: eq. 2 over
 * slices cutting breakpoints, eq. 3 over a site/host hierarchy, category
 * selection, container lifetimes, eq. 1 violations, hierarchy files. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "trace/aggregate.h"
#include "trace/anomalies.h"
#include "trace/trace.h"

static void test_signal(void)
{
    struct trace t;
    trace_init(&t);
    struct trace_signal s = {0};
    /* 2 on [1,3), 5 on [3,3) (overwritten at once), 4 on [3,6), 0 on [6, end) */
    trace_signal_push(&s, 1, 2);
    trace_signal_push(&s, 3, 5);
    trace_signal_push(&s, 3, 4);
    trace_signal_push(&s, 6, 0);
    t.start = 0;
    t.end = 10;
    int rt = trace_add_type(&t, "root", -1);
    trace_add_container(&t, "root", "0", rt, -1, 0);
    int r = trace_resource_for(&t, 0, "cpu");
    t.resources[r].capacity = s;
    CHECK(trace_finish(&t) == 0);
    const struct trace_signal *sig = &t.resources[r].capacity;
    CHECK_NEAR(trace_signal_integral(sig, 0, 10, 10), 2 * 2 + 4 * 3, 1e-12);
    CHECK_NEAR(trace_signal_integral(sig, 2, 4, 10), 2 * 1 + 4 * 1, 1e-12);
    CHECK_NEAR(trace_signal_integral(sig, 3, 3, 10), 0, 0);
    CHECK_NEAR(trace_signal_integral(sig, 4.5, 5.5, 10), 4, 1e-12);
    CHECK_NEAR(trace_signal_integral(sig, -5, 1, 10), 0, 0);
    CHECK_NEAR(trace_signal_integral(sig, 0, 10, 5), 2 * 2 + 4 * 2, 1e-12); /* ends at 5 */
    CHECK_NEAR(trace_signal_value_at(sig, 3), 4, 0); /* the later value at equal times */
    CHECK_NEAR(trace_signal_value_at(sig, 0.5), 0, 0);
    trace_free(&t);
}

/* root / site s1 {h1, h2}, site s2 {h3}; categories x, y. */
static void build(struct trace *t)
{
    trace_init(t);
    int rt = trace_add_type(t, "root", -1), st = trace_add_type(t, "Site", rt),
        ht = trace_add_type(t, "Host", st);
    trace_add_container(t, "root", "0", rt, -1, 0);
    int s1 = trace_add_container(t, "s1", NULL, st, 0, 0), s2 = trace_add_container(t, "s2", NULL, st, 0, 0);
    int h[3] = {trace_add_container(t, "h1", NULL, ht, s1, 0), trace_add_container(t, "h2", NULL, ht, s1, 0),
                trace_add_container(t, "h3", NULL, ht, s2, 0)};
    int x = trace_add_category(t, "x"), y = trace_add_category(t, "y");
    double caps[3] = {10, 20, 40};
    for (int i = 0; i < 3; i++) {
        int r = trace_resource_for(t, h[i], "cpu");
        trace_signal_push(&t->resources[r].capacity, 0, caps[i]);
    }
    /* h1: x = 5 on [0,4), y = 5 on [2,8);  h2: x = 20 on [0,10)
       h3: y = 10 on [5,10), capacity 40 -> 20 at 6; h3 destroyed at 10; trace ends at 10 */
    struct trace_signal *u;
    u = trace_usage_signal(t, 0, x); trace_signal_push(u, 0, 5); trace_signal_push(u, 4, 0);
    u = trace_usage_signal(t, 0, y); trace_signal_push(u, 2, 5); trace_signal_push(u, 8, 0);
    u = trace_usage_signal(t, 1, x); trace_signal_push(u, 0, 20);
    u = trace_usage_signal(t, 2, y); trace_signal_push(u, 5, 10);
    trace_signal_push(&t->resources[2].capacity, 6, 20);
    t->start = 0;
    t->end = 10;
    /* an eq. 1 break: h1 has x + y = 10 <= 10 (fine); make h2 exceed on [7, 9) */
    u = trace_usage_signal(t, 1, y); trace_signal_push(u, 7, 3); trace_signal_push(u, 9, 0);
    trace_finish(t);
}

static void test_hierarchy_aggregation(void)
{
    struct trace t;
    build(&t);
    char why[200];
    struct trace_aggregation a;
    int x = trace_find_category(&t, "x"), y = trace_find_category(&t, "y");
    struct trace_aggregate_options o = {.from = 1, .to = 7, .level = "site"};
    CHECK(trace_aggregate(&t, &o, &a, why, sizeof why) == 0);
    CHECK_INT(a.n_groups, 2);
    CHECK_STR(a.level, "Site");
    /* s1 over [1,7): capacity 30; x: h1 5*3 + h2 20*6 = 135 -> 22.5; y: h1 5*5=25, h2 3*0 -> 25/6 */
    CHECK_STR(a.groups[0].name, "s1");
    CHECK_NEAR(a.groups[0].capacity, 30, 1e-12);
    CHECK_NEAR(a.groups[0].usage[x], 135.0 / 6, 1e-12);
    CHECK_NEAR(a.groups[0].usage[y], 25.0 / 6, 1e-12);
    CHECK_NEAR(a.groups[0].idle, 30 - 160.0 / 6, 1e-12);
    CHECK_INT(a.groups[0].n_resources, 2);
    /* s2: capacity 40*5 + 20*1 = 220 -> 220/6; y = 10*2 = 20 -> 20/6 */
    CHECK_STR(a.groups[1].name, "s2");
    CHECK_NEAR(a.groups[1].capacity, 220.0 / 6, 1e-12);
    CHECK_NEAR(a.groups[1].usage[y], 20.0 / 6, 1e-12);
    trace_aggregation_free(&a);
    /* root, whole trace, category y only */
    bool *sel = trace_category_selection(&t, "y", why, sizeof why);
    struct trace_aggregate_options o2 = {.level = "ROOT", .categories = sel};
    CHECK(trace_aggregate(&t, &o2, &a, why, sizeof why) == 0);
    CHECK_INT(a.n_groups, 1);
    CHECK_NEAR(a.from, 0, 0);
    CHECK_NEAR(a.to, 10, 0);
    /* capacity: 10 + 20 + (40*6 + 20*4)/10 = 62; y: h1 30 + h2 6 + h3 50 = 86 -> 8.6 */
    CHECK_NEAR(a.groups[0].capacity, 62, 1e-12);
    CHECK_NEAR(a.groups[0].usage[y], 8.6, 1e-12);
    CHECK_NEAR(a.groups[0].used, 8.6, 1e-12);
    CHECK_NEAR(a.groups[0].idle, 62 - 8.6, 1e-12);
    trace_aggregation_free(&a);
    free(sel);
    CHECK(trace_category_selection(&t, "x,zz", why, sizeof why) == NULL);
    CHECK_CONTAINS(why, "unknown category 'zz'");
    struct trace_aggregate_options bad = {.level = "cluster"};
    CHECK(trace_aggregate(&t, &bad, &a, why, sizeof why) < 0);
    CHECK_CONTAINS(why, "unknown level 'cluster' (types: Site Host, root)");
    /* eq. 1: h2 x + y = 23 > 20 on [7, 9) */
    CHECK_INT(t.n_violations, 1);
    if (t.n_violations == 1) {
        CHECK_INT(t.violations[0].resource, 1);
        CHECK_NEAR(t.violations[0].from, 7, 0);
        CHECK_NEAR(t.violations[0].to, 9, 0);
        CHECK_NEAR(t.violations[0].usage, 23, 0);
    }
    (void)x;
    trace_free(&t);
}

int main(void)
{
    test_signal();
    test_hierarchy_aggregation();
    return test_done();
}
