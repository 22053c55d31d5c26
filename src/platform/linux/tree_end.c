/* Ending a task's tree when whoever measured it is gone: the guardian when
 * a level-1 tally run is killed (guardian.c), the agent when the tally run
 * whose tree it follows is (agent_tree.c).
 *
 * Every process named in `known` (the same pid with the same start time: a
 * reused pid is not the task's) and every descendant of one of them still
 * alive is stopped with SIGSTOP (a stopped process cannot fork any more, so
 * no child slips out between a scan and a kill); the scan is repeated until
 * the set no longer grows, then every one gets SIGKILL. A process that is
 * not in the tree is never touched. Several trees are ended together with
 * one /proc scan per round (proc_trees_end): the agent, whose loop waits
 * meanwhile, ends at once the trees of all the runners that died together. */
#include "platform/platform.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/pidmap.h"

/* Stop-and-scan rounds: 1 ms apart, for 2 s at most (a process in
 * uninterruptible sleep may not stop at once; it is killed all the same). */
#define STOP_ROUND_NS 1000000L
#define STOP_AT_MOST 2.0

struct seen { /* every process on the machine, at one scan */
    pid_t ppid;
    unsigned long long starttime;
    char state;
    signed char member; /* -1 unknown, 0 no, 1 yes */
};

static void note_process(void *ctx, pid_t pid, const struct proc_stat *st)
{
    struct seen *s = pidmap_put(ctx, pid, NULL);
    if (s) {
        s->ppid = st->ppid;
        s->starttime = st->starttime;
        s->state = st->state;
        s->member = -1;
    }
}

static int is_known(const struct pidmap *known, pid_t pid, const struct seen *s)
{
    const struct proc_tree_member *k = pidmap_get(known, pid);
    return k && k->starttime == s->starttime;
}

/* Is pid one of the task's processes, or a descendant of one? */
static int in_tree(struct pidmap *all, const struct pidmap *known, pid_t pid, int depth)
{
    struct seen *s = pidmap_get(all, pid);
    if (!s || depth > 4096)
        return 0;
    if (s->member < 0) {
        int m = is_known(known, pid, s) ||
                (s->ppid > 1 && in_tree(all, known, s->ppid, depth + 1));
        s = pidmap_get(all, pid);
        s->member = (signed char)m;
    }
    return s->member;
}

/* One scan for every tree: adds each tree's new processes to its known
 * set, stops the running ones (or kills every one, with sig SIGKILL).
 * Returns how many were added or are not stopped yet; ended[k] (when not
 * NULL) counts tree k's processes signalled. */
static size_t stop_round(struct pidmap *known, size_t n, int sig, size_t ended[])
{
    struct pidmap all;
    pidmap_init(&all, sizeof(struct seen));
    proc_visit_all(note_process, &all);
    size_t busy = 0;
    pid_t self = getpid();
    for (size_t k = 0; k < n; k++) {
        if (k > 0) /* membership is per tree */
            for (size_t i = 0; i < all.capacity; i++)
                if (all.keys[i])
                    ((struct seen *)pidmap_at(&all, i))->member = -1;
        for (size_t i = 0; i < all.capacity; i++) {
            pid_t pid = all.keys[i];
            if (!pid || pid == self || !in_tree(&all, &known[k], pid, 0))
                continue;
            const struct seen *s = pidmap_at(&all, i);
            if (s->state == 'Z' || s->state == 'X')
                continue;
            int created;
            struct proc_tree_member *m = pidmap_put(&known[k], pid, &created);
            if (m && created) {
                m->starttime = s->starttime;
                busy++;
            }
            if (sig == SIGKILL) {
                if (kill(pid, SIGKILL) == 0 && ended)
                    ended[k]++;
            } else if (s->state != 'T' && s->state != 't') {
                kill(pid, SIGSTOP);
                busy++;
            }
        }
    }
    pidmap_free(&all);
    return busy;
}

void proc_trees_end(struct pidmap *known, size_t n, size_t ended[])
{
    struct timespec gap = {0, STOP_ROUND_NS};
    double give_up = clock_monotonic_seconds() + STOP_AT_MOST;
    for (size_t k = 0; ended && k < n; k++)
        ended[k] = 0;
    if (n == 0)
        return;
    while (stop_round(known, n, SIGSTOP, NULL) > 0 && clock_monotonic_seconds() < give_up)
        nanosleep(&gap, NULL);
    stop_round(known, n, SIGKILL, ended);
}

size_t proc_tree_end(struct pidmap *known)
{
    size_t ended;
    proc_trees_end(known, 1, &ended);
    return ended;
}
