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
};

struct proc_scan {
    struct pidmap procs;    /* pid -> struct scan_proc */
    double taken_at;        /* monotonic seconds */
};

void proc_scan_init(struct proc_scan *scan);
void proc_scan_free(struct proc_scan *scan);
/* Reads every process on the machine afresh. 0, or -1 when /proc cannot be read. */
int proc_scan_refresh(struct proc_scan *scan);
/* The entry of pid in the last scan, or NULL. */
const struct scan_proc *proc_scan_get(const struct proc_scan *scan, pid_t pid);
/* Sets each entry's root: the nearest process up its parent chain (itself
 * included) for which is_root(ctx, pid) is true; 0 when there is none. */
void proc_scan_assign_roots(struct proc_scan *scan, bool (*is_root)(void *ctx, pid_t pid),
                            void *ctx);

#endif
