/* When a category's server went idle after being active (trace/activity.c):
 * several activity signals of one category merged (active while any is),
 * the periods from each end of activity to the next start or the trace's
 * end, nothing for a server never active or active to the end. */
#include <stdlib.h>

#include "test.h"
#include "trace/activity.h"
#include "trace/trace.h"

int main(void)
{
    struct trace t;
    trace_init(&t);
    int root_type = trace_add_type(&t, "root", -1);
    int server_type = trace_add_type(&t, "SERVER", root_type);
    int root = trace_add_container(&t, "root", NULL, root_type, -1, 0);
    int s1 = trace_add_container(&t, "s1", NULL, server_type, root, 0);
    int s2 = trace_add_container(&t, "s2", NULL, server_type, root, 0);
    int s3 = trace_add_container(&t, "s3", NULL, server_type, root, 0);
    /* burst: s1 active on [10, 30), s2 on [20, 40) and [60, 70): idle on [40, 60) and [70, 100) */
    int a1 = trace_activity_for(&t, s1, "burst");
    trace_signal_push(&t.activities[a1].active, 0, 0);
    trace_signal_push(&t.activities[a1].active, 10, 1);
    trace_signal_push(&t.activities[a1].active, 30, 0);
    int a2 = trace_activity_for(&t, s2, "burst");
    CHECK(a2 != a1);
    CHECK_INT(trace_activity_for(&t, s1, "burst"), a1); /* one per (container, category) */
    trace_signal_push(&t.activities[a2].active, 20, 2);
    trace_signal_push(&t.activities[a2].active, 40, 0);
    trace_signal_push(&t.activities[a2].active, 60, 1);
    trace_signal_push(&t.activities[a2].active, 70, 0);
    /* steady: active from 0 to the end; quiet: never active */
    int a3 = trace_activity_for(&t, s3, "steady");
    trace_signal_push(&t.activities[a3].active, 0, 1);
    int a4 = trace_activity_for(&t, s3, "quiet");
    trace_signal_push(&t.activities[a4].active, 0, 0);
    t.start = 0;
    t.end = 100;
    CHECK_INT(trace_finish(&t), 0);

    struct trace_period *p = NULL;
    size_t n = 0;
    int server = -1;
    CHECK_INT(trace_idle_after_active(&t, "burst", &p, &n, &server), 0);
    CHECK_INT(n, 2);
    CHECK_INT(server, s1);
    if (n == 2) {
        CHECK_NEAR(p[0].from, 40, 0);
        CHECK_NEAR(p[0].to, 60, 0);
        CHECK_NEAR(p[1].from, 70, 0);
        CHECK_NEAR(p[1].to, 100, 0);
    }
    free(p);
    CHECK_INT(trace_idle_after_active(&t, "steady", &p, &n, &server), 0);
    CHECK_INT(n, 0);
    CHECK(p == NULL);
    CHECK_INT(server, s3);
    CHECK_INT(trace_idle_after_active(&t, "quiet", &p, &n, &server), 0);
    CHECK_INT(n, 0);
    CHECK_INT(trace_idle_after_active(&t, "nobody", &p, &n, &server), 0);
    CHECK_INT(n, 0);
    CHECK_INT(server, -1);
    trace_free(&t);
    return test_done();
}
