/* live_client over the agent socket (agent_link) or NATS (nats_gather); see
 * live_client.h. Conditional requests get a connection of their own, so that
 * their stream never mixes with the answers to unconditional ones. */
#include "client/live_client.h"

#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/agent_link.h"
#include "client/nats_gather.h"
#include "request/request.h"

struct followed {           /* one agent's csr of a followed request (NATS) */
    char *node, *csr;
};

struct live_client {
    struct live_client_options options;
    char user[128], host[256];
    /* socket */
    struct agent_link ask_link, stream_link;
    bool stream_open;
    /* NATS */
    struct nats_link *ask_nats, *stream_nats;
    char stream_inbox[256];
    unsigned serial;
    struct followed *followed;
    size_t followed_count;
};

int live_client_open(const struct live_client_options *o, struct live_client **out, char *why,
                     size_t why_size)
{
    struct live_client *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    c->options = *o;
    if (c->options.timeout <= 0)
        c->options.timeout = 5;
    c->ask_link.fd = c->stream_link.fd = -1;
    if (o->user) {
        snprintf(c->user, sizeof c->user, "%s", o->user);
    } else {
        struct passwd *pw = getpwuid(getuid());
        snprintf(c->user, sizeof c->user, "%s", pw ? pw->pw_name : "unknown");
    }
    if (gethostname(c->host, sizeof c->host - 1) < 0)
        strcpy(c->host, "localhost");
    int rc;
    if (o->nats_url) {
        struct nats_link_options lo = {.url = o->nats_url, .creds = o->creds, .user = c->user,
                                       .name = "tally live"};
        rc = nats_link_open(&lo, &c->ask_nats, why, why_size);
    } else {
        rc = agent_link_open(&c->ask_link, o->socket, false, why, why_size);
    }
    if (rc < 0) {
        live_client_close(c);
        return -1;
    }
    *out = c;
    return 0;
}

/* ---- NATS ---- */

struct nats_answer {
    void (*on_line)(void *ctx, json_t *line);
    void *ctx;
    struct live_client *client;   /* collecting followed csrs, else NULL */
};

static void on_nats_line(void *ctx, const char *data, size_t length)
{
    struct nats_answer *a = ctx;
    json_t *line = json_loadb(data, length, 0, NULL);
    if (!json_is_object(line)) {
        json_decref(line);
        return;
    }
    const char *name = json_string_value(json_object_get(line, "request"));
    const char *node = json_string_value(json_object_get(line, "node"));
    if (a->client && json_is_true(json_object_get(line, "done")) && name && node &&
        !strncmp(name, "csr_", 4)) {
        struct live_client *c = a->client;
        struct followed *grown = realloc(c->followed, (c->followed_count + 1) * sizeof *grown);
        if (grown) {
            c->followed = grown;
            c->followed[c->followed_count++] = (struct followed){strdup(node), strdup(name)};
        }
    }
    if (a->on_line)
        a->on_line(a->ctx, line);
    json_decref(line);
}

static int nats_ask(struct live_client *c, struct nats_link *link, const char *text,
                    const char *node, const char *inbox, struct nats_answer *answer, char *why,
                    size_t why_size)
{
    struct request req;
    struct request_error err;
    memset(&req, 0, sizeof req);
    if (request_parse(text, &req, &err) < 0 || request_check(&req, &err) < 0) {
        request_free(&req);
        snprintf(why, why_size, "column %d: %s", err.pos, err.message);
        return -1;
    }
    struct subject_route route;
    int rc = subject_route(&req, c->user, c->host, node, &route);
    request_free(&req);
    if (rc < 0) {
        snprintf(why, why_size, "a name is too long for a NATS subject");
        return -1;
    }
    struct gather_options g = {.timeout = c->options.timeout, .on_line = on_nats_line,
                               .ctx = answer, .inbox = inbox, .serial = ++c->serial};
    struct gather_result r;
    rc = nats_gather(link, &route, text, &g, &r);
    subject_route_free(&route);
    if (rc < 0)
        snprintf(why, why_size, "%s", r.error);
    else if (!inbox)
        snprintf(c->stream_inbox, sizeof c->stream_inbox, "%s", r.inbox);
    return rc;
}

