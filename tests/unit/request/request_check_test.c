/* Unit tests for the service catalogue and request_check
 * (src/request/request_services.c): every service in its place with its
 * arguments, every refusal with the column it names, and the evaluator's
 * helpers (timer period, signal, proc_get_info flags). */
#include <signal.h>
#include <stdlib.h>

#include "request/request.h"
#include "test.h"

/* 0 when text parses and checks; else -1 with the message and column. */
static int check_text(const char *text, struct request_error *err)
{
    struct request r;
    if (request_parse(text, &r, err) < 0) {
        printf("# does not even parse: %s: %s\n", text, err->message);
        return -2;
    }
    int rc = request_check(&r, err);
    request_free(&r);
    return rc;
}

#define CHECK_ACCEPTED(text)                                                                       \
    do {                                                                                           \
        struct request_error e_;                                                                   \
        int rc_ = check_text((text), &e_);                                                         \
        if (rc_ != 0)                                                                              \
            printf("# %s\n", e_.message);                                                          \
        test_report(rc_ == 0, __FILE__, __LINE__, "accepted: " text);                              \
    } while (0)

#define CHECK_REFUSED(text, column, fragment)                                                      \
    do {                                                                                           \
        struct request_error e_;                                                                   \
        int rc_ = check_text((text), &e_);                                                         \
        test_report(rc_ == -1, __FILE__, __LINE__, "refused: " text);                              \
        CHECK_INT(e_.pos, (column));                                                               \
        CHECK_CONTAINS(e_.message, (fragment));                                                    \
    } while (0)

static void test_kinds(void)
{
    CHECK_INT(service_kind_of("site_get_info"), SERVICE_INFORMATION);
    CHECK_INT(service_kind_of("node_get_info"), SERVICE_INFORMATION);
    CHECK_INT(service_kind_of("app_get_list"), SERVICE_INFORMATION);
    CHECK_INT(service_kind_of("app_get_proclist"), SERVICE_INFORMATION);
    CHECK_INT(service_kind_of("proc_get_info"), SERVICE_INFORMATION);
    CHECK_INT(service_kind_of("thread_stop"), SERVICE_MANIPULATION);
    CHECK_INT(service_kind_of("thread_continue"), SERVICE_MANIPULATION);
    CHECK_INT(service_kind_of("proc_kill"), SERVICE_MANIPULATION);
    CHECK_INT(service_kind_of("proc_set_limits"), SERVICE_MANIPULATION);
    CHECK_INT(service_kind_of("proc_created"), SERVICE_EVENT);
    CHECK_INT(service_kind_of("proc_terminated"), SERVICE_EVENT);
    CHECK_INT(service_kind_of("limit_exceeded"), SERVICE_EVENT);
    CHECK_INT(service_kind_of("timer"), SERVICE_EVENT);
    CHECK_INT(service_kind_of("thread_executes_probe"), SERVICE_EVENT);
    CHECK_INT(service_kind_of("lib_call_started"), SERVICE_EVENT);
    CHECK_INT(service_kind_of("lib_call_ended"), SERVICE_EVENT);
    CHECK_INT(service_kind_of("pa_counter_create"), SERVICE_ACTION);
    CHECK_INT(service_kind_of("pa_counter_increment"), SERVICE_ACTION);
    CHECK_INT(service_kind_of("pa_counter_read"), SERVICE_ACTION);
    CHECK_INT(service_kind_of("pa_counter_delete"), SERVICE_ACTION);
    CHECK_INT(service_kind_of("csr_enable"), SERVICE_ACTION);
    CHECK_INT(service_kind_of("csr_disable"), SERVICE_ACTION);
    CHECK_INT(service_kind_of("csr_delete"), SERVICE_ACTION);
    CHECK_INT(service_kind_of("proc_get_inf"), -1);
    CHECK_INT(service_kind_of(""), -1);
    CHECK_INT(service_kind_of(NULL), -1);
    CHECK_STR(service_usage("proc_get_info"), "proc_get_info(p_|app_|n_|site_ objects [, FLAGS])");
    CHECK(service_usage("nope") == NULL);
}

