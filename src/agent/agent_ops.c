/* The agent's protocol operations (agent_ops.h): one row per "op", with the
 * transports that take it and whether it needs the task the connection
 * registered. The socket takes every operation but "clock"; NATS takes
 * "levels" (tally contract watch --nats: this host's part is kept),
 * "launch_ranks" (another host's tally run --mpi) and "clock" (round trips
 * that align this host's clock to the launch host's: launch_gather.c). */
#include "agent/agent_ops.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/agent_state.h"
#include "agent/agent_eval.h"
#include "agent/agent_io.h"
#include "agent/agent_launch.h"
#include "agent/agent_tree.h"
#include "agent/agent_levels.h"
#include "agent/agent_nats.h"
#include "platform/platform.h"
#include "util/clock.h"
#include "util/pid_text.h"

void agent_peer_send(const struct agent_peer *p, json_t *line)
{
    if (p->client)
        agent_send(p->agent, p->client, line);
    else
        agent_nats_publish_json(p->agent, p->inbox, line);
}

void agent_peer_answer(const struct agent_peer *p, json_t *line)
{
    if (!p->client && line) {
        json_t *framed = json_pack("{s:s, s:s}", "site", p->agent->site, "node", p->agent->host);
        json_object_update(framed, line);
        json_object_set_new(framed, "done", json_true());
        json_decref(line);
        line = framed;
    }
    agent_peer_send(p, line);
}

void agent_peer_error(const struct agent_peer *p, const char *why)
{
    if (p->client)
        agent_send(p->agent, p->client, json_pack("{s:s}", "error", why));
    else
        agent_peer_send(p, json_pack("{s:s, s:s, s:s, s:b, s:[s]}", "site", p->agent->site, "node",
                                     p->agent->host, "request", "", "done", 1, "errors", why));
}

static void emit_to_peer(void *ctx, json_t *line)
{
    agent_peer_send(ctx, line);
}

static void values_from_json(double *value, json_t *values)
{
    const char *name;
    json_t *v;
    json_object_foreach(values, name, v) {
        int id = summary_field_id(name);
        if (id < 0)
            continue;
        if (json_is_array(v))
            v = json_array_get(v, 0);
        if (json_is_number(v))
            value[id] = json_number_value(v);
    }
}

/* Member KEY of MSG as a pid of this host (an integer in (0, pid_max]) into
 * *out, or -1 after answering "OP: \"KEY\" VALUE is not a pid ...", the
 * value named as sent (4294967297 would be pid 1 cast to pid_t). */
static int message_pid(const struct agent_peer *p, const json_t *msg, const char *op, const char *key,
                       pid_t *out)
{
    const json_t *v = json_object_get(msg, key);
    if (json_is_integer(v) && proc_pid_in_range(json_integer_value(v))) {
        *out = (pid_t)json_integer_value(v);
        return 0;
    }
    char *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    char why[200];
    snprintf(why, sizeof why, "%s: \"%s\" %.40s%s is not a pid (a number from 1 to pid_max, %lld here)", op,
             key, text ? text : "(missing)", text && strlen(text) > 40 ? "..." : "", proc_pid_max());
    free(text);
    agent_peer_error(p, why);
    return -1;
}

static void op_request(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    const char *text = json_string_value(json_object_get(msg, "text"));
    if (text)
        agent_request(p->agent, p->client, text);
    else
        agent_peer_error(p, "request: needs \"text\"");
}

static void op_register(const struct agent_peer *p, json_t *msg, struct agent_task *unused)
{
    struct agent *a = p->agent;
    const char *app = json_string_value(json_object_get(msg, "app"));
    const char *command = json_string_value(json_object_get(msg, "command"));
    if (!app || !*app) {
        agent_peer_error(p, "register: needs \"app\" (a name) and \"runner\" (a pid)");
        return;
    }
    pid_t runner;
    if (message_pid(p, msg, "register", "runner", &runner) < 0)
        return;
    uid_t owner;
    if (proc_owner(runner, &owner) < 0 || owner != a->uid) {
        agent_peer_error(p, "register: the runner is not a process of this user");
        return;
    }
    struct agent_task *t = agent_task_add(a, app, command, runner, false);
    if (!t) {
        agent_peer_error(p, "register: out of memory");
        return;
    }
    const char *category = json_string_value(json_object_get(msg, "category"));
    if (category)
        t->category = strdup(category);
    t->runner = p->client;
    p->client->task = t->id;
    agent_nats_sync_apps(a);
    agent_peer_send(p, json_pack("{s:s, s:i, s:s}", "op", "registered", "task", (int)t->id, "app", t->app));
}

