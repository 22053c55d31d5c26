/* The Paje reader: field order, extra fields, quoted strings, comments, every
 * standard event, SimGrid names and --map rules; malformed input gives
 * "FILE:LINE: why" and never a crash (a small fuzz over garbage and
 * truncations runs under ASan/UBSan in make check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "trace/aggregate.h"
#include "trace/trace.h"

static char path[64];

static void write_file(const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    fwrite(text, 1, len, f);
    fclose(f);
}

static int read_text(const char *text, const struct trace_read_options *o, struct trace *t,
                     char *why, size_t why_size)
{
    write_file(text, strlen(text));
    return trace_read_file(path, o, t, why, why_size);
}

/* Definitions in unusual orders, with extra fields, and every event kind. */
static const char general[] =
    "# a comment line\n"
    "%EventDef PajeDefineContainerType 10\n%  Name string\n%  Type string\n%  Alias string\n%EndEventDef\n"
    "%EventDef PajeDefineVariableType 11\n%  Type string\n%  Color color\n%  Alias string\n%  Name string\n%EndEventDef\n"
    "%EventDef PajeDefineStateType 12\n%  Alias string\n%  Type string\n%  Name string\n%EndEventDef\n"
    "%EventDef PajeDefineEventType 13\n%  Alias string\n%  Type string\n%  Name string\n%EndEventDef\n"
    "%EventDef PajeDefineLinkType 14\n%  Alias string\n%  Type string\n%  StartContainerType string\n%  EndContainerType string\n%  Name string\n%EndEventDef\n"
    "%EventDef PajeDefineEntityValue 15\n%  Alias string\n%  Type string\n%  Name string\n%  Color color\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 16\n%  Name string\n%  Time date\n%  Container string\n%  Type string\n%  Alias string\n%  Owner string\n%EndEventDef\n"
    "%EventDef PajeDestroyContainer 17\n%  Time date\n%  Name string\n%  Type string\n%EndEventDef\n"
    "%EventDef PajeSetVariable 18\n%  Value double\n%  Container string\n%  Type string\n%  Time date\n%EndEventDef\n"
    "%EventDef PajeAddVariable 19\n%  Time date\n%  Type string\n%  Container string\n%  Value double\n%EndEventDef\n"
    "%EventDef PajeSubVariable 20\n%  Time date\n%  Type string\n%  Container string\n%  Value double\n%EndEventDef\n"
    "%EventDef PajeSetState 21\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n%EndEventDef\n"
    "%EventDef PajePushState 22\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n%  Mark int\n%EndEventDef\n"
    "%EventDef PajePopState 23\n%  Time date\n%  Type string\n%  Container string\n%EndEventDef\n"
    "%EventDef PajeResetState 24\n%  Time date\n%  Type string\n%  Container string\n%EndEventDef\n"
    "%EventDef PajeNewEvent 25\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n%EndEventDef\n"
    "%EventDef PajeStartLink 26\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n%  StartContainer string\n%  Key string\n%EndEventDef\n"
    "%EventDef PajeEndLink 27\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n%  EndContainer string\n%  Key string\n%EndEventDef\n"
    "10 \"Machine Host\" 0 H\n"
    "10 LINK 0 L\n"
    "11 H \"1 0 0\" S speed\n"
    "11 H \"1 0 0\" PA pa\n"
    "11 H \"1 0 0\" PB \"pb\"\n"
    "11 L \"0 0 1\" BW bandwidth\n"
    "11 L \"0 0 1\" BA ba\n"
    "11 L \"0 0 1\" BU bandwidth_used\n"
    "12 ST H \"Task state\"\n"
    "13 EV H Event\n"
    "14 LK 0 H L topo\n"
    "15 run ST Running \"0 1 0\"\n"
    "16 \"host one\" 0 0 H h1 owner-a\n"
    "16 l1 0.0 0 L lk owner-b\n"
    "   # an indented comment\n"
    "\n"
    "18 100 h1 S 0\n"
    "18 50 lk BW 0\n"
    "19 1 H PA 40\n"       /* Type and Container swapped: an error */
    ;

