/* Waiting for the tracer's next ptrace event: sleep, or poll for a moment.
 *
 * Every stop of a traced process is a round trip: the tracee sleeps, the
 * tracer is woken, handles the stop and wakes the tracee. A task that starts
 * many short processes makes five such trips per process (fork event, the
 * child's first stop, its exit stop, its death, its parent's SIGCHLD), one
 * after another. Waking a process on an idle CPU costs an inter-processor
 * interrupt and the CPU's wake-up from its idle state; on a virtual machine
 * the idle vCPU has been handed back to the host, and on the 2-vCPU machine
 * of bench/ this latency was most of what tracing a fork-heavy loop cost.
 *
 * So while events come fast (at least half of the recent ones within
 * FAST_GAP of the previous one: a burst of process creation), the tracer
 * polls with wait4(WNOHANG) for up to its window (300 us by default,
 * TALLY_SPIN_US) before going to sleep, which keeps its CPU awake. Signals
 * are held back while it polls and end the poll as they would end a blocking
 * wait4 (EINTR), so that a sampling tick or an interrupt never waits for the
 * next event. It polls only while a CPU is idle, so it never takes a CPU the
 * task could use, and never on a single CPU. A task that starts a process
 * now and then costs no polling at all. */
#include "platform/linux/event_wait.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/platform.h"
#include "util/clock.h"

#define FAST_GAP 1e-3
#define FAST_WEIGHT (1.0 / 16) /* the moving share spans about 16 events */
#define IDLE_CHECK_EVERY 0.02  /* seconds between reads of /proc/loadavg */

static int allowed_cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void event_wait_init(struct event_wait *w, double spin_window)
{
    *w = (struct event_wait){0};
    w->cpus = allowed_cpu_count();
    w->idle_checked_at = -1;
    w->spin_window = spin_window;
}

/* Is a CPU idle that tally could poll on without taking it from anyone? */
static int cpu_to_spare(struct event_wait *w, double now)
{
    if (w->cpus < 2)
        return 0;
    if (w->idle_checked_at < 0 || now - w->idle_checked_at >= IDLE_CHECK_EVERY) {
        w->idle_checked_at = now;
        int runnable = proc_runnable_tasks();
        w->cpu_idle = runnable > 0 && runnable - 1 < w->cpus; /* the others, tally aside */
    }
    return w->cpu_idle;
}

/* Did a signal arrive that the caller does not block (while polling, all
 * but SIGCHLD are held back, so that none slips in unseen between polls)? */
static int signal_arrived(const sigset_t *caller_mask)
{
    sigset_t pending;
    if (sigpending(&pending) < 0)
        return 0;
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&pending, sig) == 1 && sigismember(caller_mask, sig) == 0)
            return 1;
    return 0;
}

/* Polls until an event (its pid), the end of the window (0), a signal
 * (-1, EINTR: its handler has run, as a blocking wait4 would have it) or an
 * error (-1). */
static pid_t poll_for_event(const struct event_wait *w, double start, int *status,
                            struct rusage *usage)
{
    sigset_t hold, caller_mask;
    sigfillset(&hold);
    sigdelset(&hold, SIGCHLD); /* every tracee stop raises one: not a reason to stop */
    sigprocmask(SIG_BLOCK, &hold, &caller_mask);
    pid_t pid;
    int error = 0;
    for (;;) {
        pid = wait4(-1, status, __WALL | WNOHANG, usage);
        if (pid != 0) {
            error = errno;
            break;
        }
        if (signal_arrived(&caller_mask)) {
            pid = -1;
            error = EINTR;
            break;
        }
        if (clock_monotonic_seconds() - start >= w->spin_window)
            break;
    }
    sigprocmask(SIG_SETMASK, &caller_mask, NULL); /* a pending signal is handled here */
    errno = error;
    return pid;
}

pid_t event_wait_next(struct event_wait *w, int *status, struct rusage *usage)
{
    double start = clock_monotonic_seconds();
    pid_t pid = 0;
    if (w->spin_window > 0 && w->fast_share >= 0.5 && cpu_to_spare(w, start))
        pid = poll_for_event(w, start, status, usage);
    if (pid == 0)
        pid = wait4(-1, status, __WALL, usage);
    if (pid > 0) {
        double fast = clock_monotonic_seconds() - start < FAST_GAP ? 1.0 : 0.0;
        w->fast_share += FAST_WEIGHT * (fast - w->fast_share);
    }
    return pid;
}
