/* The machine-wide /proc scan and its tree assignment (see proc_scan.h).
 * Assignment walks each parent chain once: entries on a walked chain are
 * resolved together, so the whole pass is linear in the number of
 * processes whatever the number of roots. */
#include "monitor/proc_scan.h"

#include "util/clock.h"

void proc_scan_init(struct proc_scan *scan)
{
    pidmap_init(&scan->procs, sizeof(struct scan_proc));
    scan->taken_at = -1;
}

void proc_scan_free(struct proc_scan *scan)
{
    pidmap_free(&scan->procs);
}

static void visit_process(void *ctx, pid_t pid, const struct proc_stat *st)
{
    struct proc_scan *scan = ctx;
    struct scan_proc *e = pidmap_put(&scan->procs, pid, NULL);
    if (!e)
        return;
    e->stat = *st;
    if (st->state == 'Z')
        e->stat.ppid = 0; /* zombies are reaped, not sampled */
    e->root = 0;
    e->resolved = 0;
}

int proc_scan_refresh(struct proc_scan *scan)
{
    pidmap_free(&scan->procs);
    pidmap_init(&scan->procs, sizeof(struct scan_proc));
    scan->taken_at = clock_monotonic_seconds();
    return proc_visit_all(visit_process, scan);
}

const struct scan_proc *proc_scan_get(const struct proc_scan *scan, pid_t pid)
{
    return pidmap_get(&scan->procs, pid);
}

/* Longest parent chain walked before giving up (a loop in a racy scan). */
#define MAX_CHAIN 4096

void proc_scan_assign_roots(struct proc_scan *scan, bool (*is_root)(void *ctx, pid_t pid),
                            void *ctx)
{
    pid_t chain[64];
    for (size_t i = 0; i < scan->procs.capacity; i++) {
        pid_t start = scan->procs.keys[i];
        if (!start || ((struct scan_proc *)pidmap_at(&scan->procs, i))->resolved)
            continue;
        /* Walk up until a root, a resolved entry or the top; remember up to
         * 64 entries of the chain to resolve with the answer (the rest are
         * resolved when their own turn comes, from the resolved part). */
        size_t n = 0;
        pid_t root = 0, pid = start;
        for (int depth = 0; pid > 0 && depth < MAX_CHAIN; depth++) {
            struct scan_proc *e = pidmap_get(&scan->procs, pid);
            if (!e)
                break;
            if (e->resolved) {
                root = e->root;
                break;
            }
            if (e->stat.ppid == 0 && e->stat.state == 'Z')
                break; /* a zombie belongs to no tree, nor do those below it */
            if (is_root(ctx, pid)) {
                root = pid;
                break;
            }
            if (n < sizeof chain / sizeof chain[0])
                chain[n++] = pid;
            pid = e->stat.ppid;
            if (pid <= 1)
                break;
        }
        for (size_t k = 0; k < n; k++) {
            struct scan_proc *e = pidmap_get(&scan->procs, chain[k]);
            e->root = root;
            e->resolved = 1;
        }
        struct scan_proc *r = root ? pidmap_get(&scan->procs, root) : NULL;
        if (r && !r->resolved) {
            r->root = root;
            r->resolved = 1;
        }
        struct scan_proc *s = pidmap_get(&scan->procs, start);
        if (!s->resolved) {
            s->root = root;
            s->resolved = 1;
        }
    }
}
