/* The data embedded in the view page: number rounding, time ticks (exact for
 * decimal times, integrals that match the trace's own), the coarse level of
 * big traces, the description of the hierarchy, levels, topology and grouped
 * findings, and JSON that cannot close <script>. */
#include <stdlib.h>

#include "test.h"
#include "trace/trace.h"
#include "view/view_data.h"

/* root > site s1 > hosts h1 h2; link l1 under root; h1 - l1 - h2. */
static void build_trace(struct trace *t)
{
    trace_init(t);
    int root_type = trace_add_type(t, "root", -1);
    int site = trace_add_type(t, "SITE", root_type);
    int host = trace_add_type(t, "HOST", site);
    int link = trace_add_type(t, "LINK", root_type);
    int root = trace_add_container(t, "root", NULL, root_type, -1, 0);
    int s1 = trace_add_container(t, "</script>s1", NULL, site, root, 0);
    int h1 = trace_add_container(t, "h1", NULL, host, s1, 0);
    int h2 = trace_add_container(t, "h2", NULL, host, s1, 0);
    int l1 = trace_add_container(t, "l1", NULL, link, root, 0);
    int burst = trace_add_category(t, "burst");
    trace_add_category(t, "continuous");
    int r1 = trace_resource_for(t, h1, "cpu");
    trace_signal_push(&t->resources[r1].capacity, 0, 200);
    trace_signal_push(&t->resources[r1].capacity, 60, 100);
    trace_signal_push(trace_usage_signal(t, r1, burst), 0, 150);
    trace_signal_push(trace_usage_signal(t, r1, burst), 12.345678, 33.3333333333);
    trace_signal_push(trace_usage_signal(t, r1, burst), 50, 0);
    int r2 = trace_resource_for(t, h2, "cpu");
    trace_signal_push(&t->resources[r2].capacity, 0, 1e9);
    int r3 = trace_resource_for(t, l1, "bandwidth");
    trace_signal_push(&t->resources[r3].capacity, 0, 1.25e8);
    trace_signal_push(trace_usage_signal(t, r3, burst), 10, 2e8); /* breaks eq. 1 on [10, 20) */
    trace_signal_push(trace_usage_signal(t, r3, burst), 20, 1e8);
    trace_add_edge(t, h1, l1);
    trace_add_edge(t, l1, h2);
    t->start = 0;
    t->end = 100;
    trace_finish(t);
}

/* Decodes a [[ticks], [values]] signal and integrates it over [a, b] like the page. */
static double page_integral(json_t *sig, double start, double quantum, double a, double b, double end)
{
    json_t *ticks = json_array_get(sig, 0), *values = json_array_get(sig, 1);
    double total = 0;
    long long tick = 0;
    size_t n = json_array_size(ticks);
    for (size_t i = 0; i < n; i++) {
        tick += json_integer_value(json_array_get(ticks, i));
        double t0 = start + (double)tick * quantum;
        double t1 = end;
        if (i + 1 < n)
            t1 = start + (double)(tick + json_integer_value(json_array_get(ticks, i + 1))) * quantum;
        double lo = fmax(t0, a), hi = fmin(t1, b);
        if (hi > lo)
            total += (hi - lo) * json_number_value(json_array_get(values, i));
    }
    return total;
}

static void test_numbers(void)
{
    json_t *n = view_number(3);
    CHECK(json_is_integer(n) && json_integer_value(n) == 3);
    json_decref(n);
    n = view_number(0.123456789);
    CHECK_NEAR(json_real_value(n), 0.1234568, 1e-15);
    json_decref(n);
    n = view_number(1234567891.0); /* integral but large: 7 digits */
    CHECK_NEAR(json_number_value(n), 1234568000.0, 1e-3);
    json_decref(n);
    n = view_number(NAN);
    CHECK(json_is_integer(n) && json_integer_value(n) == 0);
    json_decref(n);
}

