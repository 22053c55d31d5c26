/* Internal to the engine: what the level loops (tracker.c for level 2,
 * poller.c for level 1 and --pid) share with task.c — the ending of a task
 * (SIGTERM to every process, SIGKILL after the grace) and the sample timer. */
#ifndef TALLY_MONITOR_RUN_LOOP_H
#define TALLY_MONITOR_RUN_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include "monitor/usage.h"

struct ending {
    bool terminating;  /* SIGTERM sent to the tree */
    double kill_at;    /* monotonic time to send SIGKILL; 0 once sent */
};

/* Starts terminating the task: SIGTERM (and SIGCONT) to every live process. */
void ending_begin(struct ending *e, struct usage *u);
/* Sends SIGKILL when the grace has passed. To call at every loop turn. */
void ending_progress(struct ending *e, struct usage *u);
/* Signals every live process again (SIGTERM during the grace, SIGKILL
 * after): level 1 finds processes only by scanning. */
void ending_signal_again(const struct ending *e, struct usage *u);
/* A process that appears while terminating gets the same treatment. */
void ending_new_process(const struct ending *e, pid_t pid);
/* Checks the interrupt flag and broken limits; begins the ending if needed. */
void ending_check_causes(struct ending *e, struct usage *u);
/* Seconds until the next thing the loop must do on time (sample or kill),
 * once the background walker is started if it is due. */
double loop_next_deadline_in(const struct ending *e, struct usage *u);

/* The sample timer of one run: a POSIX timer that sends SIGALRM to the
 * thread that runs the loop (SIGEV_THREAD_ID), not to the process, so that
 * nothing about it is process-wide and several runs could each have their
 * own thread and timer. It fires after 'seconds' and periodically after
 * that, so that a tick lost just before a blocking wait is made up for; the
 * signal only interrupts the loop's blocking wait4 (no SA_RESTART). */
struct loop_timer {
    timer_t id;
    bool created;
};
/* Installs the SIGALRM handler that does nothing but interrupt (no
 * SA_RESTART); 'old' receives the disposition to restore after the loop. */
void loop_timer_handler_install(struct sigaction *old);
int loop_timer_create(struct loop_timer *t);
void loop_timer_arm(struct loop_timer *t, double seconds);
void loop_timer_delete(struct loop_timer *t);

struct helper_reports;
/* Updates the live set from /proc: the tree's own processes only (its cost
 * does not grow with the rest of the machine), or one machine-wide scan
 * where the kernel cannot list a process's children (proc_scan.h). With
 * reports (level 3): notes each live process's executable and reads the
 * helper's new regions. (poller.c) */
void scan_tree(struct usage *u, pid_t root, bool include_root, struct helper_reports *reports);

int tracker_run(const struct task_options *o, struct task_result *r, struct usage *u);
int poller_run(const struct task_options *o, struct task_result *r, struct usage *u);

/* Status of the top process → result fields. */
void loop_record_top_status(struct task_result *r, int wait_status);

#endif