static void test_general(void)
{
    /* the last line above uses a container type as container: an error */
    struct trace t;
    char why[240];
    CHECK(read_text(general, NULL, &t, why, sizeof why) < 0);
    CHECK_CONTAINS(why, ":130: 'H' is not a variable type");

    char text[8192];
    snprintf(text, sizeof text, "%.*s%s", (int)(strlen(general) - strlen("19 1 H PA 40\n")), general,
             "19 1 PA h1 40\n"                     /* add 40 at t=1 */
             "19 2 PB \"host one\" 30\n"           /* by name, quoted with a space */
             "20 4 PA h1 40\n"                     /* sub: back to 0 at t=4 */
             "18 50 h1 S 3\r\n"                    /* capacity 100 -> 50 at t=3 (CRLF; fields reordered) */
             "21 1 ST h1 run\n22 2 ST h1 run 7\n23 3 ST h1\n24 4 ST h1\n"
             "25 2 EV h1 \"hello world\"\n"
             "26 0 LK 0 x h1 k1\n27 0 LK 0 x lk k1\n"
             "19 1 BA lk 20\n20 3 BA lk 20\n"
             "19 1 BU lk 999\n"                    /* uncategorized total: ignored */
             "17 5 h1 H\n17 6 lk L\n");
    CHECK(read_text(text, NULL, &t, why, sizeof why) == 0);
    if (t.n_containers < 3) {
        printf("# %s\n", why);
        return;
    }
    CHECK_INT(t.n_containers, 3);
    CHECK_STR(t.containers[1].name, "host one");
    CHECK_STR(t.containers[1].alias, "h1");
    CHECK_STR(t.types[t.containers[1].type].name, "Machine Host");
    CHECK_INT(t.n_categories, 2); /* a, b from pa, pb; ba is category a on links */
    CHECK(trace_find_category(&t, "a") >= 0 && trace_find_category(&t, "b") >= 0);
    CHECK_INT(t.n_resources, 2);
    CHECK_INT(t.n_edges, 1);
    CHECK_INT(t.n_states, 4);
    CHECK_INT(t.n_point_events, 1);
    CHECK_NEAR(t.start, 0, 0);
    CHECK_NEAR(t.end, 6, 0);
    CHECK_NEAR(t.containers[1].end, 5, 0);
    /* host: capacity 100 on [0,3), 50 on [3,5); a = 40 on [1,4); b = 30 on [2,5) */
    struct trace_aggregate_options o = {.from = 0, .to = 5, .level = "machine host"};
    struct trace_aggregation a;
    CHECK(trace_aggregate(&t, &o, &a, why, sizeof why) == 0);
    CHECK_INT(a.n_groups, 1);
    CHECK_NEAR(a.groups[0].capacity, (100 * 3 + 50 * 2) / 5.0, 1e-9);
    int ca = trace_find_category(&t, "a"), cb = trace_find_category(&t, "b");
    CHECK_NEAR(a.groups[0].usage[ca], 40 * 3 / 5.0, 1e-9);
    CHECK_NEAR(a.groups[0].usage[cb], 30 * 3 / 5.0, 1e-9);
    CHECK_NEAR(a.groups[0].idle, 80 - 24 - 18, 1e-9);
    trace_aggregation_free(&a);
    /* link: bandwidth 50 from 0 to its end at 6; a = 20 on [1,3) */
    struct trace_aggregate_options ol = {.from = 0, .to = 6, .level = "LINK"};
    CHECK(trace_aggregate(&t, &ol, &a, why, sizeof why) == 0);
    CHECK_NEAR(a.groups[0].capacity, 50, 1e-9);
    CHECK_NEAR(a.groups[0].usage[ca], 20 * 2 / 6.0, 1e-9);
    CHECK_STR(a.groups[0].kind, "bandwidth");
    trace_aggregation_free(&a);
    trace_free(&t);
}

static const char simgrid_defs[] =
    "%EventDef PajeDefineContainerType 0\n%       Alias string\n%       Type string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeDefineVariableType 1\n%       Alias string\n%       Type string\n%       Name string\n%       Color color\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 6\n%       Time date\n%       Alias string\n%       Type string\n%       Container string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeSetVariable 8\n%       Time date\n%       Type string\n%       Container string\n%       Value double\n%EndEventDef\n";

