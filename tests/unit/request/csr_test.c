/* Unit tests for the counter and conditional-request registry
 * (src/request/csr.c): numbering, counters, the seed's bytes-per-iteration
 * measurement, event matching over every object kind, dispatch of other
 * actions, errors that disable a csr, deletion and definition from inside
 * callbacks, timers, and batches evaluated inside the application. */
#include <math.h>
#include <stdlib.h>

#include "request/csr.h"
#include "test.h"

/* A checked request, parsed from text; aborts on error (a broken test). */
static struct request checked(const char *text)
{
    struct request r;
    struct request_error err;
    if (request_parse(text, &r, &err) < 0 || request_check(&r, &err) < 0) {
        printf("# bad test request '%s': %s\n", text, err.message);
        abort();
    }
    return r;
}

/* Defines a csr from text; returns its number, 0 on error (printed). */
static unsigned define(struct csr_registry *registry, const char *text, bool enabled, double now)
{
    struct request r = checked(text);
    struct request_error err;
    unsigned number = 0;
    if (csr_define(registry, &r, enabled, now, &number, &err) < 0) {
        printf("# csr_define '%s': %s\n", text, err.message);
        request_free(&r);
        return 0;
    }
    return number;
}

/* Reports received by the callback, copied. */
struct seen {
    enum csr_report_kind kind;
    unsigned csr, object;
    double value;
    enum csr_state state;
    char service[40];
    char error[200];
    pid_t event_pid;
};

static struct seen seen[64];
static int seen_count;

static void record(void *context, const struct csr_report *r)
{
    (void)context;
    if (seen_count >= 64)
        abort();
    struct seen *s = &seen[seen_count++];
    memset(s, 0, sizeof *s);
    s->kind = r->kind;
    s->csr = r->csr;
    s->object = r->object;
    s->value = r->value;
    s->state = r->state;
    snprintf(s->service, sizeof s->service, "%s", r->action ? r->action->service : "");
    snprintf(s->error, sizeof s->error, "%s", r->error ? r->error : "");
    s->event_pid = r->event ? r->event->pid : -1;
}

static void reset_seen(void)
{
    seen_count = 0;
}

static double value_of(struct csr_registry *registry, unsigned counter)
{
    double v = -1;
    counter_read(registry, counter, false, &v);
    return v;
}

static void test_counters(void)
{
    struct csr_registry *reg = csr_registry_new();
    char why[128] = "";
    unsigned a = 0, b = 0, given = 10, again = 0, dup = 10;
    CHECK_INT(counter_create(reg, &a, why, sizeof why), 0);
    CHECK_INT(counter_create(reg, &b, why, sizeof why), 0);
    CHECK_INT(a, 1);
    CHECK_INT(b, 2);
    CHECK_INT(counter_create(reg, &given, why, sizeof why), 0);
    CHECK_INT(given, 10);
    CHECK_INT(counter_create(reg, &again, why, sizeof why), 0);
    CHECK_INT(again, 11); /* after the largest ever used */
    CHECK_INT(counter_create(reg, &dup, why, sizeof why), -1);
    CHECK_STR(why, "c_10 already exists");
    unsigned five = 5;
    CHECK_INT(counter_create(reg, &five, why, sizeof why),
              0); /* given, below the others: kept sorted */
    CHECK_INT(counter_count(reg), 5);

    CHECK_INT(counter_add(reg, 1, 2.5), 0);
    CHECK_INT(counter_add(reg, 1, 4), 0);
    CHECK_INT(counter_add(reg, 5, 7), 0);
    CHECK_INT(counter_add(reg, 3, 1), -1);
    CHECK_INT(counter_add(reg, 1, NAN), 0);
    CHECK_INT(counter_add(reg, 1, INFINITY), 0);
    double v = 0;
    CHECK_INT(counter_read(reg, 1, true, &v), 0);
    CHECK_NEAR(v, 6.5, 0);
    CHECK_NEAR(value_of(reg, 1), 0, 0); /* reset in the same step */
    CHECK_NEAR(value_of(reg, 5), 7, 0);
    CHECK_NEAR(value_of(reg, 10), 0, 0);
    CHECK_INT(counter_read(reg, 4, false, &v), -1);
    CHECK_INT(counter_delete(reg, 5), 0);
    CHECK_INT(counter_delete(reg, 5), -1);
    CHECK_INT(counter_count(reg), 4);
    CHECK_NEAR(value_of(reg, 10), 0, 0);
    CHECK_INT(counter_add(reg, 11, 1), 0); /* neighbours still found after the delete */
    CHECK_NEAR(value_of(reg, 11), 1, 0);
    csr_registry_free(reg);

    /* the bound */
    reg = csr_registry_new();
    int failures = 0;
    for (int i = 0; i < CSR_MAX_COUNTERS; i++) {
        unsigned n = 0;
        failures += counter_create(reg, &n, why, sizeof why) < 0;
    }
    CHECK_INT(failures, 0);
    unsigned one_more = 0;
    CHECK_INT(counter_create(reg, &one_more, why, sizeof why), -1);
    CHECK_STR(why, "too many counters (at most 65536)");
    CHECK_NEAR(value_of(reg, CSR_MAX_COUNTERS), 0, 0);
    csr_registry_free(reg);
}

