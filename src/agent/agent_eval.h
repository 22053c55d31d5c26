/* Requests (agent_eval.c): evaluation of a request text, events for conditional requests, timers.
 * Part of the agent; not a public interface. */
#ifndef TALLY_AGENT_AGENT_EVAL_H
#define TALLY_AGENT_AGENT_EVAL_H

#include "agent/agent_state.h"

/* Evaluates one request text from client c: reply lines to c. */
void agent_request(struct agent *a, struct agent_client *c, const char *text);
/* An event seen by the tree code (enum agent_event), for conditional
 * requests; the trees call it through a->up.event. */
void agent_event(struct agent *a, enum agent_event kind, const struct agent_task *t, pid_t pid,
                 json_t *detail);
/* 'times' occurrences of a probe or MPI event (kind, name) in process pid
 * of task t, their $len adding up to len_sum, through the registry: csrs
 * whose actions are only increments take all of them exactly
 * (csr_apply_batch); the others fire once. The probes (agent_probes.c) call
 * it through a->up.instrumented_event. */
void agent_instrumented_event(struct agent *a, const struct agent_task *t, pid_t pid,
                              enum event_kind kind, const char *name, double times,
                              double len_sum);
/* timer(PERIOD) requests that are due; returns the next due time (monotonic) or INFINITY. */
double agent_fire_timers(struct agent *a, double now);
/* Drops what belongs to a client that went away (its conditional requests). */
void agent_forget_client(struct agent *a, struct agent_client *c);

#endif
