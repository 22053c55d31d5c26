/* One machine-wide scan of /proc: every process's parent, state and
 * counters (/proc/PID/stat), and, for a set of tree roots chosen by the
 * caller, which tree each process belongs to (its nearest ancestor that is a
 * root). A level-1 loop finds its tree's processes this way; an agent that
 * follows many trees takes ONE scan per tick and hands it to all of its
 * followers (follower.h) instead of scanning once per tree, which would
 * cost as many scans as trees. The scan belongs to its caller: no state is
 * kept anywhere else. */
#ifndef TALLY_MONITOR_PROC_SCAN_H
#define TALLY_MONITOR_PROC_SCAN_H

#include <stdbool.h>
#include <sys/types.h>

#include "platform/platform.h"
#include "util/pidmap.h"

struct scan_proc {
    struct proc_stat stat;  /* stat.ppid is 0 for a zombie: it belongs to no tree */
    pid_t root;             /* after proc_scan_assign_roots: its tree's root, 0: none */
    signed char resolved;   /* root assignment done for this entry */
    signed char kept;       /* incremental refresh: carried over, not read this time */
};

struct proc_scan {
    struct pidmap procs;    /* pid -> struct scan_proc */
    double taken_at;        /* monotonic seconds */
    unsigned refreshes;     /* incremental refreshes since the last full one */
    struct pidmap next;     /* being built (kept to avoid reallocating) */
    bool (*fresh)(void *ctx, pid_t pid);
    void *fresh_ctx;
};

/* An incremental refresh reads everything again every this many times. */
#define PROC_SCAN_FULL_EVERY 30

void proc_scan_init(struct proc_scan *scan);
void proc_scan_free(struct proc_scan *scan);
/* Reads every process on the machine afresh. 0, or -1 when /proc cannot be read. */
int proc_scan_refresh(struct proc_scan *scan);
/* The same at the cost of the processes that matter: one listing of /proc,
 * then /proc/PID/stat only for processes that are new, whose parent is gone
 * (re-parented), or for which fresh(ctx, pid) is true (the followed ones,
 * whose readings are used); the others keep what the last refresh read.
 * Everything is read again every PROC_SCAN_FULL_EVERY refreshes, so that a
 * pid reused between two refreshes is set right within that many ticks. On
 * a machine of many processes this is what keeps following trees cheap:
 * the unrelated processes cost one directory entry each. */
int proc_scan_refresh_incremental(struct proc_scan *scan, bool (*fresh)(void *ctx, pid_t pid),
                                  void *ctx);
/* Only the tree of root (root and every process below it, proc_visit_tree),
 * with their roots assigned: root for each, 0 for zombies (as
 * proc_scan_assign_roots would). What one tree's follower needs, at the
 * cost of that tree whatever else runs. -1 (errno ENOSYS) when the kernel
 * cannot list children: refresh and assign roots instead. */
int proc_scan_refresh_tree(struct proc_scan *scan, pid_t root);
/* The entry of pid in the last scan, or NULL. */
const struct scan_proc *proc_scan_get(const struct proc_scan *scan, pid_t pid);
/* Sets each entry's root: the nearest process up its parent chain (itself
 * included) for which is_root(ctx, pid) is true; 0 when there is none. */
void proc_scan_assign_roots(struct proc_scan *scan, bool (*is_root)(void *ctx, pid_t pid),
                            void *ctx);

#endif
