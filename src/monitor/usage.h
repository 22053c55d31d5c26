/* The accounting of one task, shared by both levels: the live processes
 * and their last readings, the running totals and peaks (written straight
 * into the task_result), the sampling schedule (adaptive near limits), the
 * limit checks and the time-series points. The level-specific loops
 * (tracker.c, poller.c) only feed it events and ask it when to sample. */
#ifndef TALLY_MONITOR_USAGE_H
#define TALLY_MONITOR_USAGE_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "monitor/disk.h"
#include "monitor/fileset.h"
#include "monitor/network.h"
#include "monitor/task_types.h"
#include "platform/platform.h"
#include "util/pidmap.h"

struct proc_scan;

struct usage {
    const struct task_options *options;
    struct task_result *result;
    struct pidmap procs;        /* live processes: struct usage_proc */
    double start;               /* monotonic seconds */
    double start_epoch;
    int live;
    int live_max_since_row;     /* for the series column */
    double cpu_now;             /* cumulative CPU seconds at the last sample */
    double row_time, row_cpu;   /* last regular sample (for cores) */
    double next_regular;        /* monotonic time of the next regular sample */
    double next_details;        /* and of the next costlier readings (status, smaps, fds) */
    double next_warmup;         /* level 1: next early scan (10 ms, 20 ms, 40 ms ...), or INFINITY */
    double rate_time;           /* last sample time, for growth rates */
    double rate_value[FIELD_COUNT];  /* current[] at that sample */
    double rate[FIELD_COUNT];        /* growth per second between the last two samples */
    double current[FIELD_COUNT];/* values now (sums over live processes, totals) */
    bool limit_broken;          /* a limit was broken (first time: action needed) */
    bool limits_reported;
    struct fileset files;
    struct net_usage net;
    struct disk_watch *disk;    /* background walks of the measured directories */
    double disk_at;             /* when the walker's first walk is due (monotonic), while it
                                 * is to be started (usage_schedule_background); INFINITY */
    double base_cpu;            /* reaped children's totals when the task started */
    struct proc_io base_io;
    struct rusage base_rusage;
    const struct proc_scan *scan; /* when set, usage_sample takes /proc/PID/stat from
                                   * this fresh scan instead of reading it again */
    pid_t exit_pending;         /* read at its exit stop, not yet accounted */
    struct proc_status exit_status; /* its peaks, from status */
    struct guardian *guardian;  /* told of every process (level 1), or NULL */
    size_t executable_capacity; /* of result->executables (level 3) */
    struct pidmap executable_index; /* level 3: pid → its index in result->executables */
    struct pidmap counted;      /* level 3: every pid counted in total_processes */
    struct pidmap ended;        /* level 3: pid -> start time (unsigned long long) of each
                                 * process the tracer saw end, so that a scan made while it
                                 * finishes its exit does not take it for a live one */
};

double usage_now(void);
void usage_init(struct usage *u, const struct task_options *options, struct task_result *result);
void usage_free(struct usage *u);
/* Starts the background measurements (directory walks), their first walk
 * half an interval from now: the walker, a thread, now. For a caller that
 * samples at its own ticks (the agent's followers); call once the task's
 * top process has been started. */
void usage_start_background(struct usage *u);
/* The same for the loops of tally run (tracker.c, poller.c), which wake at
 * usage_next_sample_in: the walker's thread is started only when its first
 * walk is due (usage_start_background_when_due), so that a task shorter
 * than half an interval costs no thread, the walk at its end being the one
 * it needs. */
void usage_schedule_background(struct usage *u);
/* Starts the walker scheduled by usage_schedule_background when its first
 * walk is due (or nearly: see usage.c); loop_next_deadline_in calls it at
 * every turn of the loops, whose deadline (usage_next_sample_in) includes
 * the walker's start until then. */
void usage_start_background_when_due(struct usage *u);
/* Level 1 (polling): scan early and at doubling gaps (10, 20, 40 ms ... up to
 * the interval), so that a short task's processes and memory are seen at all. */
void usage_enable_warmup(struct usage *u);
/* True when an early scan of the process tree is due (see usage_enable_warmup). */
bool usage_warmup_due(const struct usage *u);
/* A process joined the task. */
void usage_process_started(struct usage *u, pid_t pid);
/* Level 3: the I/O helper reported that PID ran in the task (it may be
 * gone already): counted in total_processes unless told of before. */
void usage_process_reported(struct usage *u, pid_t pid);
/* Level 3: PID, seen alive by a scan, runs this executable now. */
void usage_note_executable(struct usage *u, pid_t pid);
/* Level 3: the same, for a process the tracer found running it without
 * the helper (at its exec or exit stop, or adopted). */
void usage_note_without_helper(struct usage *u, pid_t pid);
/* Level 3: the executable last noted for pid, or NULL. */
const char *usage_executable(const struct usage *u, pid_t pid);
/* Level 3: pid, at its exit stop, has ended for the accounting; a scan
 * that still finds it (same start time) passes it over (usage_ended). */
void usage_note_ended(struct usage *u, pid_t pid);
bool usage_ended(const struct usage *u, pid_t pid, unsigned long long starttime);
/* After a scan: a process that ended before it is a zombie or reaped by
 * the next one (the table stays as small as the ends between two scans). */
void usage_forget_ended(struct usage *u);
/* A process is at its exit, still readable in /proc (level 2): reads what
 * only the process itself can tell, its exact peaks included. usage_account_exit
 * then does the rest once the process has been let go (keeping the stop
 * short). Returns true when the readings are complete and no other thread
 * of it is left: nothing more is to be learnt from its death. */
bool usage_process_exiting(struct usage *u, pid_t pid);
void usage_account_exit(struct usage *u);
/* A process has ended; peak_rss: its peak resident memory when known
 * (level 2, from the kernel's accounting of the dead process), else 0. */
void usage_process_gone(struct usage *u, pid_t pid, uint64_t peak_rss);
/* True when pid is one of the task's live processes. */
bool usage_has_process(const struct usage *u, pid_t pid);
/* Reads the live processes. A regular sample (at the --interval) also
 * reads the slower counters, walks the directories when due, and hands a
 * series point to options->on_sample. */
void usage_sample(struct usage *u, bool regular);
/* Seconds from now until the next sample is due (0 when overdue). */
double usage_next_sample_in(const struct usage *u);
/* True when the next due sample is a regular one. */
bool usage_regular_due(const struct usage *u);
/* Returns true once, when a limit is first found broken and the task must
 * be stopped (never with measure_only). */
bool usage_limit_action_needed(struct usage *u);
/* Calls fn(ctx, pid) for each live process. */
void usage_each_process(const struct usage *u, void (*fn)(void *ctx, pid_t pid), void *ctx);
/* Final values once the whole tree is gone and reaped. reaped_all: every
 * process of the task was tally's descendant and was reaped by it, so the
 * kernel's totals of reaped children are exact. */
void usage_finish(struct usage *u, bool reaped_all);

#endif
