/* Unit tests for the request parser (src/request/request_parse.c): every form
 * of the seed and the issue, the token forms, every syntax error with its
 * exact column, the size limits, and round trips through request_format. */
#include <stdlib.h>

#include "request/request.h"
#include "test.h"

static struct request parsed;

/* Parses text that must be valid into `parsed` (freed by the next call). */
static bool parse_ok(const char *text)
{
    struct request_error err;
    request_free(&parsed);
    if (request_parse(text, &parsed, &err) < 0) {
        printf("# unexpected error for '%s': %s\n", text, err.message);
        return false;
    }
    return true;
}

/* Parses text that must be refused; returns the message, *pos the column. */
static const char *parse_error(const char *text, int *pos)
{
    static struct request_error err;
    struct request r;
    if (request_parse(text, &r, &err) == 0) {
        request_free(&r);
        *pos = -1;
        return "(accepted)";
    }
    /* out is left empty on error */
    if (r.actions || r.action_count || r.conditional)
        return "(request not left empty)";
    *pos = err.pos;
    return err.message;
}

#define CHECK_ERROR(text, column, fragment)                                                        \
    do {                                                                                           \
        int pos_;                                                                                  \
        const char *m_ = parse_error((text), &pos_);                                               \
        CHECK_INT(pos_, (column));                                                                 \
        CHECK_CONTAINS(m_, (fragment));                                                            \
    } while (0)

/* Parses, formats, parses the formatted text and formats again: both
 * texts must be the canonical one given. */
static void check_round_trip(const char *text, const char *canonical)
{
    struct request a, b;
    struct request_error err;
    char what[300];
    snprintf(what, sizeof what, "round trip of '%s'", text);
    if (request_parse(text, &a, &err) < 0) {
        printf("# %s\n", err.message);
        test_report(0, __FILE__, __LINE__, what);
        return;
    }
    char *first = request_format(&a);
    int ok = first && request_parse(first, &b, &err) == 0;
    char *second = ok ? request_format(&b) : NULL;
    CHECK_STR(first, canonical);
    test_report(ok && second && !strcmp(first, second), __FILE__, __LINE__, what);
    if (ok)
        request_free(&b);
    request_free(&a);
    free(first);
    free(second);
}

static void test_seed_forms(void)
{
    CHECK(parse_ok(":proc_get_info([p_1], 0x1)"));
    CHECK(!parsed.conditional);
    CHECK_INT(parsed.action_count, 1);
    CHECK_STR(parsed.actions[0].service, "proc_get_info");
    CHECK_INT(parsed.actions[0].pos, 2);
    CHECK_INT(parsed.actions[0].arg_count, 2);
    CHECK_INT(parsed.actions[0].args[0].kind, ARG_OBJECTS);
    CHECK_INT(parsed.actions[0].args[0].pos, 16);
    CHECK_INT(parsed.actions[0].args[0].object_count, 1);
    CHECK_INT(parsed.actions[0].args[0].objects[0].kind, OBJECT_PROC);
    CHECK_INT(parsed.actions[0].args[0].objects[0].pid, 1);
    CHECK(parsed.actions[0].args[0].objects[0].name == NULL);
    CHECK_INT(parsed.actions[0].args[0].objects[0].pos, 17);
    CHECK_INT(parsed.actions[0].args[1].kind, ARG_NUMBER);
    CHECK_NEAR(parsed.actions[0].args[1].number, 1, 0);
    CHECK_STR(parsed.actions[0].args[1].text, "");
    CHECK_INT(parsed.actions[0].args[1].pos, 23);

    CHECK(parse_ok(":proc_get_info([p_1,p_2], 0x1)"));
    CHECK_INT(parsed.actions[0].args[0].object_count, 2);
    CHECK_INT(parsed.actions[0].args[0].objects[1].pid, 2);
    CHECK_INT(parsed.actions[0].args[0].objects[1].pos, 21);

    CHECK(parse_ok("thread_executes_probe([p_1], \"nextstep\"): pa_counter_read([c_1])"));
    CHECK(parsed.conditional);
    CHECK_STR(parsed.event.service, "thread_executes_probe");
    CHECK_INT(parsed.event.pos, 1);
    CHECK_INT(parsed.event.arg_count, 2);
    CHECK_INT(parsed.event.args[1].kind, ARG_STRING);
    CHECK_STR(parsed.event.args[1].text, "nextstep");
    CHECK_INT(parsed.event.args[1].pos, 30);
    CHECK_INT(parsed.action_count, 1);
    CHECK_STR(parsed.actions[0].service, "pa_counter_read");
    CHECK_INT(parsed.actions[0].pos, 43);
    CHECK_INT(parsed.actions[0].args[0].objects[0].kind, OBJECT_COUNTER);
    CHECK_INT(parsed.actions[0].args[0].objects[0].number, 1);

    CHECK(parse_ok("lib_call_started([app_a1], \"MPI_Send\"): pa_counter_increment([c_1], $len)"));
    CHECK_INT(parsed.event.args[0].objects[0].kind, OBJECT_APP);
    CHECK_STR(parsed.event.args[0].objects[0].name, "a1");
    CHECK_INT(parsed.actions[0].args[1].kind, ARG_VARIABLE);
    CHECK_STR(parsed.actions[0].args[1].text, "len");
    CHECK_INT(parsed.actions[0].args[1].pos, 69);

    /* the seed's own spelling: a_1 for an application, over two lines */
    CHECK(parse_ok(
        "lib_call_started([a_1], \"MPI_Send\"):\n        pa_counter_increment([c_1], $len)"));
    CHECK_INT(parsed.event.args[0].objects[0].kind, OBJECT_APP);
    CHECK_STR(parsed.event.args[0].objects[0].name, "1");
    CHECK_INT(parsed.actions[0].pos, 46);

    CHECK(parse_ok(":csr_enable([csr_1,csr_2])"));
    CHECK_INT(parsed.actions[0].args[0].objects[0].kind, OBJECT_CSR);
    CHECK_INT(parsed.actions[0].args[0].objects[1].number, 2);

    CHECK(parse_ok("timer(1s): proc_get_info([app_x], 0x3)"));
    CHECK_STR(parsed.event.service, "timer");
    CHECK_NEAR(parsed.event.args[0].number, 1, 0);
    CHECK_STR(parsed.event.args[0].text, "s");
    CHECK_NEAR(parsed.actions[0].args[1].number, 3, 0);
}

