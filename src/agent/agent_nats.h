/* The agent on NATS (docs/agent-nats.md): subscribes to its user's subjects
 * for all agents, its site, its node and each application it hosts, and
 * turns every request that arrives into the evaluation a socket client gets,
 * with the answers published to the request's reply inbox. A reply inbox is
 * one "virtual client" of the agent: it lives as long as the request, or as
 * long as the conditional requests it created. */
#ifndef TALLY_AGENT_AGENT_NATS_H
#define TALLY_AGENT_AGENT_NATS_H

#include <stddef.h>

#include <jansson.h>

struct agent;
struct agent_client;

/* Connects and subscribes (options.nats_url set), once the server is known
 * to require authentication (unless options.nats_insecure): one that admits
 * clients without credentials is refused (-1 after a message). When no
 * server answers yet, returns 0 unjoined and agent_nats_tick joins later.
 * 0, or -1 after a message. */
struct agent_options;
int agent_nats_open(struct agent *a);
/* With --nats-insecure, the loud line saying what it allows (at start, and
 * again in agent.log once a detached agent's stderr goes there). */
void agent_nats_warn_insecure(const struct agent_options *o);
/* Called each tick: joins a server that was not up at start. 1 when it
 * joined just now (agent_nats_fd is new), else 0. */
int agent_nats_tick(struct agent *a);
void agent_nats_close(struct agent *a);
/* The descriptor to watch (readable: requests queued); -1 without NATS. */
int agent_nats_fd(const struct agent *a);
/* Evaluates every queued request. */
void agent_nats_drain(struct agent *a);
/* Publishes one answer line of a virtual client. */
void agent_nats_publish(struct agent *a, struct agent_client *c, const char *line, size_t length);
/* Publishes one JSON line (the reference is stolen) to a tool's inbox. */
void agent_nats_publish_json(struct agent *a, const char *subject, json_t *line);
/* What 'tally agent status' says of NATS: {"url", "user", "connected",
 * "reconnects", "apps": [subscribed]}, or JSON null without NATS. */
json_t *agent_nats_status(const struct agent *a);
/* Subscribes to the applications now hosted, unsubscribes from the others. */
void agent_nats_sync_apps(struct agent *a);

#endif
