/* The agent's clients (agent_io.c): queue a line for one, whichever
 * transport carries it, write what is pending; and (agent.c, the loop) take
 * a line from one. Part of the agent; not a public interface. */
#ifndef TALLY_AGENT_AGENT_IO_H
#define TALLY_AGENT_AGENT_IO_H

#include "agent/agent_state.h"

/* Queues one JSON line (steals the reference) for the client. */
void agent_send(struct agent *a, struct agent_client *c, json_t *line);
/* One line from client c: a JSON message ("op") or a request text. */
void agent_handle_line(struct agent *a, struct agent_client *c, const char *line);
/* Writes what every client has pending (once per loop turn). */
void agent_flush(struct agent *a);
/* Writes what c has pending until its socket is full: 0, or -1 when the
 * connection failed (the other end gone: agent_client_gone). */
int agent_client_flush(struct agent *a, struct agent_client *c);
/* Drops what is pending for c (it is being closed for not reading). */
void agent_client_discard(struct agent *a, struct agent_client *c);
/* Tells epoll what c waits for: input unless its reads are paused
 * (read_paused), output while its socket was full (wants_out). */
void agent_client_interest(struct agent *a, struct agent_client *c);
/* Marks c to be closed by the loop. */
void agent_client_close(struct agent *a, struct agent_client *c);
/* The other end of c went away (its end read, or a write failed with
 * EPIPE or ECONNRESET): closed as peer_gone, so that a runner's guarded
 * tree is ended whichever the loop met first. */
void agent_client_gone(struct agent *a, struct agent_client *c);

#endif