/* Seed 001, section 7: bytes sent by MPI_Send per iteration of the outer loop. */
static void test_seed_measurement(void)
{
    struct csr_registry *reg = csr_registry_new();
    struct request create = checked(":pa_counter_create()");
    reset_seen();
    CHECK_INT(csr_run(reg, &create, 0, record, NULL), 0);
    request_free(&create);
    CHECK_INT(seen_count, 1);
    CHECK_INT(seen[0].kind, CSR_REPORT_COUNTER_VALUE);
    CHECK_INT(seen[0].object, 1);
    CHECK_STR(seen[0].service, "pa_counter_create");

    unsigned sends =
        define(reg, "lib_call_started([app_a1], \"MPI_Send\"): pa_counter_increment([c_1], $len)",
               false, 0);
    unsigned steps = define(
        reg, "thread_executes_probe([p_1@n1], \"nextstep\"): pa_counter_read([c_1], 1)", false, 0);
    CHECK_INT(sends, 1);
    CHECK_INT(steps, 2);
    CHECK_INT(csr_count(reg), 2);
    CHECK_INT(csr_state_of(reg, 1), CSR_DISABLED);

    struct event_occurrence send = {.kind = EVENT_LIB_CALL_STARTED,
                                    .pid = 1,
                                    .host = "n1",
                                    .app = "a1",
                                    .site = "s1",
                                    .name = "MPI_Send",
                                    .len = 100};
    reset_seen();
    CHECK_INT(csr_event(reg, &send, 1, record, NULL), 0); /* disabled: nothing fires */
    CHECK_NEAR(value_of(reg, 1), 0, 0);

    struct request enable = checked(":csr_enable([csr_1, csr_2])");
    CHECK_INT(csr_run(reg, &enable, 1, record, NULL), 0);
    request_free(&enable);
    CHECK_INT(seen_count, 2);
    CHECK_INT(seen[0].kind, CSR_REPORT_CSR_STATE);
    CHECK_INT(seen[0].object, 1);
    CHECK_INT(seen[0].state, CSR_ENABLED);
    CHECK_INT(seen[1].object, 2);
    CHECK_INT(csr_state_of(reg, 2), CSR_ENABLED);

    /* iteration 1: three sends from two processes on two hosts */
    reset_seen();
    CHECK_INT(csr_event(reg, &send, 2, record, NULL), 1);
    struct event_occurrence other = send;
    other.pid = 2;
    other.host = "n2";
    other.len = 250;
    CHECK_INT(csr_event(reg, &other, 2, record, NULL), 1);
    other.len = 50;
    CHECK_INT(csr_event(reg, &other, 2, record, NULL), 1);
    CHECK_INT(seen_count, 0); /* increments stay silent: nothing travels per event */
    CHECK_NEAR(value_of(reg, 1), 400, 0);

    /* not matching: another application, another function, a lib_call_ended */
    struct event_occurrence foreign = send;
    foreign.app = "b";
    CHECK_INT(csr_event(reg, &foreign, 2, record, NULL), 0);
    foreign = send;
    foreign.name = "MPI_Recv";
    CHECK_INT(csr_event(reg, &foreign, 2, record, NULL), 0);
    foreign = send;
    foreign.kind = EVENT_LIB_CALL_ENDED;
    CHECK_INT(csr_event(reg, &foreign, 2, record, NULL), 0);
    foreign = send;
    foreign.app = NULL;
    CHECK_INT(csr_event(reg, &foreign, 2, record, NULL), 0);
    CHECK_NEAR(value_of(reg, 1), 400, 0);

    /* the probe at the end of the iteration reads and resets */
    struct event_occurrence step = {
        .kind = EVENT_PROBE, .pid = 1, .host = "n1", .app = "a1", .name = "nextstep"};
    CHECK_INT(csr_event(reg, &step, 3, record, NULL), 1);
    CHECK_INT(seen_count, 1);
    CHECK_INT(seen[0].kind, CSR_REPORT_COUNTER_VALUE);
    CHECK_INT(seen[0].csr, 2);
    CHECK_INT(seen[0].object, 1);
    CHECK_NEAR(seen[0].value, 400, 0);
    CHECK_INT(seen[0].event_pid, 1);
    CHECK_STR(seen[0].service, "pa_counter_read");
    CHECK_NEAR(value_of(reg, 1), 0, 0);

    /* the probe in another process (p_1@n1 only) or with another name does not read */
    step.pid = 2;
    CHECK_INT(csr_event(reg, &step, 3, record, NULL), 0);
    step.pid = 1;
    step.host = "n2";
    CHECK_INT(csr_event(reg, &step, 3, record, NULL), 0);
    step.host = "n1";
    step.name = "other";
    CHECK_INT(csr_event(reg, &step, 3, record, NULL), 0);

    /* iteration 2 */
    send.len = 7;
    csr_event(reg, &send, 4, record, NULL);
    step.name = "nextstep";
    reset_seen();
    CHECK_INT(csr_event(reg, &step, 4, record, NULL), 1);
    CHECK_NEAR(seen[0].value, 7, 0);

    struct request done = checked(":csr_disable(csr_1), csr_delete(csr_2), pa_counter_delete(c_1)");
    reset_seen();
    CHECK_INT(csr_run(reg, &done, 5, record, NULL), 0);
    request_free(&done);
    CHECK_INT(seen_count, 3);
    CHECK_INT(seen[0].state, CSR_DISABLED);
    CHECK_INT(seen[1].state, CSR_DELETED);
    CHECK_INT(seen[2].kind, CSR_REPORT_COUNTER_DELETED);
    CHECK_INT(csr_count(reg), 1);
    CHECK(csr_request(reg, 2) == NULL);
    CHECK_STR(csr_request(reg, 1)->event.service, "lib_call_started");
    CHECK_INT(counter_count(reg), 0);
    csr_registry_free(reg);
}

