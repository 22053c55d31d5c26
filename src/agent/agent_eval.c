/* Evaluation of OMIS-style requests in the agent (seed 001, sections 5-7).
 * An unconditional request runs its actions at once: one reply line per
 * object and service, then {"request": "r_N", "done": true, "errors": [...]}.
 * A conditional request becomes csr_N, disabled until csr_enable (as in the
 * seed): each time its event happens here, in the agent, its actions run and
 * their lines go to the connection that defined it, with "request": "csr_N"
 * and the event that fired. Nothing is shipped to the tool but the actions'
 * results. Counters, csrs, event matching and timers are the registry's
 * (csr.h); this file runs the information and manipulation services it
 * dispatches and turns its reports into lines.
 *
 * Processes are reachable only when they are the agent's user's AND part of
 * a registered application; every refusal says which of the two failed.
 * Errors name the column of the bad part of the request text. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent_eval.h"
#include "agent/agent_state.h"
#include "agent/agent_io.h"
#include "agent/agent_probes.h"
#include "agent/agent_recording.h"
#include "agent/agent_segments.h"
#include "agent/agent_tree.h"
#include "agent/proc_info.h"
#include "tally/segment.h"
#include "util/clock.h"
#include "core/units.h"
#include "util/vec.h"

/* What the actions of one evaluation share: where lines go, the request's
 * name, the errors so far, and the event that fired (conditional). */
struct eval {
    struct agent *a;
    struct agent_client *to;
    char request[32];
    json_t *errors;
    json_t *event;      /* conditional: the event's description, else NULL */
    double len;         /* $len */
    json_t *ranks_here; /* a request's switches: [{"of": N, "ranks": [...]}] of the MPI ranks
                           here (the done line's, so a tool knows when all answered), or NULL */
};

static void add_error(struct eval *e, int pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A request that came over NATS reached every agent its route names: the
 * objects of other nodes, sites and applications are theirs to answer,
 * not errors here (docs/agent-nats.md). */
static bool answered_elsewhere(const struct eval *e)
{
    return e->to && e->to->reply_subject;
}

static void add_error(struct eval *e, int pos, const char *fmt, ...)
{
    char message[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (e->errors)
        json_array_append_new(e->errors, json_pack("{s:i, s:s}", "pos", pos, "message", message));
    else if (e->to) /* a conditional request's action at event time */
        agent_send(e->a, e->to,
                       json_pack("{s:s, s:i, s:s}", "request", e->request, "pos", pos, "error",
                                 message));
}

static void reply(struct eval *e, const char *object, const char *service, json_t *result)
{
    json_t *line = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f}", "request", e->request, "site",
                             e->a->site, "node", e->a->host, "object", object, "service", service,
                             "time", clock_epoch_seconds());
    if (e->event)
        json_object_set(line, "event", e->event);
    json_object_set_new(line, "result", result ? result : json_object());
    agent_send(e->a, e->to, line);
}

static void proc_token(const struct agent *a, pid_t pid, char *out, size_t size)
{
    snprintf(out, size, "p_%d@%s", (int)pid, a->host);
}

/* ---- objects ---- */

static const struct request_arg *arg_at(const struct request_call *call, size_t i)
{
    return i < call->arg_count ? &call->args[i] : NULL;
}

static const struct request_arg *objects_arg(struct eval *e, const struct request_call *call)
{
    const struct request_arg *arg = arg_at(call, 0);
    if (!arg || arg->kind != ARG_OBJECTS) {
        add_error(e, call->pos, "%s: the first argument must be a list of objects ([...])",
                  call->service);
        return NULL;
    }
    return arg;
}

/* Is this process one a request may touch? 0, or -1 after an error. */
static int check_process(struct eval *e, pid_t pid, int pos)
{
    uid_t owner;
    if (proc_owner(pid, &owner) < 0) {
        add_error(e, pos, "p_%d: process %d does not exist", (int)pid, (int)pid);
        return -1;
    }
    if (owner != e->a->uid) {
        add_error(e, pos, "p_%d: process %d belongs to another user", (int)pid, (int)pid);
        return -1;
    }
    if (!agent_task_of_rescanned(e->a, pid)) {
        add_error(e, pos, "p_%d: process %d is not part of any registered application", (int)pid,
                  (int)pid);
        return -1;
    }
    return 0;
}

static bool is_this_node(const struct agent *a, const char *name)
{
    return !name || !strcmp(name, a->host) || !strcmp(name, "localhost");
}

static bool is_this_site(const struct agent *a, const char *name)
{
    return name && !strcmp(name, a->site);
}

static bool app_exists(const struct agent *a, const char *name)
{
    for (size_t i = 0; i < a->task_count; i++)
        if (!a->tasks[i]->ended && !strcmp(a->tasks[i]->app, name))
            return true;
    return false;
}

