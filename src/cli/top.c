/* 'tally top [--app NAME]': a live terminal view of an application on all
 * its hosts (or of everything the local agent follows), refreshed every
 * interval. Each refresh is one proc_get_info request through live_client
 * (the local socket, or NATS for every host and site); the rows and their
 * rates (from two successive answers) are view/top_rows.c's, the screen
 * top_render's.
 * Plain text and ANSI clear-screen, no curses: it works over ssh and in
 * tmux. Keys: c m r w R s (sort by cpu, memory, read, write, recv, sent),
 * p h n l (pid, host, command, contract level), v (reverse), q (quit).
 * The request asks for each process's contract levels too (0x100): when
 * 'tally contract watch' sends them, a CONTRACT column shows them; and for
 * its segment (0x80): a REC column shows what instrumented processes record.
 * See man/tally-top.1. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/live_options.h"
#include "client/live_client.h"
#include "view/top_render.h"
#include "view/top_rows.h"
#include "util/clock.h"
#include "util/error.h"

static const char usage_text[] =
    "usage: tally top [--app NAME] [--agent SOCKET | --nats URL [--creds FILE] [--user NAME]]\n"
    "                 [--sort COLUMN] [--interval TIME] [--once]\n"
    "\n"
    "A live view of application NAME's processes on every host that runs it (without\n"
    "--app: every task the local agent follows): per host and per process, CPU (its own;\n"
    "ENDED%: its children that ended since the last refresh), memory,\n"
    "I/O and network rates and state, refreshed every interval; with 'tally contract watch'\n"
    "running, each process's contract violation level and worst dimension ('!' and red at\n"
    "or above the threshold; no colour when NO_COLOR is set or the output is not a terminal);\n"
    "for instrumented processes (tally run --mpi|--probes), what each records now (REC).\n"
    "\n"
    "      --app NAME          the application (over NATS: required)\n"
    LIVE_CLIENT_USAGE
    "      --sort COLUMN       cpu (default), mem, read, write, recv, sent, pid, host,\n"
    "                          state, command, level\n"
    "      --interval TIME     between refreshes (default 1 s)\n"
    "      --once              print one screen (after two samples) and exit\n"
    "  -h, --help              this help\n"
    "\n"
    "Keys: c cpu, m memory, r read, w write, R recv, s sent, p pid, h host, n command,\n"
    "l contract level, v reverse, q quit.\n"
    "Exit status: 0; 125 on an error (no agent, bad option, an agent socket that is\n"
    "not the user's own).\n";

enum { OPT_APP_NAME = 256, OPT_SORT,
       OPT_EVERY, OPT_ONCE };

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

struct gather {
    json_t *lines;      /* proc_get_info answers */
};

static void keep_line(void *ctx, json_t *line)
{
    struct gather *g = ctx;
    const char *svc = json_string_value(json_object_get(line, "service"));
    if (svc && !strcmp(svc, "proc_get_info") && json_is_object(json_object_get(line, "result")))
        json_array_append(g->lines, line);
}

/* app_get_list: the app_ tokens it lists */
static void keep_apps(void *ctx, json_t *line)
{
    json_t *apps = ctx;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(json_object_get(line, "result"), "apps"), i, a) {
        const char *token = json_string_value(json_object_get(a, "object"));
        if (token)
            json_array_append_new(apps, json_string(token));
    }
}

static void terminal_size(int *width, int *height)
{
    struct winsize ws;
    *width = 100;
    *height = 30;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
        *width = ws.ws_col;
        *height = ws.ws_row;
    }
}

/* A key: changes the order, or asks to quit. */
static void take_key(int key, struct top_options *o)
{
    static const char keys[] = "cmrwRsphnl";
    static const enum top_column columns[] = {TOP_CPU, TOP_MEMORY, TOP_READ, TOP_WRITE, TOP_RECV,
                                              TOP_SENT, TOP_PID, TOP_HOST, TOP_COMMAND, TOP_LEVEL};
    const char *k = key ? strchr(keys, key) : NULL;
    if (k) {
        o->sort = columns[k - keys];
        o->reverse = false;
    } else if (key == 'v') {
        o->reverse = !o->reverse;
    } else if (key == 'q') {
        stop_requested = 1;
    }
}

