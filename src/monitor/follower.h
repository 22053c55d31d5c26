/* A level-1 follower: measures one running process tree (found by its root
 * pid, like 'tally run --pid') with the same accounting as 'tally run'
 * (usage.h), but driven by its caller's event loop instead of owning one:
 *
 *     follower_take_scan(f, &scan);          // after the caller's proc_scan
 *     double next = follower_step(f, now);   // samples when due; next deadline
 *     if (follower_done(f)) { follower_finish(f); ... follower_result(f) ... }
 *
 * It arms no timer, waits for nothing, reaps nothing and is no subreaper:
 * a process that follows hundreds of trees (the agent) keeps one epoll loop,
 * one timerfd and ONE machine-wide /proc scan per tick for all of them
 * (proc_scan.h), and a tree that is killed only ends its own follower. */
#ifndef TALLY_MONITOR_FOLLOWER_H
#define TALLY_MONITOR_FOLLOWER_H

#include <stdbool.h>
#include <sys/types.h>

#include "monitor/proc_scan.h"
#include "monitor/task_types.h"

struct follower;

/* Starts following the tree of root. options are copied (limits, interval,
 * on_sample and the interrupt flag are used; argv and follow_pid are not).
 * NULL with errno ESRCH when root is not running, ENOMEM. */
struct follower *follower_new(const struct task_options *options, pid_t root);
void follower_free(struct follower *f);

/* Takes a scan whose roots were assigned with the followers' roots
 * (follower_root): processes that joined or left the tree. The root's end
 * (gone, a zombie, or its pid reused) ends the following once its
 * descendants are gone too (with wait_for_all) or at once. */
void follower_take_scan(struct follower *f, const struct proc_scan *scan);
/* Samples when a sample is due and checks limits (a broken limit ends the
 * tree: SIGTERM, SIGKILL after the grace, unless measure_only). Returns the
 * monotonic time by which it wants to be stepped again (INFINITY when done). */
double follower_step(struct follower *f, double now);
/* The tree has ended (or was let go): call follower_finish, read the result. */
bool follower_done(const struct follower *f);
/* Stops following now (the tree keeps running). */
void follower_let_go(struct follower *f);
/* Final values (usage_finish); call once, when done. */
void follower_finish(struct follower *f);

pid_t follower_root(const struct follower *f);
/* The result so far (peaks and totals), final after follower_finish. */
const struct task_result *follower_result(const struct follower *f);
/* Current values (sums over live processes; summary units) and live count. */
const double *follower_current(const struct follower *f);
int follower_live_processes(const struct follower *f);
/* Replaces the limits (a live watchdog); NULL removes them. The set is
 * copied. Broken limits are seen at the next step. */
void follower_set_limits(struct follower *f, const struct limit_set *limits);

#endif
