/* live_client over the agent socket (agent_link) or NATS (nats_gather); see
 * live_client.h. Conditional requests get a connection of their own (unless
 * single_connection), so that their stream never mixes with the answers to
 * unconditional ones; the csrs defined on it are kept, one list for both
 * transports, for the steps of their life. */
#include "client/live_client.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/agent_link.h"
#include "client/nats_gather.h"
#include "request/request.h"
#include "util/vec.h"

struct defined_csr {        /* one agent's csr_N */
    char *node;             /* NATS: the agent's node; NULL on the socket */
    char *csr;
    bool enabled;
};

struct live_client {
    struct live_client_options options;
    char user[128], host[256];
    /* socket */
    struct agent_link ask_link, stream_link;
    struct agent_link *stream;    /* &stream_link once open, &ask_link with single_connection */
    char answered[64];            /* the request name of the last done line (socket) */
    /* NATS */
    struct nats_link *ask_nats, *stream_nats; /* the same link with single_connection */
    char stream_inbox[256];
    unsigned serial;
    double sent_ms, answered_ms;  /* the last request's publication and last done line */
    /* both */
    struct defined_csr *csrs;
    size_t csr_count, csr_cap;
    bool refused;
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
                                       .name = o->single_connection ? "tally request" : "tally live"};
        rc = nats_link_open(&lo, &c->ask_nats, why, why_size);
        if (rc == 0 && o->single_connection)
            c->stream_nats = c->ask_nats;
    } else {
        rc = agent_link_open(&c->ask_link, o->socket, false, why, why_size);
        if (rc == 0 && o->single_connection)
            c->stream = &c->ask_link;
    }
    if (rc < 0) {
        live_client_close(c);
        return -1;
    }
    *out = c;
    return 0;
}

/* The connection conditional requests live on, opened on first use. */
static int open_stream(struct live_client *c, char *why, size_t why_size)
{
    if (c->options.nats_url) {
        if (c->stream_nats)
            return 0;
        struct nats_link_options lo = {.url = c->options.nats_url, .creds = c->options.creds,
                                       .user = c->user, .name = "tally live stream"};
        return nats_link_open(&lo, &c->stream_nats, why, why_size);
    }
    if (c->stream)
        return 0;
    if (agent_link_open(&c->stream_link, c->options.socket, false, why, why_size) < 0)
        return -1;
    c->stream = &c->stream_link;
    return 0;
}

static void keep_csr(struct live_client *c, const char *node, const char *name)
{
    struct defined_csr d = {node ? strdup(node) : NULL, strdup(name), false};
    struct defined_csr *slot = d.csr && (!node || d.node) ? VEC_PUSH(c->csrs, c->csr_count, c->csr_cap) : NULL;
    if (slot) {
        *slot = d;
    } else {
        free(d.node);
        free(d.csr);
    }
}

/* ---- NATS ---- */

struct nats_answer {
    const struct live_answers *answers;
    struct live_client *client;   /* keeping the csrs defined, else NULL */
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
    if (a->client && json_is_true(json_object_get(line, "done")) && name && node && !strncmp(name, "csr_", 4))
        keep_csr(a->client, node, name);
    if (a->answers && a->answers->line)
        a->answers->line(a->answers->ctx, line);
    json_decref(line);
}

/* node: the agent for a request naming no location (NULL: every agent). */
static int nats_ask(struct live_client *c, struct nats_link *link, const char *text, const char *node,
                    const char *inbox, struct nats_answer *answer, char *why, size_t why_size)
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
        snprintf(why, why_size, "a name in the request is too long for a NATS subject");
        return -1;
    }
    if (c->options.expect && !node)
        route.exact_answers = c->options.expect;
    struct gather_options g = {.quiet = c->options.quiet, .timeout = c->options.timeout,
                               .on_line = on_nats_line, .ctx = answer, .inbox = inbox,
                               .serial = ++c->serial};
    struct gather_result r;
    rc = nats_gather(link, &route, text, &g, &r);
    subject_route_free(&route);
    c->sent_ms = r.sent_ms;
    c->answered_ms = r.answered_ms;
    c->refused = rc < 0 && r.refused;
    if (rc < 0)
        snprintf(why, why_size, "%s", r.error);
    else if (!inbox)
        snprintf(c->stream_inbox, sizeof c->stream_inbox, "%s", r.inbox);
    if (rc == 0 && answer->answers && answer->answers->end)
        answer->answers->end(answer->answers->ctx);
    return rc;
}

