/* Process events through ptrace, without system-call stops (level 2). The
 * tracer is seized on the top process with fork/vfork/clone/exit event
 * options, so every descendant is attached by the kernel itself — static
 * binaries, setsid and double forks included. Only three things are reported
 * to the caller: a new process, a process about to exit (still readable in
 * /proc), and a process gone. The caller may let a process it has read at
 * its exit go for good (tracer_let_go: PTRACE_DETACH): its death then goes
 * straight to its parent instead of stopping here, one round trip less per
 * process (docs/engine-events.md). Everything else is handled here:
 *  - a new child's first stop may arrive before its parent's fork event; the
 *    child is then held until the event says whether it is a process or a
 *    thread, so no process is ever seen exiting before it was announced;
 *  - signal-delivery stops re-inject the signal; group stops are kept with
 *    PTRACE_LISTEN so that stopped jobs stay stopped;
 *  - threads are tracked only to know their thread group;
 *  - waiting polls for a moment during bursts of events (event_wait.c).
 * With LAUNCH_EXEC_EVENTS, execs are reported too (level 3 lets go of the
 * images the I/O helper enters). Known limit: without exec events, a
 * thread that calls execve leaves its old tid in the table (the kernel gives the process the leader's pid);
 * on_creation copes with its reuse. */
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/linux/event_wait.h"
#include "platform/linux/ptrace_options.h"
#include "util/clock.h"
#include "util/pidmap.h"

struct tracee {
    pid_t tgid;
    double held_at;                /* when it was held (monotonic seconds) */
    unsigned char held;            /* first stop seen before the parent's event */
    unsigned char awaiting_attach; /* announced; its first stop is yet to come */
};

struct tracer {
    struct pidmap tracees; /* by tid */
    int held;              /* how many tracees are held */
    struct event_wait wait;
};

/* A held task whose parent's event never came (the parent was killed in
 * between) is let go after this long, so that it cannot stay stopped. */
#define HELD_TIMEOUT 0.2

struct tracer *tracer_new(pid_t top, double poll_window)
{
    struct tracer *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pidmap_init(&t->tracees, sizeof(struct tracee));
    struct tracee *e = pidmap_put(&t->tracees, top, NULL);
    if (!e) {
        free(t);
        return NULL;
    }
    e->tgid = top;
    event_wait_init(&t->wait, poll_window);
    return t;
}

void tracer_free(struct tracer *tracer)
{
    if (!tracer)
        return;
    pidmap_free(&tracer->tracees);
    free(tracer);
}

void tracer_resume(struct tracer *tracer, pid_t pid)
{
    (void)tracer;
    ptrace(PTRACE_CONT, pid, 0, 0);
}

bool tracer_let_go(struct tracer *tracer, pid_t pid)
{
    if (ptrace(PTRACE_DETACH, pid, 0, 0) < 0) {
        ptrace(PTRACE_CONT, pid, 0, 0);
        return false;
    }
    pidmap_remove(&tracer->tracees, pid);
    return true;
}

bool tracer_follows(const struct tracer *tracer, pid_t pid)
{
    return pidmap_get(&tracer->tracees, pid) != NULL;
}

struct adoption {
    struct tracer *tracer;
    pid_t tgid;
    int seized;
};

static void seize_thread(void *ctx, pid_t tid)
{
    struct adoption *a = ctx;
    if (pidmap_get(&a->tracer->tracees, tid))
        return;
    long options = TRACE_OPTIONS | PTRACE_O_TRACEEXEC;
    if (ptrace(PTRACE_SEIZE, tid, 0, (void *)options) < 0)
        return;
    struct tracee *e = pidmap_put(&a->tracer->tracees, tid, NULL);
    if (!e) {
        ptrace(PTRACE_DETACH, tid, 0, 0);
        return;
    }
    e->tgid = a->tgid;
    a->seized++;
}

bool tracer_adopt(struct tracer *tracer, pid_t pid)
{
    struct adoption a = {tracer, pid, 0};
    if (proc_visit_threads(pid, seize_thread, &a) < 0)
        seize_thread(&a, pid);
    return a.seized > 0;
}

/* Is tid a thread of the group tgid? (it is listed in /proc/TGID/task) */
static int is_thread_of(pid_t tid, pid_t tgid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d", (int)tgid, (int)tid);
    return access(path, F_OK) == 0;
}

/* A fork/vfork/clone event of pid: returns 1 with *event set when the new
 * task is a process. */