static void test_tokens(void)
{
    CHECK(parse_ok(":proc_get_info(p_4242@n1)"));
    const struct request_arg *a = &parsed.actions[0].args[0];
    CHECK_INT(a->kind, ARG_OBJECTS);
    CHECK_INT(a->object_count, 1);
    CHECK_INT(a->objects[0].pid, 4242);
    CHECK_STR(a->objects[0].name, "n1");
    CHECK_INT(a->pos, 16);

    CHECK(parse_ok(":x([site_cyfronet, n_node-1.example.org, app_my_app.v2, p_4194304@h, "
                   "c_4294967295, csr_7])"));
    a = &parsed.actions[0].args[0];
    CHECK_INT(a->object_count, 6);
    CHECK_INT(a->objects[0].kind, OBJECT_SITE);
    CHECK_STR(a->objects[0].name, "cyfronet");
    CHECK_INT(a->objects[1].kind, OBJECT_NODE);
    CHECK_STR(a->objects[1].name, "node-1.example.org");
    CHECK_INT(a->objects[2].kind, OBJECT_APP);
    CHECK_STR(a->objects[2].name, "my_app.v2");
    CHECK_INT(a->objects[3].pid, 4194304); /* the kernel's limit on any host's pid_max */
    CHECK_INT(a->objects[4].kind, OBJECT_COUNTER);
    CHECK(a->objects[4].number == 4294967295u);
    CHECK_INT(a->objects[5].kind, OBJECT_CSR);
    CHECK_INT(a->objects[5].number, 7);

    /* bare tokens as lists of one, empty lists, no arguments */
    CHECK(parse_ok(":csr_delete(csr_3), pa_counter_create(), app_get_list([])"));
    CHECK_INT(parsed.action_count, 3);
    CHECK_INT(parsed.actions[0].args[0].object_count, 1);
    CHECK_INT(parsed.actions[1].arg_count, 0);
    CHECK_INT(parsed.actions[2].args[0].kind, ARG_OBJECTS);
    CHECK_INT(parsed.actions[2].args[0].object_count, 0);

    /* no leading ':' for an unconditional request */
    CHECK(parse_ok("proc_get_info([p_1])"));
    CHECK(!parsed.conditional);
    CHECK_INT(parsed.action_count, 1);
    CHECK(parse_ok("thread_stop(p_1), thread_continue(p_2)"));
    CHECK(!parsed.conditional);
    CHECK_INT(parsed.action_count, 2);
}