int cmd_top(int argc, char **argv)
{
    static const struct option options[] = {
        {"app", required_argument, 0, OPT_APP_NAME}, LIVE_CLIENT_LONG_OPTIONS, {"sort", required_argument, 0, OPT_SORT},
        {"interval", required_argument, 0, OPT_EVERY}, {"once", no_argument, 0, OPT_ONCE},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    struct live_client_options co = {0};
    struct top_options to = {.sort = TOP_CPU};
    const char *app = NULL;
    double interval = 1;
    bool once = false;
    char why[512];
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage_text, stdout);
            return TALLY_EXIT_OK;
        case OPT_APP_NAME: app = optarg; break;
        case OPT_ONCE: once = true; break;
        case OPT_SORT: {
            int col = top_column_parse(optarg);
            if (col < 0) {
                tally_error("top: --sort '%s': not a column (cpu, mem, read, write, recv, sent, pid, "
                            "host, state, command, level)", optarg);
                return TALLY_EXIT_ERROR;
            }
            to.sort = (enum top_column)col;
            break;
        }
        case OPT_EVERY:
            if (live_period_option("top", "--interval", optarg, &interval) < 0)
                return TALLY_EXIT_ERROR;
            break;
        default:
            if (live_client_option(c, optarg, &co) == 0)
                break;
            tally_error("top: unknown or incomplete option '%s' (see 'tally top --help')", argv[optind - 1]);
            return TALLY_EXIT_ERROR;
        }
    }
    if (optind < argc) {
        tally_error("top: unexpected argument '%s' (see 'tally top --help')", argv[optind]);
        return TALLY_EXIT_ERROR;
    }
    if (co.nats_url && !app) {
        tally_error("top: over NATS, name the application with --app NAME");
        return TALLY_EXIT_ERROR;
    }
    char request[600];
    if (app)
        snprintf(request, sizeof request, ":proc_get_info([app_%s], 0x19f)", app);
    /* handlers first: a SIGINT while the agent is being reached must stop
     * us too (started in the background, we inherit SIGINT ignored) */
    struct sigaction sa = {.sa_handler = on_stop};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    struct live_client *client;
    if (live_client_open(&co, &client, why, sizeof why) < 0) {
        tally_error("top: %s", why);
        return TALLY_EXIT_ERROR;
    }
    struct termios saved;
    bool raw = !once && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
    if (raw) {
        struct termios t = saved;
        t.c_lflag &= ~(ICANON | ECHO);
        tcsetattr(STDIN_FILENO, TCSANOW, &t);
    }
    const char *term = getenv("TERM");
    bool terminal = isatty(STDOUT_FILENO); /* piped: plain text, one screen after another */
    to.color = terminal && !getenv("NO_COLOR") && !(term && !strcmp(term, "dumb"));
    struct top_previous *old = NULL, *now = NULL;
    double last_t = NAN; /* the previous refresh */
    size_t old_n = 0;
    int status = TALLY_EXIT_OK;
    for (int round = 0; !stop_requested; round++) {
        struct gather g = {.lines = json_array()};
        double t = clock_monotonic_seconds();
        int rc = 0;
        if (!app) { /* everything the agent follows: its applications, listed first */
            json_t *apps = json_array();
            rc = live_client_ask(client, ":app_get_list()", keep_apps, apps, why, sizeof why);
            size_t len = snprintf(request, sizeof request, ":proc_get_info([");
            size_t k;
            json_t *token;
            json_array_foreach(apps, k, token)
                len += snprintf(request + len, len < sizeof request ? sizeof request - len : 0, "%s%s",
                                k ? ", " : "", json_string_value(token));
            snprintf(request + len, len < sizeof request ? sizeof request - len : 0, "], 0x19f)");
            bool none = json_array_size(apps) == 0;
            json_decref(apps);
            if (rc == 0 && !none && len < sizeof request)
                rc = live_client_ask(client, request, keep_line, &g, why, sizeof why);
        } else {
            rc = live_client_ask(client, request, keep_line, &g, why, sizeof why);
        }
        if (rc < 0) {
            json_decref(g.lines);
            tally_error("top: %s", why);
            status = TALLY_EXIT_ERROR;
            break;
        }
        size_t n = json_array_size(g.lines);
        struct top_row *rows = calloc(n ? n : 1, sizeof *rows);
        now = calloc(n ? n : 1, sizeof *now);
        if (!rows || !now) {
            free(rows);
            json_decref(g.lines);
            status = TALLY_EXIT_ERROR;
            break;
        }
        n = top_rows_build_since(g.lines, t, last_t, old, old_n, rows, now);
        last_t = t;
        for (size_t k = 0; k < n; k++)
            to.ended_column |= rows[k].ended_percent > 0;
        free(old);
        old = now;
        old_n = n;
        now = NULL;
        terminal_size(&to.width, &to.height);
        struct top_snapshot snap = {.app = app, .time = clock_epoch_seconds(), .rows = rows, .row_count = n};
        char *screen = (!once || round >= 1) ? top_render(&snap, &to) : NULL;
        if (screen) {
            if (!once && terminal)
                fputs("\033[H\033[2J", stdout);
            else if (!once && round > 0)
                fputc('\n', stdout);
            fputs(screen, stdout);
            fflush(stdout);
        }
        free(screen);
        free(rows);
        json_decref(g.lines);
        if (once && round >= 1)
            break;
        /* wait for the next refresh, taking keys meanwhile */
        double until = t + interval;
        for (double left; !stop_requested && (left = until - clock_monotonic_seconds()) > 0;) {
            struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
            int r = poll(&p, raw ? 1 : 0, (int)ceil(left * 1000));
            char key;
            if (r > 0 && read(STDIN_FILENO, &key, 1) == 1) {
                take_key(key, &to);
                break; /* redraw now in the new order */
            }
        }
    }
    if (raw)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    free(old);
    live_client_close(client);
    return status;
}
