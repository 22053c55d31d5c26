/* Opening and closing a recording period in a segment, and a monitor's
 * switch of a process's recording: the one accounting shared by the process
 * side (lib/probe/segment.c: its own marker window, the program's end) and
 * the monitors (tally run's uprobe-marker thread, src/instrument/session.c;
 * the agent on request, src/live/agent_recording.c). Not for applications.
 *
 * A window is one or more periods: window.periods counts them, t_first_on
 * is the first opening, t_on/t_off the last period's, on_ns and hits_in the
 * closed periods' total length and marker hits (docs/instrumentation.md). */
#ifndef TALLY_SEGMENT_SWITCH_H
#define TALLY_SEGMENT_SWITCH_H

#include <stdbool.h>

#include "tally/segment.h"

/* A period opens at NOW (the marker's hit count read from the segment);
 * nothing when one is open. */
static inline void tally_seg_period_open(struct tally_seg_window *w, uint64_t hits, uint64_t now)
{
    if (w->state == TALLY_WINDOW_OPEN)
        return;
    w->t_on = now;
    w->hits_on = hits;
    if (!w->periods++)
        w->t_first_on = now;
    w->state = TALLY_WINDOW_OPEN;
}

/* The open period closes at NOW after HITS marker hits in all; nothing
 * when none is open (the process's end and a monitor's switch-off may
 * both come to close it). */
static inline void tally_seg_period_close(struct tally_seg_window *w, uint64_t hits, uint64_t now)
{
    if (w->state != TALLY_WINDOW_OPEN)
        return;
    w->t_off = now;
    w->hits_off = hits;
    w->on_ns += now > w->t_on ? now - w->t_on : 0;
    w->hits_in += hits > w->hits_on ? hits - w->hits_on : 0;
    w->state = TALLY_WINDOW_CLOSED;
}

/* The periods' total length up to NOW (an open period counts to NOW). */
static inline uint64_t tally_seg_recorded_ns(const struct tally_seg_window *w, uint64_t now)
{
    return w->on_ns + (w->state == TALLY_WINDOW_OPEN && now > w->t_on ? now - w->t_on : 0);
}

/* A monitor sets the recorded kinds of S to MASK (TALLY_ON_ANY bits) at
 * NOW: a period opens when recording goes from nothing to something and
 * closes when it goes back. `request` is bumped before `on` is stored with
 * TALLY_ON_PENDING, so the process, which clears PENDING before it reads
 * `request`, never acknowledges a request older than the `on` it saw.
 * Returns false when MASK was already the state (nothing written). */
static inline bool tally_seg_monitor_switch(struct tally_segment *s, uint32_t mask, uint64_t now)
{
    struct tally_seg_window *w = &s->d.window;
    uint32_t was = __atomic_load_n(&s->control.c.on, __ATOMIC_ACQUIRE) & TALLY_ON_ANY;
    mask &= TALLY_ON_ANY;
    if (was == mask)
        return false;
    uint64_t hits = __atomic_load_n(&s->d.marker_hits, __ATOMIC_RELAXED);
    if (!was)
        tally_seg_period_open(w, hits, now);
    else if (!mask)
        tally_seg_period_close(w, hits, now);
    if (mask)
        w->mask = mask;
    __atomic_add_fetch(&s->control.c.request, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&s->control.c.on, mask | TALLY_ON_PENDING, __ATOMIC_RELEASE);
    return true;
}

#endif
