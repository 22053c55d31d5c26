/* task_run: sets up the accounting, the timer and the level's loop, and
 * turns what happened into the result's exit type and status. Also the
 * parts of the loops that both levels share (run_loop.h). */
#include "monitor/task.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/exit.h"
#include "monitor/run_loop.h"
#include "util/error.h"

void task_options_init(struct task_options *o)
{
    memset(o, 0, sizeof *o);
    o->level = 2;
    o->interval = 1.0;
    o->kill_grace = 2.0;
    o->event_poll = 300e-6;
}

static void signal_one(void *ctx, pid_t pid)
{
    int sig = *(int *)ctx;
    kill(pid, sig);
    if (sig == SIGTERM)
        kill(pid, SIGCONT); /* a stopped process must run to act on SIGTERM */
}

static void signal_all(struct usage *u, int sig)
{
    usage_each_process(u, signal_one, &sig);
}

void ending_begin(struct ending *e, struct usage *u)
{
    if (e->terminating)
        return;
    e->terminating = true;
    e->kill_at = usage_now() + u->options->kill_grace;
    signal_all(u, SIGTERM);
}

void ending_progress(struct ending *e, struct usage *u)
{
    if (e->terminating && e->kill_at > 0 && usage_now() >= e->kill_at) {
        e->kill_at = 0;
        signal_all(u, SIGKILL);
    }
}

void ending_signal_again(const struct ending *e, struct usage *u)
{
    if (e->terminating)
        signal_all(u, e->kill_at > 0 ? SIGTERM : SIGKILL);
}

void ending_new_process(const struct ending *e, pid_t pid)
{
    if (e->terminating)
        kill(pid, e->kill_at > 0 ? SIGTERM : SIGKILL);
}

void ending_check_causes(struct ending *e, struct usage *u)
{
    const struct task_options *o = u->options;
    if (o->interrupt && *o->interrupt && !e->terminating) {
        u->result->interrupted = true;
        ending_begin(e, u);
    }
    if (o->interrupt && *o->interrupt >= 2 && e->kill_at > 0)
        e->kill_at = usage_now(); /* told twice: no more grace */
    if (usage_limit_action_needed(u)) {
        u->result->exit_type = TASK_EXIT_LIMITS;
        ending_begin(e, u);
    }
    ending_progress(e, u);
}

double loop_next_deadline_in(const struct ending *e, const struct usage *u)
{
    double in = usage_next_sample_in(u);
    if (e->terminating && e->kill_at > 0)
        in = fmin(in, fmax(0, e->kill_at - usage_now()));
    return in;
}

static void on_timer(int sig)
{
    (void)sig;
}

int loop_timer_create(struct loop_timer *t)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGALRM;
    ev._sigev_un._tid = gettid();
    t->created = timer_create(CLOCK_MONOTONIC, &ev, &t->id) == 0;
    return t->created ? 0 : -1;
}

void loop_timer_arm(struct loop_timer *t, double seconds)
{
    if (!t->created)
        return;
    if (seconds < 0.001)
        seconds = 0.001;
    struct itimerspec it;
    it.it_value.tv_sec = (time_t)seconds;
    it.it_value.tv_nsec = (long)((seconds - (double)it.it_value.tv_sec) * 1e9);
    it.it_interval = it.it_value;
    timer_settime(t->id, 0, &it, NULL);
}

void loop_timer_delete(struct loop_timer *t)
{
    if (t->created)
        timer_delete(t->id);
    t->created = false;
}

void loop_record_top_status(struct task_result *r, int status)
{
    if (WIFEXITED(status)) {
        r->exit_status = WEXITSTATUS(status);
        r->signal = 0;
    } else if (WIFSIGNALED(status)) {
        r->signal = WTERMSIG(status);
        r->exit_status = 128 + r->signal;
        if (r->exit_type == TASK_EXIT_NORMAL)
            r->exit_type = TASK_EXIT_SIGNAL;
    }
}

static void result_status(struct task_result *r)
{
    if (r->launch_errno) {
        /* The command never ran: what tally's own forked child used before
         * the failed exec is not the command's. */
        static const int kept[] = {FIELD_START, FIELD_END, FIELD_WALL_TIME, FIELD_MACHINE_CPUS,
                                   FIELD_MACHINE_LOAD, FIELD_DISK, FIELD_TOTAL_FILES};
        double keep[sizeof kept / sizeof kept[0]];
        for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
            keep[i] = r->value[kept[i]];
        for (int i = 0; i < FIELD_COUNT; i++)
            r->value[i] = 0;
        for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
            r->value[kept[i]] = keep[i];
        r->status = r->launch_errno == ENOENT ? TALLY_EXIT_NOT_FOUND : TALLY_EXIT_CANNOT_EXEC;
        r->exit_status = r->status;
        r->exit_type = TASK_EXIT_NORMAL;
        r->signal = 0;
    } else if (r->exit_type == TASK_EXIT_LIMITS) {
        r->status = TALLY_EXIT_LIMITS;
    } else if (r->exit_type == TASK_EXIT_SIGNAL) {
        r->status = 128 + r->signal;
    } else {
        r->status = r->exit_status;
    }
}

int task_run(const struct task_options *o, struct task_result *r)
{
    memset(r, 0, sizeof *r);
    if (gethostname(r->host, sizeof r->host - 1) < 0)
        strcpy(r->host, "unknown");
    r->level = o->follow_pid > 0 ? 1 : o->level;

    /* The sample timer (loop_timer, level 2) interrupts the blocking wait4:
     * no SA_RESTART. The disposition is the one process-wide thing left, and
     * it is restored: 'tally run' is one process per tree (see docs/agent.md). */
    struct sigaction sa, old_alarm;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_timer;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old_alarm);
    /* Levels 1 and 3: nothing of the task outlives a killed tally (level 2:
     * the tracer's PTRACE_O_EXITKILL). Started before tally is a subreaper. */
    struct guardian *guardian = r->level != 2 && o->follow_pid <= 0 ? guardian_start() : NULL;
    /* Orphans of the task are re-parented to tally, which reaps (and counts) them. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);

    struct usage u;
    usage_init(&u, o, r);
    u.guardian = guardian;
    int rc = r->level == 2 ? tracker_run(o, r, &u) : poller_run(o, r, &u);
    sigaction(SIGALRM, &old_alarm, NULL);
    if (rc == 0) {
        usage_finish(&u, o->follow_pid <= 0);
        result_status(r);
    }
    guardian_stop(guardian); /* the task is over: it exits, ending nothing */
    usage_free(&u);
    return rc;
}

void task_result_free(struct task_result *r)
{
    for (size_t i = 0; i < r->file_count; i++)
        free(r->files[i]);
    free(r->files);
    r->files = NULL;
    r->file_count = 0;
    for (size_t i = 0; i < r->executable_count; i++)
        free(r->executables[i].path);
    free(r->executables);
    r->executables = NULL;
    r->executable_count = 0;
}
