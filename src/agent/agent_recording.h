/* Switching the recording of instrumented processes (agent_recording.c).
 * Part of the agent; not a public interface. */
#ifndef TALLY_AGENT_AGENT_RECORDING_H
#define TALLY_AGENT_AGENT_RECORDING_H

#include "agent/agent_state.h"

/* proc_record_start/stop on pid: KINDS (TALLY_ON_* bits) held on or
 * released; a start with a DURATION > 0 (seconds) releases what is held
 * when it has passed since the process was switched (each rank of a
 * request records the whole DURATION, however long the others took). Returns the process's answer, or NULL with why (not
 * instrumented, not started with --window request, finished). */
json_t *agent_record_switch(struct agent *a, pid_t pid, uint32_t kinds, bool on, double duration,
                            char *why, size_t why_size);
/* Releases what timed starts held once their duration has passed; returns
 * the next such deadline (monotonic s), INFINITY when there is none. */
double agent_recording_expire(struct agent *a, double now);
/* At each probe poll: processes started with --window request record what
 * a request holds on or an enabled csr on their events (wanted[0..n))
 * wants, and nothing else. */
void agent_recording_follow(struct agent *a, const struct csr_pushdown *wanted, size_t n);
/* {"on": ["mpi", ...], "driver", "periods", "request", "ack", "ack_ms"} of a segment. */
json_t *agent_recording_json(const struct tally_segment *seg);

#endif
