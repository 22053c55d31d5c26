/* The agent loop's side of its clients (agent.c): queue a line for one, take a line from one, write what is pending.
 * Part of the agent; not a public interface. */
#ifndef TALLY_AGENT_AGENT_IO_H
#define TALLY_AGENT_AGENT_IO_H

#include "agent/agent_state.h"

/* Queues one JSON line (steals the reference) for the client. */
void agent_send(struct agent *a, struct agent_client *c, json_t *line);
/* One line from client c: a JSON message ("op") or a request text. */
void agent_handle_line(struct agent *a, struct agent_client *c, const char *line);
/* Writes what every client has pending (once per loop turn). */
void agent_flush(struct agent *a);

#endif
