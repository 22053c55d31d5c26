/* Levels 1 and 3: no ptrace. The tree is found by walking /proc from tally
 * (a child subreaper, so orphans stay in the tree) or from the --pid
 * process down through each process's children, at every sample. Exactness comes from the kernel's
 * accounting of reaped children (usage.c): CPU time and I/O bytes are exact
 * totals, and the peak memory of the largest single process is its
 * ru_maxrss. waitid(WNOWAIT) tells the top process's end apart from an
 * orphan's without reaping either too early. Short-lived processes between
 * samples are not seen (counts are lower bounds at level 1). Level 3 runs
 * here only without the tracer (no ptrace, a setuid command under a tally
 * that is not root, or sampled elsewhere; else tracker.c): the preloaded
 * I/O helper tells of every process it runs in through its region
 * (helper_reports.c), read after each scan and once more at the end, and
 * the processes the helper never entered (static or setuid images, and
 * what they start) are left to the scans (docs/io.md). scan_tree is
 * tracker.c's at level 3 too. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "monitor/helper_reports.h"
#include "monitor/proc_scan.h"
#include "monitor/run_loop.h"
#include "platform/platform.h"
#include "util/error.h"

struct tree_root {
    pid_t root;
};

static bool is_tree_root(void *ctx, pid_t pid)
{
    return pid == ((struct tree_root *)ctx)->root;
}

struct gone_ctx {
    struct usage *u;
    const struct proc_scan *scan;
    pid_t root;
    bool include_root;
};

static bool is_member(const struct proc_scan *scan, pid_t pid, pid_t root, bool include_root)
{
    if (pid == root)
        return include_root;
    const struct scan_proc *e = proc_scan_get(scan, pid);
    return e && e->root == root;
}

static void drop_if_gone(void *ctx, pid_t pid)
{
    struct gone_ctx *g = ctx;
    if (!proc_scan_get(g->scan, pid) || !is_member(g->scan, pid, g->root, g->include_root))
        usage_process_gone(g->u, pid, 0);
}

static void note_executable(void *ctx, pid_t pid)
{
    usage_note_executable(ctx, pid);
}

void scan_tree(struct usage *u, pid_t root, bool include_root, struct helper_reports *reports)
{
    struct proc_scan scan;
    proc_scan_init(&scan);
    if (proc_scan_refresh_tree(&scan, root) < 0) {
        proc_scan_refresh(&scan);
        struct tree_root r = {root};
        proc_scan_assign_roots(&scan, is_tree_root, &r);
    }
    /* The gone first: what is alive together is what this scan saw. */
    struct gone_ctx g = {u, &scan, root, include_root};
    usage_each_process(u, drop_if_gone, &g);
    for (size_t i = 0; i < scan.procs.capacity; i++) {
        pid_t pid = scan.procs.keys[i];
        if (pid && !usage_has_process(u, pid) && is_member(&scan, pid, root, include_root) &&
            !usage_ended(u, pid, ((const struct scan_proc *)pidmap_at(&scan.procs, i))->stat.starttime))
            usage_process_started(u, pid);
    }
    usage_forget_ended(u);
    proc_scan_free(&scan);
    if (reports) {
        usage_each_process(u, note_executable, u);
        helper_reports_read(reports, u, false);
    }
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

/* Sleeps until the deadline (none when infinite), a child's end (SIGCHLD)
 * or an interrupting signal. */
