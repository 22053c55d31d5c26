/* The latest contract violation levels that 'tally contract watch' sends to
 * the agent ({"op":"levels", ...} on its socket, or over NATS to each host's
 * agent), kept per (application, process, host, space, dimension) for the
 * agent's Prometheus exposition (tally_contract_violation gauges) and for
 * the live tools (proc_get_info's 0x100: a process's levels, found by pid).
 * A message replaces everything kept for its application: a watch sends
 * every level of a period at once, and an empty list when it stops. */
#ifndef TALLY_AGENT_AGENT_LEVELS_H
#define TALLY_AGENT_AGENT_LEVELS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct agent_levels;

/* Applies one levels message:
 *   {"op":"levels","app":"mw","threshold":0.5,"time":T,
 *    "levels":[{"process":"3","host":"n1","pid":4242,
 *               "space":"intrinsic","dimension":"compute","level":0.92},...]}
 * ("threshold", "time" and "pid" optional). only_host non-NULL keeps only
 * the levels of that host (an agent reached over NATS keeps its own
 * processes' levels). Returns how many levels the application now has, or
 * -1 with why (the message is refused whole; what was kept stays).
 * *levels is created on first use. */
long agent_levels_apply(struct agent_levels **levels, const json_t *message, const char *only_host,
                        char *why, size_t why_size);
/* The levels kept for process pid (its latest period), as
 *   {"app","process","threshold","time","overall": largest overall level,
 *    "worst": {"space","dimension","level"} (the largest of the other
 *    dimensions), "levels": [{"space","dimension","level"},...]}
 * ("threshold", "time", "worst" only when known); NULL when none. */
json_t *agent_levels_of_process(const struct agent_levels *levels, pid_t pid);
/* The gauges in OpenMetrics text (# TYPE/# HELP and one line per level);
 * labels app, process, host, space, dimension, then user. */
void agent_levels_write(const struct agent_levels *levels, const char *user, FILE *out);
void agent_levels_free(struct agent_levels *levels);

#endif
