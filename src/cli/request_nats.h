/* 'tally request --nats URL': the same requests as on the local socket,
 * sent over NATS to the agents that host their objects on any host and site
 * (see request_nats.c and docs/agent-nats.md). */
#ifndef TALLY_CLI_REQUEST_NATS_H
#define TALLY_CLI_REQUEST_NATS_H

#include <stdbool.h>
#include <signal.h>

struct request_nats_options {
    const char *url, *creds, *user;
    const char *node;        /* agent for requests that name no location (NULL: all agents) */
    double timeout, quiet;
    bool follow;
    unsigned expect;         /* > 0: stop once this many agents answered (known fan-out) */
    unsigned repeat;         /* > 1: send each request this many times, print round-trip times */
    volatile sig_atomic_t *interrupted;
};

/* Sends each text; prints the agents' lines and one final line per request.
 * Returns tally request's exit status. */
int request_over_nats(const struct request_nats_options *options, char *const texts[], int count);

#endif