static void wait_a_while(double seconds, int pidfd)
{
    if (seconds <= 0)
        return;
    if (isinf(seconds)) {
        sigset_t chld;
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        sigwaitinfo(&chld, NULL);
        return;
    }
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

/* Sampled elsewhere: waits for a child's end (SIGCHLD, blocked: read from
 * chld, a signalfd) or for the sampler's connection to have something
 * (message or end of file). True for the latter. */
static bool wait_child_or_sampler(int chld, int sampler)
{
    struct pollfd p[2] = {{.fd = chld, .events = POLLIN}, {.fd = sampler, .events = POLLIN}};
    if (poll(p, 2, -1) <= 0)
        return false;
    struct signalfd_siginfo info;
    while (read(chld, &info, sizeof info) == (ssize_t)sizeof info)
        ;
    return p[1].revents != 0;
}

/* The sampler is gone (or limits came that tally must enforce): tally run
 * samples the tree itself from now on, with its own guardian. The guardian
 * is started while tally is not a subreaper (else the guardian, orphaned by
 * its double fork, would come back to tally as part of the tree): a process
 * of the task orphaned within those few microseconds goes to init. */
static void sample_here(struct usage *u, pid_t self, struct helper_reports *reports)
{
    if (!u->guardian) {
        prctl(PR_SET_CHILD_SUBREAPER, 0);
        const char *scratch[2];
        size_t nscratch = task_scratch_dirs(u->options, scratch);
        u->guardian = guardian_start(scratch, nscratch);
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        for (size_t i = 0; i < u->procs.capacity; i++)
            if (u->procs.keys[i])
                guardian_watch(u->guardian, u->procs.keys[i]);
    }
    scan_tree(u, self, false, reports);
    usage_enable_warmup(u);
    usage_schedule_background(u);
    u->next_regular = usage_now();
}

static int follow_existing(const struct task_options *o, struct task_result *r, struct usage *u)
{
    int pidfd = (int)syscall(SYS_pidfd_open, o->follow_pid, 0);
    if (pidfd < 0) {
        tally_error_errno("run: --pid %d", (int)o->follow_pid);
        return -1;
    }
    struct ending ending = {0};
    scan_tree(u, o->follow_pid, true, NULL);
    usage_enable_warmup(u);
    usage_schedule_background(u);
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
                scan_tree(u, o->follow_pid, root_alive, NULL);
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
    /* Guarded (no PR_SET_PDEATHSIG, which would end the top process alone)
     * by the guardian, or by the sampler elsewhere. */
    bool guarded = u->guardian || o->sampled_elsewhere;
    if (launch_command(o->argv, guarded ? LAUNCH_GUARDED : 0, &launch) < 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        return -1;
    }
    pid_t self = getpid();
    struct helper_reports reports_of_helper, *reports = NULL;
    if (o->io_dir && *o->io_dir) {
        helper_reports_init(&reports_of_helper, o->io_dir);
        reports = &reports_of_helper;
    }
    usage_process_started(u, launch.pid);
    if (o->on_launched)
        o->on_launched(o->sample_ctx, launch.pid);
    bool elsewhere = o->sampled_elsewhere;
    int chld_fd = -1;
    if (elsewhere) {
        u->next_regular = INFINITY; /* no sample until the end: only waiting */
        if (o->sampler_fd >= 0 && o->on_sampler_input)
            chld_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    } else {
        usage_enable_warmup(u);
        usage_schedule_background(u);
    }
    struct ending ending = {0};
    for (;;) {
        bool any_left;
        if (reap_children(u, r, launch.pid, &any_left)) {
            if (!o->wait_for_all) {
                scan_tree(u, self, false, reports);
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
                scan_tree(u, self, false, reports);
            if (ending.terminating) /* processes found since are ended too */
                ending_signal_again(&ending, u);
            usage_sample(u, regular);
            continue;
        }
        if (elsewhere && chld_fd >= 0 && isinf(in)) {
            if (wait_child_or_sampler(chld_fd, o->sampler_fd) && o->on_sampler_input(o->sample_ctx)) {
                elsewhere = false;
                sample_here(u, self, reports);
            }
            continue;
        }
        wait_a_while(in, -1);
    }
    if (chld_fd >= 0)
        close(chld_fd);
    if (reports) /* every process has ended: every region is there */
        helper_reports_read(reports, u, true);
    sigprocmask(SIG_SETMASK, &old, NULL);
    r->launch_errno = launch_exec_errno(&launch);
    return 0;
}