/* Whether a task of app (NULL: any) was added since the last scan: its
 * processes are not known yet (tally run started it a moment ago). */
static bool scope_unscanned(const struct agent *a, const char *app)
{
    for (size_t i = 0; i < a->task_count; i++) {
        const struct agent_task *t = a->tasks[i];
        if (!t->ended && !t->scanned && (!app || !strcmp(t->app, app)))
            return true;
    }
    return false;
}

/* The processes the objects stand for (app_, n_, site_ expand), checked;
 * returns how many were put in pids (allocated). */
static size_t expand_processes(struct eval *e, const struct request_arg *arg, pid_t **pids)
{
    size_t n = 0, cap = 0;
    *pids = NULL;
    struct agent *a = e->a;
    for (size_t k = 0; k < arg->object_count; k++) {
        const struct object_token *tok = &arg->objects[k];
        const char *app = NULL;
        bool all = false;
        switch (tok->kind) {
        case OBJECT_PROC:
            if (!is_this_node(a, tok->name)) {
                if (answered_elsewhere(e))
                    continue;
                add_error(e, tok->pos, "p_%d@%s: node %s is not reachable from this agent (%s)",
                          (int)tok->pid, tok->name, tok->name, a->host);
                continue;
            }
            if (check_process(e, tok->pid, tok->pos) < 0)
                continue;
            pid_t *slot = VEC_PUSH(*pids, n, cap);
            if (!slot)
                return n;
            *slot = tok->pid;
            continue;
        case OBJECT_APP:
            if (!app_exists(a, tok->name)) {
                if (!answered_elsewhere(e))
                    add_error(e, tok->pos, "app_%s: no such application", tok->name);
                continue;
            }
            app = tok->name;
            break;
        case OBJECT_NODE:
            if (!is_this_node(a, tok->name)) {
                if (!answered_elsewhere(e))
                    add_error(e, tok->pos, "n_%s: not this node (%s)", tok->name, a->host);
                continue;
            }
            all = true;
            break;
        case OBJECT_SITE:
            if (!is_this_site(a, tok->name)) {
                if (!answered_elsewhere(e))
                    add_error(e, tok->pos, "site_%s: not this site (%s)", tok->name, a->site);
                continue;
            }
            all = true;
            break;
        default:
            add_error(e, tok->pos, "%s_%u is not a process, an application, a node or a site",
                      tok->kind == OBJECT_COUNTER ? "c" : "csr", tok->number);
            continue;
        }
        if (scope_unscanned(a, app))
            agent_tasks_scan(a);
        for (size_t i = 0; i < a->procs.capacity; i++) {
            pid_t pid = a->procs.keys[i];
            if (!pid)
                continue;
            const struct agent_task *t = agent_task_of(a, pid);
            if (!t || (!all && strcmp(t->app, app)))
                continue;
            pid_t *slot = VEC_PUSH(*pids, n, cap);
            if (!slot)
                return n;
            *slot = pid;
        }
    }
    return n;
}

/* ---- information services ---- */

/* {"app", "object", "processes", "tasks", "nodes"} per application here. */
static json_t *app_list(const struct agent *a)
{
    json_t *apps = json_array();
    char node[300];
    snprintf(node, sizeof node, "n_%s", a->host);
    for (size_t i = 0; i < a->task_count; i++) {
        const struct agent_task *t = a->tasks[i];
        if (t->ended)
            continue;
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= !a->tasks[j]->ended && !strcmp(a->tasks[j]->app, t->app);
        if (seen)
            continue;
        size_t tasks = 0, procs = 0;
        for (size_t j = 0; j < a->task_count; j++)
            if (!a->tasks[j]->ended && !strcmp(a->tasks[j]->app, t->app))
                tasks++;
        for (size_t k = 0; k < a->procs.capacity; k++)
            if (a->procs.keys[k]) {
                const struct agent_task *pt = agent_task_of(a, a->procs.keys[k]);
                procs += pt && !strcmp(pt->app, t->app);
            }
        char token[300];
        snprintf(token, sizeof token, "app_%s", t->app);
        json_array_append_new(apps, json_pack("{s:s, s:s, s:I, s:I, s:[s]}", "app", t->app,
                                              "object", token, "processes", (json_int_t)procs,
                                              "tasks", (json_int_t)tasks, "nodes", node));
    }
    return apps;
}

static json_t *app_tokens(const struct agent *a)
{
    json_t *list = app_list(a), *tokens = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
        json_array_append(tokens, json_object_get(v, "object"));
    json_decref(list);
    return tokens;
}

