/* Requests (agent_eval.c): evaluation of a request text, events for conditional requests, timers.
 * Part of the agent; not a public interface. */
#ifndef TALLY_AGENT_AGENT_EVAL_H
#define TALLY_AGENT_AGENT_EVAL_H

#include "agent/agent_state.h"

/* Evaluates one request text from client c: reply lines to c. */
void agent_request(struct agent *a, struct agent_client *c, const char *text);
/* Events seen by the tree code, for conditional requests. */
enum agent_event { AGENT_EVENT_PROC_CREATED, AGENT_EVENT_PROC_TERMINATED,
                   AGENT_EVENT_LIMIT_EXCEEDED };
void agent_event(struct agent *a, enum agent_event kind, const struct agent_task *t, pid_t pid,
                 json_t *detail);
/* timer(PERIOD) requests that are due; returns the next due time (monotonic) or INFINITY. */
double agent_fire_timers(struct agent *a, double now);
/* Drops what belongs to a client that went away (its conditional requests). */
void agent_forget_client(struct agent *a, struct agent_client *c);

#endif