static void op_attach(const struct agent_peer *p, json_t *msg, struct agent_task *unused)
{
    struct agent *a = p->agent;
    const char *app = json_string_value(json_object_get(msg, "app"));
    if (!app || !*app) {
        agent_peer_error(p, "attach: needs \"pid\" (a process) and \"app\" (a name)");
        return;
    }
    pid_t pid;
    if (message_pid(p, msg, "attach", "pid", &pid) < 0)
        return;
    const char *launch = json_string_value(json_object_get(msg, "launch"));
    const char *segments = json_string_value(json_object_get(msg, "segments"));
    if (!launch != !segments) {
        agent_peer_error(p, "attach: \"launch\" and \"segments\" go together (a rank of another host's run)");
        return;
    }
    char why[256];
    struct agent_task *t = agent_attach(a, (pid_t)pid, app, why, sizeof why);
    if (!t) {
        agent_peer_error(p, why);
        return;
    }
    if (launch && agent_launch_add(a, t, launch, segments, why, sizeof why) < 0) {
        agent_task_end(a, t, NULL);
        agent_peer_error(p, why);
        return;
    }
    agent_nats_sync_apps(a);
    agent_peer_send(p, json_pack("{s:s, s:i, s:s, s:i}", "op", "attached", "task", (int)t->id, "app", t->app,
                                 "pid", (int)pid));
}

/* *into = a copy of msg's key when it names a directory of this user;
 * absent, nothing changes; otherwise an error naming the key. */
static void take_user_dir(const struct agent_peer *p, json_t *msg, const char *key, char **into)
{
    json_t *v = json_object_get(msg, key);
    if (!v)
        return;
    const char *dir = json_string_value(v);
    struct stat st;
    if (!dir || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != p->agent->uid) {
        char why[96];
        snprintf(why, sizeof why, "segments: \"%s\" must be a directory of this user", key);
        agent_peer_error(p, why);
        return;
    }
    free(*into);
    *into = strdup(dir);
}