static void test_strings_numbers_whitespace(void)
{
    CHECK(parse_ok(":f(\"a\\\"b\\\\c\\/d\\n\\t\\r\\x41'\", 'it\\'s \"x\"', \"\", \"z\xc3\xa9\")"));
    const struct request_call *c = &parsed.actions[0];
    CHECK_STR(c->args[0].text, "a\"b\\c/d\n\t\rA'");
    CHECK_STR(c->args[1].text, "it's \"x\"");
    CHECK_STR(c->args[2].text, "");
    CHECK_STR(c->args[3].text, "z\xc3\xa9");

    CHECK(parse_ok(":f(0x1F, 42, -3.5, 2.5e3, 1E-2, 500ms, 2GB, 0.5s, .25, +7, 1e3s, 5e)"));
    c = &parsed.actions[0];
    CHECK_INT(c->arg_count, 12);
    CHECK_NEAR(c->args[0].number, 31, 0);
    CHECK_STR(c->args[0].text, "");
    CHECK_NEAR(c->args[1].number, 42, 0);
    CHECK_NEAR(c->args[2].number, -3.5, 0);
    CHECK_NEAR(c->args[3].number, 2500, 0);
    CHECK_NEAR(c->args[4].number, 0.01, 1e-15);
    CHECK_NEAR(c->args[5].number, 500, 0);
    CHECK_STR(c->args[5].text, "ms");
    CHECK_NEAR(c->args[6].number, 2, 0);
    CHECK_STR(c->args[6].text, "GB");
    CHECK_STR(c->args[7].text, "s");
    CHECK_NEAR(c->args[8].number, 0.25, 0);
    CHECK_NEAR(c->args[9].number, 7, 0);
    CHECK_NEAR(c->args[10].number, 1000, 0);
    CHECK_STR(c->args[10].text, "s");
    CHECK_NEAR(c->args[11].number, 5, 0);
    CHECK_STR(c->args[11].text, "e");

    CHECK(parse_ok(" \t\n timer ( 1s ) \n : \r\n proc_get_info ( [ p_1 , app_x ] , 0x3 ) , "
                   "csr_enable ( csr_1 ) \n"));
    CHECK(parsed.conditional);
    CHECK_INT(parsed.event.pos, 5);
    CHECK_INT(parsed.action_count, 2);
    CHECK_INT(parsed.actions[0].args[0].object_count, 2);
    CHECK_INT(parsed.actions[0].args[0].objects[1].pos, 49);
    CHECK_STR(parsed.actions[1].service, "csr_enable");

    /* parse_n: length-bounded text */
    struct request r;
    struct request_error err;
    const char text[] = ":f(1)garbage";
    CHECK_INT(request_parse_n(text, 5, &r, &err), 0);
    CHECK_INT(r.action_count, 1);
    request_free(&r);
    const char with_nul[] = ":f(1)\0:g()";
    CHECK_INT(request_parse_n(with_nul, sizeof with_nul - 1, &r, &err), -1);
    CHECK_INT(err.pos, 6);
    CHECK_CONTAINS(err.message, "NUL byte");
}