static void test_matching(void)
{
    struct csr_registry *reg = csr_registry_new();
    unsigned by_pid = define(reg, "proc_terminated(p_7): proc_get_info(p_7)", true, 0);
    unsigned by_pid_host = define(reg, "proc_terminated(p_7@h2): proc_get_info(p_7@h2)", true, 0);
    unsigned by_node = define(reg, "proc_terminated(n_h1): app_get_list()", true, 0);
    unsigned by_site = define(reg, "proc_terminated([site_krk]): app_get_list()", true, 0);
    unsigned by_app = define(reg, "proc_terminated([app_x, app_y]): app_get_list()", true, 0);
    unsigned created = define(reg, "proc_created(p_100): proc_get_info(p_100)", true, 0);
    CHECK_INT(by_pid, 1);
    CHECK_INT(created, 6);

    struct event_occurrence ev = {
        .kind = EVENT_PROC_TERMINATED, .pid = 7, .host = "h1", .site = "krk", .app = "y"};
    reset_seen();
    CHECK_INT(csr_event(reg, &ev, 0, record, NULL), 4); /* p_7 (any host), n_h1, site_krk, app_y */
    CHECK_INT(seen_count, 4);
    CHECK_INT(seen[0].csr, by_pid);
    CHECK_INT(seen[1].csr, by_node);
    CHECK_INT(seen[2].csr, by_site);
    CHECK_INT(seen[3].csr, by_app);
    CHECK_INT(seen[0].kind, CSR_REPORT_DISPATCH);
    CHECK_STR(seen[0].service, "proc_get_info");

    ev.host = "h2";
    ev.site = NULL;
    ev.app = NULL;
    reset_seen();
    CHECK_INT(csr_event(reg, &ev, 0, record, NULL), 2); /* p_7, p_7@h2 */
    CHECK_INT(seen[1].csr, by_pid_host);

    ev.pid = 8;
    CHECK_INT(csr_event(reg, &ev, 0, record, NULL), 0);

    /* proc_created(p_100): a descendant of 100 */
    pid_t chain[] = {150, 100, 1};
    struct event_occurrence born = {.kind = EVENT_PROC_CREATED,
                                    .pid = 200,
                                    .host = "h1",
                                    .ancestors = chain,
                                    .ancestor_count = 3};
    reset_seen();
    CHECK_INT(csr_event(reg, &born, 0, record, NULL), 1);
    CHECK_INT(seen[0].csr, created);
    born.ancestor_count = 1; /* only the parent 150 known: not under 100 */
    CHECK_INT(csr_event(reg, &born, 0, record, NULL), 0);
    /* ancestors do not count for other events */
    ev = (struct event_occurrence){.kind = EVENT_PROC_TERMINATED,
                                   .pid = 200,
                                   .host = "h9",
                                   .ancestors = chain,
                                   .ancestor_count = 3};
    CHECK_INT(csr_event(reg, &ev, 0, record, NULL), 0);

    /* timer occurrences are not csr_event's */
    unsigned timer = define(reg, "timer(1s): app_get_list()", true, 0);
    CHECK(timer > 0);
    ev.kind = EVENT_TIMER;
    CHECK_INT(csr_event(reg, &ev, 5, record, NULL), 0);
    csr_registry_free(reg);
}

