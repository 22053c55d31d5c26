/* The options of the tools that talk to agents through client/live_client.h
 * (tally top, tally view --live, tally contract watch): --agent SOCKET,
 * --nats URL, --creds FILE, --user NAME, and their refresh period. Put
 * LIVE_CLIENT_LONG_OPTIONS in the getopt_long table and hand every option
 * to live_client_option() first. */
#ifndef TALLY_CLI_LIVE_OPTIONS_H
#define TALLY_CLI_LIVE_OPTIONS_H

#include "client/live_client.h"

enum { OPT_LIVE_AGENT = 0x1200, OPT_LIVE_NATS, OPT_LIVE_CREDS, OPT_LIVE_USER };

#define LIVE_CLIENT_LONG_OPTIONS                                                             \
    {"agent", required_argument, 0, OPT_LIVE_AGENT}, {"nats", required_argument, 0, OPT_LIVE_NATS}, \
    {"creds", required_argument, 0, OPT_LIVE_CREDS}, {"user", required_argument, 0, OPT_LIVE_USER}

#define LIVE_CLIENT_USAGE                                                                   \
    "      --agent SOCKET      the local agent (default: the user's)\n"                      \
    "      --nats URL          the agents of every host and site, through NATS\n"            \
    "      --creds FILE        NATS credentials (a .creds file or one line user:password)\n" \
    "      --user NAME         NATS subjects of this user (default: your login name)\n"

/* 0 when C (getopt_long's answer) was one of the options above, taken into
 * o; -1 otherwise. */
int live_client_option(int c, const char *arg, struct live_client_options *o);

/* ARG as a refresh period of at least 0.1 s into *out; -1 after the message
 * "WHO: OPTION 'ARG': why". */
int live_period_option(const char *who, const char *option, const char *arg, double *out);

#endif