/* ---- socket ---- */

/* Every line up to the done line. A line with an "error" and no "request"
 * is the agent refusing the connection or the message: the end. When the
 * request could not be sent, what the agent said before closing (such a
 * refusal) is still read, for a second. */
static int socket_ask(struct live_client *c, struct agent_link *link, const char *text,
                      const struct live_answers *answers, bool keep, char *why, size_t why_size)
{
    c->refused = false;
    bool sent = agent_link_send(link, json_pack("{s:s, s:s}", "op", "request", "text", text)) == 0;
    for (;;) {
        json_t *line = agent_link_read(link, sent ? c->options.timeout : 1);
        if (!line) {
            snprintf(why, why_size, "no answer from the agent%s",
                     link->broken ? " (it closed the connection)" : "");
            return -1;
        }
        if (answers && answers->line)
            answers->line(answers->ctx, line);
        const char *refusal = json_object_get(line, "request")
                                  ? NULL
                                  : json_string_value(json_object_get(line, "error"));
        if (refusal) {
            snprintf(why, why_size, "the agent says: %s", refusal);
            c->refused = true;
            json_decref(line);
            return -1;
        }
        if (json_is_true(json_object_get(line, "done"))) {
            const char *name = json_string_value(json_object_get(line, "request"));
            snprintf(c->answered, sizeof c->answered, "%s", name ? name : "");
            if (keep && name && !strncmp(name, "csr_", 4))
                keep_csr(c, NULL, name);
            json_decref(line);
            if (answers && answers->end)
                answers->end(answers->ctx);
            return 0;
        }
        json_decref(line);
    }
}

/* ---- both ---- */

int live_client_ask(struct live_client *c, const char *text,
                    void (*on_line)(void *ctx, json_t *line), void *ctx, char *why, size_t why_size)
{
    struct live_answers answers = {.line = on_line, .ctx = ctx};
    if (c->ask_nats) {
        struct nats_answer a = {.answers = &answers};
        return nats_ask(c, c->ask_nats, text, c->options.node, NULL, &a, why, why_size);
    }
    return socket_ask(c, &c->ask_link, text, &answers, false, why, why_size);
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
                                  .capacity = host_count ? host_count : 1, .exact_answers = host_count};
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

/* ---- the life of a conditional request ---- */

int live_client_request(struct live_client *c, const char *text, const struct live_answers *answers,
                        char *why, size_t why_size)
{
    if (open_stream(c, why, why_size) < 0)
        return -1;
    if (c->stream_nats) {
        struct nats_answer a = {.answers = answers, .client = c};
        return nats_ask(c, c->stream_nats, text, c->options.node, *c->stream_inbox ? c->stream_inbox : NULL,
                        &a, why, why_size);
    }
    return socket_ask(c, c->stream, text, answers, true, why, why_size);
}

size_t live_client_defined(const struct live_client *c)
{
    return c->csr_count;
}

void live_client_times(const struct live_client *c, double *sent_ms, double *answered_ms)
{
    *sent_ms = c->sent_ms;
    *answered_ms = c->answered_ms;
}

bool live_client_refused(const struct live_client *c)
{
    return c->refused;
}