static void node_info(struct eval *e, const char *object)
{
    struct agent *a = e->a;
    double load[3];
    machine_load_averages(load);
    double uptime = machine_uptime();
    size_t tasks = 0;
    for (size_t i = 0; i < a->task_count; i++)
        tasks += !a->tasks[i]->ended;
    char node[300];
    snprintf(node, sizeof node, "n_%s", a->host);
    json_t *r = json_pack("{s:s, s:s, s:i, s:[f,f,f], s:[f,s], s:[f,s], s:[f,s], s:I, s:I, s:i, "
                          "s:i, s:f, s:I}",
                          "node", node, "site", a->site, "cpus", machine_cpu_count(), "load",
                          load[0], load[1], load[2], "memory_total", machine_meminfo_mb("MemTotal"), "MB",
                          "memory_available", machine_meminfo_mb("MemAvailable"), "MB", "uptime", uptime,
                          "s", "processes", (json_int_t)a->procs.count, "tasks", (json_int_t)tasks,
                          "agent_pid", (int)getpid(), "uid", (int)a->uid, "agent_started",
                          a->started, "archived", (json_int_t)a->archived);
    json_object_set_new(r, "apps", app_tokens(a));
    reply(e, object, "node_get_info", r);
}

/* site_get_info, node_get_info, app_get_list: one answer per site or node
 * named (none named: this node, or this site). */
static void place_info(struct eval *e, const struct request_call *call, enum service_id id)
{
    struct agent *a = e->a;
    const char *svc = call->service;
    char token[300];
    {
        const struct request_arg *arg = arg_at(call, 0);
        size_t count = arg && arg->kind == ARG_OBJECTS ? arg->object_count : 0;
        if (count == 0) { /* no objects: this node (or site) */
            if (id == SERVICE_SITE_GET_INFO)
                snprintf(token, sizeof token, "site_%s", a->site);
            else
                snprintf(token, sizeof token, "n_%s", a->host);
        }
        for (size_t k = 0; k < (count ? count : 1); k++) {
            if (count) {
                const struct object_token *tok = &arg->objects[k];
                bool ok = (tok->kind == OBJECT_SITE && is_this_site(a, tok->name)) ||
                          (tok->kind == OBJECT_NODE && is_this_node(a, tok->name));
                if (!ok && answered_elsewhere(e) &&
                    (tok->kind == OBJECT_SITE || tok->kind == OBJECT_NODE))
                    continue;
                if (!ok) {
                    add_error(e, tok->pos, "%s: expects this site (site_%s) or node (n_%s)", svc,
                              a->site, a->host);
                    continue;
                }
                snprintf(token, sizeof token, "%s_%s", tok->kind == OBJECT_SITE ? "site" : "n",
                         tok->name ? tok->name : a->host);
            }
            if (id == SERVICE_NODE_GET_INFO) {
                node_info(e, token);
            } else if (id == SERVICE_SITE_GET_INFO) {
                char node[300];
                snprintf(node, sizeof node, "n_%s", a->host);
                reply(e, token, svc,
                      json_pack("{s:s, s:[s], s:i, s:o}", "site", a->site, "nodes", node, "agents",
                                1, "apps", app_tokens(a)));
            } else {
                reply(e, token, svc, json_pack("{s:o}", "apps", app_list(a)));
            }
        }
    }
}

static void site_get_info(struct eval *e, const struct request_call *call)
{
    place_info(e, call, SERVICE_SITE_GET_INFO);
}

static void node_get_info(struct eval *e, const struct request_call *call)
{
    place_info(e, call, SERVICE_NODE_GET_INFO);
}

static void app_get_list(struct eval *e, const struct request_call *call)
{
    place_info(e, call, SERVICE_APP_GET_LIST);
}

static void app_get_proclist(struct eval *e, const struct request_call *call)
{
    struct agent *a = e->a;
    const char *svc = call->service;
    char token[300];
    const struct request_arg *arg = objects_arg(e, call);
    if (!arg)
        return;
    {
        for (size_t k = 0; k < arg->object_count; k++) {
            const struct object_token *tok = &arg->objects[k];
            if (tok->kind != OBJECT_APP) {
                add_error(e, tok->pos, "app_get_proclist: expects applications (app_NAME)");
                continue;
            }
            if (!app_exists(a, tok->name)) {
                add_error(e, tok->pos, "app_%s: no such application", tok->name);
                continue;
            }
            json_t *list = json_array();
            for (size_t i = 0; i < a->procs.capacity; i++) {
                pid_t pid = a->procs.keys[i];
                const struct agent_task *t = pid ? agent_task_of(a, pid) : NULL;
                if (!t || strcmp(t->app, tok->name))
                    continue;
                char ptok[300];
                proc_token(a, pid, ptok, sizeof ptok);
                json_array_append_new(list, json_string(ptok));
            }
            snprintf(token, sizeof token, "app_%s", tok->name);
            reply(e, token, svc, json_pack("{s:s, s:o}", "app", tok->name, "processes", list));
        }
    }
}