static void test_quantum(void)
{
    struct trace t = {.start = 0, .end = 100};
    CHECK_NEAR(view_time_quantum(&t), 1e-7, 1e-20);     /* 100 / 2^32 = 2.3e-8 -> 1e-7 */
    t.end = 3600 * 24 * 7;
    CHECK_NEAR(view_time_quantum(&t), 1e-3, 1e-15);
    t.end = 0;
    CHECK_NEAR(view_time_quantum(&t), 1, 0);

    /* breakpoints far outside a short trace (found by tests/fuzz/from_runs_fuzz.c:
     * the tick overflowed, then the difference of two ticks) stay in order,
     * and those inside stay exact */
    double times[] = {0, 1795430695.3, 1e12}, values[] = {2, 1, 0};
    struct trace_signal far = {.n = 3, .t = times, .v = values};
    double start = 1795430695.2, quantum = 1e-10;
    json_t *sig = view_signal_json(&far, start, quantum);
    json_t *ticks = json_array_get(sig, 0);
    long long t0 = json_integer_value(json_array_get(ticks, 0));
    long long t1 = t0 + json_integer_value(json_array_get(ticks, 1));
    long long t2 = t1 + json_integer_value(json_array_get(ticks, 2));
    CHECK(t0 < 0 && t0 < t1 && t1 < t2);
    CHECK_NEAR(start + (double)t1 * quantum, 1795430695.3, 1e-6);
    json_decref(sig);
}

static void test_signals(const struct trace *t)
{
    double q = view_time_quantum(t);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    CHECK_INT(view_signals_write(t, mem), 0);
    fclose(mem);
    CHECK(strstr(text, "</") == NULL);
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr); /* the streamed document is one valid JSON */
    CHECK(doc != NULL);
    free(text);
    json_t *resources = json_object_get(doc, "resources");
    CHECK_INT(json_array_size(resources), 3);
    json_t *h1 = json_array_get(resources, 0);
    json_t *burst = json_array_get(json_object_get(h1, "use"), 0);
    CHECK(json_is_null(json_array_get(json_object_get(h1, "use"), 1))); /* never seen */
    json_t *ticks = json_array_get(burst, 0);
    CHECK_INT(json_integer_value(json_array_get(ticks, 1)), 123456780); /* 12.345678 s exactly */
    CHECK_INT(json_integer_value(json_array_get(ticks, 2)), 500000000 - 123456780);
    /* slices integrate as the trace itself does, values rounded to 7 digits */
    const double slices[][2] = {{0, 100}, {10, 20}, {12.3, 12.4}, {49.999, 50.001}, {55, 100}};
    for (size_t i = 0; i < sizeof slices / sizeof slices[0]; i++) {
        double a = slices[i][0], b = slices[i][1];
        const struct trace_signal *s = &t->resources[0].usage[0];
        double want = trace_signal_integral(s, a, b, t->end);
        double got = page_integral(burst, t->start, q, a, b, t->end);
        CHECK_NEAR(got, want, 1e-6 * fmax(1, fabs(want)));
    }
    json_t *cap = json_object_get(h1, "cap");
    CHECK_NEAR(page_integral(cap, t->start, q, 50, 100, t->end), 10 * 200 + 40 * 100, 1e-6);
    json_decref(doc);
}

/* The coarse level: averages over equal steps, exact over whole steps, a
 * breakpoint only where the average changes, the meta saying so. */
static void test_coarse(const struct trace *t)
{
    struct view_resolution r;
    view_resolution_choose(t, &(struct view_page_options){0}, &r);
    CHECK(!r.coarse);
    CHECK_INT(r.breakpoints, 2 + 3 + 1 + 1 + 2);
    view_resolution_choose(t, &(struct view_page_options){.coarse_steps = 20}, &r);
    CHECK(r.coarse);
    CHECK_INT(r.steps, 20);
    CHECK_NEAR(r.step, 5, 1e-12);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    CHECK_INT(view_coarse_signals_write(t, &r, mem), 0);
    fclose(mem);
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);
    CHECK(doc != NULL);
    free(text);
    CHECK(json_is_true(json_object_get(doc, "coarse")));
    double q = json_number_value(json_object_get(doc, "quantum"));
    CHECK_NEAR(q, 5, 1e-12);
    json_t *h1 = json_array_get(json_object_get(doc, "resources"), 0);
    json_t *cap = json_object_get(h1, "cap");
    CHECK_INT(json_array_size(json_array_get(cap, 0)), 2); /* 200 until step 12 (t = 60), then 100 */
    CHECK_INT(json_integer_value(json_array_get(json_array_get(cap, 0), 1)), 12);
    json_t *burst = json_array_get(json_object_get(h1, "use"), 0);
    const double slices[][2] = {{0, 100}, {10, 15}, {10, 20}, {45, 55}, {50, 100}};
    for (size_t i = 0; i < sizeof slices / sizeof slices[0]; i++) {
        double a = slices[i][0], b = slices[i][1];
        double want = trace_signal_integral(&t->resources[0].usage[0], a, b, t->end);
        CHECK_NEAR(page_integral(burst, t->start, q, a, b, t->end), want, 1e-6 * fmax(1, fabs(want)));
    }
    /* step 2 = [10, 15] mixes 150 and 33.33...: its average, 7 digits */
    CHECK_NEAR(page_integral(burst, t->start, q, 10, 15, t->end) / 5,
               (2.345678 * 150 + 2.654322 * 33.3333333333) / 5, 1e-4);
    json_decref(doc);
    json_t *meta = view_meta_json(t, &(struct view_page_options){.coarse_steps = 20});
    json_t *resolution = json_object_get(meta, "resolution");
    CHECK(json_is_true(json_object_get(resolution, "coarse")));
    CHECK_INT(json_integer_value(json_object_get(resolution, "steps")), 20);
    json_decref(meta);
    meta = view_meta_json(t, &(struct view_page_options){.coarse_steps = 20, .serve = true});
    CHECK(json_is_false(json_object_get(json_object_get(meta, "resolution"), "coarse"))); /* served: full */
    json_decref(meta);
}

