/* The agent's protocol: one table of operations ({"op": NAME, ...} messages),
 * taken from a socket client and from a NATS inbox alike. Whoever sent the
 * message is a peer, and a peer's send hides which transport carries the
 * answer (docs/agent.md, docs/agent-nats.md). */
#ifndef TALLY_AGENT_AGENT_OPS_H
#define TALLY_AGENT_AGENT_OPS_H

#include <jansson.h>

#include "agent/agent_state.h" /* struct agent_peer */

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

/* Sets a's calls back up (struct agent_upcalls) to this file's and
 * agent_eval.c's functions: agent_open does it, as must whoever builds an
 * agent by hand (tests). */
void agent_ops_connect(struct agent *a);

#endif
