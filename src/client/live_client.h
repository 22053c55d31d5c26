/* A tool's connection to one user's agents, over either transport: the
 * local agent's Unix socket, or NATS for agents on any host and site. The
 * live views (tally view --live, tally top) are written against this, not
 * against a transport.
 *
 *   live_client_ask(c, ":proc_get_info([app_sim], 0x1f)", on_line, ctx, ...)
 *       an unconditional request: every answer line, done lines included;
 *   live_client_follow(c, "timer(1s): pa_counter_read([c_1], 1)", ...)
 *       a conditional request, defined and enabled on every agent it reaches;
 *       its lines then come through live_client_next, on their own
 *       connection, until the client is closed (which deletes it).
 *
 * The life of a conditional request is written once, here: defined
 * (live_client_request or live_client_follow: the csr_N each agent answers
 * is kept with its node), enabled (live_client_enable: a csr starts
 * disabled), deleted (live_client_delete, or the close). 'tally request'
 * drives the steps itself, printing every answer. */
#ifndef TALLY_CLIENT_LIVE_CLIENT_H
#define TALLY_CLIENT_LIVE_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct live_client_options {
    const char *socket;      /* local agent (NULL: the user's default socket) */
    const char *nats_url;    /* set: NATS instead of the socket */
    const char *creds, *user;
    double timeout;          /* seconds to wait for answers (default 5) */
    /* NATS only: */
    const char *node;        /* the agent for requests naming no location (NULL: every agent) */
    double quiet;            /* silence that ends a gathering of unknown size (0: nats_gather's) */
    unsigned expect;         /* > 0: a request naming no node ends once this many agents answered */
    /* One connection for everything: followed lines come among the answers
     * (a tool that prints all in order: tally request). */
    bool single_connection;
};

/* What a tool is told of one request's answers: every line (borrowed), then
 * the end of the request once every agent is done. */
struct live_answers {
    void (*line)(void *ctx, json_t *line);
    void (*end)(void *ctx);
    void *ctx;
};

struct live_client;

int live_client_open(const struct live_client_options *options, struct live_client **out,
                     char *why, size_t why_size);
void live_client_close(struct live_client *client);

/* 0, or -1 with why (no agent answered, refused, connection lost). */
int live_client_ask(struct live_client *client, const char *text,
                    void (*on_line)(void *ctx, json_t *line), void *ctx, char *why,
                    size_t why_size);
/* A protocol message for the agents that keep it (e.g. {"op":"levels",...};
 * the reference is stolen): over the socket, the local agent; over NATS,
 * the agent of each of the hosts named (on tally.<user>.req.node.<host>;
 * each keeps its own host's part). Returns how many agents took it, or -1
 * with why (an agent refused it or did not answer). */
int live_client_tell(struct live_client *client, json_t *message, const char *const *hosts,
                     size_t host_count, char *why, size_t why_size);
int live_client_follow(struct live_client *client, const char *text, char *why, size_t why_size);

/* A request on the connection conditional requests live on (the stream
 * connection; the one connection with single_connection): every answer to
 * answers, and each csr_N an agent defines is kept for the steps below.
 * 0, or -1 with why (live_client_refused then says whether the agent or
 * the NATS server refused it). */
int live_client_request(struct live_client *client, const char *text, const struct live_answers *answers,
                        char *why, size_t why_size);
/* How many conditional requests the client defined and has not deleted. */
size_t live_client_defined(const struct live_client *client);
/* Enables each csr defined and not enabled yet, on its agent; answers->end
 * after each one answered. 0, or -1 with the first failure's why. */
int live_client_enable(struct live_client *client, const struct live_answers *answers, char *why,
                       size_t why_size);
/* Deletes each csr defined, on its agent (answers may be NULL). */
void live_client_delete(struct live_client *client, const struct live_answers *answers);
/* Over NATS, the last request's publication and the arrival of its last
 * done line, on this host's CLOCK_MONOTONIC in ms (0 when not known; the
 * socket: both 0). Valid in answers->end. */
void live_client_times(const struct live_client *client, double *sent_ms, double *answered_ms);
/* The last failure was a refusal (the agent's, or the NATS server's). */
bool live_client_refused(const struct live_client *client);
/* Hands every followed line to answers->line until *stop is set (e.g. by
 * SIGINT; the wait returns on a signal). 0, or -1 with why when the agent
 * closed the connection. */
int live_client_stream(struct live_client *client, volatile int *stop, const struct live_answers *answers,
                       char *why, size_t why_size);
/* Readable when followed lines may have arrived; -1 when nothing is followed. */
int live_client_stream_fd(const struct live_client *client);
/* The next followed line (a new reference), or NULL when none is waiting. */
json_t *live_client_next(struct live_client *client);

#endif
