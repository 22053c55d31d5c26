/* 'tally request --nats URL': the same requests as on the local socket,
 * sent over NATS to the agents that host their objects on any host and site
 * (see request_nats.c and docs/agent-nats.md). */
#ifndef TALLY_CLI_REQUEST_NATS_H
#define TALLY_CLI_REQUEST_NATS_H

#include <stdbool.h>
#include <signal.h>

#include "client/live_client.h"

/* What only NATS does (the route, --node, --quiet, --expect and the timeout
 * are the live_client's options). */
struct request_nats_options {
    bool follow;
    unsigned repeat;         /* > 1: send each request this many times, print round-trip times */
    volatile sig_atomic_t *interrupted;
};

/* Sends each text; prints the agents' lines and one final line per request.
 * Returns tally request's exit status. */
int request_over_nats(struct live_client *client, const struct request_nats_options *options,
                      char *const texts[], int count);

#endif
