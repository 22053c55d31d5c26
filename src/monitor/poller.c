/* Level 1: no interposition. The tree is found by scanning /proc for the
 * descendants of tally (a child subreaper, so orphans stay in the tree) or
 * of the --pid process, at every sample. Exactness comes from the kernel's
 * accounting of reaped children (usage.c): CPU time and I/O bytes are exact
 * totals, and the peak memory of the largest single process is its
 * ru_maxrss. waitid(WNOWAIT) tells the top process's end apart from an
 * orphan's without reaping either too early. Short-lived processes between
 * samples are not seen (counts are lower bounds at this level). */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "monitor/run_loop.h"
#include "platform/platform.h"
#include "util/error.h"
#include "util/pidmap.h"

struct scan {
    struct pidmap parents;   /* pid -> struct scan_entry, every process on the machine */
    pid_t root;              /* tally itself, or the followed process */
    bool include_root;
};

struct scan_entry {
    pid_t ppid;
    signed char member;      /* -1 unknown, 0 no, 1 yes */
};

static void scan_visit(void *ctx, pid_t pid, const struct proc_stat *st)
{
    struct scan *s = ctx;
    struct scan_entry *e = pidmap_put(&s->parents, pid, NULL);
    if (e) {
        e->ppid = st->state == 'Z' ? 0 : st->ppid; /* zombies are reaped, not sampled */
        e->member = -1;
    }
}

static int is_member(struct scan *s, pid_t pid, int depth)
{
    if (pid == s->root)
        return s->include_root;
    struct scan_entry *e = pidmap_get(&s->parents, pid);
    if (!e || e->ppid <= 1 || depth > 4096)
        return 0;
    if (e->member < 0) {
        int m = e->ppid == s->root ? 1 : is_member(s, e->ppid, depth + 1);
        e = pidmap_get(&s->parents, pid);
        e->member = (signed char)m;
    }
    return e->member;
}

struct gone_ctx {
    struct usage *u;
    struct scan *scan;
};

static void drop_if_gone(void *ctx, pid_t pid)
{
    struct gone_ctx *g = ctx;
    struct scan_entry *e = pidmap_get(&g->scan->parents, pid);
    if (!e || !is_member(g->scan, pid, 0))
        usage_process_gone(g->u, pid, 0);
}

/* Updates the live set from /proc. */
static void scan_tree(struct usage *u, pid_t root, bool include_root)
{
    struct scan s = {.root = root, .include_root = include_root};
    pidmap_init(&s.parents, sizeof(struct scan_entry));
    proc_visit_all(scan_visit, &s);
    for (size_t i = 0; i < s.parents.capacity; i++) {
        pid_t pid = s.parents.keys[i];
        if (pid && !usage_has_process(u, pid) && is_member(&s, pid, 0))
            usage_process_started(u, pid);
    }
    struct gone_ctx g = {u, &s};
    usage_each_process(u, drop_if_gone, &g);
    pidmap_free(&s.parents);
}

/* Reaps every ended child; returns true when the top process was among them. */
static bool reap_children(struct usage *u, struct task_result *r, pid_t top, bool *any_left)
{
    bool top_ended = false;
    *any_left = true;
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
            if (errno == ECHILD)
                *any_left = false;
            break;
        }
        if (si.si_pid == 0)
            break;
        int status;
        if (waitpid(si.si_pid, &status, 0) < 0)
            break;
        usage_process_gone(u, si.si_pid, 0);
        if (si.si_pid == top) {
            loop_record_top_status(r, status);
            top_ended = true;
        }
    }
    return top_ended;
}

/* Sleeps until the deadline, a child's end (SIGCHLD) or an interrupting signal. */
static void wait_a_while(double seconds, int pidfd)
{
    if (seconds <= 0)
        return;
    struct timespec ts = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
    if (pidfd >= 0) {
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        ppoll(&p, 1, &ts, NULL);
        return;
    }
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigtimedwait(&chld, NULL, &ts);
}

static int follow_existing(const struct task_options *o, struct task_result *r, struct usage *u)
{
    int pidfd = (int)syscall(SYS_pidfd_open, o->follow_pid, 0);
    if (pidfd < 0) {
        tally_error_errno("run: --pid %d", (int)o->follow_pid);
        return -1;
    }
    struct ending ending = {0};
    scan_tree(u, o->follow_pid, true);
    usage_enable_warmup(u);
    usage_start_background(u);
    bool root_alive = true;
    for (;;) {
        if (o->interrupt && *o->interrupt) {
            /* Not tally's task: stop following, leave it running. */
            r->interrupted = true;
            break;
        }
        ending_check_causes(&ending, u);
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        if (root_alive && poll(&p, 1, 0) > 0) { /* the followed process ended */
            root_alive = false;
            usage_process_gone(u, o->follow_pid, 0);
            if (!o->wait_for_all)
                break;
        }
        double in = loop_next_deadline_in(&ending, u);
        if (in <= 0.0005) {
            bool regular = usage_regular_due(u);
            if (regular || usage_warmup_due(u))
                scan_tree(u, o->follow_pid, root_alive);
            usage_sample(u, regular);
            if (!root_alive && u->live == 0)
                break;
            continue;
        }
        wait_a_while(in, root_alive ? pidfd : -1);
    }
    close(pidfd);
    r->exit_status = 0; /* not tally's child: its status cannot be known */
    return 0;
}

int poller_run(const struct task_options *o, struct task_result *r, struct usage *u)
{
    if (o->follow_pid > 0)
        return follow_existing(o, r, u);
    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    struct launch launch;
    if (launch_command(o->argv, u->guardian ? LAUNCH_GUARDED : 0, &launch) < 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        return -1;
    }
    pid_t self = getpid();
    usage_process_started(u, launch.pid);
    usage_enable_warmup(u);
    usage_start_background(u);
    struct ending ending = {0};
    for (;;) {
        bool any_left;
        if (reap_children(u, r, launch.pid, &any_left)) {
            if (!o->wait_for_all) {
                scan_tree(u, self, false);
                ending_begin(&ending, u);
            }
        }
        if (!any_left)
            break;
        ending_check_causes(&ending, u);
        double in = loop_next_deadline_in(&ending, u);
        if (in <= 0.0005) {
            bool regular = usage_regular_due(u);
            if (regular || usage_warmup_due(u) || ending.terminating)
                scan_tree(u, self, false);
            if (ending.terminating) /* processes found since are ended too */
                ending_signal_again(&ending, u);
            usage_sample(u, regular);
            continue;
        }
        wait_a_while(in, -1);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    r->launch_errno = launch_exec_errno(&launch);
    return 0;
}
