/* The agent's NATS side (agent_nats.h). Requests arrive as JSON envelopes
 * {"id": "...", "request": "text"}; an agent that receives one request on
 * several subjects (it hosts app_x and is named by n_host too) evaluates it
 * once: the id of the last requests seen is remembered. One protocol
 * messages are taken over NATS, as {"id", "message": {"op": ...}}: "levels"
 * from tally contract watch --nats (the agent keeps the levels of its own
 * host's processes, the others' agents keep theirs) and "launch_ranks" from
 * the launch host's tally run --mpi (agent_launch.c), with "clock" round
 * trips to align this host's clock to its own. Only the user's tools
 * can publish on the user's subjects, so this is as private as the socket. */
#include "agent/agent_nats.h"

#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent_state.h"
#include "client/nats_link.h"
#include "client/subjects.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/vec.h"

#define SEEN_IDS 256

struct agent_nats {
    struct nats_link *link;
    char user[128];
    char **apps;                   /* applications subscribed to */
    size_t app_count, app_cap;
    char *seen[SEEN_IDS];          /* ids of the last requests evaluated, oldest replaced first */
    size_t seen_next;
    struct hashmap seen_index;     /* the same ids, for a lookup in one probe */
    double next_probe;             /* while no server answered the probe: when to ask again */
};

static int subscribe(struct agent *a, enum subject_scope scope, const char *name)
{
    char subject[1024];
    if (subject_for(a->nats->user, scope, name, subject, sizeof subject) < 0)
        return -1;
    return nats_link_subscribe(a->nats->link, subject);
}

/* Connects and subscribes; 0, or -1 after a message. */
static int join(struct agent *a)
{
    const struct agent_options *o = &a->options;
    struct agent_nats *n = a->nats;
    char name[700], err[512];
    snprintf(name, sizeof name, "tally-agent %s@%s/%s", n->user, a->host, a->site);
    struct nats_link_options lo = {.url = o->nats_url, .creds = o->nats_creds, .user = n->user,
                                   .name = name, .retry_first_connect = true};
    if (nats_link_open(&lo, &n->link, err, sizeof err) < 0) {
        tally_error("agent: %s", err);
        return -1;
    }
    if (subscribe(a, SUBJECT_ALL, NULL) < 0 || subscribe(a, SUBJECT_SITE, a->site) < 0 ||
        subscribe(a, SUBJECT_NODE, a->host) < 0) {
        tally_error("agent: cannot subscribe on %s", o->nats_url);
        return -1;
    }
    agent_nats_sync_apps(a);
    return 0;
}

/* Asks the server whether it admits clients without credentials: 1 it
 * requires them (join), 0 not yet known (no server answers), -1 refused
 * (it admits anyone: any local user could command this agent through it). */
static int check_server(struct agent *a, double timeout)
{
    const struct agent_options *o = &a->options;
    if (o->nats_insecure)
        return 1;
    char why[512];
    int admits = nats_link_admits_anonymous(o->nats_url, timeout, why, sizeof why);
    if (admits == 1) {
        tally_error("agent: refusing to join %s: the server admits clients without credentials, "
                    "so any local user could command this agent through it; give the server "
                    "authorization with per-user permissions (docs/agent-nats.md), or pass "
                    "--nats-insecure to join it all the same",
                    o->nats_url);
        return -1;
    }
    return admits == 0 ? 1 : 0;
}

void agent_nats_warn_insecure(const struct agent_options *o)
{
    if (o->nats_url && o->nats_insecure)
        tally_error("agent: --nats-insecure: joining %s without checking that it requires "
                    "authentication: anyone who can reach that server can command this agent",
                    o->nats_url);
}

int agent_nats_open(struct agent *a)
{
    const struct agent_options *o = &a->options;
    struct agent_nats *n = calloc(1, sizeof *n);
    if (!n) {
        tally_error("agent: out of memory");
        return -1;
    }
    a->nats = n;
    if (o->nats_user) {
        snprintf(n->user, sizeof n->user, "%s", o->nats_user);
    } else {
        struct passwd *pw = getpwuid(a->uid);
        snprintf(n->user, sizeof n->user, "%s", pw ? pw->pw_name : "unknown");
    }
    agent_nats_warn_insecure(o);
    int verdict = check_server(a, 2.0);
    if (verdict < 0)
        return -1;
    if (verdict == 0) { /* the server is not up yet: joined once it answers (agent_nats_tick) */
        tally_error("agent: no NATS server answers at %s yet: joining once one does and "
                    "requires authentication", o->nats_url);
        n->next_probe = clock_monotonic_seconds() + 1;
        return 0;
    }
    return join(a);
}

