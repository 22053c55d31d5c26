/* One label of the OpenMetrics text, escaped: shared by the exposition
 * (metrics.c) and the kept contract levels it includes (agent_levels.c).
 * Part of the agent; not a public interface. */
#ifndef TALLY_AGENT_METRICS_LABEL_H
#define TALLY_AGENT_METRICS_LABEL_H

#include <stdbool.h>
#include <stdio.h>

/* Writes label NAME="VALUE" (\, " and newline escaped, as the format asks),
 * preceded by a comma when comma is set. */
void metrics_label(FILE *out, const char *name, const char *value, bool comma);

#endif