static void test_errors(void)
{
    CHECK_ERROR("", 1, "column 1: empty request: expected ':' or a service name");
    CHECK_ERROR("   ", 4, "empty request");
    CHECK_ERROR(":", 2, "column 2: expected a service name, found end of request");
    CHECK_ERROR("proc_get_info([p_1]):", 22, "expected a service name, found end of request");
    CHECK_ERROR("proc_get_info([p_1] \"x\")", 21,
                "column 21: expected ')' or ',' after argument, found '\"x\"'");
    CHECK_ERROR(":proc_get_info([p_1], 0x1", 26,
                "expected ')' or ',' after argument, found end of request");
    CHECK_ERROR(":proc_get_info[p_1]", 15,
                "column 15: expected '(' after 'proc_get_info', found '['");
    CHECK_ERROR(":proc_get_info([p_1 p_2])", 21,
                "expected ']' or ',' after object token, found 'p_2'");
    CHECK_ERROR(":proc_get_info([p_1,])", 21, "expected an object token, found ']'");
    CHECK_ERROR(":proc_get_info([[p_1]])", 17, "expected an object token, found '['");
    CHECK_ERROR(":proc_get_info([\"p_1\"])", 17, "expected an object token, found '\"p_1\"'");
    CHECK_ERROR(
        ":f(,)", 4,
        "expected an argument (object list, object token, string, number or $variable), found ','");
    CHECK_ERROR(":f(1,)", 6, "expected an argument");
    CHECK_ERROR(":f(1) g(2)", 7, "expected ',' or end of request after 'f(...)', found 'g'");
    CHECK_ERROR("f(1) g(2)", 6, "expected ':', ',' or end of request after 'f(...)', found 'g'");
    CHECK_ERROR("e(1): f(1): g(2)", 11, "expected ',' or end of request after 'f(...)', found ':'");
    CHECK_ERROR(":f(1),", 7, "expected a service name, found end of request");
    CHECK_ERROR("::f()", 2, "expected a service name, found ':'");
    CHECK_ERROR(":9f()", 2, "expected a service name, found '9f'");
    CHECK_ERROR(":proc.get()", 2, "'proc.get' is not a service name");
    CHECK_ERROR(":f(foo)", 4,
                "expected an object token (site_NAME, n_HOST, app_NAME, p_PID[@HOST], c_N, csr_N), "
                "found 'foo'");
    CHECK_ERROR(":f(p_)", 6, "expected a pid after 'p_'");
    CHECK_ERROR(":f(p_0)", 6, "'0' is not a pid");
    CHECK_ERROR(":f(p_4194305)", 6, "'4194305' is not a pid");
    CHECK_ERROR(":f(p_4294967297)", 6, "'4294967297' is not a pid"); /* would be 1 as a pid_t */
    CHECK_ERROR(":f(p_12x)", 6, "'12x' is not a pid");
    CHECK_ERROR(":f(p_1@)", 8, "expected a host name after 'p_1@'");
    CHECK_ERROR(":f(p_1@a@b)", 9, "'@' is not allowed in a host name");
    CHECK_ERROR(":f(app_)", 8, "expected an application name after 'app_'");
    CHECK_ERROR(":f(site_)", 9, "expected a site name after 'site_'");
    CHECK_ERROR(":f(n_)", 6, "expected a host name after 'n_'");
    CHECK_ERROR(":f(app_x@y)", 9, "'@' is not allowed in an application name");
    CHECK_ERROR(":f(c_)", 6, "expected a number from 1 to 4294967295 after 'c_', found ''");
    CHECK_ERROR(":f(c_0)", 6, "after 'c_', found '0'");
    CHECK_ERROR(":f(c_4294967296)", 6, "found '4294967296'");
    CHECK_ERROR(":f(csr_x)", 8, "after 'csr_', found 'x'");
    CHECK_ERROR(":f(\"abc)", 4, "unterminated string (no closing \")");
    CHECK_ERROR(":f('abc)", 4, "unterminated string (no closing ')");
    CHECK_ERROR(":f(\"a\\qb\")", 6, "unknown escape '\\q' in string");
    CHECK_ERROR(":f(\"a\\x4\")", 6, "expected two hexadecimal digits after '\\x'");
    CHECK_ERROR(":f(\"a\\x00\")", 6, "'\\x00' is not allowed");
    CHECK_ERROR(":f(\"a\nb\")", 6, "control character 0x0a in string");
    CHECK_ERROR(":f(\"a\\", 4, "unterminated string");
    CHECK_ERROR(":f($)", 4, "expected a variable name after '$'");
    CHECK_ERROR(":f($1)", 4, "expected a variable name after '$'");
    CHECK_ERROR(":f(1h30m)", 4, "malformed number '1h30m'");
    CHECK_ERROR(":f(0x1g)", 4, "malformed number '0x1g'");
    CHECK_ERROR(":f(00x)", 4, "malformed number '00x'"); /* found by the fuzzer */
    CHECK_ERROR(":f(0x)", 4, "expected hexadecimal digits after '0x'");
    CHECK_ERROR(":f(12_3)", 4, "malformed number '12_3'");
    CHECK_ERROR(":f(0x12345678901234)", 4, "is too large");
    CHECK_ERROR(":f(.5MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMG)", 6,
                "unit 'MMMMMMMMMMMMMMM...' is longer than 15 letters"); /* found by the fuzzer */
    CHECK(parse_ok(":f(1secondsxxxxxxxx)"));                            /* 15 letters pass */
    CHECK_STR(parsed.actions[0].args[0].text, "secondsxxxxxxxx");
    CHECK_ERROR(":f(1e999)", 4, "number '1e999' is out of range");
    CHECK_ERROR(":f(1) # comment", 7, "unexpected character '#'");
    CHECK_ERROR(":f(\x01)", 4, "unexpected byte 0x01");
    CHECK_ERROR(":f(\xc3\xa9)", 4, "unexpected byte 0xc3");
    CHECK_ERROR(":f(1) -", 7, "unexpected character '-'");
    CHECK_ERROR(":f(p_1,", 8, "expected an argument");
    CHECK_ERROR("f", 2, "expected '(' after 'f', found end of request");
}

