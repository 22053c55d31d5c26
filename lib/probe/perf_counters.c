/* Counters of this process over the window and the run (perf_counters.h),
 * through perf_event_open on the calling thread (pid 0, any CPU), inherited:
 * the thread that registered (the one that called MPI_Init) and every
 * thread or process it starts afterwards (OpenMP teams, helper threads);
 * the kernel sums them into the parent's counts, and the group's ioctls
 * switch them all. Threads started before registration are not counted.
 * Two sets of the same events: the run set counts from registration; the
 * window set is enabled and disabled with the window's periods (one ioctl
 * per group; a monitor's switch takes effect when the process acknowledges
 * it) and read, one read per group, at each period's end, so that it holds
 * the sum over the periods; the run set is read once, when it ends. Nothing
 * happens per probe hit or MPI call.
 *
 * Two groups per set: hardware (instructions, cycles) and software
 * (task-clock, page faults, context switches), so that a hardware group the
 * PMU multiplexes (values scaled by time enabled / time running) never stops
 * the software one. Where the machine has no PMU (most VMs: ENOENT) or the
 * kernel refuses (perf_event_paranoid), the errno goes into the segment and
 * the rest is counted; kernel-mode counting is dropped (user only) when it
 * alone is refused. Process-global, as the segment is: one per process. */
#include "perf_counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { HARDWARE_GROUP, SOFTWARE_GROUP, GROUP_COUNT };

static const struct {
    uint32_t type;
    uint64_t config;
    int group;
} events[TALLY_PERF_EVENT_COUNT] = {
    [TALLY_PERF_INSTRUCTIONS] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, HARDWARE_GROUP},
    [TALLY_PERF_CYCLES] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, HARDWARE_GROUP},
    [TALLY_PERF_TASK_CLOCK] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, SOFTWARE_GROUP},
    [TALLY_PERF_PAGE_FAULTS] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, SOFTWARE_GROUP},
    [TALLY_PERF_CONTEXT_SWITCHES] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, SOFTWARE_GROUP},
};

struct group {
    int count;                          /* fds[0] is the leader */
    int fds[TALLY_PERF_EVENT_COUNT];
    int events[TALLY_PERF_EVENT_COUNT];
};

struct counter_set {
    struct group groups[GROUP_COUNT];
};

static struct counter_set run_set, window_set;
static bool run_open, window_open, window_enabled;

static int open_event(int event, int group_fd, bool disabled, bool user_only)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = events[event].type;
    a.config = events[event].config;
    a.disabled = disabled;
    a.inherit = 1;
    a.exclude_kernel = a.exclude_hv = user_only;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Opens the events of group WHICH, its leader disabled when DISABLED (the
 * others follow the leader). Returns 0, or the errno that refused the leader
 * (then the group is empty). */
static int open_group(struct group *g, int which, bool disabled, uint32_t *user_only)
{
    g->count = 0;
    for (int e = 0; e < TALLY_PERF_EVENT_COUNT; e++) {
        if (events[e].group != which)
            continue;
        int leader = g->count ? g->fds[0] : -1;
        int fd = open_event(e, leader, !g->count && disabled, *user_only);
        if (fd < 0 && (errno == EACCES || errno == EPERM) && !*user_only && !g->count) {
            *user_only = 1; /* perf_event_paranoid: try user mode alone */
            fd = open_event(e, leader, disabled, 1);
        }
        if (fd < 0) {
            if (!g->count)
                return errno ? errno : EINVAL;
            continue; /* one sibling the PMU lacks: the others still count */
        }
        g->fds[g->count] = fd;
        g->events[g->count++] = e;
    }
    return 0;
}

static void open_set(struct counter_set *set, bool disabled, struct tally_seg_perf *p)
{
    int hw = open_group(&set->groups[HARDWARE_GROUP], HARDWARE_GROUP, disabled, &p->user_only);
    int sw = open_group(&set->groups[SOFTWARE_GROUP], SOFTWARE_GROUP, disabled, &p->user_only);
    p->hardware_errno = hw;
    p->software_errno = sw;
    p->opened = 0;
    for (int k = 0; k < GROUP_COUNT; k++)
        for (int i = 0; i < set->groups[k].count; i++)
            p->opened |= 1u << set->groups[k].events[i];
}

static void switch_set(struct counter_set *set, unsigned long request)
{
    for (int k = 0; k < GROUP_COUNT; k++)
        if (set->groups[k].count)
            ioctl(set->groups[k].fds[0], request, PERF_IOC_FLAG_GROUP);
}

/* One read per group into OUT (scaled when the PMU multiplexed the group). */
static void read_set(const struct counter_set *set, uint64_t out[TALLY_PERF_EVENT_COUNT])
{
    for (int k = 0; k < GROUP_COUNT; k++) {
        const struct group *g = &set->groups[k];
        uint64_t buf[3 + TALLY_PERF_EVENT_COUNT]; /* nr, time enabled, time running, values */
        if (!g->count || read(g->fds[0], buf, sizeof buf) < (ssize_t)(3 * sizeof(uint64_t)))
            continue;
        uint64_t enabled = buf[1], running = buf[2];
        for (uint64_t i = 0; i < buf[0] && i < (uint64_t)g->count; i++) {
            uint64_t v = buf[3 + i];
            if (running && running < enabled)
                v = (uint64_t)((double)v * (double)enabled / (double)running);
            out[g->events[i]] = running ? v : 0;
        }
    }
}

static void close_set(struct counter_set *set)
{
    for (int k = 0; k < GROUP_COUNT; k++) {
        for (int i = set->groups[k].count - 1; i >= 0; i--)
            close(set->groups[k].fds[i]);
        set->groups[k].count = 0;
    }
}

void tally__perf_open(struct tally_segment *s)
{
    struct tally_seg_perf *p = &s->d.perf;
    open_set(&run_set, false, p);
    run_open = true;
    struct tally_seg_perf window_status = *p;
    window_enabled = s->d.window.state == TALLY_WINDOW_OPEN;
    open_set(&window_set, !window_enabled, &window_status);
    window_open = true;
}

void tally__perf_window_on(void)
{
    if (window_open && !window_enabled) {
        switch_set(&window_set, PERF_EVENT_IOC_ENABLE);
        window_enabled = true;
    }
}

void tally__perf_window_off(struct tally_segment *s)
{
    if (!window_open || !window_enabled)
        return;
    switch_set(&window_set, PERF_EVENT_IOC_DISABLE);
    window_enabled = false;
    read_set(&window_set, s->d.perf.window); /* not reset: the sum of the periods so far */
    s->d.perf.window_read = 1;
}

void tally__perf_finish(struct tally_segment *s)
{
    if (window_open) { /* a period still open is read (it ends here) */
        tally__perf_window_off(s);
        close_set(&window_set);
        window_open = false;
    }
    if (!run_open)
        return;
    switch_set(&run_set, PERF_EVENT_IOC_DISABLE);
    read_set(&run_set, s->d.perf.run);
    s->d.perf.run_read = 1;
    close_set(&run_set);
    run_open = false;
}

void tally__perf_forget(void)
{
    close_set(&run_set);
    close_set(&window_set);
    run_open = window_open = window_enabled = false;
}