static void test_define_errors(void)
{
    struct csr_registry *reg = csr_registry_new();
    struct request r =
        checked("lib_call_started(app_x, \"MPI_Send\"): pa_counter_increment([c_1], $len)");
    struct request_error err;
    unsigned number = 0;
    CHECK_INT(csr_define(reg, &r, true, 0, &number, &err), -1);
    CHECK_STR(err.message, "column 60: c_1: no such counter");
    CHECK_INT(err.pos, 60);
    CHECK_INT(r.action_count, 1); /* left to the caller */
    request_free(&r);

    r = checked("proc_terminated(p_1): csr_disable(csr_4)");
    CHECK_INT(csr_define(reg, &r, true, 0, &number, &err), -1);
    CHECK_STR(err.message, "column 35: csr_4: no such conditional request");
    number = 4; /* referring to itself is fine */
    CHECK_INT(csr_define(reg, &r, true, 0, &number, &err), 0);
    CHECK_INT(number, 4);
    CHECK_INT(r.action_count, 0); /* owned by the registry now */
    r = checked("proc_terminated(p_1): csr_disable(csr_4)");
    number = 4;
    CHECK_INT(csr_define(reg, &r, true, 0, &number, &err), -1);
    CHECK_STR(err.message, "csr_4 already exists");
    number = 0;
    CHECK_INT(csr_define(reg, &r, true, 0, &number, &err), 0);
    CHECK_INT(number, 5);

    r = checked(":app_get_list()");
    CHECK_INT(csr_define(reg, &r, true, 0, &number, &err), -1);
    CHECK_STR(err.message, "not a conditional request");
    request_free(&r);

    CHECK_INT(csr_enable(reg, 9, 0), -1);
    CHECK_INT(csr_disable(reg, 9), -1);
    CHECK_INT(csr_delete(reg, 9), -1);
    CHECK_INT(csr_state_of(reg, 9), CSR_DELETED);
    csr_registry_free(reg);
}

