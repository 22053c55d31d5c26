/* Level 2: the task's processes followed through ptrace process events
 * (platform tracer), each measured at its exit before it disappears.
 *
 * Level 3 runs here too, as the fallback for the images the I/O helper
 * cannot enter. The top process is seized as at level 2, with exec events:
 * when its image is one the helper enters (helper_enters), it is let go at
 * its exec stop, and neither it nor what it starts is stopped again: the
 * helper's regions and /proc scans count them (as poller.c does). An image
 * the helper cannot enter (a static binary, a setuid program, a cleared
 * environment) stays traced, and so does every process it starts, as at
 * level 2, the helper's images among them: each counted at its fork,
 * measured at its exit stop, its executable noted so that the report names
 * it as not interposed (docs/io.md). One exec'd by
 * a process already let go is adopted when a scan finds it
 * (uninterposed.c): what it starts after that scan is followed. */
#include <math.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "monitor/helper_reports.h"
#include "monitor/run_loop.h"
#include "monitor/uninterposed.h"
#include "platform/platform.h"
#include "util/error.h"

int tracker_run(const struct task_options *o, struct task_result *r, struct usage *u)
{
    bool level3 = o->io_dir && *o->io_dir;
    unsigned flags = LAUNCH_TRACED | (level3 ? LAUNCH_EXEC_EVENTS : 0) | (u->guardian ? LAUNCH_GUARDED : 0);
    struct launch launch;
    int rc = launch_command(o->argv, flags, &launch);
    if (rc == -1)
        return -1;
    if (rc == -2) { /* no ptrace here (e.g. tally itself traced): level 1, or 3 without the tracer */
        waitpid(launch.pid, NULL, 0);
        if (!level3)
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
    pid_t self = getpid();
    struct helper_reports reports_of_helper, *reports = NULL;
    struct uninterposed others;
    if (level3) {
        uninterposed_init(&others, o->io_dir);
        helper_reports_init(&reports_of_helper, o->io_dir);
        reports = &reports_of_helper;
        usage_enable_warmup(u); /* the untraced processes are found by scans */
    }
    usage_process_started(u, launch.pid);
    usage_schedule_background(u);
    struct ending ending = {0};
    double armed = -1;
    for (;;) {
        ending_check_causes(&ending, u);
        double in = loop_next_deadline_in(&ending, u);
        if (in <= 0.0005) {
            bool regular = usage_regular_due(u);
            if (reports && (regular || usage_warmup_due(u) || ending.terminating)) {
                scan_tree(u, self, false, reports);
                uninterposed_adopt(&others, u, tracer);
            }
            if (reports && ending.terminating) /* untraced processes found since are ended too */
                ending_signal_again(&ending, u);
            usage_sample(u, regular);
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
        case TRACER_EXEC:
            /* Level 3: an image of the helper goes untraced from here on,
             * when it is tally's own child (the command, an orphan): its
             * death still comes here. Under an image the helper cannot
             * enter, the helper's images stay followed too: one let go
             * would be taken for alive until the next scan. */
            if (helper_enters(ev.pid, o->io_dir) == 1) {
                struct proc_stat st;
                if (ev.pid == launch.pid || (proc_read_stat(ev.pid, &st) == 0 && st.ppid == self))
                    tracer_let_go(tracer, ev.pid);
                else
                    tracer_resume(tracer, ev.pid);
            } else {
                usage_note_without_helper(u, ev.pid);
                tracer_resume(tracer, ev.pid);
            }
            break;
        case TRACER_EXITING:
            if (level3) { /* its last executable, for the report (docs/io.md) */
                usage_note_executable(u, ev.pid);
                usage_note_ended(u, ev.pid);
            }
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
                if (reports && !o->wait_for_all)
                    scan_tree(u, self, false, reports); /* the untraced ones left, to end them */
                if (!o->wait_for_all && u->live > 0)
                    ending_begin(&ending, u); /* nothing of the task outlives it */
            }
            break;
        default:
            break;
        }
    }
    if (reports) { /* every process has ended: every region is there */
        helper_reports_read(reports, u, true);
        uninterposed_free(&others);
    }
    loop_timer_delete(&timer);
    r->launch_errno = launch_exec_errno(&launch);
    tracer_free(tracer);
    return 0;
}
