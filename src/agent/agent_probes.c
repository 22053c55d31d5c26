/* Probe and MPI events for conditional requests, evaluated in the agent
 * (seed 001 §7): thread_executes_probe(objects, "name") and
 * lib_call_started|lib_call_ended(objects, "MPI_Send").
 *
 * An instrumented process (libtally-probe, libtally-mpi) records into its
 * shared-memory segment and sends nothing per event. 'tally run --agent
 * --probes|--mpi' tells the agent where its processes' segments are; while a
 * csr on such an event is enabled, the agent maps those segments
 * (agent_segments.c) and polls them every PROBE_POLL for each (probe or
 * function) the enabled
 * csrs name: the hits of a probe (or the marker, named "marker"), or the
 * calls and bytes of an MPI function, that appeared since the last poll go
 * to the registry as 'times' occurrences whose $len add up to the bytes of
 * those calls (agent_instrumented_event, through a->up). So counter increments are exact
 * (c_1 += $len sums every MPI_Send's bytes) and a read at a probe reads once
 * per poll in which the probe was hit (once per iteration for iterations
 * longer than PROBE_POLL). Nothing is polled while no such csr is enabled.
 * lib_call_started and lib_call_ended both see completed calls. A process
 * started with --window request records only while a request or such a csr
 * wants it (agent_recording.c, called at each poll). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_probes.h"
#include "agent/agent_state.h"
#include "agent/agent_recording.h"
#include "agent/agent_segments.h"
#include "agent/agent_tree.h"
#include "tally/segment.h"
#include "util/vec.h"

#define PROBE_POLL 0.01 /* seconds between polls while a probe or MPI csr is enabled */
#define RESCAN 0.02     /* seconds between looks for new segment files (a short MPI run must
                         * be mapped while it lives; one opendir per instrumented task) */

struct seen {                /* what one process last showed for one (event, name) */
    pid_t pid;
    enum event_kind kind;
    char name[TALLY_SEG_NAME];
    uint64_t count, bytes;
};

struct watching {            /* an (event, name) wanted since (monotonic seconds) */
    enum event_kind kind;
    char name[TALLY_SEG_NAME];
    double since;
    bool wanted;             /* by an enabled csr at this poll */
};

struct agent_probes {
    struct seen *seen;
    size_t seen_count, seen_cap;
    struct watching *watching;
    size_t watching_count, watching_cap;
    double next_poll, next_rescan;
    bool polling;            /* inside agent_probes_poll (a csr's action may call back) */
};

static const char *const mpi_names[] = {
#define TALLY_MPI_NAME(name) "MPI_" #name,
    TALLY_MPI_FUNCTIONS(TALLY_MPI_NAME)
#undef TALLY_MPI_NAME
};

static int mpi_function_index(const char *name)
{
    for (int i = 0; i < TALLY_MPI_FUNCTION_COUNT; i++)
        if (!strcmp(mpi_names[i], name))
            return i;
    return -1;
}

static struct seen *seen_of(struct agent_probes *p, pid_t pid, enum event_kind kind,
                            const char *name, bool *is_new)
{
    *is_new = false;
    for (size_t i = 0; i < p->seen_count; i++)
        if (p->seen[i].pid == pid && p->seen[i].kind == kind && !strcmp(p->seen[i].name, name))
            return &p->seen[i];
    struct seen *s = VEC_PUSH(p->seen, p->seen_count, p->seen_cap);
    if (!s)
        return NULL;
    *is_new = true;
    *s = (struct seen){.pid = pid, .kind = kind};
    snprintf(s->name, sizeof s->name, "%s", name);
    return s;
}

/* What the event counts in one segment now: hits, or calls and bytes. */
static bool reading(enum event_kind kind, const char *name, const struct tally_seg_data *d,
                    uint64_t *count, uint64_t *bytes)
{
    *bytes = 0;
    if (kind == EVENT_PROBE) {
        if (!strcmp(name, "marker")) {
            *count = d->marker_hits;
            return true;
        }
        uint32_t n = d->probe_count < TALLY_SEG_MAX_PROBES ? d->probe_count : TALLY_SEG_MAX_PROBES;
        for (uint32_t i = 0; i < n; i++)
            if (!strncmp(d->probes[i].name, name, TALLY_SEG_NAME)) {
                *count = d->probes[i].hits;
                return true;
            }
        return false;
    }
    int f = mpi_function_index(name);
    if (f < 0 || !(d->flags & TALLY_SEG_MPI))
        return false;
    *count = d->functions[f].calls;
    *bytes = d->functions[f].bytes;
    return true;
}

/* Marks (kind, name) wanted now; returns since when it is watched. */
static double want(struct agent_probes *p, enum event_kind kind, const char *name, double now)
{
    for (size_t i = 0; i < p->watching_count; i++)
        if (p->watching[i].kind == kind && !strcmp(p->watching[i].name, name)) {
            p->watching[i].wanted = true;
            return p->watching[i].since;
        }
    struct watching *w = VEC_PUSH(p->watching, p->watching_count, p->watching_cap);
    if (!w)
        return now;
    *w = (struct watching){.kind = kind, .since = now, .wanted = true};
    snprintf(w->name, sizeof w->name, "%s", name);
    return now;
}