/* ---- socket ---- */

static int socket_ask(struct agent_link *link, const char *text, double timeout,
                      void (*on_line)(void *ctx, json_t *line), void *ctx, char **request_name,
                      char *why, size_t why_size)
{
    if (agent_link_send(link, json_pack("{s:s, s:s}", "op", "request", "text", text)) < 0) {
        snprintf(why, why_size, "the agent closed the connection");
        return -1;
    }
    for (;;) {
        json_t *line = agent_link_read(link, timeout);
        if (!line) {
            snprintf(why, why_size, "no answer from the agent%s",
                     link->broken ? " (it closed the connection)" : "");
            return -1;
        }
        if (on_line)
            on_line(ctx, line);
        if (json_is_true(json_object_get(line, "done"))) {
            const char *name = json_string_value(json_object_get(line, "request"));
            if (request_name)
                *request_name = strdup(name ? name : "");
            json_decref(line);
            return 0;
        }
        json_decref(line);
    }
}

/* ---- both ---- */

int live_client_ask(struct live_client *c, const char *text,
                    void (*on_line)(void *ctx, json_t *line), void *ctx, char *why, size_t why_size)
{
    if (c->ask_nats) {
        struct nats_answer a = {.on_line = on_line, .ctx = ctx};
        return nats_ask(c, c->ask_nats, text, NULL, NULL, &a, why, why_size);
    }
    return socket_ask(&c->ask_link, text, c->options.timeout, on_line, ctx, NULL, why, why_size);
}

/* An agent's answer to a message: its error, if any (socket: {"error"};
 * NATS: {"errors": [...]} on the done line). */
static const char *answer_error(json_t *line)
{
    const char *error = json_string_value(json_object_get(line, "error"));
    return error ? error : json_string_value(json_array_get(json_object_get(line, "errors"), 0));
}

struct told {
    size_t taken;
    char error[256];
};

static void on_told(void *ctx, const char *data, size_t length)
{
    struct told *t = ctx;
    json_t *line = json_loadb(data, length, 0, NULL);
    const char *error = answer_error(line);
    if (error)
        snprintf(t->error, sizeof t->error, "%s: %s",
                 json_string_value(json_object_get(line, "node")) ?: "an agent", error);
    else if (json_is_true(json_object_get(line, "done")))
        t->taken++;
    json_decref(line);
}

static int nats_tell(struct live_client *c, json_t *message, const char *const *hosts,
                     size_t host_count, char *why, size_t why_size)
{
    struct subject_route route = {.subjects = calloc(host_count ? host_count : 1, sizeof(char *)),
                                  .exact_answers = host_count};
    int rc = route.subjects ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < host_count; i++) {
        char subject[1024];
        if (subject_for(c->user, SUBJECT_NODE, hosts[i], subject, sizeof subject) < 0 ||
            !(route.subjects[route.count++] = strdup(subject)))
            rc = -1;
    }
    if (rc < 0) {
        subject_route_free(&route);
        snprintf(why, why_size, "a host name is too long for a NATS subject");
        return -1;
    }
    struct told t = {0};
    struct gather_options g = {.timeout = c->options.timeout, .on_line = on_told, .ctx = &t,
                               .serial = ++c->serial, .message = message};
    struct gather_result r;
    rc = host_count ? nats_gather(c->ask_nats, &route, NULL, &g, &r) : 0;
    subject_route_free(&route);
    if (rc < 0) {
        snprintf(why, why_size, "%s", r.error);
        return -1;
    }
    if (*t.error) {
        snprintf(why, why_size, "%s", t.error);
        return -1;
    }
    if (t.taken < host_count) {
        snprintf(why, why_size, "%zu of the %zu agents did not answer", host_count - t.taken,
                 host_count);
        return -1;
    }
    return (int)t.taken;
}