/* Whether pid is named by a p_ token (not only found in a scope: app_, n_, site_). */
static bool named_process(const struct request_arg *arg, pid_t pid)
{
    for (size_t k = 0; k < arg->object_count; k++)
        if (arg->objects[k].kind == OBJECT_PROC && arg->objects[k].pid == pid)
            return true;
    return false;
}

/* proc_get_info(objects, flags) */
static void proc_get_info(struct eval *e, const struct request_call *call)
{
    struct agent *a = e->a;
    const char *svc = call->service;
    char token[300];
    const struct request_arg *arg = objects_arg(e, call);
    if (!arg)
        return;
    unsigned flags = request_info_flags(call);
    pid_t *pids;
    size_t n = expand_processes(e, arg, &pids);
    for (size_t i = 0; i < n; i++) {
        char why[200];
        json_t *info = proc_info_json(a, pids[i], flags, why, sizeof why);
        proc_token(a, pids[i], token, sizeof token);
        if (info)
            reply(e, token, svc, info);
        else if (!named_process(arg, pids[i]) && kill(pids[i], 0) < 0 && errno == ESRCH)
            continue; /* one of the application's processes ended since the last scan
                       * (a shell's short child): no longer part of it, not an error */
        else
            add_error(e, arg->pos, "%s: %s", token, why);
    }
    free(pids);
}

/* ---- manipulation services ---- */

static struct agent_task *tree_task(struct agent *a, pid_t pid)
{
    return agent_task_of(a, pid);
}

/* After SIGSTOP: "stopped" once /proc shows the process stopped (T, or t
 * under tally run's tracer), waiting at most 100 ms; else "stopping". */
