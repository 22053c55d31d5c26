/* 'tally request [--agent SOCKET] [--follow] REQUEST...': sends OMIS-style
 * requests to the user's agent and prints its JSON lines. An unconditional
 * request ends with its "done" line; a conditional one prints its csr_N
 * definition and, with --follow, the lines its event produces until SIGINT
 * or SIGTERM, then deletes it. See man/tally-request.1. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/live_options.h"
#include "cli/request_nats.h"
#include "client/live_client.h"
#include "util/error.h"
#include "core/units.h"

static const char usage_text[] =
    "usage: tally request [--agent SOCKET] [--follow] [--timeout TIME] REQUEST...\n"
    "\n"
    "Sends each REQUEST to the user's agent (tally-agent(1)) and prints the JSON\n"
    "lines it answers, one per object and service, then {\"done\": true, \"errors\": [...]}.\n"
    "  ':proc_get_info([app_sim], 0x7)'          unconditional\n"
    "  'proc_created([app_sim]): app_get_proclist([app_sim])'   conditional: csr_N\n"
    "  ':proc_record_start([app_md], \"mpi\", 10s)'   MPI recording on for 10 s (--window request)\n"
    "\n"
    "      --agent SOCKET      the agent's socket (default: the user's agent)\n"
    "      --follow            keep printing what conditional requests produce until\n"
    "                          interrupted (SIGINT/SIGTERM), then delete them\n"
    "      --timeout TIME      give up waiting for an answer after TIME (default 30 s;\n"
    "                          5 s over NATS)\n"
    "      --nats URL          send over NATS to the agents of any host and site that\n"
    "                          host the request's objects (docs/agent-nats.md)\n"
    "      --creds FILE        NATS credentials: a .creds file or one line user:password\n"
    "      --user NAME         NATS subjects of this user (default: your login name)\n"
    "      --node HOST         over NATS, the agent for requests naming no node,\n"
    "                          process, application or site (default: every agent)\n"
    "      --quiet TIME        over NATS, when the number of agents is unknown, stop\n"
    "                          after TIME without an answer (default 50 ms); a switch\n"
    "                          of MPI ranks, not before every rank is answered for\n"
    "      --expect N          over NATS, stop as soon as N agents have answered\n"
    "      --repeat N          over NATS, send each request N times on one connection\n"
    "                          and print only its round-trip times (min, median, p90,\n"
    "                          max, in ms): how fast the monitoring answers\n"
    "  -h, --help              this help\n"
    "\n"
    "Exit status: 0; 1 when a reply carried errors; 125 on tally's own error\n"
    "(no agent, bad option, an agent socket that is not the user's own).\n";

enum { OPT_FOLLOW = 256, OPT_TIMEOUT, OPT_NODE, OPT_QUIET, OPT_EXPECT, OPT_REPEAT };

static const struct option long_options[] = {
    LIVE_CLIENT_LONG_OPTIONS,
    {"follow", no_argument, 0, OPT_FOLLOW},
    {"timeout", required_argument, 0, OPT_TIMEOUT},
    {"node", required_argument, 0, OPT_NODE},
    {"quiet", required_argument, 0, OPT_QUIET},
    {"expect", required_argument, 0, OPT_EXPECT},
    {"repeat", required_argument, 0, OPT_REPEAT},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void print_line(json_t *line)
{
    char *text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    if (text) {
        puts(text);
        fflush(stdout);
    }
    free(text);
}

/* Every line printed; the errors of done lines counted. */
static void print_counted(void *ctx, json_t *line)
{
    print_line(line);
    if (json_is_true(json_object_get(line, "done")))
        *(int *)ctx += (int)json_array_size(json_object_get(line, "errors"));
}

static void print_only(void *ctx, json_t *line)
{
    print_line(line);
}

/* The local agent: every line printed as it comes; with --follow each csr
 * is enabled once defined, its lines printed until SIGINT or SIGTERM, then
 * deleted (live_client's csr lifecycle). */
