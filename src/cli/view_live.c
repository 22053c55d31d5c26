/* 'tally view --live APP [--serve PORT] ...': the live page of an
 * application (src/view/live_view.c does the work; this file parses the
 * command line). Reached from cmd_view when --live is among its arguments.
 * See man/tally-view.1. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/live_options.h"
#include "view/live_view.h"
#include "util/error.h"

static const char usage_text[] =
    "usage: tally view --live APP [--serve [PORT]] [--agent SOCKET | --nats URL [--creds FILE]\n"
    "                  [--user NAME]] [--interval TIME] [--bars REQUEST [--bars-field NAME]]\n"
    "\n"
    "Serves on 127.0.0.1:PORT (default 8080; 0 picks a free one) a page charting the live\n"
    "measurements of application APP on every host that runs it: CPU, memory, I/O and\n"
    "network per host over time, updated every interval without reloading; with --bars, a\n"
    "bar per value of a conditional request (G-PM's chart of a counter per step), e.g.\n"
    "  --bars 'thread_executes_probe([app_sim], \"nextstep\"): pa_counter_read([c_1], 1)'\n"
    "\n"
    LIVE_CLIENT_USAGE
    "      --interval TIME     between two samples (default 1 s)\n"
    "      --bars REQUEST      a conditional request whose answers are drawn as bars\n"
    "      --bars-field NAME   the answers' result field drawn (default value)\n"
    "  -h, --help              this help\n"
    "\n"
    "Exit status: 0 after SIGINT/SIGTERM; 125 on an error (no agent, port in use).\n";

enum { OPT_LIVE = 256, OPT_SERVE, OPT_EVERY, OPT_BARS, OPT_BARS_FIELD };

bool view_live_requested(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--live") || !strncmp(argv[i], "--live=", 7))
            return true;
    return false;
}

int cmd_view_live(int argc, char **argv)
{
    static const struct option options[] = {
        {"live", required_argument, 0, OPT_LIVE},      {"serve", optional_argument, 0, OPT_SERVE},
        LIVE_CLIENT_LONG_OPTIONS,
        {"interval", required_argument, 0, OPT_EVERY}, {"bars", required_argument, 0, OPT_BARS},
        {"bars-field", required_argument, 0, OPT_BARS_FIELD}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    struct live_view_options o = {.port = 8080};
    char why[512];
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage_text, stdout);
            return TALLY_EXIT_OK;
        case OPT_LIVE:
            o.app = optarg;
            break;
        case OPT_SERVE: {
            const char *port = optarg ? optarg
                               : optind < argc && strspn(argv[optind], "0123456789") == strlen(argv[optind]) &&
                                         *argv[optind] ? argv[optind++] : NULL;
            if (port) {
                char *end;
                long p = strtol(port, &end, 10);
                if (*end || p < 0 || p > 65535) {
                    tally_error("view: --serve '%s': not a port number (0-65535)", port);
                    return TALLY_EXIT_ERROR;
                }
                o.port = (unsigned)p;
            }
            break;
        }
        case OPT_EVERY:
            if (live_period_option("view", "--interval", optarg, &o.interval) < 0)
                return TALLY_EXIT_ERROR;
            break;
        case OPT_BARS:
            o.bars = optarg;
            break;
        case OPT_BARS_FIELD:
            o.bars_field = optarg;
            break;
        default:
            if (live_client_option(c, optarg, &o.client) == 0)
                break;
            tally_error("view: unknown or incomplete option '%s' (see 'tally view --live APP --help')",
                        argv[optind - 1]);
            return TALLY_EXIT_ERROR;
        }
    }
    if (optind < argc) {
        tally_error("view: --live takes no trace file (found '%s')", argv[optind]);
        return TALLY_EXIT_ERROR;
    }
    if (!o.app || !*o.app) {
        tally_error("view: --live needs an application name");
        return TALLY_EXIT_ERROR;
    }
    if (live_view_serve(&o, why, sizeof why) < 0) {
        tally_error("view: --live %s: %s", o.app, why);
        return TALLY_EXIT_ERROR;
    }
    return TALLY_EXIT_OK;
}