static void test_meta(const struct trace *t)
{
    json_t *meta = view_meta_json(t, &(struct view_page_options){.title = "a title"});
    CHECK_STR(json_string_value(json_object_get(meta, "title")), "a title");
    json_t *levels = json_object_get(meta, "levels");
    CHECK_INT(json_array_size(levels), 4);
    CHECK_STR(json_string_value(json_array_get(levels, 0)), "root");
    CHECK_STR(json_string_value(json_array_get(levels, 1)), "SITE");
    json_t *kinds = json_object_get(meta, "kinds");
    CHECK_STR(json_string_value(json_array_get(kinds, 1)), "bandwidth");
    CHECK_NEAR(json_number_value(json_object_get(json_object_get(meta, "maxCapacity"), "cpu")), 1e9, 0);
    json_t *topo = json_object_get(meta, "topology");
    json_t *vertices = json_object_get(topo, "vertices");
    CHECK_INT(json_array_size(vertices), 3); /* h1 h2 l1: the site holds no resource */
    int links = 0, inside = 1;
    size_t i;
    json_t *v;
    json_array_foreach(vertices, i, v)
    {
        links += json_is_true(json_object_get(v, "link"));
        double x = json_number_value(json_object_get(v, "x"));
        double y = json_number_value(json_object_get(v, "y"));
        inside &= x > 0 && x < VIEW_TOPOLOGY_WIDTH && y > 0 && y < VIEW_TOPOLOGY_HEIGHT;
    }
    CHECK_INT(links, 1);
    CHECK(inside);
    CHECK_INT(json_array_size(json_object_get(topo, "edges")), 2);

    /* findings: the eq. 1 break of l1 as a group of its own, anomalies per twentieth of the trace */
    json_t *findings = json_object_get(meta, "findings");
    json_t *groups = json_object_get(findings, "groups");
    json_t *violation = NULL, *g;
    json_int_t slices = 0;
    json_array_foreach(groups, i, g)
    {
        slices += json_integer_value(json_object_get(g, "slices"));
        if (!strcmp(json_string_value(json_object_get(g, "kind")), "violation"))
            violation = g;
    }
    CHECK(violation != NULL);
    CHECK_STR(json_string_value(json_object_get(violation, "resource")), "l1");
    json_t *range = json_array_get(json_object_get(violation, "ranges"), 0);
    CHECK_NEAR(json_number_value(json_array_get(range, 0)), 10, 1e-12);
    CHECK_NEAR(json_number_value(json_array_get(range, 1)), 20, 1e-12);
    CHECK_INT(json_integer_value(json_object_get(findings, "findings")), slices);
    CHECK(json_array_size(groups) > 1);
    CHECK_NEAR(json_number_value(json_object_get(findings, "anomalySlice")), 5, 1e-12);
    /* an offline page of this small trace embeds every breakpoint */
    CHECK(json_is_false(json_object_get(json_object_get(meta, "resolution"), "coarse")));

    /* dumped inside <script>: a container named "</script>s1" cannot end it,
     * nor can any '<' start a tag or a comment there */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    CHECK_INT(view_json_dump(meta, 17, mem), 0);
    fclose(mem);
    CHECK(strchr(text, '<') == NULL);
    CHECK_CONTAINS(text, "\\u003c\\/script>s1");
    free(text);
    json_decref(meta);
}

int main(void)
{
    struct trace t;
    build_trace(&t);
    test_numbers();
    test_quantum();
    test_signals(&t);
    test_coarse(&t);
    test_meta(&t);
    trace_free(&t);
    return test_done();
}
