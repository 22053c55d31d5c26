/* Waiting for the tracer's next ptrace event: sleep, or poll for a moment
 * while events come fast and a CPU is idle (event_wait.c). */
#ifndef TALLY_PLATFORM_LINUX_EVENT_WAIT_H
#define TALLY_PLATFORM_LINUX_EVENT_WAIT_H

#include <sys/resource.h>
#include <sys/types.h>

struct event_wait {
    int cpus;               /* CPUs tally may run on */
    double fast_share;      /* moving share of recent events that came fast */
    double idle_checked_at; /* monotonic seconds; -1: never */
    int cpu_idle;
    double spin_window;     /* seconds; 0: never poll */
};

/* spin_window: longest poll, seconds (0: never poll). */
void event_wait_init(struct event_wait *w, double spin_window);
/* wait4(-1, status, __WALL, usage), polling first when it is worth it. */
pid_t event_wait_next(struct event_wait *w, int *status, struct rusage *usage);

#endif
