/* Level 2: the task's processes followed through ptrace process events
 * (platform tracer), each measured at its exit before it disappears. */
#include <math.h>
#include <signal.h>
#include <sys/wait.h>

#include "monitor/run_loop.h"
#include "platform/platform.h"
#include "util/error.h"

int tracker_run(const struct task_options *o, struct task_result *r, struct usage *u)
{
    struct launch launch;
    int rc = launch_command(o->argv, true, &launch);
    if (rc == -1)
        return -1;
    if (rc == -2) { /* no ptrace here (e.g. tally itself traced): level 1 */
        waitpid(launch.pid, NULL, 0);
        r->level = 1;
        return poller_run(o, r, u);
    }
    struct tracer *tracer = tracer_new(launch.pid, o->event_poll);
    if (!tracer) {
        tally_error("run: out of memory");
        kill(launch.pid, SIGKILL);
        waitpid(launch.pid, NULL, __WALL);
        return -1;
    }
    struct loop_timer timer = {0};
    if (loop_timer_create(&timer) < 0)
        tally_error_errno("run: timer_create (sampling only at process events)");
    usage_process_started(u, launch.pid);
    usage_start_background(u);
    struct ending ending = {0};
    double armed = -1;
    for (;;) {
        ending_check_causes(&ending, u);
        double in = loop_next_deadline_in(&ending, u);
        if (in <= 0.0005) {
            usage_sample(u, usage_regular_due(u));
            armed = -1;
            continue;
        }
        /* Re-arm only when the deadline moved: one syscall saved per event. */
        double deadline = usage_now() + in;
        if (armed < 0 || fabs(deadline - armed) > 0.002) {
            loop_timer_arm(&timer, in);
            armed = deadline;
        }
        struct tracer_event ev;
        tracer_next(tracer, &ev);
        if (ev.kind == TRACER_NO_PROCESSES)
            break;
        switch (ev.kind) {
        case TRACER_NEW_PROCESS:
            usage_process_started(u, ev.pid);
            ending_new_process(&ending, ev.pid);
            break;
        case TRACER_EXITING:
            /* Read at its exit stop, a process is then let go for good: its
             * death goes to its parent without waking tally. The top process
             * is followed to its death (its status), and so is one with
             * threads left or that could not be read. */
            if (usage_process_exiting(u, ev.pid) && ev.pid != launch.pid &&
                tracer_let_go(tracer, ev.pid)) {
                usage_account_exit(u);
                usage_process_gone(u, ev.pid, 0);
            } else {
                tracer_resume(tracer, ev.pid);
                usage_account_exit(u);
            }
            break;
        case TRACER_GONE:
            usage_process_gone(u, ev.pid, ev.peak_rss);
            if (ev.pid == launch.pid) {
                loop_record_top_status(r, ev.status);
                if (!o->wait_for_all && u->live > 0)
                    ending_begin(&ending, u); /* nothing of the task outlives it */
            }
            break;
        default:
            break;
        }
    }
    loop_timer_delete(&timer);
    r->launch_errno = launch_exec_errno(&launch);
    tracer_free(tracer);
    return 0;
}
