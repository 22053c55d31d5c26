/* The agent's protocol: one table of operations ({"op": NAME, ...} messages),
 * taken from a socket client and from a NATS inbox alike. Whoever sent the
 * message is a peer, and a peer's send hides which transport carries the
 * answer (docs/agent.md, docs/agent-nats.md). */
#ifndef TALLY_AGENT_AGENT_OPS_H
#define TALLY_AGENT_AGENT_OPS_H

#include <stdint.h>

#include <jansson.h>

struct agent;
struct agent_client;

/* The sender of one message and the way back to it. */
struct agent_peer {
    struct agent *agent;
    struct agent_client *client; /* a socket client; NULL over NATS */
    const char *inbox;           /* NATS: the message's reply subject; NULL on the socket */
    uint64_t received;           /* CLOCK_MONOTONIC ns when the message came */
};

/* One line to the peer (the reference is stolen), as it is. */
void agent_peer_send(const struct agent_peer *p, json_t *line);
/* The one answer to a message: over NATS it also says which agent answers
 * ("site", "node") and that nothing follows ("done": true). */
void agent_peer_answer(const struct agent_peer *p, json_t *line);
/* An error line: {"error": WHY} on the socket; over NATS an answer with
 * "errors": [WHY], as a refused request gets. */
void agent_peer_error(const struct agent_peer *p, const char *why);

/* Takes one message (a JSON object) through the table: an operation the
 * peer's transport does not take, or one that needs a registered task when
 * the connection has none, gets an error line. */
void agent_ops_take(const struct agent_peer *p, json_t *msg);

#endif