static void test_run_unconditional(void)
{
    struct csr_registry *reg = csr_registry_new();
    struct request r =
        checked(":pa_counter_create(), pa_counter_increment(c_1, 5), pa_counter_increment(c_1),"
                " pa_counter_read(c_1, 1), pa_counter_read(c_1), pa_counter_read([c_9, c_1]),"
                " proc_kill(app_x, \"KILL\"), csr_enable(csr_3)");
    reset_seen();
    CHECK_INT(csr_run(reg, &r, 0, record, NULL), 2);
    request_free(&r);
    CHECK_INT(seen_count, 9);
    CHECK_INT(seen[0].kind, CSR_REPORT_COUNTER_VALUE);
    CHECK_INT(seen[0].object, 1);
    CHECK_NEAR(seen[1].value, 5, 0);
    CHECK_STR(seen[1].service, "pa_counter_increment");
    CHECK_NEAR(seen[2].value, 6, 0);
    CHECK_NEAR(seen[3].value, 6, 0); /* read with reset */
    CHECK_NEAR(seen[4].value, 0, 0);
    CHECK_INT(seen[5].kind, CSR_REPORT_ERROR);
    CHECK_STR(seen[5].error, "c_9: no such counter");
    CHECK_INT(seen[6].kind, CSR_REPORT_COUNTER_VALUE); /* the rest of the list still runs */
    CHECK_INT(seen[6].object, 1);
    CHECK_INT(seen[7].kind, CSR_REPORT_DISPATCH);
    CHECK_STR(seen[7].service, "proc_kill");
    CHECK_INT(seen[7].csr, 0);
    CHECK_INT(seen[7].event_pid, -1);
    CHECK_INT(seen[8].kind, CSR_REPORT_ERROR);
    CHECK_STR(seen[8].error, "csr_3: no such conditional request");
    csr_registry_free(reg);
}

static void test_errors_disable(void)
{
    struct csr_registry *reg = csr_registry_new();
    char why[64];
    unsigned c = 0;
    counter_create(reg, &c, why, sizeof why);
    unsigned csr = define(reg,
                          "thread_executes_probe(app_x, \"p\"): pa_counter_increment(c_1, $value), "
                          "proc_get_info(app_x)",
                          true, 0);
    struct event_occurrence ev = {
        .kind = EVENT_PROBE, .pid = 3, .host = "h", .app = "x", .name = "p", .value = 2.5};
    reset_seen();
    CHECK_INT(csr_event(reg, &ev, 0, record, NULL), 1);
    CHECK_NEAR(value_of(reg, 1), 2.5, 0);
    CHECK_INT(seen_count, 1);
    counter_delete(reg, 1);
    reset_seen();
    CHECK_INT(csr_event(reg, &ev, 0, record, NULL), 1);
    CHECK_INT(seen_count, 3);
    CHECK_INT(seen[0].kind, CSR_REPORT_ERROR);
    CHECK_STR(seen[0].error, "c_1: no such counter");
    CHECK_INT(seen[1].kind, CSR_REPORT_CSR_STATE);
    CHECK_INT(seen[1].object, csr);
    CHECK_INT(seen[1].state, CSR_DISABLED);
    CHECK_INT(seen[2].kind, CSR_REPORT_DISPATCH); /* the firing completes */
    CHECK_INT(csr_state_of(reg, csr), CSR_DISABLED);
    reset_seen();
    CHECK_INT(csr_event(reg, &ev, 0, record, NULL), 0); /* no flood of errors */
    CHECK_INT(seen_count, 0);
    csr_registry_free(reg);
}

/* Callbacks that change the registry while it fires. */
static struct csr_registry *reentrant_registry;
static int reentrant_defined;

static void reenter(void *context, const struct csr_report *r)
{
    record(context, r);
    if (r->kind == CSR_REPORT_DISPATCH && !strcmp(r->action->service, "app_get_list")) {
        /* define a csr on the same event and delete every other one */
        unsigned n =
            define(reentrant_registry, "proc_terminated(p_1): proc_get_info(p_1)", true, 0);
        reentrant_defined = (int)n;
        csr_delete(reentrant_registry, 2);
        csr_delete(reentrant_registry, 1);
    }
}

static void test_reentrancy(void)
{
    struct csr_registry *reg = csr_registry_new();
    reentrant_registry = reg;
    /* csr_1 deletes itself then still has actions; csr_2 is deleted by csr_1's callback */
    define(reg, "proc_terminated(p_1): csr_delete(csr_1), app_get_list(), proc_kill(p_1)", true, 0);
    define(reg, "proc_terminated(p_1): proc_get_info(p_1)", true, 0);
    struct event_occurrence ev = {.kind = EVENT_PROC_TERMINATED, .pid = 1, .host = "h"};
    reset_seen();
    CHECK_INT(csr_event(reg, &ev, 0, reenter, NULL), 1);
    CHECK_INT(seen_count, 3);
    CHECK_INT(seen[0].kind, CSR_REPORT_CSR_STATE);
    CHECK_INT(seen[0].state, CSR_DELETED);
    CHECK_STR(seen[1].service, "app_get_list");
    CHECK_STR(seen[2].service, "proc_kill"); /* its actions stay valid after the delete */
    CHECK_INT(reentrant_defined, 3);
    CHECK_INT(csr_count(reg), 1);
    CHECK(csr_request(reg, 1) == NULL);
    CHECK(csr_request(reg, 2) == NULL);
    /* the csr defined during the event waits for the next one */
    reset_seen();
    CHECK_INT(csr_event(reg, &ev, 0, record, NULL), 1);
    CHECK_INT(seen[0].csr, 3);
    csr_registry_free(reg);
}

