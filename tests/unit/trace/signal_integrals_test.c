/* trace_signal_add_integrals: one pass over a signal gives, for every
 * interval between consecutive edges, what trace_signal_integral gives
 * (edges before the first breakpoint, on breakpoints, repeated, past the
 * trace end; equal breakpoint times where the later value wins). */
#include <stdlib.h>

#include "test.h"
#include "trace/trace.h"

int main(void)
{
    struct trace t;
    trace_init(&t);
    int root_type = trace_add_type(&t, "root", -1);
    int root = trace_add_container(&t, "root", NULL, root_type, -1, 0);
    int r = trace_resource_for(&t, root, "cpu");
    struct trace_signal *s = &t.resources[r].capacity;
    const double points[][2] = {{2, 10}, {5, 3}, {5, 7}, {7.25, 0}, {9, 100}, {9.5, 1.5}};
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++)
        trace_signal_push(s, points[i][0], points[i][1]);
    t.start = 0;
    t.end = 12;
    trace_finish(&t);

    const double edges[] = {0, 1, 2, 2, 4.5, 5, 6, 7.25, 8, 9.1, 11, 12, 13, 20};
    size_t n = sizeof edges / sizeof edges[0];
    double out[sizeof edges / sizeof edges[0]] = {0};
    out[n - 1] = 42; /* not an interval: untouched */
    trace_signal_add_integrals(s, edges, n, t.end, out);
    for (size_t k = 0; k + 1 < n; k++)
        CHECK_NEAR(out[k], trace_signal_integral(s, edges[k], edges[k + 1], t.end), 1e-12);
    CHECK_NEAR(out[3], 2.5 * 10, 1e-12);        /* [2, 4.5] */
    CHECK_NEAR(out[5], 1 * 7, 1e-12);           /* [5, 6]: the later of the two values at 5 */
    CHECK_NEAR(out[2], 0, 0);                   /* [2, 2] */
    CHECK_NEAR(out[11], 0, 0);                  /* [12, 13]: past the end */
    CHECK_NEAR(out[n - 1], 42, 0);
    double sum = 0;
    for (size_t k = 0; k + 1 < n; k++)
        sum += out[k];
    CHECK_NEAR(sum, trace_signal_integral(s, 0, 20, t.end), 1e-9);
    /* adds to what is there (signals summed over resources) */
    double twice[sizeof edges / sizeof edges[0]] = {0};
    trace_signal_add_integrals(s, edges, n, t.end, twice);
    trace_signal_add_integrals(s, edges, n, t.end, twice);
    CHECK_NEAR(twice[6], 2 * out[6], 1e-12);
    trace_free(&t);
    return test_done();
}