static char *repeat(const char *head, const char *item, size_t times, const char *tail)
{
    size_t len = strlen(head) + strlen(item) * times + strlen(tail) + 1;
    char *s = malloc(len), *p = s;
    p = stpcpy(p, head);
    for (size_t i = 0; i < times; i++)
        p = stpcpy(p, item);
    strcpy(p, tail);
    return s;
}

static void test_limits(void)
{
    int pos;
    /* 4096 objects pass, 4097 do not; the error names the 4097th */
    char *ok_list = repeat(":f([p_1", ",p_1", REQUEST_MAX_OBJECTS - 1, "])");
    CHECK(parse_ok(ok_list));
    CHECK_INT(parsed.actions[0].args[0].object_count, REQUEST_MAX_OBJECTS);
    free(ok_list);
    char *long_list = repeat(":f([p_1", ",p_1", REQUEST_MAX_OBJECTS, "])");
    CHECK_CONTAINS(parse_error(long_list, &pos), "more than 4096 objects in one list");
    CHECK_INT(pos, 5 + 4 * REQUEST_MAX_OBJECTS);
    free(long_list);

    char *args = repeat(":f(1", ",1", REQUEST_MAX_ARGS - 1, ")");
    CHECK(parse_ok(args));
    CHECK_INT(parsed.actions[0].arg_count, REQUEST_MAX_ARGS);
    free(args);
    args = repeat(":f(1", ",1", REQUEST_MAX_ARGS, ")");
    CHECK_CONTAINS(parse_error(args, &pos), "more than 16 arguments to f");
    CHECK_INT(pos, 4 + 2 * REQUEST_MAX_ARGS);
    free(args);

    char *actions = repeat(":f()", ",f()", REQUEST_MAX_ACTIONS - 1, "");
    CHECK(parse_ok(actions));
    CHECK_INT(parsed.action_count, REQUEST_MAX_ACTIONS);
    free(actions);
    actions = repeat("e():f()", ",f()", REQUEST_MAX_ACTIONS, "");
    CHECK_CONTAINS(parse_error(actions, &pos), "more than 64 actions in one request");
    CHECK_INT(pos, 7 + 4 * (REQUEST_MAX_ACTIONS - 1) + 2);
    free(actions);

    /* 64 KiB of text pass (blanks count), one byte more does not */
    char *big = malloc(REQUEST_MAX_BYTES + 2);
    memset(big, ' ', REQUEST_MAX_BYTES + 1);
    memcpy(big, ":f()", 4);
    big[REQUEST_MAX_BYTES] = '\0';
    CHECK(parse_ok(big));
    big[REQUEST_MAX_BYTES] = ' ';
    big[REQUEST_MAX_BYTES + 1] = '\0';
    CHECK_CONTAINS(parse_error(big, &pos),
                   "column 65537: request is 65537 bytes long, more than the 65536 allowed");
    CHECK_INT(pos, 65537);
    free(big);
}

static void test_round_trips(void)
{
    check_round_trip(":proc_get_info([p_1], 0x1)", ":proc_get_info([p_1], 1)");
    check_round_trip("proc_get_info(p_1)", ":proc_get_info([p_1])");
    check_round_trip("thread_executes_probe([p_1], \"nextstep\"): pa_counter_read([c_1])",
                     "thread_executes_probe([p_1], \"nextstep\"): pa_counter_read([c_1])");
    check_round_trip(
        "lib_call_started([a_1],'MPI_Send'):pa_counter_increment(c_1,$len),csr_disable(csr_2)",
        "lib_call_started([app_1], \"MPI_Send\"): pa_counter_increment([c_1], $len), "
        "csr_disable([csr_2])");
    check_round_trip("timer(1.5s): proc_get_info([app_x, p_4242@n1, n_h, site_s], 0x3)",
                     "timer(1.5s): proc_get_info([app_x, p_4242@n1, n_h, site_s], 3)");
    check_round_trip(":f(\"q\\\"b\\\\\\n\\t\\r\\x01\", 0.1, -2.5e-7, 1e21GB, 5e, [])",
                     ":f(\"q\\\"b\\\\\\n\\t\\r\\x01\", 0.1, -2.5e-07, 1e+21GB, 5e, [])");
}

int main(void)
{
    test_seed_forms();
    test_tokens();
    test_strings_numbers_whitespace();
    test_errors();
    test_limits();
    test_round_trips();
    request_free(&parsed);
    request_free(NULL);
    return test_done();
}
