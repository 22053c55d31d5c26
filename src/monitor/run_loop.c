/* What the level loops (tracker.c for level 2, poller.c for level 1 and
 * --pid) share: the ending of a task (SIGTERM to every process, SIGKILL
 * after the grace), the sample timer and the top process's status
 * (declared in run_loop.h). Kept apart from task.c, which starts the loops,
 * so that the includes point one way: task.c -> loops -> run_loop.c. */
#include "monitor/run_loop.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "monitor/task_types.h"

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

double loop_next_deadline_in(const struct ending *e, struct usage *u)
{
    usage_start_background_when_due(u);
    double in = usage_next_sample_in(u);
    if (e->terminating && e->kill_at > 0)
        in = fmin(in, fmax(0, e->kill_at - usage_now()));
    return in;
}

static void on_timer(int sig)
{
    (void)sig;
}

void loop_timer_handler_install(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_timer;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, old);
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
