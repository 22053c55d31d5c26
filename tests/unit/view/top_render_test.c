/* Unit tests for the screen of `tally top` (src/view/top_render.c): the
 * exact screen of a small application on three hosts, host totals, sorting
 * by every column (reversed, unknown values last, stable ties), the cut to
 * the terminal's width and height, and escape sequences kept out of the
 * viewer's terminal; the CONTRACT column (only when levels are known), its
 * '!' and colour at the threshold, and sorting by level. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "view/top_render.h"
#include "test.h"

static const struct top_row rows[] = {
    {"n1", 4242, 'R', 99.5, 256, 1024, 0, 5e6, 6e6, "./ring --size 100", false, 0, 0, NULL, NULL, "", NAN},
    {"n1", 4243, 'S', 0.5, 12.25, 0, 2048, NAN, NAN, "bash -c x", false, 0, 0, NULL, NULL, "", NAN},
    {"node-two", 77, 'R', 150, 1500, 3e9, 1e3, 100, 200, "./ring", false, 0, 0, NULL, NULL, "", NAN},
    {"n3", 9, 'T', NAN, NAN, NAN, NAN, NAN, NAN, NULL, false, 0, 0, NULL, NULL, "", NAN},
};

static char *render(const struct top_row *r, size_t n, enum top_column sort, bool reverse,
                    int width, int height)
{
    struct top_snapshot snap = {"ring", 1700000000.0, r, n};
    struct top_options o = {sort, reverse, width, height, false, false};
    return top_render(&snap, &o);
}

/* The pids of the process lines, in screen order, as "77 4242 ...". */
static const char *pid_order(const char *screen)
{
    static char order[256];
    order[0] = '\0';
    const char *p = strstr(screen, " COMMAND\n");
    if (!p)
        return "(no process header)";
    for (p = strchr(p, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
        int pid;
        char host[64];
        if (strncmp(p, "...", 3) != 0 && sscanf(p, "%63s %d", host, &pid) == 2)
            snprintf(order + strlen(order), sizeof order - strlen(order), "%s%d",
                     order[0] ? " " : "", pid);
    }
    return order;
}

/* The host lines, in screen order, as "node-two n1 n3". */
static const char *host_order(const char *screen)
{
    static char order[256];
    order[0] = '\0';
    const char *p = strchr(strchr(screen, '\n') + 1, '\n') + 1; /* after the host header */
    while (*p && *p != '\n') {
        char host[64];
        if (sscanf(p, "%63s", host) == 1)
            snprintf(order + strlen(order), sizeof order - strlen(order), "%s%s",
                     order[0] ? " " : "", host);
        p = strchr(p, '\n') + 1;
    }
    return order;
}

static int line_count(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static size_t longest_line(const char *s)
{
    size_t longest = 0;
    while (*s) {
        size_t len = strcspn(s, "\n");
        if (len > longest)
            longest = len;
        s += len + (s[len] == '\n');
    }
    return longest;
}

/* Whole screens are longer than CHECK_STR's message: compare them here and
 * print both when they differ. */
static void check_screen(const char *actual, const char *expected, int line)
{
    int same = actual && !strcmp(actual, expected);
    if (!same)
        printf("# got:\n%s# want:\n%s", actual ? actual : "(null)\n", expected);
    test_report(same, __FILE__, line, "the screen is the expected one");
}

static void test_screen(void)
{
    char *screen = render(rows, 4, TOP_CPU, false, 200, 40);
    const char *expected =
        "tally top - app ring - 22:13:20 UTC - 4 processes on 3 hosts - sorted by cpu\n"
        "HOST      PROCS   CPU%     MEM   READ/s  WRITE/s   RECV/s   SENT/s\n"
        "node-two      1  150.0    1.5G     2.8G    1000B     100B     200B\n"
        "n1            2  100.0  268.2M     1.0K     2.0K     4.8M     5.7M\n"
        "n3            1      -       -        -        -        -        -\n"
        "\n"
        "HOST         PID S   CPU%     MEM   READ/s  WRITE/s   RECV/s   SENT/s COMMAND\n"
        "node-two      77 R  150.0    1.5G     2.8G    1000B     100B     200B ./ring\n"
        "n1          4242 R   99.5  256.0M     1.0K       0B     4.8M     5.7M ./ring --size 100\n"
        "n1          4243 S    0.5   12.2M       0B     2.0K        -        - bash -c x\n"
        "n3             9 T      -       -        -        -        -        -\n";
    check_screen(screen, expected, __LINE__);
    free(screen);

    /* no application, one process, no time */
    struct top_snapshot one = {NULL, NAN, rows, 1};
    struct top_options o = {TOP_CPU, false, 200, 40, false, false};
    screen = top_render(&one, &o);
    CHECK_CONTAINS(
        screen,
        "tally top - all applications - --:--:-- UTC - 1 process on 1 host - sorted by cpu\n");
    free(screen);

    /* nothing to show */
    struct top_snapshot none = {"idle", 0, NULL, 0};
    screen = top_render(&none, &o);
    check_screen(screen,
                 "tally top - app idle - 00:00:00 UTC - 0 processes on 0 hosts - sorted by cpu\n"
                 "HOST  PROCS   CPU%     MEM   READ/s  WRITE/s   RECV/s   SENT/s\n"
                 "\n"
                 "HOST     PID S   CPU%     MEM   READ/s  WRITE/s   RECV/s   SENT/s COMMAND\n",
                 __LINE__);
    free(screen);
}

static void test_sorting(void)
{
    struct {
        enum top_column column;
        bool reverse;
        const char *pids, *hosts;
    } cases[] = {
        {TOP_CPU, false, "77 4242 4243 9", "node-two n1 n3"},
        {TOP_CPU, true, "4243 4242 77 9", "n1 node-two n3"}, /* unknown stays last */
        {TOP_MEMORY, false, "77 4242 4243 9", "node-two n1 n3"},
        {TOP_READ, false, "77 4242 4243 9", "node-two n1 n3"},
        {TOP_WRITE, false, "4243 77 4242 9", "n1 node-two n3"},
        {TOP_RECV, false, "4242 77 4243 9", "n1 node-two n3"},
        {TOP_SENT, true, "77 4242 4243 9", "node-two n1 n3"},
        {TOP_PID, false, "9 77 4242 4243", "n1 n3 node-two"}, /* hosts by process count */
        {TOP_PID, true, "4243 4242 77 9", "n3 node-two n1"},
        {TOP_HOST, false, "4242 4243 9 77", "n1 n3 node-two"}, /* ties by pid */
        {TOP_HOST, true, "77 9 4242 4243", "node-two n3 n1"},
        {TOP_STATE, false, "4242 77 4243 9", "n1 n3 node-two"},   /* R < S < T, ties by host */
        {TOP_COMMAND, false, "9 77 4242 4243", "n1 n3 node-two"}, /* none first */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *screen = render(rows, 4, cases[i].column, cases[i].reverse, 200, 40);
        printf("# sort by %s%s\n", top_column_name(cases[i].column),
               cases[i].reverse ? " reversed" : "");
        CHECK_STR(pid_order(screen), cases[i].pids);
        CHECK_STR(host_order(screen), cases[i].hosts);
        free(screen);
    }
    char *screen = render(rows, 4, TOP_MEMORY, true, 200, 40);
    CHECK_CONTAINS(screen, "sorted by mem (reversed)\n");
    free(screen);
}

static void test_cuts(void)
{
    /* height: 7 fixed lines + 4 processes = 11; with 10 lines two processes
     * show and the last line counts the others */
    char *screen = render(rows, 4, TOP_CPU, false, 200, 11);
    CHECK_INT(line_count(screen), 11);
    CHECK(strstr(screen, "more processes") == NULL);
    free(screen);
    screen = render(rows, 4, TOP_CPU, false, 200, 10);
    CHECK_INT(line_count(screen), 10);
    CHECK_STR(pid_order(screen), "77 4242");
    CHECK_CONTAINS(screen, "\n... 2 more processes\n");
    free(screen);
    screen = render(rows, 4, TOP_CPU, false, 200, 4);
    CHECK_INT(line_count(screen), 4);
    CHECK_CONTAINS(screen, "node-two      1");
    CHECK_CONTAINS(screen, "\n... 2 more hosts\n");
    free(screen);
    screen = render(rows, 4, TOP_CPU, false, 200, 0);
    CHECK_STR(screen, "");
    free(screen);

    /* width: no line longer, trailing blanks dropped */
    screen = render(rows, 4, TOP_CPU, false, 40, 40);
    CHECK_INT(longest_line(screen), 40);
    CHECK_CONTAINS(screen, "\nn3            1      -       -        -\n");
    free(screen);

    /* long host names are cut at 20 characters */
    struct top_row longhost = rows[0];
    longhost.host = "a-very-long-host-name.example.org";
    screen = render(&longhost, 1, TOP_CPU, false, 200, 40);
    CHECK_CONTAINS(screen, "\na-very-long-host-nam    4242 R");
    free(screen);

    /* UTF-8 is never split; control characters never reach the terminal */
    struct top_row odd = rows[0];
    odd.command = "caf\xc3\xa9\x1b[2J\x07";
    screen = render(&odd, 1, TOP_CPU, false, 200, 40);
    CHECK_CONTAINS(screen, " caf\xc3\xa9?[2J?\n");
    CHECK(strchr(screen, 0x1b) == NULL);
    free(screen);
    char *wide = render(&odd, 1, TOP_CPU, false, 200, 40);
    size_t cut = strstr(wide, "caf\xc3\xa9") - wide; /* offset of the command in its line */
    size_t line_start = cut;
    while (line_start > 0 && wide[line_start - 1] != '\n')
        line_start--;
    int width = (int)(cut - line_start) + 4; /* ends between the two bytes of the e-acute */
    free(wide);
    screen = render(&odd, 1, TOP_CPU, false, width, 40);
    CHECK_CONTAINS(screen, " caf\n");
    CHECK(strstr(screen, "\xc3\n") == NULL);
    free(screen);
}

static void test_contract(void)
{
    struct top_row r[3] = {rows[0], rows[1], rows[2]};
    r[0].has_contract = r[1].has_contract = true; /* node-two's process has no levels */
    r[0].contract_level = 1;
    r[0].contract_threshold = 0.5;
    r[0].contract_space = "intrinsic";
    r[0].contract_dimension = "compute";
    r[1].contract_level = 0.25;
    r[1].contract_threshold = 0.5;
    r[1].contract_space = "execution";
    r[1].contract_dimension = "communicate";
    struct top_snapshot snap = {"ring", 1700000000.0, r, 3};
    struct top_options o = {TOP_CPU, false, 200, 40, false, false};
    char *screen = top_render(&snap, &o);
    CHECK_CONTAINS(screen, " - sorted by cpu - 1 violating\n");
    CHECK_CONTAINS(screen, "HOST      PROCS   CPU%     MEM   READ/s  WRITE/s   RECV/s   SENT/s  VIOL\n");
    CHECK_CONTAINS(screen, "\nn1            2  100.0  268.2M     1.0K     2.0K     4.8M     5.7M     1\n");
    CHECK_CONTAINS(screen, "   SENT/s CONTRACT                    COMMAND\n");
    CHECK_CONTAINS(screen, "     5.7M 1.00! intrinsic compute     ./ring --size 100\n");
    CHECK_CONTAINS(screen, "        - 0.25  execution communicate bash -c x\n");
    CHECK_CONTAINS(screen, "     200B -                           ./ring\n");
    CHECK(strchr(screen, 0x1b) == NULL); /* no colour asked */
    free(screen);
    /* with colour: the violating process and its host in bold red, nothing else */
    o.color = true;
    screen = top_render(&snap, &o);
    CHECK_CONTAINS(screen, "\n\033[1;31mn1          4242 R");
    CHECK_CONTAINS(screen, "./ring --size 100\033[0m\n");
    CHECK_CONTAINS(screen, "\n\033[1;31mn1            2 ");
    CHECK_CONTAINS(screen, "\nn1          4243 S");
    size_t escapes = 0;
    for (const char *p = screen; (p = strstr(p, "\033[1;31m")); p++)
        escapes++;
    CHECK_INT(escapes, 2);
    free(screen);
    /* the escapes are not counted in the width */
    o.width = 60;
    screen = top_render(&snap, &o);
    CHECK_CONTAINS(screen, "\n\033[1;31mn1          4242 R   99.5  256.0M     1.0K       0B     4.8M\033[0m\n");
    free(screen);
    /* by level: largest first, processes without levels last */
    o = (struct top_options){TOP_LEVEL, false, 200, 40, false, false};
    screen = top_render(&snap, &o);
    CHECK_STR(pid_order(screen), "4242 4243 77");
    free(screen);
    /* without any levels: the layout of before, no CONTRACT column */
    screen = render(rows, 3, TOP_CPU, false, 200, 40);
    CHECK(strstr(screen, "CONTRACT") == NULL);
    CHECK(strstr(screen, "VIOL") == NULL);
    CHECK(strstr(screen, "violating") == NULL);
    free(screen);
}

static void test_recording(void)
{
    struct top_row r[3] = {rows[0], rows[1], rows[2]};
    snprintf(r[0].recording, sizeof r[0].recording, "mpi");
    snprintf(r[1].recording, sizeof r[1].recording, "off*"); /* switched off, not yet taken */
    struct top_snapshot snap = {"ring", 1700000000.0, r, 3};
    struct top_options o = {TOP_CPU, false, 200, 40, false, false};
    char *screen = top_render(&snap, &o);
    CHECK_CONTAINS(screen, "   SENT/s REC         COMMAND\n");
    CHECK_CONTAINS(screen, "     5.7M mpi         ./ring --size 100\n");
    CHECK_CONTAINS(screen, "        - off*        bash -c x\n");
    CHECK_CONTAINS(screen, "     200B -           ./ring\n"); /* not instrumented */
    free(screen);
    /* nothing instrumented: no REC column */
    screen = render(rows, 3, TOP_CPU, false, 200, 40);
    CHECK(strstr(screen, " REC ") == NULL);
    free(screen);
}

/* A shell whose short children ended: their CPU on its line (ENDED%) and in its host's CPU%. */
static void test_ended_children(void)
{
    struct top_row r[2] = {rows[0], rows[1]};
    r[1].ended_percent = 62.5;
    struct top_snapshot snap = {"ring", 1700000000.0, r, 2};
    struct top_options o = {TOP_CPU, false, 200, 40, false, false};
    char *screen = top_render(&snap, &o);
    CHECK_CONTAINS(screen, "   SENT/s ENDED% COMMAND\n");
    CHECK_CONTAINS(screen, "        -   62.5 bash -c x\n");
    CHECK_CONTAINS(screen, "     5.7M      - ./ring --size 100\n");
    CHECK_CONTAINS(screen, "n1        2  162.5 "); /* 99.5 + 0.5 + 62.5 */
    free(screen);
    /* none now, but shown before: the column stays, with '-' */
    r[1].ended_percent = 0;
    o.ended_column = true;
    screen = top_render(&snap, &o);
    CHECK_CONTAINS(screen, "        -      - bash -c x\n");
    CHECK_CONTAINS(screen, "n1        2  100.0 ");
    free(screen);
    screen = render(rows, 3, TOP_CPU, false, 200, 40);
    CHECK(strstr(screen, "ENDED%") == NULL);
    free(screen);
}

static void test_names_and_bytes(void)
{
    CHECK_INT(top_column_parse("cpu"), TOP_CPU);
    CHECK_INT(top_column_parse("MEM"), TOP_MEMORY);
    CHECK_INT(top_column_parse("memory"), TOP_MEMORY);
    CHECK_INT(top_column_parse("received"), TOP_RECV);
    CHECK_INT(top_column_parse("command"), TOP_COMMAND);
    CHECK_INT(top_column_parse("pid"), TOP_PID);
    CHECK_INT(top_column_parse("level"), TOP_LEVEL);
    CHECK_INT(top_column_parse("nope"), -1);
    CHECK_INT(top_column_parse(NULL), -1);
    for (int c = 0; c < TOP_COLUMN_COUNT; c++)
        CHECK_INT(top_column_parse(top_column_name(c)), c);

    char buf[16];
    struct {
        double bytes;
        const char *text;
    } cases[] = {
        {NAN, "-"},
        {0, "0B"},
        {-5, "0B"},
        {1023, "1023B"},
        {1024, "1.0K"},
        {1536, "1.5K"},
        {1048524, "1023.9K"},
        {1048575, "1.0M"},
        {1048576, "1.0M"},
        {3e9, "2.8G"},
        {1099511627776.0, "1.0T"},
        {1e21, "867.4E"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        top_format_bytes(cases[i].bytes, buf, sizeof buf);
        CHECK_STR(buf, cases[i].text);
    }
}

int main(void)
{
    test_screen();
    test_sorting();
    test_cuts();
    test_contract();
    test_recording();
    test_ended_children();
    test_names_and_bytes();
    return test_done();
}