static void test_accepted(void)
{
    /* the seed's and the requests */
    CHECK_ACCEPTED(":proc_get_info([p_1,p_2], 0x1)");
    CHECK_ACCEPTED(":proc_get_info([app_mw], 0x83)"); /* state, CPU, probe segment */
    CHECK_ACCEPTED(":proc_get_info([app_mw], 0xff)");
    CHECK_ACCEPTED("thread_executes_probe([p_1], \"nextstep\"): pa_counter_read([c_1])");
    CHECK_ACCEPTED("thread_executes_probe([p_1], \"probe1\"): pa_counter_increment([c_1])");
    CHECK_ACCEPTED("lib_call_started([app_a1], \"MPI_Send\"): pa_counter_increment([c_1], $len)");
    CHECK_ACCEPTED("lib_call_started([a_1], \"MPI_Send\"): pa_counter_increment([c_1], $len)");
    CHECK_ACCEPTED("lib_call_ended(app_x, \"MPI_Send\"): pa_counter_increment(c_1, $len)");
    CHECK_ACCEPTED(":csr_enable([csr_1,csr_2])");
    CHECK_ACCEPTED("timer(1s): proc_get_info([app_x], 0x3)");
    CHECK_ACCEPTED(":proc_get_info(p_4242@n1)");
    /* every service once more, in every place it may stand */
    CHECK_ACCEPTED(":site_get_info(site_krk)");
    CHECK_ACCEPTED(":node_get_info([n_a, n_b.example.org, site_krk])");
    CHECK_ACCEPTED(":app_get_list()");
    CHECK_ACCEPTED(":app_get_list([site_krk, n_a])");
    CHECK_ACCEPTED(":app_get_proclist(app_x)");
    CHECK_ACCEPTED(":proc_get_info([p_1, app_x, n_a, site_s], 0x3f)");
    CHECK_ACCEPTED(":thread_stop([p_1, app_x]), thread_continue(p_1@n2)");
    CHECK_ACCEPTED(":proc_kill(app_x)");
    CHECK_ACCEPTED(":proc_kill(p_3, 9), proc_kill(p_4, \"KILL\"), proc_kill(p_5, \"sigusr1\")");
    CHECK_ACCEPTED(":proc_set_limits(app_x, \"memory: 2 GB, wall_time: 10 min\")");
    CHECK_ACCEPTED(":proc_record_start(app_x), proc_record_stop(p_3, \"mpi\")");
    CHECK_ACCEPTED(":proc_record_start(app_x, \"mpi\", 5s)");
    CHECK_ACCEPTED("thread_executes_probe(app_x, \"marker\"): proc_record_start(app_x, \"probes\")");
    CHECK_ACCEPTED("proc_created(app_x): proc_get_info(app_x, 0x1)");
    CHECK_ACCEPTED("proc_terminated([p_1, n_a]): csr_disable(csr_2)");
    CHECK_ACCEPTED("limit_exceeded(app_x): thread_stop(app_x), proc_get_info(app_x)");
    CHECK_ACCEPTED("timer(500ms): pa_counter_read(c_1, 1)");
    CHECK_ACCEPTED("timer(2min): node_get_info(site_s)");
    CHECK_ACCEPTED("timer(1): app_get_list()");
    CHECK_ACCEPTED(
        "thread_executes_probe(app_x, \"end of step 3\"): pa_counter_increment(c_2, $value)");
    CHECK_ACCEPTED("thread_executes_probe(app_x, \"s\"): pa_counter_increment(c_2, -2.5), "
                   "pa_counter_read(c_1, 0)");
    CHECK_ACCEPTED(":pa_counter_create(), pa_counter_create()");
    CHECK_ACCEPTED(
        ":pa_counter_increment(c_1, 10), pa_counter_read([c_1, c_2]), pa_counter_delete(c_1)");
    CHECK_ACCEPTED(":csr_enable(csr_1), csr_disable(csr_1), csr_delete([csr_1, csr_2])");
}