int agent_nats_tick(struct agent *a)
{
    struct agent_nats *n = a->nats;
    if (!n || n->link || n->next_probe == 0 || clock_monotonic_seconds() < n->next_probe)
        return 0;
    int verdict = check_server(a, 0.2);
    if (verdict == 0) {
        n->next_probe = clock_monotonic_seconds() + 1;
        return 0;
    }
    n->next_probe = 0;
    if (verdict < 0 || join(a) < 0) {
        tally_error("agent: serving this host only (no NATS)");
        return 0;
    }
    return 1;
}

void agent_nats_close(struct agent *a)
{
    struct agent_nats *n = a->nats;
    if (!n)
        return;
    nats_link_close(n->link);
    for (size_t i = 0; i < n->app_count; i++)
        free(n->apps[i]);
    free(n->apps);
    for (size_t i = 0; i < SEEN_IDS; i++)
        free(n->seen[i]);
    hashmap_free(&n->seen_index);
    free(n);
    a->nats = NULL;
}

int agent_nats_fd(const struct agent *a)
{
    return a->nats && a->nats->link ? nats_link_fd(a->nats->link) : -1;
}

static bool seen_before(struct agent_nats *n, const char *id)
{
    if (hashmap_get(&n->seen_index, id))
        return true;
    char **oldest = &n->seen[n->seen_next];
    if (*oldest)
        hashmap_remove(&n->seen_index, *oldest);
    free(*oldest);
    *oldest = strdup(id);
    if (*oldest && hashmap_put(&n->seen_index, id, *oldest) < 0) { /* not indexed: forgotten */
        free(*oldest);
        *oldest = NULL;
    }
    n->seen_next = (n->seen_next + 1) % SEEN_IDS;
    return false;
}

/* The virtual client of a reply inbox: found again for later requests from
 * the same inbox (csr_delete at the end of a --follow). */
static struct agent_client *inbox_client(struct agent *a, const char *reply)
{
    for (size_t i = 0; i < a->client_count; i++) {
        struct agent_client *c = a->clients[i];
        if (c->reply_subject && !c->closing && !strcmp(c->reply_subject, reply))
            return c;
    }
    struct agent_client *c = calloc(1, sizeof *c);
    if (!c || !(c->reply_subject = strdup(reply)) || VEC_RESERVE(a->clients, a->client_cap, a->client_count + 1) < 0) {
        if (c)
            free(c->reply_subject);
        free(c);
        return NULL;
    }
    c->fd = -1;
    c->id = ++a->next_client_id;
    a->clients[a->client_count++] = c;
    return c;
}

void agent_nats_publish_json(struct agent *a, const char *subject, json_t *line)
{
    char *text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(line);
    if (text && a->nats && a->nats->link)
        nats_link_publish(a->nats->link, subject, NULL, text, strlen(text));
    free(text);
}

#define REQUEST_MAX_AGE 300 /* seconds: clocks of hosts may differ this much */

/* The request inside a tool's envelope (nats_gather.c), once it is known to
 * come from this agent's user: signed with the user's credentials when the
 * agent holds them (then an unsigned or wrongly signed one is refused), for
 * this user, recent, and answered only in the user's inbox (_INBOX.<user>.,
 * which the server lets only that user read). NULL with why otherwise. */
static json_t *take_envelope(const struct agent_nats *n, const struct nats_link_msg *m, char *why,
                             size_t why_size)
{
    json_t *outer = json_loadb(m->data, m->length, 0, NULL);
    const char *signed_text = json_string_value(json_object_get(outer, "signed"));
    const char *sig = json_string_value(json_object_get(outer, "sig"));
    json_t *env = NULL;
    if (nats_link_can_sign(n->link)) {
        if (!signed_text || !nats_link_signed_by_user(n->link, signed_text, strlen(signed_text), sig)) {
            snprintf(why, why_size, "refused: the request is not signed with the NATS credentials "
                     "of user '%s'", n->user);
            goto out;
        }
    }
    env = signed_text ? json_loads(signed_text, 0, NULL) : json_incref(outer);
    const char *user = json_string_value(json_object_get(env, "user"));
    json_int_t sent = json_integer_value(json_object_get(env, "time"));
    long long age = (long long)time(NULL) - (long long)sent;
    size_t len = strlen(n->user);
    if (!json_is_object(env) || !json_string_value(json_object_get(env, "id"))) {
        snprintf(why, why_size, "expected {\"id\": ..., \"user\": ..., \"request\": \"...\"} from the tool");
    } else if (!user || strcmp(user, n->user)) {
        snprintf(why, why_size, "refused: a request of user '%.100s'; this agent serves '%s'",
                 user ? user : "(none)", n->user);
    } else if (age > REQUEST_MAX_AGE || age < -REQUEST_MAX_AGE) {
        snprintf(why, why_size, "refused: the request was made %lld s from this host's time "
                 "(at most %d: replayed, or a clock far off)", age, REQUEST_MAX_AGE);
    } else if (strncmp(m->reply, "_INBOX.", 7) || strncmp(m->reply + 7, n->user, len) ||
               m->reply[7 + len] != '.') {
        snprintf(why, why_size, "refused: answers go only to _INBOX.%s.*, not to '%.200s'", n->user,
                 m->reply);
    } else {
        json_decref(outer);
        return env;
    }
out:
    json_decref(env);
    json_decref(outer);
    return NULL;
}