static const char *wait_stopped(pid_t pid)
{
    for (int i = 0; i < 100; i++) {
        struct proc_stat st;
        if (proc_read_stat(pid, &st) < 0)
            return "gone";
        if (st.state == 'T' || st.state == 't')
            return "stopped";
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return "stopping";
}

/* rank of size `of` of WORLD (the run's launch, "" when unknown) in
 * e->ranks_here (rank_cover.h reads it) */
static void rank_here(struct eval *e, const char *world, int rank, int of)
{
    if (!e->ranks_here || rank < 0 || of <= 0)
        return;
    size_t i;
    json_t *entry = NULL, *w;
    json_array_foreach(e->ranks_here, i, w)
        if (json_integer_value(json_object_get(w, "of")) == of &&
            !strcmp(json_string_value(json_object_get(w, "world")), world))
            entry = w;
    if (!entry) {
        entry = json_pack("{s:s, s:i, s:[]}", "world", world, "of", of, "ranks");
        json_array_append_new(e->ranks_here, entry);
    }
    json_array_append_new(json_object_get(entry, "ranks"), json_integer(rank));
}

/* proc_record_start/stop (agent_recording.c): an application's processes
 * without a segment (mpirun, its daemons) are passed over; one named by
 * p_ is an error, as is an application with no instrumented process here.
 * Every MPI rank here, switched or not (finished), goes in the done line's
 * ranks_here. */
static void record_switch(struct eval *e, const struct request_call *call, bool on)
{
    struct agent *a = e->a;
    const struct request_arg *arg = objects_arg(e, call);
    if (!arg)
        return;
    pid_t *pids;
    size_t n = expand_processes(e, arg, &pids), switched = 0;
    unsigned kinds = request_recording_kinds(arg_at(call, 1));
    double duration = on ? request_period(arg_at(call, 2)) : -1;
    for (size_t i = 0; i < n; i++) {
        char token[300], why[300];
        proc_token(a, pids[i], token, sizeof token);
        const struct agent_segment *m = agent_segments_find(a, pids[i]);
        if (!named_process(arg, pids[i]) && !m)
            continue;
        if (m && (m->seg->d.flags & TALLY_SEG_MPI)) {
            const struct agent_task *t = agent_task_find(a, m->task);
            const char *world = t && t->world ? t->world : t && t->launch ? t->launch : "";
            rank_here(e, world, m->seg->d.rank, m->seg->d.ranks);
        }
        json_t *state = agent_record_switch(a, pids[i], kinds, on, duration, why, sizeof why);
        if (state) {
            reply(e, token, call->service, state);
            switched++;
        } else {
            add_error(e, arg->pos, "%s: %s: %s", token, call->service, why);
        }
    }
    if (n && !switched && !json_array_size(e->errors) && !answered_elsewhere(e))
        add_error(e, arg->pos, "%s: no instrumented process here (tally run --agent --mpi|--probes "
                               "--window request; a rank registers at MPI_Init)", call->service);
    free(pids);
}

/* thread_stop, thread_continue, proc_kill: the signal to every process named. */
static void signal_processes(struct eval *e, const struct request_call *call, int sig)
{
    struct agent *a = e->a;
    const char *svc = call->service;
    const struct request_arg *arg = objects_arg(e, call);
    if (!arg)
        return;
    pid_t *pids;
    size_t n = expand_processes(e, arg, &pids);
    /* An application here with no process (its tally run has not started
     * the command yet, or it ended): nothing signalled for it, and said so,
     * also when other objects of the request had processes. */
    for (size_t k = 0; k < arg->object_count; k++) {
        const struct object_token *tok = &arg->objects[k];
        if (tok->kind != OBJECT_APP || !app_exists(a, tok->name))
            continue;
        bool any = false;
        for (size_t i = 0; i < n && !any; i++) {
            const struct agent_task *t = agent_task_of(a, pids[i]);
            any = t && !strcmp(t->app, tok->name);
        }
        if (!any)
            add_error(e, tok->pos, "app_%s: %s: no process of it is running here "
                      "(its command not started yet, or ended): nothing signalled", tok->name, svc);
    }
    for (size_t i = 0; i < n; i++) {
        char token[300];
        proc_token(a, pids[i], token, sizeof token);
        int rc = kill(pids[i], sig);
        if (rc < 0 && errno == ESRCH)
            /* It ended between the expansion and now (an application
             * reacting to the signals its other processes got). */
            reply(e, token, svc, json_pack("{s:s}", "state", "gone"));
        else if (rc < 0)
            add_error(e, arg->pos, "%s: %s: %s", token, svc, strerror(errno));
        else if (sig == SIGSTOP)
            reply(e, token, svc, json_pack("{s:s}", "state", wait_stopped(pids[i])));
        else if (sig == SIGCONT)
            reply(e, token, svc, json_pack("{s:s}", "state", "running"));
        else
            reply(e, token, svc, json_pack("{s:i}", "signal", sig));
    }
    free(pids);
}

static void thread_stop(struct eval *e, const struct request_call *call)
{
    signal_processes(e, call, SIGSTOP);
}

static void thread_continue(struct eval *e, const struct request_call *call)
{
    signal_processes(e, call, SIGCONT);
}

static void proc_kill(struct eval *e, const struct request_call *call)
{
    signal_processes(e, call, request_signal(arg_at(call, 1)));
}

static void proc_record_start(struct eval *e, const struct request_call *call)
{
    record_switch(e, call, true);
}

static void proc_record_stop(struct eval *e, const struct request_call *call)
{
    record_switch(e, call, false);
}

static void proc_set_limits(struct eval *e, const struct request_call *call)
{
    struct agent *a = e->a;
    const char *svc = call->service;
    const struct request_arg *arg = objects_arg(e, call);
    if (!arg)
        return;
    struct limit_set limits;
    const struct request_arg *l = arg_at(call, 1);
    if (!l || l->kind != ARG_STRING) {
        add_error(e, call->pos, "proc_set_limits: needs the limits as a string, e.g. "
                                "\"memory: 2 GB, wall_time: 10 min\"");
        return;
    }
    char why[200];
    limits_clear(&limits);
    if (limits_parse(&limits, l->text, why, sizeof why) < 0) {
        add_error(e, l->pos, "proc_set_limits: %s", why);
        return;
    }
    const char *limits_text = l->text;
    pid_t *pids;
    size_t n = expand_processes(e, arg, &pids);
    unsigned done_tasks[64];
    size_t ndone = 0;
    for (size_t i = 0; i < n; i++) {
        char token[300];
        proc_token(a, pids[i], token, sizeof token);
        /* proc_set_limits: applies to the whole task of the process, once. */
        struct agent_task *t = tree_task(a, pids[i]);
        bool seen = false;
        for (size_t k = 0; k < ndone; k++)
            seen |= done_tasks[k] == t->id;
        if (seen || ndone == 64)
            continue;
        done_tasks[ndone++] = t->id;
        free(t->limits_text);
        t->limits_text = strdup(limits_text);
        t->limits = limits;
        t->limit_reported = false;
        const char *how;
        /* A task with a tally run (even one whose tree the agent follows at
         * level 1) is enforced there: it says which limit broke and exits
         * 124, and it still holds the limits if the agent goes away. */
        if (t->runner) {
            agent_send(a, t->runner, json_pack("{s:s, s:s}", "op", "set_limits", "limits",
                                               limits_text));
            how = "sent to its tally run";
        } else if (t->follower) {
            follower_set_limits(t->follower, &limits);
            how = "watched by the agent";
        } else {
            add_error(e, arg->pos, "%s: task %u has no live monitor to hold limits", token, t->id);
            continue;
        }
        json_t *set = json_object();
        for (int f = 0; f < FIELD_COUNT; f++)
            if (limits.set[f])
                json_object_set_new(set, summary_field_by_id(f)->name,
                                    json_pack("[f, s]", limits.max[f], summary_field_by_id(f)->unit));
        reply(e, token, svc, json_pack("{s:o, s:i, s:s}", "limits", set, "task", (int)t->id,
                                       "watchdog", how));
    }
    free(pids);
}

/* ---- counters and conditional requests: the registry (csr.h) ---- */

/* The owners are sorted by csr number (csrs get increasing numbers, so
 * set_owner appends): lookups are binary searches. A deletion (reported by
 * the registry, or a connection's end) clears its entry's client in
 * O(log n); the cleared entries are removed in one pass once they
 * outnumber the others. Defining or deleting n csrs is O(n log n), not
 * O(n^2), and each connection's count of csrs (its cap,
 * AGENT_CLIENT_CSRS) is kept as they come and go. */

/* The index of the first owner whose csr is >= csr. */
static size_t owner_at(const struct agent *a, unsigned csr)
{
    size_t lo = 0, hi = a->owner_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->owners[mid].csr < csr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Who gets the lines of csr_N: the connection that defined it. */
static struct agent_client *csr_owner(const struct agent *a, unsigned csr)
{
    size_t i = owner_at(a, csr);
    return i < a->owner_count && a->owners[i].csr == csr ? a->owners[i].client : NULL;
}

static void set_owner(struct agent *a, unsigned csr, struct agent_client *c)
{
    size_t at = owner_at(a, csr);
    if (at < a->owner_count && a->owners[at].csr == csr) { /* a stale entry of that number */
        if (!a->owners[at].client)
            a->owners_stale--;
        else
            a->owners[at].client->csrs--;
        a->owners[at].client = c;
        c->csrs++;
        return;
    }
    struct csr_owner *o = VEC_INSERT(a->owners, a->owner_count, a->owner_cap, at);
    if (o) {
        *o = (struct csr_owner){csr, c};
        c->csrs++;
    }
}

/* Removes the entries of deleted csrs once they outnumber the others. */
static void compact_owners(struct agent *a)
{
    if (a->owners_stale <= a->owner_count - a->owners_stale)
        return;
    size_t k = 0;
    for (size_t i = 0; i < a->owner_count; i++)
        if (a->owners[i].client)
            a->owners[k++] = a->owners[i];
    a->owner_count = k;
    a->owners_stale = 0;
}

/* csr_N was deleted: its owner has one csr less. */
static void drop_owner(struct agent *a, unsigned csr)
{
    size_t i = owner_at(a, csr);
    if (i == a->owner_count || a->owners[i].csr != csr || !a->owners[i].client)
        return;
    a->owners[i].client->csrs--;
    a->owners[i].client = NULL;
    a->owners_stale++;
}

void agent_forget_client(struct agent *a, struct agent_client *c)
{
    if (c->csrs == 0)
        return;
    csr_batch_begin(a->registry);
    for (size_t i = 0; i < a->owner_count && c->csrs > 0; i++)
        if (a->owners[i].client == c) {
            csr_delete(a->registry, a->owners[i].csr);
            a->owners[i].client = NULL;
            a->owners_stale++;
            c->csrs--;
        }
    csr_batch_end(a->registry);
    compact_owners(a);
}

static const char *const event_names[] = {
    [EVENT_PROC_CREATED] = "proc_created",       [EVENT_PROC_TERMINATED] = "proc_terminated",
    [EVENT_LIMIT_EXCEEDED] = "limit_exceeded",   [EVENT_TIMER] = "timer",
    [EVENT_PROBE] = "thread_executes_probe",     [EVENT_LIB_CALL_STARTED] = "lib_call_started",
    [EVENT_LIB_CALL_ENDED] = "lib_call_ended",
};

/* The "event" member of a conditional request's lines. */
static json_t *event_json(const struct agent *a, const struct event_occurrence *ev)
{
    json_t *o = json_pack("{s:s}", "service", event_names[ev->kind]);
    if (ev->name)
        json_object_set_new(o, ev->kind == EVENT_PROBE ? "probe" : "function", json_string(ev->name));
    if (ev->kind != EVENT_TIMER) {
        char token[300];
        proc_token(a, ev->pid, token, sizeof token);
        json_object_set_new(o, "object", json_string(token));
        if (ev->app)
            json_object_set_new(o, "app", json_string(ev->app));
    }
    return o;
}

/* What the registry reports, as reply lines. */
/* The information and manipulation services, by the catalogue's id
 * (request.h); the other services are csr.c's. */
static void (*const evaluators[SERVICE_ID_COUNT])(struct eval *e, const struct request_call *call) = {
    [SERVICE_SITE_GET_INFO] = site_get_info,
    [SERVICE_NODE_GET_INFO] = node_get_info,
    [SERVICE_APP_GET_LIST] = app_get_list,
    [SERVICE_APP_GET_PROCLIST] = app_get_proclist,
    [SERVICE_PROC_GET_INFO] = proc_get_info,
    [SERVICE_THREAD_STOP] = thread_stop,
    [SERVICE_THREAD_CONTINUE] = thread_continue,
    [SERVICE_PROC_KILL] = proc_kill,
    [SERVICE_PROC_SET_LIMITS] = proc_set_limits,
    [SERVICE_PROC_RECORD_START] = proc_record_start,
    [SERVICE_PROC_RECORD_STOP] = proc_record_stop,
};

static void evaluate(struct eval *e, const struct request_call *call)
{
    int id = service_id_of(call->service);
    if (id >= 0 && evaluators[id])
        evaluators[id](e, call);
}

static void on_report(void *context, const struct csr_report *r)
{
    struct eval *outer = context;
    struct eval e = *outer;
    if (r->kind == CSR_REPORT_CSR_STATE && r->state == CSR_DELETED)
        drop_owner(outer->a, r->object);
    if (r->csr) { /* a conditional request fired: its lines go to its owner */
        e.to = csr_owner(outer->a, r->csr);
        snprintf(e.request, sizeof e.request, "csr_%u", r->csr);
        e.errors = NULL;
        e.event = r->event ? event_json(outer->a, r->event) : NULL;
        e.len = r->event ? r->event->len : 1;
        if (!e.to) {
            json_decref(e.event);
            return;
        }
    }
    const char *svc = r->action ? r->action->service : "";
    char token[64];
    switch (r->kind) {
    case CSR_REPORT_DISPATCH:
        evaluate(&e, r->action);
        break;
    case CSR_REPORT_COUNTER_VALUE:
        snprintf(token, sizeof token, "c_%u", r->object);
        reply(&e, token, svc, json_pack("{s:s, s:f}", "counter", token, "value", r->value));
        break;
    case CSR_REPORT_COUNTER_DELETED:
        snprintf(token, sizeof token, "c_%u", r->object);
        reply(&e, token, svc, json_pack("{s:s, s:b}", "counter", token, "deleted", 1));
        break;
    case CSR_REPORT_CSR_STATE: {
        static const char *const states[] = {"disabled", "enabled", "deleted"};
        snprintf(token, sizeof token, "csr_%u", r->object);
        reply(&e, token, svc, json_pack("{s:s, s:s}", "csr", token, "state", states[r->state]));
        break;
    }
    case CSR_REPORT_ERROR: {
        /* The column of the token it is about, else of the action. */
        int pos = r->action ? r->action->pos : 0;
        for (size_t i = 0; r->action && i < r->action->arg_count; i++) {
            const struct request_arg *arg = &r->action->args[i];
            for (size_t k = 0; arg->kind == ARG_OBJECTS && k < arg->object_count; k++) {
                const struct object_token *t = &arg->objects[k];
                double ignored;
                bool missing = (t->kind == OBJECT_COUNTER &&
                                counter_read(outer->a->registry, t->number, false, &ignored) < 0) ||
                               (t->kind == OBJECT_CSR &&
                                csr_state_of(outer->a->registry, t->number) == CSR_DELETED);
                if ((r->object && t->number == r->object) || (!r->object && missing)) {
                    pos = t->pos;
                    i = r->action->arg_count; /* the first one */
                    break;
                }
            }
        }
        add_error(&e, pos, "%s", r->error ? r->error : "error");
        break;
    }
    }
    if (r->csr)
        json_decref(e.event);
}

/* ---- requests ---- */

static bool is_probe_event(const char *svc)
{
    int id = service_id_of(svc);
    return id == SERVICE_THREAD_EXECUTES_PROBE || id == SERVICE_LIB_CALL_STARTED || id == SERVICE_LIB_CALL_ENDED;
}

void agent_request(struct agent *a, struct agent_client *c, const char *text)
{
    struct eval e = {.a = a, .to = c, .errors = json_array(), .len = 1, .ranks_here = json_array()};
    snprintf(e.request, sizeof e.request, "r_%u", ++a->next_request_id);
    struct request req;
    struct request_error err;
    memset(&req, 0, sizeof req);
    double now = clock_monotonic_seconds();
    if (request_parse(text, &req, &err) < 0 || request_check(&req, &err) < 0) {
        json_array_append_new(e.errors, json_pack("{s:i, s:s}", "pos", err.pos, "message",
                                                  err.message));
    } else if (req.conditional) {
        /* As in the seed, defined disabled: csr_enable starts it. */
        char *service = strdup(req.event.service);
        int pos = req.event.pos;
        bool instrumented = agent_probes_match(a, &req.event);
        unsigned number = 0;
        if (c && c->csrs >= AGENT_CLIENT_CSRS) {
            char why[200];
            snprintf(why, sizeof why,
                     "too many conditional requests on this connection (at most %d of the "
                     "agent's %d): delete some with csr_delete",
                     AGENT_CLIENT_CSRS, CSR_MAX_CSRS);
            json_array_append_new(e.errors, json_pack("{s:i, s:s}", "pos", 0, "message", why));
        } else if (csr_define(a->registry, &req, false, now, &number, &err) < 0) {
            json_array_append_new(e.errors, json_pack("{s:i, s:s}", "pos", err.pos, "message",
                                                      err.message));
        } else {
            set_owner(a, number, c);
            snprintf(e.request, sizeof e.request, "csr_%u", number);
            reply(&e, e.request, service ? service : "",
                  json_pack("{s:s, s:s}", "csr", e.request, "state", "disabled"));
            if (service && is_probe_event(service) && !instrumented)
                json_array_append_new(
                    e.errors,
                    json_pack("{s:i, s:s}", "pos", pos, "message",
                              "no instrumented process matches yet (none of its processes was "
                              "started by tally run --agent with --probes or --mpi); the request "
                              "is kept"));
        }
        free(service);
    } else {
        for (size_t i = 0; i < req.action_count; i++)
            if (service_id_of(req.actions[i].service) == SERVICE_CSR_DISABLE ||
                service_id_of(req.actions[i].service) == SERVICE_CSR_DELETE)
                agent_probes_flush(a, now);
        csr_run(a->registry, &req, now, on_report, &e);
    }
    request_free(&req);
    compact_owners(a);
    json_t *done = json_pack("{s:s, s:s, s:s, s:b, s:o}", "request", e.request, "site", a->site,
                             "node", a->host, "done", 1, "errors", e.errors);
    if (json_array_size(e.ranks_here))
        json_object_set(done, "ranks_here", e.ranks_here);
    json_decref(e.ranks_here);
    agent_send(a, c, done);
}

/* ---- events ---- */

void agent_event(struct agent *a, enum agent_event kind, const struct agent_task *t, pid_t pid,
                 json_t *detail)
{
    static const enum event_kind kinds[] = {EVENT_PROC_CREATED, EVENT_PROC_TERMINATED,
                                            EVENT_LIMIT_EXCEEDED};
    json_decref(detail);
    if (csr_count(a->registry) == 0)
        return;
    /* proc_created on p_PID matches its descendants: the parent chain. */
    pid_t ancestors[64];
    size_t n = 0;
    const struct scan_proc *e = proc_scan_get(&a->scan, pid);
    for (pid_t p = e ? e->stat.ppid : 0; p > 1 && n < 64;) {
        ancestors[n++] = p;
        const struct scan_proc *pe = proc_scan_get(&a->scan, p);
        p = pe ? pe->stat.ppid : 0;
    }
    if (n == 0 && t->root > 0)
        ancestors[n++] = t->root;
    struct event_occurrence ev = {
        .kind = kinds[kind], .pid = pid, .host = a->host, .app = t->app, .site = a->site,
        .ancestors = ancestors, .ancestor_count = n, .len = 1,
    };
    struct eval ctx = {.a = a, .len = 1};
    csr_event(a->registry, &ev, clock_monotonic_seconds(), on_report, &ctx);
    compact_owners(a);
}

double agent_fire_timers(struct agent *a, double now)
{
    double probes = agent_probes_poll(a, now); /* probe and MPI events, while wanted */
    probes = fmin(probes, agent_recording_expire(a, now)); /* timed proc_record_start */
    struct eval ctx = {.a = a, .len = 1};
    if (csr_timers_run(a->registry, now, on_report, &ctx) > 0)
        compact_owners(a);
    double due;
    return fmin(probes, csr_next_timer(a->registry, &due) ? due : INFINITY);
}

void agent_instrumented_event(struct agent *a, const struct agent_task *t, pid_t pid,
                              enum event_kind kind, const char *name, double times,
                              double len_sum)
{
    struct event_occurrence ev = {.kind = kind, .pid = pid, .host = a->host, .app = t->app,
                                  .site = a->site, .name = name, .len = len_sum / times};
    struct eval ctx = {.a = a, .len = ev.len};
    if (times > 1) { /* increments take every occurrence; the event below brings the last one */
        struct csr_pushdown pd[256];
        size_t n = csr_pushdowns(a->registry, pd, 256);
        for (size_t i = 0; i < n && i < 256; i++)
            if (pd[i].event == kind && !strcmp(pd[i].name, name) && csr_scope_matches(pd[i].scope, &ev))
                csr_apply_batch(a->registry, pd[i].csr, times - 1, len_sum - ev.len, 0, on_report,
                                &ctx);
    }
    csr_event(a->registry, &ev, clock_monotonic_seconds(), on_report, &ctx);
    compact_owners(a);
}
