/* The machine-wide /proc scan and its tree assignment (see proc_scan.h).
 * Assignment walks each parent chain once: entries on a walked chain are
 * resolved together, so the whole pass is linear in the number of
 * processes whatever the number of roots. */
#include "monitor/proc_scan.h"

#include <string.h>

#include "util/clock.h"

void proc_scan_init(struct proc_scan *scan)
{
    memset(scan, 0, sizeof *scan);
    pidmap_init(&scan->procs, sizeof(struct scan_proc));
    pidmap_init(&scan->next, sizeof(struct scan_proc));
    scan->taken_at = -1;
}

void proc_scan_free(struct proc_scan *scan)
{
    pidmap_free(&scan->procs);
    pidmap_free(&scan->next);
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
    e->kept = 0;
}

int proc_scan_refresh(struct proc_scan *scan)
{
    pidmap_free(&scan->procs);
    pidmap_init(&scan->procs, sizeof(struct scan_proc));
    scan->taken_at = clock_monotonic_seconds();
    scan->refreshes = 0;
    return proc_visit_all(visit_process, scan);
}

struct tree_visit {
    struct proc_scan *scan;
    pid_t root;
};

static void visit_tree_process(void *ctx, pid_t pid, const struct proc_stat *st)
{
    struct tree_visit *v = ctx;
    visit_process(v->scan, pid, st);
    struct scan_proc *e = pidmap_get(&v->scan->procs, pid);
    if (e) {
        e->root = st->state == 'Z' ? 0 : v->root;
        e->resolved = 1;
    }
}

int proc_scan_refresh_tree(struct proc_scan *scan, pid_t root)
{
    pidmap_free(&scan->procs);
    pidmap_init(&scan->procs, sizeof(struct scan_proc));
    scan->taken_at = clock_monotonic_seconds();
    scan->refreshes = 0;
    struct tree_visit v = {scan, root};
    return proc_visit_tree(root, visit_tree_process, &v);
}

static void read_into(struct pidmap *map, pid_t pid)
{
    struct proc_stat st;
    if (proc_read_stat(pid, &st) < 0)
        return;
    struct scan_proc *e = pidmap_put(map, pid, NULL);
    if (!e)
        return;
    memset(e, 0, sizeof *e);
    e->stat = st;
    if (st.state == 'Z')
        e->stat.ppid = 0;
}

static void carry_or_read(void *ctx, pid_t pid)
{
    struct proc_scan *scan = ctx;
    const struct scan_proc *old = pidmap_get(&scan->procs, pid);
    if (old && old->stat.state != 'Z' && !scan->fresh(scan->fresh_ctx, pid)) {
        struct scan_proc *e = pidmap_put(&scan->next, pid, NULL);
        if (e) {
            *e = *old;
            e->root = 0;
            e->resolved = 0;
            e->kept = 1;
        }
        return;
    }
    read_into(&scan->next, pid);
}

int proc_scan_refresh_incremental(struct proc_scan *scan, bool (*fresh)(void *ctx, pid_t pid),
                                  void *ctx)
{
    if (scan->taken_at < 0 || ++scan->refreshes >= PROC_SCAN_FULL_EVERY)
        return proc_scan_refresh(scan);
    scan->fresh = fresh;
    scan->fresh_ctx = ctx;
    pidmap_free(&scan->next);
    pidmap_init(&scan->next, sizeof(struct scan_proc));
    scan->taken_at = clock_monotonic_seconds();
    int rc = proc_visit_pids(carry_or_read, scan);
    /* A kept process whose parent is gone was re-parented: read it. */
    for (size_t i = 0; i < scan->next.capacity; i++) {
        pid_t pid = scan->next.keys[i];
        struct scan_proc *e = pid ? pidmap_at(&scan->next, i) : NULL;
        if (!e || !e->kept || e->stat.ppid <= 1 || pidmap_get(&scan->next, e->stat.ppid))
            continue;
        struct proc_stat st;
        if (proc_read_stat(pid, &st) == 0) {
            e->stat = st;
            if (st.state == 'Z')
                e->stat.ppid = 0;
        }
        e->kept = 0;
    }
    struct pidmap swap = scan->procs;
    scan->procs = scan->next;
    scan->next = swap;
    return rc;
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