void agent_nats_drain(struct agent *a)
{
    struct nats_link_msg m;
    while (a->nats && a->nats->link && nats_link_next(a->nats->link, &m) == 1) {
        uint64_t received = clock_monotonic_ns();
        if (!m.reply) { /* nobody to answer */
            nats_link_msg_free(&m);
            continue;
        }
        char why[600];
        json_t *env = take_envelope(a->nats, &m, why, sizeof why);
        struct agent_peer inbox = {.agent = a, .inbox = m.reply, .received = received};
        const char *id = json_string_value(json_object_get(env, "id"));
        const char *text = json_string_value(json_object_get(env, "request"));
        json_t *message = json_object_get(env, "message");
        if (!env) {
            a->up.peer_error(&inbox, why);
        } else if (!text && !json_is_object(message)) {
            a->up.peer_error(&inbox, "expected {\"id\": ..., \"request\": \"...\"} from the tool");
        } else if (!text) {
            if (!seen_before(a->nats, id))
                a->up.take_op(&inbox, message);
        } else if (!seen_before(a->nats, id)) {
            struct agent_client *c = inbox_client(a, m.reply);
            if (c) {
                a->up.request(a, c, text);
                if (c->csrs == 0) /* an unconditional request: answered in full */
                    c->closing = true;
            }
        }
        json_decref(env);
        nats_link_msg_free(&m);
    }
}

void agent_nats_publish(struct agent *a, struct agent_client *c, const char *line, size_t length)
{
    if (a->nats && a->nats->link &&
        nats_link_publish(a->nats->link, c->reply_subject, NULL, line, length) < 0)
        c->closing = true;
}

static bool hosted(const struct agent *a, const char *app)
{
    for (size_t i = 0; i < a->task_count; i++)
        if (!a->tasks[i]->ended && !strcmp(a->tasks[i]->app, app))
            return true;
    return false;
}

void agent_nats_sync_apps(struct agent *a)
{
    struct agent_nats *n = a->nats;
    if (!n || !n->link)
        return;
    char subject[1024];
    for (size_t i = 0; i < n->app_count;) { /* applications gone from this host */
        if (hosted(a, n->apps[i])) {
            i++;
            continue;
        }
        if (subject_for(n->user, SUBJECT_APP, n->apps[i], subject, sizeof subject) == 0)
            nats_link_unsubscribe(n->link, subject);
        free(n->apps[i]);
        n->apps[i] = n->apps[--n->app_count];
    }
    for (size_t t = 0; t < a->task_count; t++) { /* applications new on this host */
        const struct agent_task *task = a->tasks[t];
        bool known = task->ended;
        for (size_t i = 0; i < n->app_count && !known; i++)
            known = !strcmp(n->apps[i], task->app);
        if (known)
            continue;
        char *app = strdup(task->app);
        char **slot = app ? VEC_PUSH(n->apps, n->app_count, n->app_cap) : NULL;
        if (!slot) {
            free(app);
            return;
        }
        *slot = app;
        subscribe(a, SUBJECT_APP, task->app);
    }
}

json_t *agent_nats_status(const struct agent *a)
{
    if (!a->nats)
        return json_null();
    json_t *apps = json_array();
    for (size_t i = 0; i < a->nats->app_count; i++)
        json_array_append_new(apps, json_string(a->nats->apps[i]));
    return json_pack("{s:s, s:s, s:b, s:I, s:o}", "url", a->options.nats_url, "user", a->nats->user,
                     "connected", nats_link_connected(a->nats->link), "reconnects",
                     (json_int_t)nats_link_reconnects(a->nats->link), "apps", apps);
}