static int on_creation(struct tracer *t, pid_t pid, int kind, struct tracer_event *event)
{
    unsigned long msg = 0;
    ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg);
    pid_t child = (pid_t)msg;
    struct tracee *parent = pidmap_get(&t->tracees, pid);
    pid_t parent_tgid = parent ? parent->tgid : pid;
    ptrace(PTRACE_CONT, pid, 0, 0);
    if (child <= 0)
        return 0;
    int thread = kind == PTRACE_EVENT_CLONE && is_thread_of(child, parent_tgid);
    int created;
    struct tracee *c = pidmap_put(&t->tracees, child, &created);
    if (!c)
        return 0;
    c->tgid = thread ? parent_tgid : child;
    if (c->held) {
        c->held = 0;
        t->held--;
        ptrace(PTRACE_CONT, child, 0, 0);
    } else if (created) {
        c->awaiting_attach = 1;
    } else {
        /* A stale entry (a tid left by a thread's execve, now reused): its
         * first stop was taken for a group stop; resume it if it is stopped. */
        c->awaiting_attach = ptrace(PTRACE_CONT, child, 0, 0) < 0;
    }
    if (thread)
        return 0;
    event->kind = TRACER_NEW_PROCESS;
    event->pid = child;
    event->parent = parent_tgid;
    return 1;
}

/* The thread group of tid, from /proc/TID/status; tid itself if unknown. */
static pid_t thread_group_of(pid_t tid)
{
    char path[48], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tid;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return tid;
    buf[n] = '\0';
    const char *p = strstr(buf, "\nTgid:");
    return p ? (pid_t)atoi(p + 6) : tid;
}

/* Lets go one task held too long; returns 1 with *event set when it is a
 * process, to be announced. */
static int release_stale_held(struct tracer *t, struct tracer_event *event)
{
    double now = clock_monotonic_seconds();
    for (size_t i = 0; i < t->tracees.capacity; i++) {
        pid_t tid = t->tracees.keys[i];
        struct tracee *e = pidmap_at(&t->tracees, i);
        if (!tid || !e->held || now - e->held_at < HELD_TIMEOUT)
            continue;
        e->held = 0;
        t->held--;
        e->tgid = thread_group_of(tid);
        ptrace(PTRACE_CONT, tid, 0, 0);
        if (e->tgid != tid)
            continue;
        event->kind = TRACER_NEW_PROCESS;
        event->pid = tid;
        event->parent = 0;
        return 1;
    }
    return 0;
}

void tracer_next(struct tracer *t, struct tracer_event *event)
{
    for (;;) {
        int status;
        struct rusage usage;
        /* wait4: the rusage of a process that died carries its peak RSS. */
        pid_t pid = event_wait_next(&t->wait, &status, &usage);
        if (pid < 0) {
            event->kind = errno == EINTR ? TRACER_INTERRUPTED : TRACER_NO_PROCESSES;
            event->pid = 0;
            if (t->held)
                release_stale_held(t, event); /* may turn it into a new process */
            return;
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            struct tracee *e = pidmap_get(&t->tracees, pid);
            pid_t tgid = e ? e->tgid : pid;
            pidmap_remove(&t->tracees, pid);
            if (tgid != pid)
                continue; /* a thread */
            event->kind = TRACER_GONE;
            event->pid = pid;
            event->status = status;
            /* Of a process not followed (let go at its exec, at level 3),
             * wait4's peak is no reading of its own end: the largest of it
             * and its reaped descendants, any time in its life. */
            event->peak_rss = e ? (uint64_t)usage.ru_maxrss * 1024 : 0;
            return;
        }
        if (!WIFSTOPPED(status))
            continue;
        int sig = WSTOPSIG(status), kind = status >> 16;
        struct tracee *e = pidmap_get(&t->tracees, pid);
        switch (kind) {
        case PTRACE_EVENT_FORK:
        case PTRACE_EVENT_VFORK:
        case PTRACE_EVENT_CLONE:
            if (on_creation(t, pid, kind, event))
                return;
            continue;
        case PTRACE_EVENT_EXEC:
            /* The process now runs its new image (any other thread is gone:
             * the kernel reports the exec under the process's pid). */
            if (e) {
                e->tgid = pid;
                event->kind = TRACER_EXEC;
                event->pid = pid;
                return;
            }
            ptrace(PTRACE_CONT, pid, 0, 0);
            continue;
        case PTRACE_EVENT_EXIT:
            if (e && e->tgid == pid) {
                event->kind = TRACER_EXITING;
                event->pid = pid;
                return;
            }
            ptrace(PTRACE_CONT, pid, 0, 0);
            continue;
        case PTRACE_EVENT_STOP:
            if (!e) { /* a new task's first stop, before its parent's event */
                e = pidmap_put(&t->tracees, pid, NULL);
                if (e) {
                    e->tgid = pid;
                    e->held = 1;
                    e->held_at = clock_monotonic_seconds();
                    t->held++;
                    continue;
                }
                ptrace(PTRACE_CONT, pid, 0, 0);
                continue;
            }
            if (e->awaiting_attach) {
                e->awaiting_attach = 0;
                ptrace(PTRACE_CONT, pid, 0, 0);
            } else if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
                ptrace(PTRACE_LISTEN, pid, 0, 0); /* group stop: stay stopped */
            } else {
                ptrace(PTRACE_CONT, pid, 0, 0);
            }
            continue;
        default: /* signal-delivery stop: deliver the signal */
            ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig);
            continue;
        }
    }
}