static void test_refused(void)
{
    CHECK_REFUSED(":proc_get_inf(p_1)", 2, "column 2: unknown service 'proc_get_inf'");
    CHECK_REFUSED("gpm_lib_call_started([a_1], \"MPI_Send\"): pa_counter_increment([c_1], $len)", 1,
                  "unknown service 'gpm_lib_call_started' (G-PM's name for lib_call_started)");
    CHECK_REFUSED("proc_get_info(p_1): proc_kill(p_1)", 1,
                  "column 1: proc_get_info is not an event, so it cannot stand before ':'");
    CHECK_REFUSED("pa_counter_read(c_1): proc_kill(p_1)", 1, "pa_counter_read is not an event");
    CHECK_REFUSED(":timer(1s)", 2, "timer is an event: it can only stand before ':'");
    CHECK_REFUSED(":proc_get_info(p_1), proc_created(app_x)", 22, "proc_created is an event");
    CHECK_REFUSED("timer(1s): pa_counter_create()", 12,
                  "pa_counter_create can only be used in an unconditional request");
    /* argument counts */
    CHECK_REFUSED(":proc_get_info()", 2,
                  "proc_get_info needs at least 1 argument: proc_get_info(p_|app_|n_|site_ objects "
                  "[, FLAGS])");
    CHECK_REFUSED(":proc_get_info(p_1, 1, 2)", 24,
                  "column 24: proc_get_info takes at most 2 arguments");
    CHECK_REFUSED(":pa_counter_create(1)", 20,
                  "pa_counter_create takes 0 arguments: pa_counter_create()");
    CHECK_REFUSED(":site_get_info(site_a, site_b)", 24,
                  "site_get_info takes 1 argument: site_get_info(site_ objects)");
    CHECK_REFUSED(":proc_set_limits(p_1)", 2, "proc_set_limits needs 2 arguments");
    CHECK_REFUSED("thread_executes_probe(p_1): pa_counter_read(c_1)", 1,
                  "thread_executes_probe needs 2 arguments");
    CHECK_REFUSED("timer(): app_get_list()", 1, "timer needs 1 argument: timer(PERIOD)");
    /* argument kinds */
    CHECK_REFUSED(":proc_get_info(\"p_1\")", 16,
                  "proc_get_info: argument 1 must be an object list, found a string");
    CHECK_REFUSED(":proc_get_info(p_1, \"x\")", 21,
                  "argument 2 must be flags (a number such as 0x3), found a string");
    CHECK_REFUSED(":proc_get_info([p_1, c_1])", 22,
                  "proc_get_info: argument 1 takes site_, n_, app_, p_ tokens, found 'c_1'");
    CHECK_REFUSED(":proc_get_info([])", 16, "proc_get_info: argument 1 is an empty object list");
    CHECK_REFUSED(":site_get_info(n_a)", 16, "takes site_ tokens, found 'n_a'");
    CHECK_REFUSED(":app_get_proclist([app_x, p_1@h])", 27, "takes app_ tokens, found 'p_1@h'");
    CHECK_REFUSED(":thread_stop(n_a)", 14,
                  "thread_stop: argument 1 takes app_, p_ tokens, found 'n_a'");
    CHECK_REFUSED(":pa_counter_read(csr_1)", 18, "takes c_ tokens, found 'csr_1'");
    CHECK_REFUSED(":csr_enable([csr_1, c_2])", 21, "takes csr_ tokens, found 'c_2'");
    /* values */
    CHECK_REFUSED(":proc_get_info(p_1, 0)", 21, "flags must be a non-zero combination of 0x1 to 0x200");
    CHECK_REFUSED(":proc_get_info(p_1, 0x400)", 21, "flags must be");
    CHECK_ACCEPTED(":proc_get_info(p_1, 0x3ff)");
    CHECK_ACCEPTED(":proc_get_info(p_1, 0x200)");
    CHECK_REFUSED(":proc_get_info(p_1, 1.5)", 21, "flags must be");
    CHECK_REFUSED(":proc_get_info(p_1, 3ms)", 21,
                  "proc_get_info: argument 2 takes no unit, found 'ms'");
    CHECK_REFUSED("timer(5ms): app_get_list()", 7,
                  "timer: a period of 0.005 s is shorter than the 0.01 s allowed");
    CHECK_REFUSED("timer(0): app_get_list()", 7, "shorter than");
    CHECK_REFUSED("timer(367d): app_get_list()", 7,
                  "timer: a period of 3.17088e+07 s is longer than a year");
    CHECK_REFUSED("timer(1e308d): app_get_list()", 7,
                  "timer: argument 1 is not a period: '1e+308 d' is too large");
    CHECK_ACCEPTED("timer(366d): app_get_list()");
    CHECK_REFUSED("timer(-1s): app_get_list()", 7,
                  "timer: argument 1 is not a period: a period cannot be negative");
    CHECK_REFUSED("timer(5GB): app_get_list()", 7,
                  "timer: argument 1 is not a period: unknown unit 'GB'");
    CHECK_REFUSED("timer(\"1s\"): app_get_list()", 7,
                  "argument 1 must be a period (500ms, 1s, 2min), found a string");
    CHECK_REFUSED(":proc_kill(p_1, 0)", 17,
                  "proc_kill: a signal number is a whole number from 1 to");
    CHECK_REFUSED(":proc_kill(p_1, 1000)", 17, "a signal number is a whole number");
    CHECK_REFUSED(":proc_kill(p_1, \"SIGFOO\")", 17, "proc_kill: unknown signal \"SIGFOO\"");
    CHECK_REFUSED(":proc_kill(p_1, $len)", 17, "argument 2 must be a signal");
    CHECK_REFUSED(":proc_set_limits(p_1, \"memry: 2 GB\")", 23,
                  "proc_set_limits: unknown field 'memry'");
    CHECK_REFUSED(":proc_set_limits(p_1, \"\")", 23, "proc_set_limits: no 'field: value' given");
    CHECK_REFUSED(":proc_set_limits(p_1, 5)", 23, "argument 2 must be a limits string");
    CHECK_REFUSED(":proc_record_start(p_1, \"gpu\")", 25,
                  "proc_record_start: \"gpu\" is not what can be recorded");
    CHECK_REFUSED(":proc_record_stop(n_a)", 19, "proc_record_stop: argument 1");
    CHECK_REFUSED(":proc_record_start(p_1, \"mpi\", -2s)", 32, "proc_record_start: argument 3 is not a period");
    CHECK_REFUSED(":proc_record_stop(p_1, \"mpi\", 5s)", 31, "proc_record_stop takes at most 2 arguments");
    CHECK_REFUSED(":proc_record_stop(p_1, 1)", 24, "argument 2 must be \"mpi\", \"probes\" or \"all\"");
    CHECK_REFUSED("thread_executes_probe(p_1, \"\"): pa_counter_read(c_1)", 28,
                  "a probe name has 1 to 255 bytes");
    CHECK_REFUSED("lib_call_started(p_1, \"MPI Send\"): pa_counter_read(c_1)", 23,
                  "lib_call_started: \"MPI Send\" is not a function name");
    CHECK_REFUSED("lib_call_ended(p_1, \"1x\"): pa_counter_read(c_1)", 21,
                  "is not a function name");
    CHECK_REFUSED("lib_call_ended(p_1, 5): pa_counter_read(c_1)", 21,
                  "must be a function name string");
    CHECK_REFUSED("lib_call_ended(p_1, \"f\"): pa_counter_increment(c_1, \"3\")", 53,
                  "argument 2 must be an amount (a number or $variable), found a string");
    CHECK_REFUSED("lib_call_ended(p_1, \"f\"): pa_counter_increment(c_1, 3KB)", 53,
                  "argument 2 takes no unit, found 'KB'");
    CHECK_REFUSED(":pa_counter_read(c_1, 2)", 23, "pa_counter_read: argument 2 must be 0 or 1");
    CHECK_REFUSED(":pa_counter_increment(c_1, 1e300)", 28,
                  "pa_counter_increment: an amount is at most 2^53 in size");
    CHECK_ACCEPTED(":pa_counter_increment(c_1, -9007199254740992)");
    /* variables */
    CHECK_REFUSED(":pa_counter_increment([c_1], $len)", 30,
                  "pa_counter_increment: $len is only defined in requests on lib_call_started and "
                  "lib_call_ended events");
    CHECK_REFUSED("timer(1s): pa_counter_increment(c_1, $value)", 38,
                  "$value is only defined in requests on thread_executes_probe events");
    CHECK_REFUSED("thread_executes_probe(p_1, \"x\"): pa_counter_increment(c_1, $len)", 60,
                  "$len is only defined");
    CHECK_REFUSED("lib_call_started(p_1, \"f\"): pa_counter_increment(c_1, $size)", 55,
                  "unknown variable $size (known: $len, $value)");
    /* the first bad action is the one named */
    CHECK_REFUSED(":app_get_list(), proc_kill(p_1, \"X\"), nope()", 33, "unknown signal \"X\"");
}

