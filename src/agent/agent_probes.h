/* Probe and MPI events read from instrumented processes' segments (agent_probes.c).
 * Part of the agent; not a public interface. */
#ifndef TALLY_AGENT_AGENT_PROBES_H
#define TALLY_AGENT_AGENT_PROBES_H

#include "agent/agent_state.h"

/* Polls the segments of instrumented tasks while a csr on a probe or MPI
 * event is enabled; returns the next due time (monotonic), INFINITY when
 * none is. */
double agent_probes_poll(struct agent *a, double now);
/* Before csrs are disabled or deleted: their events so far are read now
 * (not lost with the last poll interval), and the next loop turn polls
 * again, switching off what they held on (agent_recording.c). */
void agent_probes_flush(struct agent *a, double now);
/* Is some process of a task with segments inside the event's objects? */
bool agent_probes_match(const struct agent *a, const struct request_call *event);
void agent_probes_free(struct agent *a);

#endif
