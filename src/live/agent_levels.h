/* The latest contract violation levels that 'tally contract watch' sends to
 * the agent ({"op":"levels", ...} on its socket), kept per (application,
 * process, host, space, dimension) for the agent's Prometheus exposition
 * (tally_contract_violation gauges). A message replaces everything kept for
 * its application: a watch sends every level of a period at once, and an
 * empty list when it stops. */
#ifndef TALLY_LIVE_AGENT_LEVELS_H
#define TALLY_LIVE_AGENT_LEVELS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

struct agent_levels;

/* Applies one levels message:
 *   {"op":"levels","app":"mw","levels":[{"process":"3","host":"n1",
 *     "space":"intrinsic","dimension":"compute","level":0.92},...]}
 * Returns how many levels the application now has, or -1 with why (the
 * message is refused whole; what was kept stays). *levels is created on
 * first use. */
long agent_levels_apply(struct agent_levels **levels, const json_t *message, char *why, size_t why_len);
/* The gauges in OpenMetrics text (# TYPE/# HELP and one line per level);
 * labels app, process, host, space, dimension, then user. */
void agent_levels_write(const struct agent_levels *levels, const char *user, FILE *out);
void agent_levels_free(struct agent_levels *levels);

#endif
