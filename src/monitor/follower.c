/* The level-1 follower (see follower.h): usage.c's accounting fed from a
 * shared proc_scan, stepped by the caller. The ending (a broken limit)
 * reuses run_loop's ending_* so that signals go out exactly as in
 * 'tally run'. */
#include "monitor/follower.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/run_loop.h"
#include "monitor/usage.h"

struct follower {
    struct task_options options;
    struct limit_set limits;
    struct task_result result;
    struct usage usage;
    struct ending ending;
    pid_t root;
    unsigned long long root_start;  /* tells a reused pid apart */
    bool root_alive;
    bool done, finished;
    const struct proc_scan *scan;   /* the last one taken, for its readings */
};

struct follower *follower_new(const struct task_options *options, pid_t root)
{
    struct proc_stat st;
    if (root <= 0 || proc_read_stat(root, &st) < 0 || st.state == 'Z') {
        errno = ESRCH;
        return NULL;
    }
    struct follower *f = calloc(1, sizeof *f);
    if (!f) {
        errno = ENOMEM;
        return NULL;
    }
    f->options = *options;
    f->options.argv = NULL;
    f->options.follow_pid = root;
    f->options.level = 1;
    f->options.foreign_tree = true;
    if (options->limits) {
        f->limits = *options->limits;
        f->options.limits = &f->limits;
    }
    f->root = root;
    f->root_start = st.starttime;
    f->root_alive = true;
    if (gethostname(f->result.host, sizeof f->result.host - 1) < 0)
        strcpy(f->result.host, "unknown");
    f->result.level = 1;
    usage_init(&f->usage, &f->options, &f->result);
    usage_process_started(&f->usage, root);
    usage_start_background(&f->usage);
    return f;
}

void follower_free(struct follower *f)
{
    if (!f)
        return;
    usage_free(&f->usage);
    task_result_free(&f->result);
    free(f);
}

pid_t follower_root(const struct follower *f)
{
    return f->root;
}

struct gone_ctx {
    struct follower *f;
    const struct proc_scan *scan;
};

static void drop_if_gone(void *ctx, pid_t pid)
{
    struct gone_ctx *g = ctx;
    const struct scan_proc *e = proc_scan_get(g->scan, pid);
    bool member = e && e->root == g->f->root && (pid != g->f->root || g->f->root_alive);
    if (!member)
        usage_process_gone(&g->f->usage, pid, 0);
}

void follower_take_scan(struct follower *f, const struct proc_scan *scan)
{
    if (f->done)
        return;
    f->scan = scan;
    const struct scan_proc *r = proc_scan_get(scan, f->root);
    if (f->root_alive &&
        (!r || r->stat.state == 'Z' || r->stat.starttime != f->root_start)) {
        f->root_alive = false;
        usage_process_gone(&f->usage, f->root, 0);
    }
    for (size_t i = 0; i < scan->procs.capacity; i++) {
        pid_t pid = scan->procs.keys[i];
        if (!pid || pid == f->root)
            continue;
        const struct scan_proc *e = pidmap_at(&scan->procs, i);
        if (e->root == f->root && f->root_alive && !usage_has_process(&f->usage, pid))
            usage_process_started(&f->usage, pid);
    }
    struct gone_ctx g = {f, scan};
    usage_each_process(&f->usage, drop_if_gone, &g);
    if (f->ending.terminating)
        ending_signal_again(&f->ending, &f->usage);
    if (!f->root_alive && (!f->options.wait_for_all || f->usage.live == 0))
        f->done = true;
}

double follower_step(struct follower *f, double now)
{
    if (f->done)
        return INFINITY;
    (void)now; /* usage keeps its own monotonic schedule */
    ending_check_causes(&f->ending, &f->usage);
    double in = loop_next_deadline_in(&f->ending, &f->usage);
    /* A caller that ticks at the interval must not miss every other
     * sample for being a scan's length early: a little slack. */
    if (in <= fmax(0.0005, 0.05 * f->options.interval)) {
        /* The readings of a scan taken just now are used, not read again. */
        bool fresh = f->scan && usage_now() - f->scan->taken_at < 0.05 * f->options.interval + 0.01;
        f->usage.scan = fresh ? f->scan : NULL;
        usage_sample(&f->usage, usage_regular_due(&f->usage));
        f->usage.scan = NULL;
        ending_check_causes(&f->ending, &f->usage);
        in = loop_next_deadline_in(&f->ending, &f->usage);
    }
    return usage_now() + in;
}

bool follower_done(const struct follower *f)
{
    return f->done;
}

void follower_let_go(struct follower *f)
{
    f->done = true;
}

void follower_finish(struct follower *f)
{
    if (f->finished)
        return;
    f->finished = true;
    f->done = true;
    usage_finish(&f->usage, false);
    /* Not our child: its exit status cannot be known (as with --pid). */
    f->result.exit_status = 0;
    f->result.status = 0;
}

const struct task_result *follower_result(const struct follower *f)
{
    return &f->result;
}

const double *follower_current(const struct follower *f)
{
    return f->usage.current;
}

int follower_live_processes(const struct follower *f)
{
    return f->usage.live;
}

void follower_set_limits(struct follower *f, const struct limit_set *limits)
{
    if (limits) {
        f->limits = *limits;
        f->options.limits = &f->limits;
    } else {
        f->options.limits = NULL;
    }
    f->usage.limits_reported = false;
    f->usage.limit_broken = false;
}