/* ":SERVICE([csr_N])" to the agent that holds csr d. */
static int csr_step(struct live_client *c, const struct defined_csr *d, const char *service,
                    const struct live_answers *answers, char *why, size_t why_size)
{
    char text[96];
    snprintf(text, sizeof text, ":%s([%s])", service, d->csr);
    if (c->stream_nats) {
        struct nats_answer a = {.answers = answers};
        return nats_ask(c, c->stream_nats, text, d->node, c->stream_inbox, &a, why, why_size);
    }
    return c->stream ? socket_ask(c, c->stream, text, answers, false, why, why_size) : -1;
}

int live_client_enable(struct live_client *c, const struct live_answers *answers, char *why, size_t why_size)
{
    int rc = 0;
    for (size_t i = 0; i < c->csr_count; i++) { /* a csr starts disabled */
        if (c->csrs[i].enabled)
            continue;
        char failed[256];
        if (csr_step(c, &c->csrs[i], "csr_enable", answers, failed, sizeof failed) < 0) {
            if (rc == 0)
                snprintf(why, why_size, "%s", failed);
            rc = -1;
        } else {
            c->csrs[i].enabled = true;
        }
    }
    return rc;
}

void live_client_delete(struct live_client *c, const struct live_answers *answers)
{
    for (size_t i = 0; i < c->csr_count; i++) {
        char why[256];
        csr_step(c, &c->csrs[i], "csr_delete", answers, why, sizeof why);
        free(c->csrs[i].node);
        free(c->csrs[i].csr);
    }
    c->csr_count = 0;
}

int live_client_follow(struct live_client *c, const char *text, char *why, size_t why_size)
{
    size_t before = c->csr_count;
    if (live_client_request(c, text, NULL, why, why_size) < 0)
        return -1;
    if (!c->stream_nats && c->csr_count == before) {
        snprintf(why, why_size, "not a conditional request (the agent answered %s)", c->answered);
        return -1;
    }
    return live_client_enable(c, NULL, why, why_size);
}

int live_client_stream_fd(const struct live_client *c)
{
    if (c->stream_nats)
        return nats_link_fd(c->stream_nats);
    return c->stream ? c->stream->fd : -1;
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
    return c->stream ? agent_link_read(c->stream, 0) : NULL;
}

static void on_streamed(void *ctx, const char *data, size_t length)
{
    on_nats_line(&(struct nats_answer){.answers = ctx}, data, length);
}

int live_client_stream(struct live_client *c, volatile int *stop, const struct live_answers *answers,
                       char *why, size_t why_size)
{
    if (c->stream_nats) {
        struct subject_route none = {0};
        struct gather_options g = {.follow = true, .stop = stop, .on_line = on_streamed,
                                   .ctx = (void *)answers, .inbox = c->stream_inbox};
        struct gather_result r;
        nats_gather(c->stream_nats, &none, NULL, &g, &r);
        return 0;
    }
    while (c->stream && !*stop) {
        json_t *line = agent_link_read(c->stream, -1);
        if (!line) {
            if (c->stream->broken) {
                snprintf(why, why_size, "the agent closed the connection");
                return -1;
            }
            continue;
        }
        if (answers && answers->line)
            answers->line(answers->ctx, line);
        json_decref(line);
    }
    return 0;
}

void live_client_close(struct live_client *c)
{
    if (!c)
        return;
    if (c->stream_nats) /* NATS: each agent deletes its csr */
        live_client_delete(c, NULL);
    for (size_t i = 0; i < c->csr_count; i++) { /* the socket: the agent deletes what the connection defined */
        free(c->csrs[i].node);
        free(c->csrs[i].csr);
    }
    free(c->csrs);
    if (c->stream_nats != c->ask_nats)
        nats_link_close(c->stream_nats);
    nats_link_close(c->ask_nats);
    if (c->ask_link.fd >= 0)
        agent_link_close(&c->ask_link);
    if (c->stream == &c->stream_link)
        agent_link_close(&c->stream_link);
    free(c);
}