int live_client_tell(struct live_client *c, json_t *message, const char *const *hosts,
                     size_t host_count, char *why, size_t why_size)
{
    if (c->ask_nats) {
        int rc = nats_tell(c, message, hosts, host_count, why, why_size);
        json_decref(message);
        return rc;
    }
    if (agent_link_send(&c->ask_link, message) < 0) {
        snprintf(why, why_size, "the agent closed the connection");
        return -1;
    }
    json_t *line = agent_link_read(&c->ask_link, c->options.timeout);
    const char *error = line ? answer_error(line) : "no answer from the agent";
    if (error)
        snprintf(why, why_size, "%s", error);
    json_decref(line);
    return error ? -1 : 1;
}

int live_client_follow(struct live_client *c, const char *text, char *why, size_t why_size)
{
    if (c->options.nats_url) {
        if (!c->stream_nats) {
            struct nats_link_options lo = {.url = c->options.nats_url, .creds = c->options.creds,
                                           .user = c->user, .name = "tally live stream"};
            if (nats_link_open(&lo, &c->stream_nats, why, why_size) < 0)
                return -1;
        }
        size_t before = c->followed_count;
        struct nats_answer a = {.client = c};
        if (nats_ask(c, c->stream_nats, text, NULL, *c->stream_inbox ? c->stream_inbox : NULL, &a,
                     why, why_size) < 0)
            return -1;
        for (size_t i = before; i < c->followed_count; i++) { /* csrs start disabled */
            char enable[80];
            snprintf(enable, sizeof enable, ":csr_enable([%s])", c->followed[i].csr);
            struct nats_answer none = {0};
            if (nats_ask(c, c->stream_nats, enable, c->followed[i].node, c->stream_inbox, &none, why,
                         why_size) < 0)
                return -1;
        }
        return 0;
    }
    if (!c->stream_open) {
        if (agent_link_open(&c->stream_link, c->options.socket, false, why, why_size) < 0)
            return -1;
        c->stream_open = true;
    }
    char *name = NULL;
    if (socket_ask(&c->stream_link, text, c->options.timeout, NULL, NULL, &name, why, why_size) < 0)
        return -1;
    int rc = 0;
    if (strncmp(name, "csr_", 4)) {
        snprintf(why, why_size, "not a conditional request (the agent answered %s)", name);
        rc = -1;
    } else {
        char enable[80];
        snprintf(enable, sizeof enable, ":csr_enable([%s])", name);
        rc = socket_ask(&c->stream_link, enable, c->options.timeout, NULL, NULL, NULL, why, why_size);
    }
    free(name);
    return rc;
}

int live_client_stream_fd(const struct live_client *c)
{
    if (c->stream_nats)
        return nats_link_fd(c->stream_nats);
    return c->stream_open ? c->stream_link.fd : -1;
}

json_t *live_client_next(struct live_client *c)
{
    if (c->stream_nats) {
        struct nats_link_msg m;
        while (nats_link_next(c->stream_nats, &m) == 1) {
            json_t *line = json_loadb(m.data, m.length, 0, NULL);
            nats_link_msg_free(&m);
            if (json_is_object(line))
                return line;
            json_decref(line);
        }
        return NULL;
    }
    return c->stream_open ? agent_link_read(&c->stream_link, 0) : NULL;
}

void live_client_close(struct live_client *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->followed_count; i++) { /* NATS: each agent deletes its csr */
        char text[80], why[256];
        snprintf(text, sizeof text, ":csr_delete([%s])", c->followed[i].csr);
        struct nats_answer none = {0};
        if (c->stream_nats)
            nats_ask(c, c->stream_nats, text, c->followed[i].node, c->stream_inbox, &none, why,
                     sizeof why);
        free(c->followed[i].node);
        free(c->followed[i].csr);
    }
    free(c->followed);
    nats_link_close(c->stream_nats);
    nats_link_close(c->ask_nats);
    if (c->ask_link.fd >= 0)
        agent_link_close(&c->ask_link);
    if (c->stream_open)
        agent_link_close(&c->stream_link); /* the agent deletes what this connection defined */
    free(c);
}
