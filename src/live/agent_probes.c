/* Probe and MPI events for conditional requests, evaluated in the agent
 * (seed 001 §7): thread_executes_probe(objects, "name") and
 * lib_call_started|lib_call_ended(objects, "MPI_Send").
 *
 * An instrumented process (libtally-probe, libtally-mpi) records into its
 * shared-memory segment and sends nothing per event. 'tally run --agent
 * --probes|--mpi' tells the agent where its processes' segments are; while a
 * csr on such an event is enabled, the agent maps those segments read-only
 * and polls them every PROBE_POLL: the hits of a probe (or the marker,
 * named "marker"), or the calls and bytes of an MPI function, that appeared
 * since the last poll are one occurrence of the event 'times' times, with
 * $len the bytes of those calls. So counter increments are exact
 * (c_1 += $len sums every MPI_Send's bytes) and a read at a probe reads once
 * per poll in which the probe was hit (once per iteration for iterations
 * longer than PROBE_POLL). Nothing is polled while no such csr is enabled.
 * lib_call_started and lib_call_ended both see completed calls.
 * proc_get_info(..., 0x80) reads a process's counters, rank and MPI sends
 * from its segment (agent_probes_segment), which it maps on demand. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/agent_internal.h"
#include "tally/segment.h"

#define PROBE_POLL 0.01 /* seconds between polls while a probe or MPI csr is enabled */
#define RESCAN 0.25     /* seconds between looks for new segment files */

struct mapped {
    unsigned task;
    pid_t pid;
    const struct tally_segment *seg;
};

struct seen {                /* what one csr last saw in one process */
    unsigned csr;
    pid_t pid;
    uint64_t count, bytes;
};

struct watching {            /* an enabled csr, watched since (monotonic seconds) */
    unsigned csr;
    double since;
};

struct agent_probes {
    struct mapped *maps;
    size_t map_count, map_cap;
    struct seen *seen;
    size_t seen_count, seen_cap;
    struct watching *watching;
    size_t watching_count, watching_cap;
    double next_poll, next_rescan;
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

static const char *event_name(const struct request_call *ev)
{
    for (size_t i = 1; i < ev->arg_count; i++)
        if (ev->args[i].kind == ARG_STRING)
            return ev->args[i].text;
    return NULL;
}

static bool is_mapped(const struct agent_probes *p, unsigned task, pid_t pid)
{
    for (size_t i = 0; i < p->map_count; i++)
        if (p->maps[i].task == task && p->maps[i].pid == pid)
            return true;
    return false;
}

/* Maps DIR/PID.seg when it is this user's and registered. */
static void map_segment(struct agent *a, struct agent_probes *p, const struct agent_task *t,
                        const char *file, pid_t pid)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", t->segment_dir, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    struct stat st;
    void *m = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_uid == a->uid && S_ISREG(st.st_mode) &&
        (size_t)st.st_size >= TALLY_SEG_SIZE)
        m = mmap(NULL, TALLY_SEG_SIZE, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return;
    const struct tally_segment *seg = m;
    if (seg->control.c.magic != TALLY_SEG_MAGIC) { /* not registered yet: next rescan */
        munmap(m, TALLY_SEG_SIZE);
        return;
    }
    if (p->map_count == p->map_cap) {
        size_t cap = p->map_cap ? 2 * p->map_cap : 16;
        struct mapped *grown = realloc(p->maps, cap * sizeof *grown);
        if (!grown) {
            munmap(m, TALLY_SEG_SIZE);
            return;
        }
        p->maps = grown;
        p->map_cap = cap;
    }
    p->maps[p->map_count++] = (struct mapped){.task = t->id, .pid = pid, .seg = seg};
}

static void unmap_ended(struct agent *a, struct agent_probes *p)
{
    for (size_t i = 0; i < p->map_count;) { /* segments of tasks that ended */
        const struct agent_task *t = agent_task_find(a, p->maps[i].task);
        if (t && !t->ended) {
            i++;
            continue;
        }
        munmap((void *)p->maps[i].seg, TALLY_SEG_SIZE);
        p->maps[i] = p->maps[--p->map_count];
    }
}