static void test_simgrid_names_and_map(void)
{
    char text[8192], err[240];
    struct trace t;
    /* speed x core_count; watts and the "u" prefix need --map */
    snprintf(text, sizeof text,
             "%s0 1 0 HOST\n6 0 1 1 0 \"a1\"\n1 2 1 speed \"1 1 1\"\n1 3 1 core_count \"1 1 1\"\n"
             "1 4 1 pX \"1 1 1\"\n1 5 1 uY \"1 1 1\"\n1 6 1 watts \"1 1 1\"\n"
             "8 0 2 1 1e9\n8 0 3 1 4\n8 0 4 1 2e9\n8 0 5 1 1e9\n8 0 6 1 3e9\n8 10 4 1 0\n",
             simgrid_defs);
    CHECK(read_text(text, NULL, &t, err, sizeof err) == 0);
    CHECK_INT(t.n_resources, 1);
    CHECK_INT(t.n_categories, 1);
    if (t.n_resources == 1) {
        CHECK_STR(t.resources[0].kind, "cpu");
        CHECK_NEAR(trace_signal_value_at(&t.resources[0].capacity, 5), 4e9, 0);
        CHECK_NEAR(trace_signal_value_at(&t.resources[0].usage[0], 5), 2e9, 0);
    }
    trace_free(&t);
    struct trace_read_options o = {0};
    CHECK(trace_map_parse(&o, "capacity=watts,usage-prefix=u", err, sizeof err) == 0);
    CHECK(read_text(text, &o, &t, err, sizeof err) == 0);
    CHECK_INT(t.n_resources, 1);
    CHECK_INT(t.n_categories, 1);
    if (t.n_resources == 1 && t.n_categories == 1) {
        CHECK_STR(t.categories[0], "Y");
        CHECK_STR(t.resources[0].kind, "watts");
        CHECK_NEAR(trace_signal_value_at(&t.resources[0].capacity, 5), 3e9, 0);
    }
    trace_free(&t);
    CHECK(trace_map_parse(&o, "capacity=x,prefix=u", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "unknown key 'prefix'");
    CHECK(trace_map_parse(&o, "usage-prefix=u", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "capacity= and usage-prefix= are required");
}

/* Numbers as producers write them: the fast decimal path and strtod's. */
static void test_numbers(void)
{
    static const struct {
        const char *text;
        double value;
    } cases[] = {
        {".5", 0.5}, {"1.", 1}, {"-2.50", -2.5}, {"+3", 3}, {"1e3", 1000}, {"2.5E-3", 0.0025},
        {"1000000000.000000", 1e9}, {"0.000010", 1e-5}, {"123456789.123456789", 123456789.123456789},
        {"55419246.438381", 55419246.438381}, {"0", 0}, {"007", 7},
    };
    char text[4096], err[240];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text,
                 "%s0 1 0 HOST\n6 0 a 1 0 a\n1 s 1 speed \"1 1 1\"\n8 0 s a %s\n8 1 s a 0\n",
                 simgrid_defs, cases[i].text);
        struct trace t;
        int rc = read_text(text, NULL, &t, err, sizeof err);
        CHECK(rc == 0);
        if (rc == 0) {
            double v = trace_signal_value_at(&t.resources[0].capacity, 0);
            char what[128];
            snprintf(what, sizeof what, "'%s' reads as %.17g (got %.17g)", cases[i].text,
                     cases[i].value, v);
            test_report(v == cases[i].value, __FILE__, __LINE__, what);
            trace_free(&t);
        }
    }
    static const char *const bad[] = {".", "-", "1..2", "1e", "0x", "nan", "inf", "1,5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s0 1 0 HOST\n6 0 a 1 0 a\n1 s 1 speed \"1 1 1\"\n8 0 s a %s\n",
                 simgrid_defs, bad[i]);
        struct trace t;
        CHECK(read_text(text, NULL, &t, err, sizeof err) < 0);
        CHECK_CONTAINS(err, ":28: bad number");
    }
}

struct bad_case {
    const char *text;
    const char *message;
};

