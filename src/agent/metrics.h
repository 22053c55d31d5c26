/* 'tally agent --metrics ADDR:PORT': the agent's applications as
 * OpenMetrics text for Prometheus. Per application and host, every numeric
 * summary field of its live tasks (summed over tasks) with labels app,
 * host, user and category (when it has one): cumulative fields (cpu_time,
 * bytes, faults, context switches, processes started) as counters, the
 * others as gauges, in base units (bytes, seconds); OpenMetrics when the
 * client's Accept wants it more than the Prometheus text format
 * (util/http_accept.h), else the text format. Served
 * by libmicrohttpd in the agent's own epoll loop (MHD_USE_EPOLL: its epoll
 * fd is one more fd of the loop), so the agent stays one thread. */
#ifndef TALLY_AGENT_METRICS_H
#define TALLY_AGENT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct agent;

/* The exposition text (malloc'd): OpenMetrics 1.0 (families without
 * _total, UNIT, ends with "# EOF\n"), or the Prometheus text format 0.0.4
 * (TYPE and HELP name each series, _total included); NULL when out of
 * memory. */
char *metrics_render(const struct agent *agent, bool openmetrics, size_t *len);

struct sockaddr_in;
/* "ADDR:PORT", ":PORT" or "PORT" (the last two: 127.0.0.1, this host's
 * users only; 0.0.0.0:PORT for every interface) → SA. -1 with why. */
int metrics_parse_address(const char *address, struct sockaddr_in *sa, char *why, size_t why_size);
/* "metrics at http://ADDR:PORT/metrics, readable by ...": where they are served and who can
 * read them (no authentication: any local user; more on other interfaces). */
void metrics_describe(const struct sockaddr_in *sa, char *text, size_t size);

struct metrics_server;
/* Listens on ADDRESS (metrics_parse_address); says where in WHERE
 * (metrics_describe). At most 16 connections at once, 5 s each
 * (util/http_gate.h). NULL with why. */
struct metrics_server *metrics_server_start(struct agent *agent, const char *address,
                                            char *where, size_t where_len, char *why,
                                            size_t why_size);
/* The fd to watch for readability (then call metrics_server_run). */
int metrics_server_fd(const struct metrics_server *server);
/* Serves what is ready; also call it at each tick (connection timeouts). */
void metrics_server_run(struct metrics_server *server);
void metrics_server_stop(struct metrics_server *server);

#endif
