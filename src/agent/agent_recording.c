/* Switching the recording of instrumented processes from the agent (seed
 * 001 §7: instrumentation active only while a measurement needs it; seed
 * 004 §5: switched on for a window and off again). A process started with
 * 'tally run --agent --mpi|--probes --window request' records nothing until
 * the agent switches it on, in periods:
 *  - proc_record_start(OBJECTS [, "mpi"|"probes"|"all" [, DURATION]]) holds
 *    the kinds on until proc_record_stop releases them, or for DURATION
 *    (ScoPro's short window, asked in one request);
 *  - an enabled csr on lib_call_started/ended holds MPI on, one on
 *    thread_executes_probe holds probes on, in the processes of its scope,
 *    until it is disabled or deleted.
 * The switch is tally_seg_monitor_switch (include/tally/segment_switch.h):
 * one store per process, taken by the process at its next MPI call or
 * marker hit (its acknowledgement). Processes of other windows (their own
 * marker, a uprobe) are never switched: a request is refused. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agent/agent_recording.h"
#include "agent/agent_state.h"
#include "agent/agent_segments.h"
#include "agent/agent_tree.h"
#include "tally/segment_switch.h"
#include "util/clock.h"

static bool finished(const struct tally_segment *seg)
{
    return seg->d.t_finalize || (seg->d.flags & TALLY_SEG_FINISHED);
}

/* Makes the process record what is held on or wanted, if that changed,
 * switched at `at` (CLOCK_MONOTONIC ns). */
static void apply_at(struct agent_segment *m, unsigned long long at)
{
    struct tally_segment *seg = m->seg;
    if (seg->d.window.driver != TALLY_WINDOW_BY_REQUEST || finished(seg))
        return;
    tally_seg_monitor_switch(seg, (m->held | m->by_csr) & TALLY_ON_ANY, at);
}

static void apply(struct agent_segment *m)
{
    apply_at(m, clock_monotonic_ns());
}

json_t *agent_recording_json(const struct tally_segment *seg)
{
    const struct tally_seg_control *c = &seg->control.c;
    uint32_t on = __atomic_load_n(&c->on, __ATOMIC_ACQUIRE);
    json_t *kinds = json_array();
    if (on & TALLY_ON_MPI)
        json_array_append_new(kinds, json_string("mpi"));
    if (on & TALLY_ON_PROBES)
        json_array_append_new(kinds, json_string("probes"));
    static const char *const drivers[] = {"marker", "uprobe marker", "request"};
    uint32_t driver = seg->d.window.driver;
    uint64_t request = __atomic_load_n(&c->request, __ATOMIC_ACQUIRE);
    uint64_t ack = __atomic_load_n(&c->ack, __ATOMIC_ACQUIRE);
    json_t *o = json_pack("{s:o, s:s, s:I, s:I, s:I}", "on", kinds, "driver",
                          driver < 3 ? drivers[driver] : "unknown", "periods",
                          (json_int_t)seg->d.window.periods, "request", (json_int_t)request,
                          "ack", (json_int_t)ack);
    if (ack && ack == request) /* when the process took the last switch (monotonic ms) */
        json_object_set_new(o, "ack_ms", json_real((double)c->ack_ns / 1e6));
    if (finished(seg))
        json_object_set_new(o, "finished", json_true());
    return o;
}

json_t *agent_record_switch(struct agent *a, pid_t pid, uint32_t kinds, bool on, double duration,
                            char *why, size_t why_size)
{
    struct agent_segment *m = agent_segments_find(a, pid);
    if (!m) {
        snprintf(why, why_size, "not an instrumented process (started by 'tally run --agent --mpi|--probes "
                               "--window request', and registered: MPI_Init or the first probe)");
        return NULL;
    }
    if (m->seg->d.window.driver != TALLY_WINDOW_BY_REQUEST) {
        snprintf(why, why_size, "its recording is switched by its %s window, not by requests "
                               "(tally run --window request)",
                 m->seg->d.window.driver == TALLY_WINDOW_BY_MONITOR ? "uprobe marker's" : "own");
        return NULL;
    }
    if (finished(m->seg)) {
        snprintf(why, why_size, "it has finished (MPI_Finalize or exit): nothing left to record");
        return NULL;
    }
    unsigned long long switched = clock_monotonic_ns(); /* the period opens at this store */
    if (on) {
        m->held |= kinds;
        m->held_until = duration > 0 ? (double)switched / 1e9 + duration : 0;
    } else {
        m->held &= ~kinds;
        if (!m->held)
            m->held_until = 0;
    }
    double switched_ms = (double)switched / 1e6;
    apply_at(m, switched);
    json_t *answer = agent_recording_json(m->seg);
    /* when the agent switched it, on the host's CLOCK_MONOTONIC like ack_ms:
     * a later ack_ms minus this is how long the process took to take it */
    json_object_set_new(answer, "switched_ms", json_real(switched_ms));
    if (m->seg->d.flags & TALLY_SEG_MPI) /* which rank of how many: the done line counts them */
        json_object_set_new(answer, "rank", json_pack("[i, i]", (int)m->seg->d.rank, (int)m->seg->d.ranks));
    if (m->held_until)
        json_object_set_new(answer, "for", json_pack("[f, s]", duration, "s"));
    return answer;
}

double agent_recording_expire(struct agent *a, double now)
{
    struct agent_segment *maps;
    size_t count = agent_segments_mapped(a, &maps);
    double next = INFINITY;
    for (size_t i = 0; i < count; i++) {
        if (!maps[i].held_until)
            continue;
        if (now < maps[i].held_until) {
            next = fmin(next, maps[i].held_until);
            continue;
        }
        maps[i].held = 0;
        maps[i].held_until = 0;
        apply(&maps[i]);
    }
    return next;
}

/* The kinds the enabled csrs want of process m. */
static uint32_t wanted_by_csrs(struct agent *a, const struct agent_segment *m,
                               const struct csr_pushdown *wanted, size_t n)
{
    const struct agent_task *t = agent_task_find(a, m->task);
    if (!t)
        return 0;
    uint32_t kinds = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t kind = wanted[i].event == EVENT_PROBE ? TALLY_ON_PROBES : TALLY_ON_MPI;
        struct event_occurrence occ = {.kind = wanted[i].event, .pid = m->pid, .host = a->host,
                                       .app = t->app, .site = a->site, .name = wanted[i].name};
        if (!(kinds & kind) && csr_scope_matches(wanted[i].scope, &occ))
            kinds |= kind;
    }
    return kinds;
}

void agent_recording_follow(struct agent *a, const struct csr_pushdown *wanted, size_t n)
{
    struct agent_segment *maps;
    size_t count = agent_segments_mapped(a, &maps);
    for (size_t i = 0; i < count; i++) {
        if (maps[i].seg->d.window.driver != TALLY_WINDOW_BY_REQUEST)
            continue;
        uint32_t kinds = n ? wanted_by_csrs(a, &maps[i], wanted, n) : 0;
        if (kinds == maps[i].by_csr)
            continue;
        maps[i].by_csr = kinds;
        apply(&maps[i]);
    }
}