static struct request parse_checked(const char *text)
{
    struct request r;
    struct request_error err;
    if (request_parse(text, &r, &err) < 0 || request_check(&r, &err) < 0)
        printf("# %s: %s\n", text, err.message);
    return r;
}

static void test_helpers(void)
{
    struct request r = parse_checked("timer(1.5s): app_get_list()");
    CHECK_NEAR(request_timer_period(&r.event), 1.5, 1e-12);
    request_free(&r);
    r = parse_checked("timer(250ms): app_get_list()");
    CHECK_NEAR(request_timer_period(&r.event), 0.25, 1e-12);
    request_free(&r);
    r = parse_checked("timer(2min): app_get_list()");
    CHECK_NEAR(request_timer_period(&r.event), 120, 1e-12);
    request_free(&r);
    r = parse_checked("timer(3): app_get_list()");
    CHECK_NEAR(request_timer_period(&r.event), 3, 1e-12);
    request_free(&r);

    r = parse_checked(":proc_kill(p_1), proc_kill(p_1, 9), proc_kill(p_1, \"SIGUSR2\"), "
                      "proc_kill(p_1, \"stop\")");
    CHECK_INT(request_signal(NULL), SIGTERM);
    CHECK_INT(request_signal(&r.actions[1].args[1]), SIGKILL);
    CHECK_INT(request_signal(&r.actions[2].args[1]), SIGUSR2);
    CHECK_INT(request_signal(&r.actions[3].args[1]), SIGSTOP);
    CHECK_INT(request_signal(&r.actions[0].args[0]), -1); /* not a signal argument */
    request_free(&r);

    r = parse_checked(":proc_get_info(p_1), proc_get_info(p_1, 0x5)");
    CHECK_INT(request_info_flags(&r.actions[0]), PROC_INFO_ALL);
    CHECK_INT(request_info_flags(&r.actions[1]), PROC_INFO_STATE | PROC_INFO_MEMORY);
    request_free(&r);
}

int main(void)
{
    test_kinds();
    test_accepted();
    test_refused();
    test_helpers();
    return test_done();
}
