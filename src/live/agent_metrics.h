/* 'tally agent --metrics ADDR:PORT': the agent's measurements as OpenMetrics
 * text for Prometheus, per application and host, with app, host, site, user
 * and category labels. Served from the agent's own epoll loop (libmicrohttpd
 * without a thread of its own), so it reads the agent's state unlocked. */
#ifndef TALLY_LIVE_AGENT_METRICS_H
#define TALLY_LIVE_AGENT_METRICS_H

#include <stdbool.h>
#include <stdio.h>

struct agent;

/* Listens on options.metrics_address. 0, or -1 after a message. */
int agent_metrics_open(struct agent *a);
void agent_metrics_close(struct agent *a);
/* The descriptor to watch (libmicrohttpd's epoll fd); -1 without --metrics. */
int agent_metrics_fd(const struct agent *a);
/* Serves what is ready; also called every tick (connection timeouts). */
void agent_metrics_run(struct agent *a);
/* Writes the exposition (OpenMetrics text format, ending in "# EOF"). */
void agent_metrics_write(const struct agent *a, FILE *out);
/* One label name="value" (\\, " and newlines escaped, as the format asks),
 * followed by ',' unless last. */
void agent_metrics_label(FILE *out, const char *name, const char *value, bool last);

#endif