static void test_malformed(void)
{
    char text[8192], err[240], want[200];
    struct trace t;
    static const struct bad_case cases[] = {
        {"99 0 1 2\n", ":25: unknown event id 99"}, /* the 4 definitions take 24 lines */
        {"0 1 0\n", ":25: PajeDefineContainerType: 2 fields, expected 3"},
        {"0 1 0 HOST extra\n", ":25: PajeDefineContainerType: more than the 3 fields defined"},
        {"0 1 0 HOST\n6 0 a 1 0 \"a\n", ":26: unterminated quoted string"},
        {"0 1 0 HOST\n6 zero a 1 0 a\n", ":26: bad number 'zero'"},
        {"0 1 0 HOST\n6 0 a 9 0 a\n", ":26: unknown container type '9'"},
        {"0 1 0 HOST\n6 0 a 1 nowhere a\n", ":26: unknown container 'nowhere'"},
        {"0 1 0 HOST\n6 0 a 1 0 a\n1 v 1 pX c\n8 2 v a 1\n8 1 v a 2\n", ":29: time 1 goes back before 2"},
        {"0 1 0 HOST\n8 0 1 0 1\n", ":26: '1' is not a variable type"},
        {"%EventDef PajeNoSuchEvent 40\n", ":25: unknown event definition 'PajeNoSuchEvent'"},
        {"%EventDef PajeSetVariable 41\n% Time date\n% Type string\n%EndEventDef\n",
         ":28: PajeSetVariable definition lacks field Container"},
        {"%EventDef PajeSetVariable 42\n% Time weird\n", ":26: bad field definition 'Time weird'"},
        {"%EventDef PajeSetVariable 43\n% Time date\n", ":26: %EventDef block not closed"},
        {"abc\n", ":25: expected an event id, got 'abc'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "%s%s", simgrid_defs, cases[i].text);
        int rc = read_text(text, NULL, &t, err, sizeof err);
        CHECK(rc < 0);
        if (i == 0)
            snprintf(want, sizeof want, "%s:25: unknown event id 99", path);
        else
            snprintf(want, sizeof want, "%s%s", path, cases[i].message);
        CHECK_CONTAINS(err, want);
    }
    CHECK(read_text("", NULL, &t, err, sizeof err) < 0);
    CHECK_CONTAINS(err, "no Paje event");
    CHECK(trace_read_file("/nonexistent/trace.paje", NULL, &t, err, sizeof err) < 0);
    CHECK_CONTAINS(err, "/nonexistent/trace.paje: No such file or directory");
}

/* Garbage and truncations must end in an error or a trace, never a crash. */
static void test_fuzz(void)
{
    char base[4096], buf[4096], err[512];
    snprintf(base, sizeof base,
             "%s0 1 0 HOST\n6 0 a 1 0 \"a1\"\n1 s 1 speed \"1 1 1\"\n1 p 1 pX \"1 1 1\"\n"
             "8 0 s a 1e9\n8 1 p a 5e8\n8 2 p a 2e9\n8 3 p a 0\n",
             simgrid_defs);
    size_t len = strlen(base);
    unsigned seed = 12345;
    int handled = 0;
    for (int round = 0; round < 400; round++) {
        memcpy(buf, base, len);
        size_t n = len;
        if (round < 100) {
            n = (size_t)round * len / 100; /* truncations */
        } else {
            for (int k = 0; k < 1 + round % 8; k++) { /* random byte flips */
                seed = seed * 1103515245u + 12345u;
                size_t at = (seed >> 8) % len;
                seed = seed * 1103515245u + 12345u;
                buf[at] = (char)(seed >> 16);
            }
        }
        write_file(buf, n);
        struct trace t;
        if (trace_read_file(path, NULL, &t, err, sizeof err) == 0)
            trace_free(&t);
        else if (strstr(err, path))
            handled++;
    }
    CHECK(handled > 100); /* many inputs were rejected, each with the file named */
    printf("# fuzz: %d of 400 inputs rejected with an error\n", handled);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/tally-paje-test-%d.paje", (int)getpid());
    test_general();
    test_simgrid_names_and_map();
    test_numbers();
    test_malformed();
    test_fuzz();
    unlink(path);
    return test_done();
}
