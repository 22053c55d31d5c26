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
#include "client/agent_link.h"
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
    "                          after TIME without an answer (default 50 ms)\n"
    "      --expect N          over NATS, stop as soon as N agents have answered\n"
    "      --repeat N          over NATS, send each request N times on one connection\n"
    "                          and print only its round-trip times (min, median, p90,\n"
    "                          max, in ms): how fast the monitoring answers\n"
    "  -h, --help              this help\n"
    "\n"
    "Exit status: 0; 1 when a reply carried errors; 125 on tally's own error\n"
    "(no agent, bad option).\n";

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

/* Reads and prints lines until the "done" line; its errors count. Returns
 * the request's name (malloc'd) or NULL when the agent did not answer. */
static char *until_done(struct agent_link *link, double timeout, int *errors)
{
    for (;;) {
        json_t *line = agent_link_read(link, timeout);
        if (!line)
            return NULL;
        print_line(line);
        json_t *done = json_object_get(line, "done");
        if (json_is_true(done)) {
            *errors += (int)json_array_size(json_object_get(line, "errors"));
            const char *name = json_string_value(json_object_get(line, "request"));
            char *copy = strdup(name ? name : "");
            json_decref(line);
            return copy;
        }
        const char *refusal = json_object_get(line, "request")
                                  ? NULL
                                  : json_string_value(json_object_get(line, "error"));
        if (refusal) { /* the agent refused the connection or the message */
            tally_error("request: the agent says: %s", refusal);
            (*errors)++;
            json_decref(line);
            return strdup("");
        }
        json_decref(line);
    }
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
            nats.node = optarg;
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
            *(c == OPT_EXPECT ? &nats.expect : &nats.repeat) = (unsigned)n;
            break;
        }
        case OPT_QUIET:
            if (units_parse(optarg, DIM_TIME, NULL, &nats.quiet, why, sizeof why) < 0) {
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
    const char *socket_path = co.socket;
    nats.url = co.nats_url;
    nats.creds = co.creds;
    nats.user = co.user;
    if (!nats.url && (nats.expect || nats.repeat || nats.node || nats.creds)) {
        tally_error("request: --expect, --repeat, --node and --creds go with --nats URL");
        return TALLY_EXIT_ERROR;
    }
    if (nats.url) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        nats.timeout = timeout_given ? timeout : 5;
        nats.follow = follow;
        return request_over_nats(&nats, argv + optind, argc - optind);
    }
    struct agent_link link;
    if (agent_link_open(&link, socket_path, false, why, sizeof why) < 0) {
        tally_error("request: %s", why);
        return TALLY_EXIT_ERROR;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt; /* no SA_RESTART: the wait for lines returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int errors = 0, status = TALLY_EXIT_OK;
    char **csrs = calloc((size_t)argc, sizeof *csrs);
    size_t ncsr = 0;
    for (int i = optind; i < argc && !interrupted; i++) {
        bool sent = agent_link_send(&link, json_pack("{s:s, s:s}", "op", "request", "text",
                                                      argv[i])) == 0;
        /* Unsent: what the agent said before closing (a refusal) is still read. */
        char *name = until_done(&link, sent ? timeout : 1, &errors);
        if (!name) {
            if (!interrupted) {
                tally_error("request: no answer from the agent%s",
                            link.broken ? " (it closed the connection)" : "");
                status = TALLY_EXIT_ERROR;
            }
            break;
        }
        if (!*name) { /* refused: nothing more will be answered */
            free(name);
            break;
        }
        if (!strncmp(name, "csr_", 4) && csrs) {
            csrs[ncsr++] = name;
            if (follow) { /* a csr starts disabled (as in the seed): start it */
                char text[64];
                snprintf(text, sizeof text, ":csr_enable([%s])", name);
                agent_link_send(&link, json_pack("{s:s, s:s}", "op", "request", "text", text));
                free(until_done(&link, timeout, &errors));
            }
        } else {
            free(name);
        }
    }
    if (follow && ncsr && status == TALLY_EXIT_OK) {
        while (!interrupted) {
            json_t *line = agent_link_read(&link, -1);
            if (!line) {
                if (link.broken) {
                    tally_error("request: the agent closed the connection");
                    status = TALLY_EXIT_ERROR;
                    break;
                }
                continue;
            }
            print_line(line);
            json_decref(line);
        }
        /* Delete what we defined; its lines and the done line are printed. */
        for (size_t k = 0; k < ncsr && !link.broken; k++) {
            char text[64];
            snprintf(text, sizeof text, ":csr_delete([%s])", csrs[k]);
            interrupted = 0;
            agent_link_send(&link, json_pack("{s:s, s:s}", "op", "request", "text", text));
            int ignored = 0;
            free(until_done(&link, timeout, &ignored));
        }
    }
    for (size_t k = 0; k < ncsr; k++)
        free(csrs[k]);
    free(csrs);
    agent_link_close(&link);
    if (status == TALLY_EXIT_OK && errors)
        status = TALLY_EXIT_FAILURE;
    return status;
}