static void poll_one(struct agent *a, struct agent_probes *p, enum event_kind kind, const char *name,
                     double since)
{
    struct agent_segment *maps;
    size_t map_count = agent_segments_mapped(a, &maps);
    for (size_t m = 0; m < map_count; m++) {
        const struct agent_task *t = agent_task_find(a, maps[m].task);
        uint64_t count, bytes;
        if (!t || !reading(kind, name, &maps[m].seg->d, &count, &bytes))
            continue;
        bool is_new;
        struct seen *s = seen_of(p, maps[m].pid, kind, name, &is_new);
        if (!s)
            continue;
        /* A process that registered after the event was wanted counts from
         * its start; one already there, from now (its past is not the csr's). */
        if (is_new && (double)maps[m].seg->d.t_register / 1e9 <= since) {
            s->count = count;
            s->bytes = bytes;
            continue;
        }
        if (count <= s->count)
            continue;
        uint64_t times = count - s->count, len = bytes - s->bytes;
        s->count = count;
        s->bytes = bytes;
        a->up.instrumented_event(a, t, maps[m].pid, kind, name, (double)times, (double)len);
        map_count = agent_segments_mapped(a, &maps); /* its actions may have mapped one */
    }
}

double agent_probes_poll(struct agent *a, double now)
{
    struct csr_pushdown wanted[256];
    size_t n = csr_instrumented(a->registry, wanted, 256);
    if (n > 256)
        n = 256;
    if (n == 0) { /* recording the csrs held on is released */
        agent_recording_follow(a, wanted, 0);
        return INFINITY;
    }
    if (!a->probes && !(a->probes = calloc(1, sizeof *a->probes)))
        return INFINITY;
    struct agent_probes *p = a->probes;
    if (now < p->next_poll || p->polling)
        return p->next_poll;
    p->polling = true;
    /* Distinct (event, name) pairs, copied: firing may delete csrs. */
    struct { enum event_kind kind; char name[TALLY_SEG_NAME]; double since; } pairs[256];
    size_t pair_count = 0;
    for (size_t i = 0; i < p->watching_count; i++)
        p->watching[i].wanted = false;
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t k = 0; k < pair_count && !dup; k++)
            dup = pairs[k].kind == wanted[i].event && !strcmp(pairs[k].name, wanted[i].name);
        if (dup)
            continue;
        pairs[pair_count].kind = wanted[i].event;
        snprintf(pairs[pair_count].name, sizeof pairs[pair_count].name, "%s", wanted[i].name);
        pairs[pair_count].since = want(p, wanted[i].event, wanted[i].name, now);
        pair_count++;
    }
    /* Poll before the rescan: a task that just ended is read a last time
     * before its segments are unmapped. */
    for (size_t i = 0; i < pair_count; i++)
        poll_one(a, p, pairs[i].kind, pairs[i].name, pairs[i].since);
    if (now >= p->next_rescan) {
        agent_segments_rescan(a);
        p->next_rescan = now + RESCAN;
    }
    /* Listed again: a csr's action may have deleted one (its pointers with it). */
    n = csr_instrumented(a->registry, wanted, 256);
    agent_recording_follow(a, wanted, n > 256 ? 256 : n);
    for (size_t i = 0; i < p->watching_count;) { /* pairs no csr wants any more */
        if (p->watching[i].wanted) {
            i++;
            continue;
        }
        for (size_t k = 0; k < p->seen_count;)
            if (p->seen[k].kind == p->watching[i].kind && !strcmp(p->seen[k].name, p->watching[i].name))
                p->seen[k] = p->seen[--p->seen_count];
            else
                k++;
        p->watching[i] = p->watching[--p->watching_count];
    }
    p->next_poll = now + PROBE_POLL;
    p->polling = false;
    return p->next_poll;
}

void agent_probes_flush(struct agent *a, double now)
{
    struct agent_probes *p = a->probes;
    if (!p || p->polling)
        return;
    p->next_poll = 0;
    agent_probes_poll(a, now);
    p->next_poll = 0; /* the loop's next turn polls again: what the change releases stops at once */
}

bool agent_probes_match(const struct agent *a, const struct request_call *ev)
{
    if (ev->arg_count < 1 || ev->args[0].kind != ARG_OBJECTS)
        return false;
    for (size_t i = 0; i < a->task_count; i++) {
        const struct agent_task *t = a->tasks[i];
        struct event_occurrence occ = {.kind = EVENT_PROBE, .pid = t->root, .host = a->host,
                                       .app = t->app, .site = a->site};
        if (!t->ended && t->segment_dir && csr_scope_matches(&ev->args[0], &occ))
            return true;
    }
    return false;
}

void agent_probes_free(struct agent *a)
{
    struct agent_probes *p = a->probes;
    if (!p)
        return;
    free(p->seen);
    free(p->watching);
    free(p);
    a->probes = NULL;
}