static void test_timers(void)
{
    struct csr_registry *reg = csr_registry_new();
    double due = -1;
    CHECK(!csr_next_timer(reg, &due));
    unsigned every = define(reg, "timer(1s): proc_get_info(app_x, 0x3)", true, 100);
    unsigned fast = define(reg, "timer(250ms): app_get_list()", false, 100);
    CHECK(csr_next_timer(reg, &due));
    CHECK_NEAR(due, 101, 1e-9);
    reset_seen();
    CHECK_INT(csr_timers_run(reg, 100.5, record, NULL), 0);
    CHECK_INT(csr_timers_run(reg, 101, record, NULL), 1);
    CHECK_INT(seen_count, 1);
    CHECK_INT(seen[0].csr, every);
    CHECK_INT(seen[0].kind, CSR_REPORT_DISPATCH);
    CHECK_INT(seen[0].event_pid, 0);
    csr_next_timer(reg, &due);
    CHECK_NEAR(due, 102, 1e-9);
    /* several periods missed: fires once, next on the grid after now */
    CHECK_INT(csr_timers_run(reg, 105.3, record, NULL), 1);
    csr_next_timer(reg, &due);
    CHECK_NEAR(due, 106, 1e-9);

    CHECK_INT(csr_enable(reg, fast, 105.5), 0);
    csr_next_timer(reg, &due);
    CHECK_NEAR(due, 105.75, 1e-9);
    reset_seen();
    CHECK_INT(csr_timers_run(reg, 106, record, NULL), 2);
    CHECK_INT(seen[0].csr, every);
    CHECK_INT(seen[1].csr, fast);
    csr_next_timer(reg, &due);
    CHECK_NEAR(due, 106.25, 1e-9);
    /* enabling an enabled timer does not move it */
    CHECK_INT(csr_enable(reg, fast, 106.1), 0);
    csr_next_timer(reg, &due);
    CHECK_NEAR(due, 106.25, 1e-9);

    csr_disable(reg, fast);
    csr_next_timer(reg, &due);
    CHECK_NEAR(due, 107, 1e-9);
    csr_delete(reg, every);
    CHECK(!csr_next_timer(reg, &due));
    CHECK_INT(csr_timers_run(reg, 1000, record, NULL), 0);
    csr_registry_free(reg);
}

/* The earliest due time is kept between changes: a timer defined or
 * enabled later with an earlier due time is seen at once, and nothing
 * fires before it. */
static void test_timer_cache(void)
{
    struct csr_registry *reg = csr_registry_new();
    double due = -1;
    unsigned slow = define(reg, "timer(10s): app_get_list()", true, 0);
    CHECK(csr_next_timer(reg, &due));
    CHECK_NEAR(due, 10, 1e-9);
    reset_seen();
    CHECK_INT(csr_timers_run(reg, 5, record, NULL), 0);
    unsigned fast = define(reg, "timer(1s): app_get_list()", true, 5);
    CHECK(csr_next_timer(reg, &due));
    CHECK_NEAR(due, 6, 1e-9);
    CHECK_INT(csr_timers_run(reg, 5.5, record, NULL), 0);
    CHECK_INT(csr_timers_run(reg, 6, record, NULL), 1);
    CHECK_INT(seen[0].csr, fast);
    CHECK(csr_next_timer(reg, &due));
    CHECK_NEAR(due, 7, 1e-9);
    CHECK_INT(csr_disable(reg, fast), 0);
    CHECK(csr_next_timer(reg, &due));
    CHECK_NEAR(due, 10, 1e-9);
    CHECK_INT(csr_enable(reg, fast, 8.5), 0);
    CHECK(csr_next_timer(reg, &due));
    CHECK_NEAR(due, 9.5, 1e-9);
    reset_seen();
    CHECK_INT(csr_timers_run(reg, 10, record, NULL), 2);
    CHECK_INT(seen[0].csr, slow);
    csr_registry_free(reg);
}

