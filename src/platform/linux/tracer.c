/* Process events through ptrace, without system-call stops (level 2). The
 * tracer is seized on the top process with fork/vfork/clone/exit event
 * options, so every descendant is attached by the kernel itself — static
 * binaries, setsid and double forks included. Only three things are reported
 * to the caller: a new process, a process about to exit (still readable in
 * /proc), and a process gone. Everything else is handled here:
 *  - a new child's first stop may arrive before its parent's fork event; the
 *    child is then held until the event says whether it is a process or a
 *    thread, so no process is ever seen exiting before it was announced;
 *  - signal-delivery stops re-inject the signal; group stops are kept with
 *    PTRACE_LISTEN so that stopped jobs stay stopped;
 *  - threads are tracked only to know their thread group. */
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/pidmap.h"

struct tracee {
    pid_t tgid;
    unsigned char held;            /* first stop seen before the parent's event */
    unsigned char awaiting_attach; /* announced; its first stop is yet to come */
};

struct tracer {
    struct pidmap tracees; /* by tid */
};

struct tracer *tracer_new(pid_t top)
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
        ptrace(PTRACE_CONT, child, 0, 0);
    } else {
        c->awaiting_attach = 1;
    }
    if (thread)
        return 0;
    event->kind = TRACER_NEW_PROCESS;
    event->pid = child;
    event->parent = parent_tgid;
    return 1;
}

void tracer_next(struct tracer *t, struct tracer_event *event)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) {
            event->kind = errno == EINTR ? TRACER_INTERRUPTED : TRACER_NO_PROCESSES;
            event->pid = 0;
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