static void rescan(struct agent *a, struct agent_probes *p)
{
    unmap_ended(a, p);
    for (size_t i = 0; i < a->task_count; i++) {
        const struct agent_task *t = a->tasks[i];
        if (t->ended || !t->segment_dir)
            continue;
        DIR *d = opendir(t->segment_dir);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            char *end;
            long pid = strtol(e->d_name, &end, 10);
            if (pid > 0 && !strcmp(end, ".seg") && !is_mapped(p, t->id, (pid_t)pid))
                map_segment(a, p, t, e->d_name, (pid_t)pid);
        }
        closedir(d);
    }
}

static struct seen *seen_of(struct agent_probes *p, unsigned csr, pid_t pid, bool *is_new)
{
    *is_new = false;
    for (size_t i = 0; i < p->seen_count; i++)
        if (p->seen[i].csr == csr && p->seen[i].pid == pid)
            return &p->seen[i];
    if (p->seen_count == p->seen_cap) {
        size_t cap = p->seen_cap ? 2 * p->seen_cap : 16;
        struct seen *grown = realloc(p->seen, cap * sizeof *grown);
        if (!grown)
            return NULL;
        p->seen = grown;
        p->seen_cap = cap;
    }
    *is_new = true;
    p->seen[p->seen_count] = (struct seen){.csr = csr, .pid = pid};
    return &p->seen[p->seen_count++];
}

