/* The tool's side of a request over NATS: publish the request text on the
 * subjects of its route with one fresh reply inbox, then gather the agents'
 * JSON-line answers. Each agent ends its answer with a line holding
 * "done": true. The gathering ends when every addressed agent is done (a
 * request addressed to nodes: their number is known); when the number is
 * not known (applications, sites, all), once at least one agent is done
 * and no answer came for a quiet period, but, when the done lines say which
 * MPI ranks their agents hold (a switch: rank_cover.h), not before those
 * ranks are all accounted for and every agent that began to answer is
 * done; in every case at the timeout. A switch that ends at
 * the timeout with ranks unaccounted for gets one more done line, of no
 * node, whose error names them. */
#ifndef TALLY_CLIENT_NATS_GATHER_H
#define TALLY_CLIENT_NATS_GATHER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "client/nats_link.h"
#include "client/subjects.h"

struct gather_options {
    double quiet;      /* seconds of silence after a done that end the gathering (default 0.05) */
    double timeout;    /* seconds at most (default 5) */
    bool follow;       /* keep reading after the dones (conditional requests) until *stop */
    volatile int *stop;/* follow: set (e.g. by SIGINT) to end */
    const char *inbox; /* reply subject to use again (a follow's later requests); NULL: a new one */
    unsigned serial;   /* makes the request's id unique on that inbox */
    const json_t *message; /* set (text NULL): a protocol message (e.g. levels) instead of a request */
    void (*on_line)(void *ctx, const char *line, size_t length);
    void *ctx;
    bool (*enough)(void *ctx); /* set: the gathering ends as soon as it says so (else at the timeout;
                                  the quiet period does not apply) */
};

struct gather_result {
    size_t answers;    /* agents that said done */
    size_t lines;      /* lines received */
    double sent_ms;    /* when the request was handed to the NATS link (CLOCK_MONOTONIC ms; 0: nothing sent) */
    double answered_ms;/* when the last done line came (CLOCK_MONOTONIC ms; 0: none) */
    bool refused;      /* the server refused the publication (permissions) */
    char inbox[256];   /* the reply subject used (follow: to send more on) */
    char error[320];   /* one line when the gathering failed */
};

/* text NULL and no options->message: publish nothing, only read what comes
 * to the inbox (follow). The request goes out as
 * {"id": "<inbox>#<serial>", "request": text} (a message as
 * {"id", "message": {...}}): an agent reached on several subjects answers
 * once per id.
 * Returns 0 when at least one agent answered, else -1 with result->error set. */
int nats_gather(struct nats_link *link, const struct subject_route *route, const char *text,
                const struct gather_options *options, struct gather_result *result);

#endif
