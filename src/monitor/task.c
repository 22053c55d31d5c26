/* task_run: sets up the accounting, the timer and the level's loop, and
 * turns what happened into the result's exit type and status. The parts
 * the level loops share are in run_loop.c. */
#include "monitor/task.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "core/exit.h"
#include "monitor/run_loop.h"
#include "util/error.h"

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
    struct sigaction old_alarm;
    loop_timer_handler_install(&old_alarm);
    /* Levels 1 and 3: nothing of the task outlives a killed tally (level 2:
     * the tracer's PTRACE_O_EXITKILL; sampled elsewhere: the sampler, the
     * agent, does it); at any level, nothing of its scratch directories.
     * Started before tally is a subreaper. */
    const char *scratch[2];
    size_t nscratch = task_scratch_dirs(o, scratch);
    struct guardian *guardian = (r->level != 2 || nscratch) && o->follow_pid <= 0 && !o->sampled_elsewhere
                                    ? guardian_start(scratch, nscratch)
                                    : NULL;
    /* Orphans of the task are re-parented to tally, which reaps (and counts)
     * them, for this task only: a second task_run (run --retry) starts its
     * guardian with tally no subreaper, or the guardian would be re-parented
     * to tally and ended with the task's tree. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);

    struct usage u;
    usage_init(&u, o, r);
    u.guardian = guardian;
    /* Level 3 launches through the tracer too: it follows the images the
     * helper cannot enter (tracker.c); --pid is level 1. */
    bool traced = r->level == 2 || (r->level == 3 && !o->sampled_elsewhere && !o->io_untraced);
    int rc = traced ? tracker_run(o, r, &u) : poller_run(o, r, &u);
    sigaction(SIGALRM, &old_alarm, NULL);
    if (rc == 0) {
        usage_finish(&u, o->follow_pid <= 0);
        result_status(r);
    }
    guardian_stop(u.guardian); /* the task is over: it exits, ending nothing (it may have been
                                * started since, when the sampler went away) */
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    usage_free(&u);
    return rc;
}
