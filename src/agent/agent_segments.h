/* Instrumented processes' segments, mapped read-write (agent_segments.c).
 * Part of the agent; not a public interface. */
#ifndef TALLY_AGENT_AGENT_SEGMENTS_H
#define TALLY_AGENT_AGENT_SEGMENTS_H

#include "agent/agent_state.h"

struct agent_segment {
    unsigned task;                 /* the agent task it belongs to */
    pid_t pid;
    struct tally_segment *seg;     /* mapped read-write, this user's file */
    uint32_t held;                 /* TALLY_ON_* kinds proc_record_start holds on */
    uint32_t by_csr;               /* TALLY_ON_* kinds enabled csrs want (agent_recording.c) */
    double held_until;             /* monotonic s when `held` is released; 0: at proc_record_stop */
};
/* Unmaps the segments of ended tasks and maps those registered since. */
void agent_segments_rescan(struct agent *a);
/* The mapped ones, without looking for new ones. */
size_t agent_segments_mapped(struct agent *a, struct agent_segment **out);
/* The segment of process pid of an instrumented task, mapped on demand and
 * kept while its task lives; NULL when it has none (not instrumented, not
 * registered yet, or not this user's). Valid until the next call of these. */
struct agent_segment *agent_segments_find(struct agent *a, pid_t pid);
void agent_segments_free(struct agent *a);

#endif