static int request_over_socket(struct live_client *lc, bool follow, char *const texts[], int count)
{
    int errors = 0, status = TALLY_EXIT_OK;
    char why[512];
    struct live_answers counted = {.line = print_counted, .ctx = &errors};
    for (int i = 0; i < count && !interrupted; i++) {
        if (live_client_request(lc, texts[i], &counted, why, sizeof why) < 0) {
            if (live_client_refused(lc)) { /* the agent refused the connection or the message */
                tally_error("request: %s", why);
                errors++;
            } else if (!interrupted) {
                tally_error("request: %s", why);
                status = TALLY_EXIT_ERROR;
            }
            break;
        }
        if (follow) /* a csr starts disabled (as in the seed): start it */
            live_client_enable(lc, &counted, why, sizeof why);
    }
    if (follow && live_client_defined(lc) && status == TALLY_EXIT_OK) {
        struct live_answers printed = {.line = print_only};
        if (live_client_stream(lc, (volatile int *)&interrupted, &printed, why, sizeof why) < 0) {
            tally_error("request: %s", why);
            status = TALLY_EXIT_ERROR;
        }
        /* Delete what we defined; its lines and the done line are printed. */
        interrupted = 0;
        if (status == TALLY_EXIT_OK)
            live_client_delete(lc, &printed);
    }
    if (status == TALLY_EXIT_OK && errors)
        status = TALLY_EXIT_FAILURE;
    return status;
}

int cmd_request(int argc, char **argv)
{
    struct live_client_options co = {0}; /* --agent, --nats, --creds, --user */
    bool follow = false;
    double timeout = 30;
    bool timeout_given = false;
    struct request_nats_options nats = {.interrupted = &interrupted};
    char why[512];
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+h", long_options, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage_text, stdout);
            return TALLY_EXIT_OK;
        case OPT_FOLLOW:
            follow = true;
            break;
        case OPT_TIMEOUT:
            if (units_parse(optarg, DIM_TIME, NULL, &timeout, why, sizeof why) < 0) {
                tally_error("request: --timeout: %s", why);
                return TALLY_EXIT_ERROR;
            }
            timeout_given = true;
            break;
        case OPT_NODE:
            co.node = optarg;
            break;
        case OPT_EXPECT:
        case OPT_REPEAT: {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || end == optarg || n < 1 || n > 10000000) {
                tally_error("request: --%s: '%s' is not a count from 1 to 10000000",
                            c == OPT_EXPECT ? "expect" : "repeat", optarg);
                return TALLY_EXIT_ERROR;
            }
            *(c == OPT_EXPECT ? &co.expect : &nats.repeat) = (unsigned)n;
            break;
        }
        case OPT_QUIET:
            if (units_parse(optarg, DIM_TIME, NULL, &co.quiet, why, sizeof why) < 0) {
                tally_error("request: --quiet: %s", why);
                return TALLY_EXIT_ERROR;
            }
            break;
        default:
            if (live_client_option(c, optarg, &co) == 0)
                break;
            tally_error("request: unknown or incomplete option '%s' (see 'tally request --help')",
                        argv[optind - 1]);
            return TALLY_EXIT_ERROR;
        }
    }
    if (optind >= argc) {
        tally_error("request: give a REQUEST (see 'tally request --help')");
        return TALLY_EXIT_ERROR;
    }
    if (!co.nats_url && (nats.repeat || co.expect || co.node || co.creds)) {
        tally_error("request: --expect, --repeat, --node and --creds go with --nats URL");
        return TALLY_EXIT_ERROR;
    }
    co.timeout = timeout_given ? timeout : co.nats_url ? 5 : 30;
    co.single_connection = true;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt; /* no SA_RESTART: the wait for lines returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    struct live_client *lc;
    if (live_client_open(&co, &lc, why, sizeof why) < 0) {
        tally_error("request: %s", why);
        return TALLY_EXIT_ERROR;
    }
    nats.follow = follow;
    int status = co.nats_url ? request_over_nats(lc, &nats, argv + optind, argc - optind)
                             : request_over_socket(lc, follow, argv + optind, argc - optind);
    live_client_close(lc);
    return status;
}
