/* What a task is asked to do (struct task_options) and what it gave
 * (struct task_result), with their set-up and release: the types the
 * engine's level loops, the reports and the command line share. Running a
 * task is task.h's task_run. */
#ifndef TALLY_MONITOR_TASK_TYPES_H
#define TALLY_MONITOR_TASK_TYPES_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/fields.h"
#include "core/limits.h"
#include "core/sample.h"

/* task_options.on_sample gets one struct task_sample (core/sample.h) at
 * every regular interval (not at the extra samples taken near a limit). */

struct task_options {
    char *const *argv;              /* command to start (execvp); NULL with follow_pid */
    pid_t follow_pid;               /* > 0: follow this running tree instead (level 1) */
    int level;                      /* 1: /proc polling; 2: ptrace process events (default);
                                     * 3: the I/O helper preloaded by the caller
                                     * (cli/run_io.c) reports every process it runs in through
                                     * its region in io_dir, untraced; /proc scans (tally a
                                     * subreaper) find the others, and the level-2 tracer
                                     * follows the images the helper cannot enter (tracker.c).
                                     * The executable of every process a scan or the tracer
                                     * saw is kept (result.executables) to tell which ran
                                     * without the helper (docs/io.md) */
    const char *io_dir;             /* level 3: the directory of the helper's regions */
    const char *segment_dir;        /* --mpi, --probes: the directory of the processes'
                                     * segments (NULL: none). It and io_dir are removed by
                                     * the guardian if tally dies (else by the caller) */
    bool io_untraced;               /* level 3: launch without the tracer (the command is a
                                     * setuid or setgid program that a tracer without
                                     * privileges would run without its own) */
    double interval;                /* regular sampling interval, seconds (default 1) */
    const struct limit_set *limits; /* NULL: none */
    bool measure_only;              /* report broken limits but never kill */
    bool wait_for_all;              /* wait for descendants left when the top process exits */
    bool track_files;               /* collect the files the task opens (result.files) */
    const char *const *measure_dirs;/* directories whose footprint is 'disk' (NULL: cwd) */
    size_t measure_dir_count;
    double kill_grace;              /* seconds between SIGTERM and SIGKILL (default 2) */
    double event_poll;              /* level 2: longest poll for the next event, s (default 300 us) */
    bool foreign_tree;              /* the tree is not this process's children (an agent
                                     * following a pid): the kernel's totals of reaped
                                     * children say nothing about it and are not read */
    bool skip_disk;                 /* no 'disk'/'total_files' walks */
    double details_every;           /* least seconds between the costlier readings (status,
                                     * smaps_rollup, open files and sockets); 0: the interval */
    bool io_with_details;           /* read /proc/PID/io only with those (unless a bytes
                                     * limit is set): an agent following many trees */
    /* Counted by the caller's signal handlers (installed without SA_RESTART):
     * when non-zero the task is terminated (SIGTERM, SIGKILL after the
     * grace) and the run ends normally; from 2 on, SIGKILL at once. */
    volatile sig_atomic_t *interrupt;
    void (*on_sample)(void *ctx, const struct task_sample *sample);
    /* A process joined (started) or left the task: at level 2 every one, at
     * once; at level 1 as scans find them. Same ctx as on_sample. */
    void (*on_process)(void *ctx, pid_t pid, bool started);
    void *sample_ctx;
    /* Level 1, a launched command: its samples are taken elsewhere (the
     * agent follows the tree: 'tally run --agent'). tally only waits for
     * the task and reaps it (no timer, no scan until it ends); the result
     * holds the kernel's exact totals (CPU, I/O, the largest process's
     * peak) and the caller merges the sampler's peaks into it. on_launched
     * (same ctx) tells the sampler which process to follow. */
    bool sampled_elsewhere;
    void (*on_launched)(void *ctx, pid_t pid);
    /* Sampled elsewhere, the sampler also ends the tree if tally dies (no
     * guardian); sampler_fd (>= 0) is the connection to it. When it has
     * something to read (a message, or its end), on_sampler_input (same
     * ctx) is called: true when tally must sample the tree itself from then
     * on (the sampler is gone, or limits came to enforce), with a guardian
     * of its own. */
    int sampler_fd;
    bool (*on_sampler_input)(void *ctx);
};

enum task_exit_type {
    TASK_EXIT_NORMAL,  /* the top process exited; exit_status is its code */
    TASK_EXIT_SIGNAL,  /* the top process died of signal 'signal' */
    TASK_EXIT_LIMITS,  /* a limit was broken and the task was terminated */
};

struct task_result {
    double value[FIELD_COUNT];      /* summary units (MB, s, counts), by field id */
    double peak_time[FIELD_COUNT];  /* seconds after start when value[] was reached; < 0: not tracked */
    bool limit_exceeded[FIELD_COUNT];
    enum task_exit_type exit_type;
    int exit_status;                /* exit code of the top process (normal exit) */
    int signal;                     /* signal that ended the top process, else 0 */
    int launch_errno;               /* != 0: the command could not be started (exec errno) */
    int status;                     /* what 'tally run' exits with: code, 128+N, 124, 126, 127 */
    int level;                      /* level actually used */
    bool interrupted;               /* ended because *options.interrupt was set */
    char host[256];
    char **files;                   /* track_files: sorted paths opened by the task */
    size_t file_count;
    struct task_executable *executables; /* level 3: every process a scan saw, with the */
    size_t executable_count;             /* executable it ran at the last scan that saw it */
};

struct task_executable {
    pid_t pid;
    char *path;                     /* "" when it could not be read */
    bool without_helper;            /* the tracer saw it run path without the helper
                                     * (even where a region of the pid names path) */
};

void task_options_init(struct task_options *options);
/* The task's scratch directories (segment_dir, io_dir; those set and not
 * empty) into dirs: how many. The guardian removes them if tally dies. */
size_t task_scratch_dirs(const struct task_options *options, const char *dirs[2]);
void task_result_free(struct task_result *result);

#endif