static void test_pushdown(void)
{
    struct csr_registry *reg = csr_registry_new();
    char why[64];
    unsigned c1 = 0, c2 = 0;
    counter_create(reg, &c1, why, sizeof why);
    counter_create(reg, &c2, why, sizeof why);
    unsigned bytes = define(reg,
                            "lib_call_started(app_x, \"MPI_Send\"): pa_counter_increment(c_1, "
                            "$len), pa_counter_increment(c_2)",
                            true, 0);
    unsigned probe = define(reg,
                            "thread_executes_probe(p_3, \"tick\"): pa_counter_increment(c_2, 2), "
                            "pa_counter_increment(c_1, $value)",
                            true, 0);
    unsigned not_pushable =
        define(reg, "lib_call_ended(app_x, \"MPI_Recv\"): pa_counter_read(c_1)", true, 0);
    unsigned disabled =
        define(reg, "lib_call_ended(app_x, \"MPI_Recv\"): pa_counter_increment(c_1)", false, 0);
    define(reg, "proc_created(app_x): pa_counter_increment(c_1)", true, 0);

    struct csr_pushdown out[8];
    CHECK_INT(csr_pushdowns(reg, out, 8), 2);
    CHECK_INT(out[0].csr, bytes);
    CHECK_INT(out[0].event, EVENT_LIB_CALL_STARTED);
    CHECK_STR(out[0].name, "MPI_Send");
    CHECK_INT(out[0].scope->objects[0].kind, OBJECT_APP);
    CHECK_INT(out[1].csr, probe);
    CHECK_STR(out[1].name, "tick");
    CHECK_INT(csr_pushdowns(reg, out, 1), 2); /* the count even when out is short */

    /* 3 sends of 100 + 200 + 700 bytes, folded at once */
    reset_seen();
    CHECK_INT(csr_apply_batch(reg, bytes, 3, 1000, 0, record, NULL), 0);
    CHECK_NEAR(value_of(reg, 1), 1000, 0);
    CHECK_NEAR(value_of(reg, 2), 3, 0);
    /* the same as three single events */
    struct event_occurrence ev = {
        .kind = EVENT_LIB_CALL_STARTED, .pid = 9, .host = "h", .app = "x", .name = "MPI_Send"};
    double lens[] = {100, 200, 700};
    for (int i = 0; i < 3; i++) {
        ev.len = lens[i];
        csr_event(reg, &ev, 0, record, NULL);
    }
    CHECK_NEAR(value_of(reg, 1), 2000, 0);
    CHECK_NEAR(value_of(reg, 2), 6, 0);
    CHECK_INT(csr_apply_batch(reg, probe, 4, 0, 10, record, NULL), 0);
    CHECK_NEAR(value_of(reg, 2), 14, 0);
    CHECK_NEAR(value_of(reg, 1), 2010, 0);
    CHECK_INT(seen_count, 0);
    CHECK_INT(csr_apply_batch(reg, not_pushable, 1, 0, 0, record, NULL), -1);
    CHECK_INT(csr_apply_batch(reg, 77, 1, 0, 0, record, NULL), -1);
    CHECK_INT(csr_apply_batch(reg, disabled, 2, 0, 0, record, NULL),
              0); /* late batch of a disabled csr */
    CHECK_NEAR(value_of(reg, 1), 2012, 0);
    counter_delete(reg, 2);
    reset_seen();
    CHECK_INT(csr_apply_batch(reg, bytes, 1, 5, 0, record, NULL), 0);
    CHECK_INT(seen_count, 2);
    CHECK_STR(seen[0].error, "c_2: no such counter");
    CHECK_INT(csr_state_of(reg, bytes), CSR_DISABLED);
    csr_registry_free(reg);
}

/* csr_count and csr_deletions as csrs come and go, deletions inside a
 * batch included (the agent's owners are swept only when deletions moved). */
