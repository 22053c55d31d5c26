/* Admission of TCP connections to a libmicrohttpd daemon that runs in the
 * caller's own event loop (the agent's /metrics). Slow or idle clients can
 * hold a connection open for as long as they trickle bytes: with a fixed
 * connection limit, a few dozen of them lock every scrape out. The gate
 * accepts the connections itself and hands them to the daemon with two
 * bounds no client gets round:
 *   - at most MAX connections at once: a new one evicts the oldest of
 *     those that had sent nothing when accepted, else the oldest whose
 *     request is not complete yet (one being answered is never evicted),
 *     accepting at most MAX/2 a round, the daemon serving between rounds;
 *     the connections OWN_PEER(CTX, fd) says are the host user's own (the
 *     caller's test of the peer) are bounded apart, by OWN_MAX, with the
 *     same rule among themselves: others' connections never evict them;
 *   - DEADLINE seconds per connection, from accept to the end of its answer
 *     (answers should carry "Connection: close": one request each).
 * An evicted or late connection is shut down; the daemon then closes it. */
#ifndef TALLY_UTIL_HTTP_GATE_H
#define TALLY_UTIL_HTTP_GATE_H

#include <microhttpd.h>

#include "util/libmhd_api.h"
#include <stdbool.h>
#include <stddef.h>

struct http_gate;

/* Serves LISTEN_FD (listening, non-blocking; the gate owns it) with
 * HANDLER(CTX, ...). OWN_PEER may be NULL (every connection is bounded by
 * MAX). NULL with the reason in err. */
struct http_gate *http_gate_start(int listen_fd, unsigned max, unsigned own_max, double deadline,
                                  MHD_AccessHandlerCallback handler, void *ctx,
                                  bool (*own_peer)(void *ctx, int fd), char *why, size_t why_size);
/* One fd for the caller's loop: readable when there is work (then call
 * http_gate_run). */
int http_gate_fd(const struct http_gate *gate);
/* Accepts new connections, ends those past their deadline, serves what is
 * ready. Call it when http_gate_fd is readable and at least once a second. */
void http_gate_run(struct http_gate *gate);
/* Connections open now (for tests and status). */
size_t http_gate_open_connections(const struct http_gate *gate);
void http_gate_stop(struct http_gate *gate);

#endif