/* {"op": "segments", "dir": probes' segments, "io_dir": level 3's regions, "world"} */
static void op_segments(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    if (!json_object_get(msg, "dir") && !json_object_get(msg, "io_dir"))
        agent_peer_error(p, "segments: needs \"dir\" or \"io_dir\" (a directory of this user)");
    take_user_dir(p, msg, "dir", &t->segment_dir);
    take_user_dir(p, msg, "io_dir", &t->io_dir);
    const char *world = json_string_value(json_object_get(msg, "world"));
    if (world && strlen(world) < 96 && world[strspn(world, "0123456789abcdefghijklmnopqrstuvwxyz"
                                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.")] == '\0') {
        free(t->world);
        t->world = strdup(world);
    }
}

static void op_sample(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    values_from_json(t->current, json_object_get(msg, "values"));
    t->has_current = true;
}

/* [[pid, 1 (started) or 0 (ended)], ...] in the order they happened */
static void op_processes(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(msg, "events"), i, ev) {
        json_int_t pid = json_integer_value(json_array_get(ev, 0));
        /* never cast out of range (4294967297 would be pid 1); the kernel's
         * limit, not pid_max, spares a read of /proc per event: a pid above
         * this host's pid_max is simply no process */
        if (pid_in_range(pid, PID_KERNEL_LIMIT) && !t->ended)
            agent_task_process(p->agent, t, (pid_t)pid, json_is_true(json_array_get(ev, 1)) ||
                                                            json_integer_value(json_array_get(ev, 1)) == 1);
    }
}

static void op_limit_exceeded(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    if (t->limit_reported)
        return;
    t->limit_reported = true;
    agent_event(p->agent, AGENT_EVENT_LIMIT_EXCEEDED, t, t->root, json_incref(json_object_get(msg, "fields")));
}

static void op_follow(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    char why[256];
    pid_t pid;
    if (message_pid(p, msg, "follow", "pid", &pid) < 0)
        return;
    if (agent_task_follow(p->agent, t, pid, why, sizeof why) < 0)
        agent_peer_error(p, why);
    else
        t->guarded = json_is_true(json_object_get(msg, "guard"));
}

static void op_follow_end(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    json_t *summary = agent_task_follow_end(p->agent, t);
    t->guarded = false; /* the command has ended: the runner reaps what is left */
    agent_peer_send(p, json_pack("{s:s, s:o}", "op", "followed", "summary", summary ? summary : json_null()));
}

static void op_finished(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    json_t *summary = json_object_get(msg, "summary");
    agent_task_end(p->agent, t, json_is_object(summary) ? summary : NULL);
}

/* The levels of a contract watch: on the socket all are kept; over NATS
 * only this host's (the other hosts' agents keep theirs). */
static void op_levels(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    char why[300];
    long kept = agent_levels_apply(&p->agent->levels, msg, p->client ? NULL : p->agent->host, why, sizeof why);
    if (kept < 0)
        agent_peer_error(p, why);
    else
        agent_peer_answer(p, json_pack("{s:s, s:I}", "op", "levels_kept", "count", (json_int_t)kept));
}

static void op_launch_ranks(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    agent_launch_ranks(p->agent, msg, p->received, emit_to_peer, (void *)p);
}

static void op_launch_keep(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    const char *launch = json_string_value(json_object_get(msg, "launch"));
    const char *segments = json_string_value(json_object_get(msg, "segments"));
    char why[320];
    if (!launch || !segments)
        agent_peer_error(p, "launch_keep: needs \"launch\" (a launch id) and \"segments\" (a directory)");
    else if (agent_launch_keep(p->agent, launch, segments, why, sizeof why) < 0)
        agent_peer_error(p, why);
    else
        agent_peer_answer(p, json_pack("{s:s, s:s}", "op", "launch_kept", "launch", launch));
}

static void op_clock(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    agent_peer_answer(p, json_pack("{s:s, s:I, s:I}", "op", "clock", "received", (json_int_t)p->received,
                                   "sent", (json_int_t)clock_monotonic_ns()));
}

/* The reply to ping ('tally agent status'): who serves, and what it
 * follows: each application's live tasks and processes, the csrs defined,
 * the NATS link. */
static json_t *agent_status(struct agent *a)
{
    json_t *apps = json_object();
    size_t live = 0;
    for (size_t i = 0; i < a->task_count; i++) {
        struct agent_task *t = a->tasks[i];
        if (t->ended)
            continue;
        live++;
        json_t *app = json_object_get(apps, t->app);
        if (!app) {
            app = json_pack("{s:i, s:i}", "tasks", 0, "processes", 0);
            json_object_set_new(apps, t->app, app);
        }
        json_object_set_new(app, "tasks", json_integer(json_integer_value(json_object_get(app, "tasks")) + 1));
    }
    for (size_t slot = 0; slot < a->procs.capacity; slot++) {
        if (!a->procs.keys[slot])
            continue;
        const struct agent_proc *p = pidmap_at(&a->procs, slot);
        for (size_t i = 0; i < a->task_count; i++)
            if (a->tasks[i]->id == p->task && !a->tasks[i]->ended) {
                json_t *app = json_object_get(apps, a->tasks[i]->app);
                json_object_set_new(app, "processes",
                                    json_integer(json_integer_value(json_object_get(app, "processes")) + 1));
                break;
            }
    }
    return json_pack("{s:s, s:i, s:s, s:s, s:s, s:f, s:I, s:I, s:o, s:I, s:I, s:o}", "op", "pong", "pid",
                     (int)getpid(), "node", a->host, "site", a->site, "socket", a->socket_path, "uptime_s",
                     clock_epoch_seconds() - a->started, "tasks", (json_int_t)live, "processes",
                     (json_int_t)a->procs.count, "apps", apps, "csrs", (json_int_t)csr_count(a->registry),
                     "archived", (json_int_t)a->archived, "nats", agent_nats_status(a));
}

static void op_ping(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    agent_peer_send(p, agent_status(p->agent));
}

static void op_shutdown(const struct agent_peer *p, json_t *msg, struct agent_task *t)
{
    p->agent->stop_requested = true;
    agent_peer_send(p, json_pack("{s:s}", "op", "bye"));
}

enum {
    OP_SOCKET = 1, /* taken from a socket client */
    OP_NATS = 2,   /* taken from a NATS inbox */
    OP_TASK = 4,   /* needs the task the connection registered (or attached) */
};

static const struct agent_op {
    const char *name;
    void (*take)(const struct agent_peer *p, json_t *msg, struct agent_task *t);
    unsigned flags;
} ops[] = {
    {"request", op_request, OP_SOCKET},
    {"register", op_register, OP_SOCKET},
    {"attach", op_attach, OP_SOCKET},
    {"segments", op_segments, OP_SOCKET | OP_TASK},
    {"sample", op_sample, OP_SOCKET | OP_TASK},
    {"processes", op_processes, OP_SOCKET | OP_TASK},
    {"limit_exceeded", op_limit_exceeded, OP_SOCKET | OP_TASK},
    {"follow", op_follow, OP_SOCKET | OP_TASK},
    {"follow_end", op_follow_end, OP_SOCKET | OP_TASK},
    {"finished", op_finished, OP_SOCKET | OP_TASK},
    {"levels", op_levels, OP_SOCKET | OP_NATS},
    {"launch_ranks", op_launch_ranks, OP_SOCKET | OP_NATS},
    {"launch_keep", op_launch_keep, OP_SOCKET | OP_TASK},
    {"clock", op_clock, OP_NATS},
    {"ping", op_ping, OP_SOCKET},
    {"shutdown", op_shutdown, OP_SOCKET},
};

static const struct agent_op *find_op(const char *name)
{
    for (size_t i = 0; name && i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(ops[i].name, name))
            return &ops[i];
    return NULL;
}

/* "over NATS an agent takes only {"op": "levels"}, ... and {"op": "clock"}
 * messages", from the table. */
static void refuse_over_nats(const struct agent_peer *p)
{
    char why[400];
    size_t len = (size_t)snprintf(why, sizeof why, "over NATS an agent takes only ");
    size_t n = 0, total = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        total += (ops[i].flags & OP_NATS) != 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0] && len < sizeof why; i++) {
        if (!(ops[i].flags & OP_NATS))
            continue;
        n++;
        len += (size_t)snprintf(why + len, sizeof why - len, "%s{\"op\": \"%s\"}",
                                n == 1 ? "" : n == total ? " and " : ", ", ops[i].name);
    }
    if (len < sizeof why)
        snprintf(why + len, sizeof why - len, " messages");
    agent_peer_error(p, why);
}

void agent_ops_connect(struct agent *a)
{
    a->up = (struct agent_upcalls){
        .event = agent_event,
        .instrumented_event = agent_instrumented_event,
        .take_op = agent_ops_take,
        .peer_error = agent_peer_error,
        .request = agent_request,
    };
}

void agent_ops_take(const struct agent_peer *p, json_t *msg)
{
    const char *name = json_string_value(json_object_get(msg, "op"));
    const struct agent_op *op = find_op(name);
    if (!p->client) {
        if (!op || !(op->flags & OP_NATS))
            refuse_over_nats(p);
        else
            op->take(p, msg, NULL);
        return;
    }
    struct agent_task *t = p->client->task ? agent_task_find(p->agent, p->client->task) : NULL;
    if (!name) {
        agent_peer_error(p, "a message needs \"op\"");
    } else if (!op || !(op->flags & OP_SOCKET)) {
        char why[200];
        snprintf(why, sizeof why, "unknown op '%.60s'", name);
        agent_peer_error(p, why);
    } else if ((op->flags & OP_TASK) && !t) {
        agent_peer_error(p, "this connection registered no task");
    } else {
        op->take(p, msg, t);
    }
}