static void test_counts(void)
{
    struct csr_registry *reg = csr_registry_new();
    unsigned n[5];
    for (int i = 0; i < 5; i++)
        n[i] = define(reg, "timer(1s): app_get_list()", i % 2, 0);
    CHECK_INT(csr_count(reg), 5);
    CHECK_INT(csr_deletions(reg), 0);
    CHECK_INT(csr_delete(reg, n[0]), 0);
    CHECK_INT(csr_delete(reg, n[0]), -1);
    CHECK_INT(csr_count(reg), 4);
    CHECK_INT(csr_deletions(reg), 1);
    csr_batch_begin(reg);
    CHECK_INT(csr_delete(reg, n[1]), 0);
    CHECK_INT(csr_delete(reg, n[3]), 0);
    CHECK_INT(csr_state_of(reg, n[1]), CSR_DELETED);
    csr_batch_end(reg);
    CHECK_INT(csr_count(reg), 2);
    CHECK_INT(csr_deletions(reg), 3);
    CHECK_INT(csr_state_of(reg, n[2]), CSR_DISABLED);
    CHECK_INT(csr_state_of(reg, n[4]), CSR_DISABLED);
    /* no enabled timer left: nothing due, nothing fires */
    double due;
    CHECK(!csr_next_timer(reg, &due));
    CHECK_INT(csr_enable(reg, n[4], 10), 0);
    CHECK(csr_next_timer(reg, &due));
    CHECK_NEAR(due, 11, 1e-9);
    reset_seen();
    CHECK_INT(csr_timers_run(reg, 11, record, NULL), 1);
    csr_registry_free(reg);
}

/* Deleted csrs stay marked in the registry until they outnumber the live
 * ones: meanwhile no lookup, timer or event sees them, and a replica may
 * take a deleted csr's number. */
static void test_deleted_kept(void)
{
    struct csr_registry *reg = csr_registry_new();
    unsigned n[10];
    for (int i = 0; i < 10; i++)
        n[i] = define(reg, "timer(1s): app_get_list()", true, 0);
    for (int i = 0; i < 4; i++)
        CHECK_INT(csr_delete(reg, n[2 * i]), 0);
    CHECK_INT(csr_count(reg), 6);
    CHECK_INT(csr_state_of(reg, n[0]), CSR_DELETED);
    CHECK(csr_request(reg, n[2]) == NULL);
    CHECK_INT(csr_enable(reg, n[4], 0), -1);
    CHECK_INT(csr_delete(reg, n[6]), -1);
    reset_seen();
    CHECK_INT(csr_timers_run(reg, 1, record, NULL), 6); /* the live ones only */
    /* a replica takes a deleted csr's number; a live one's is refused */
    struct request r = checked("timer(1s): app_get_list()");
    struct request_error err;
    unsigned number = n[4];
    CHECK_INT(csr_define(reg, &r, false, 0, &number, &err), 0);
    CHECK_INT(number, n[4]);
    CHECK_INT(csr_state_of(reg, n[4]), CSR_DISABLED);
    r = checked("timer(1s): app_get_list()");
    number = n[5];
    CHECK_INT(csr_define(reg, &r, false, 0, &number, &err), -1);
    CHECK_STR(err.message, "csr_6 already exists"); /* n[5] */
    request_free(&r);
    /* most deleted: still right after the registry removes them */
    for (int i = 1; i < 10; i += 2)
        CHECK_INT(csr_delete(reg, n[i]), 0);
    CHECK_INT(csr_delete(reg, n[8]), 0);
    CHECK_INT(csr_count(reg), 1);
    reset_seen();
    CHECK_INT(csr_timers_run(reg, 5, record, NULL), 0); /* n[4]'s replica is disabled */
    CHECK_INT(csr_enable(reg, n[4], 5), 0);
    CHECK_INT(csr_timers_run(reg, 6, record, NULL), 1);
    unsigned next = define(reg, "timer(1s): app_get_list()", false, 0);
    CHECK_INT(next, n[9] + 1);
    CHECK_INT(csr_count(reg), 2);
    csr_registry_free(reg);
}

int main(void)
{
    test_counters();
    test_seed_measurement();
    test_matching();
    test_define_errors();
    test_run_unconditional();
    test_errors_disable();
    test_reentrancy();
    test_timers();
    test_timer_cache();
    test_pushdown();
    test_counts();
    test_deleted_kept();
    csr_registry_free(NULL);
    return test_done();
}