/* What the event counts in one segment now: hits, or calls and bytes. */
static bool reading(const struct request_call *ev, const struct tally_seg_data *d, uint64_t *count,
                    uint64_t *bytes)
{
    const char *name = event_name(ev);
    if (!name)
        return false;
    *bytes = 0;
    if (!strcmp(ev->service, "thread_executes_probe")) {
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

/* Since when csr id is watched (its first poll, monotonic seconds). */
static double watched_since(struct agent_probes *p, unsigned id, double now)
{
    for (size_t i = 0; i < p->watching_count; i++)
        if (p->watching[i].csr == id)
            return p->watching[i].since;
    if (p->watching_count == p->watching_cap) {
        size_t cap = p->watching_cap ? 2 * p->watching_cap : 16;
        struct watching *grown = realloc(p->watching, cap * sizeof *grown);
        if (!grown)
            return now;
        p->watching = grown;
        p->watching_cap = cap;
    }
    p->watching[p->watching_count++] = (struct watching){.csr = id, .since = now};
    return now;
}

static void poll_csr(struct agent *a, struct agent_probes *p, unsigned id, double now)
{
    double since = watched_since(p, id, now);
    for (size_t m = 0; m < p->map_count; m++) {
        struct agent_csr *csr = NULL;
        for (size_t i = 0; i < a->csr_count && !csr; i++)
            if (a->csrs[i]->id == id)
                csr = a->csrs[i];
        if (!csr || !csr->enabled)
            return; /* deleted or disabled by an action */
        const struct request_call *ev = &csr->request.event;
        const struct agent_task *t = agent_task_find(a, p->maps[m].task);
        if (!t || !agent_event_matches(a, ev, t, p->maps[m].pid))
            continue;
        uint64_t count, bytes;
        if (!reading(ev, &p->maps[m].seg->d, &count, &bytes))
            continue;
        bool is_new;
        struct seen *s = seen_of(p, id, p->maps[m].pid, &is_new);
        /* A process that registered after the csr was watched counts from its
         * start; one already there, from now (its past is not the csr's). */
        if (s && is_new && (double)p->maps[m].seg->d.t_register / 1e9 > since)
            is_new = false;
        if (!s || is_new || count <= s->count) { /* a first look is the baseline */
            if (s) {
                s->count = count;
                s->bytes = bytes;
            }
            continue;
        }
        uint64_t times = count - s->count, len = bytes - s->bytes;
        s->count = count;
        s->bytes = bytes;
        char object[320];
        snprintf(object, sizeof object, "p_%d@%s", (int)p->maps[m].pid, a->host);
        bool probe = !strcmp(ev->service, "thread_executes_probe");
        json_t *event = json_pack("{s:s, s:s, s:s, s:i, s:s, s:I}", "service", ev->service, "object",
                                  object, "app", t->app, "task", (int)t->id, probe ? "probe" : "function",
                                  event_name(ev), probe ? "hits" : "calls", (json_int_t)times);
        if (!probe)
            json_object_set_new(event, "bytes", json_integer((json_int_t)len));
        agent_fire_instrumented(a, csr, event, (double)times, (double)len);
        json_decref(event);
    }
}

double agent_probes_poll(struct agent *a, double now)
{
    unsigned ids[256];
    size_t n = 0;
    for (size_t i = 0; i < a->csr_count && n < 256; i++)
        if (a->csrs[i]->enabled && agent_is_probe_event(a->csrs[i]->request.event.service))
            ids[n++] = a->csrs[i]->id;
    if (n == 0)
        return INFINITY;
    if (!a->probes && !(a->probes = calloc(1, sizeof *a->probes)))
        return INFINITY;
    struct agent_probes *p = a->probes;
    if (now < p->next_poll)
        return p->next_poll;
    /* Poll before the rescan: a task that just ended is read a last time
     * before its segments are unmapped. */
    for (size_t i = 0; i < n; i++)
        poll_csr(a, p, ids[i], now);
    if (now >= p->next_rescan) {
        rescan(a, p);
        p->next_rescan = now + RESCAN;
    }
    for (size_t i = 0; i < p->seen_count;) { /* forget what deleted csrs saw */
        bool live = false;
        for (size_t k = 0; k < a->csr_count && !live; k++)
            live = a->csrs[k]->id == p->seen[i].csr;
        if (live)
            i++;
        else
            p->seen[i] = p->seen[--p->seen_count];
    }
    for (size_t i = 0; i < p->watching_count;) { /* and when deleted csrs started */
        bool live = false;
        for (size_t k = 0; k < a->csr_count && !live; k++)
            live = a->csrs[k]->id == p->watching[i].csr && a->csrs[k]->enabled;
        if (live)
            i++;
        else
            p->watching[i] = p->watching[--p->watching_count];
    }
    p->next_poll = now + PROBE_POLL;
    return p->next_poll;
}

const struct tally_seg_data *agent_probes_segment(struct agent *a, pid_t pid)
{
    const struct agent_task *t = agent_task_of(a, pid);
    if (!t || t->ended || !t->segment_dir)
        return NULL;
    if (!a->probes && !(a->probes = calloc(1, sizeof *a->probes)))
        return NULL;
    struct agent_probes *p = a->probes;
    unmap_ended(a, p);
    for (int attempt = 0; attempt < 2; attempt++) {
        for (size_t i = 0; i < p->map_count; i++)
            if (p->maps[i].task == t->id && p->maps[i].pid == pid)
                return &p->maps[i].seg->d;
        if (attempt == 0) { /* not mapped yet: on demand (no csr needs to poll) */
            char file[32];
            snprintf(file, sizeof file, "%d.seg", (int)pid);
            map_segment(a, p, t, file, pid);
        }
    }
    return NULL;
}

bool agent_probes_match(const struct agent *a, const struct request_call *ev)
{
    for (size_t i = 0; i < a->task_count; i++) {
        const struct agent_task *t = a->tasks[i];
        if (!t->ended && t->segment_dir && agent_event_matches(a, ev, t, t->root))
            return true;
    }
    return false;
}

void agent_probes_free(struct agent *a)
{
    struct agent_probes *p = a->probes;
    if (!p)
        return;
    for (size_t i = 0; i < p->map_count; i++)
        munmap((void *)p->maps[i].seg, TALLY_SEG_SIZE);
    free(p->maps);
    free(p->seen);
    free(p->watching);
    free(p);
    a->probes = NULL;
}
