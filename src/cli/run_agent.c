/* 'tally run --agent' (see run_agent.h). */
#include "cli/run_agent.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "cli/run.h"
#include "report/summary.h"
#include "util/error.h"

int run_agent_option(int c, const char *arg, struct run_agent_options *o)
{
    switch (c) {
    case OPT_AGENT:
        o->enabled = true;
        o->socket = arg;
        return 0;
    case OPT_APP:
        o->app = arg;
        return 0;
    default:
        return -1;
    }
}

int run_agent_prepare(struct run_config *cfg)
{
    struct run_agent_options *o = &cfg->agent;
    if (o->app && !o->enabled) {
        tally_error("run: --app needs --agent");
        return -1;
    }
    if (!o->enabled)
        return 0;
    if (!o->app || !*o->app) {
        tally_error("run: --agent needs --app NAME (the application the task belongs to)");
        return -1;
    }
    if (cfg->task.follow_pid > 0) {
        tally_error("run: --agent with --pid: use 'tally agent attach PID --app NAME' instead");
        return -1;
    }
    char why[512];
    if (agent_link_open(&o->link, o->socket, true, why, sizeof why) < 0 ||
        agent_link_register(&o->link, o->app, cfg->category, cfg->command_text, why, sizeof why) < 0) {
        tally_error("run: --agent: %s (running without the agent)", why);
        agent_link_close(&o->link);
        return 0;
    }
    /* A stopped agent must not stop the task: writes give up after 1 s. */
    struct timeval tv = {1, 0};
    setsockopt(o->link.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    o->linked = true;
    return 0;
}

/* Limits sent by the agent (proc_set_limits) replace the task's limits. */
static void take_agent_messages(struct run_config *cfg)
{
    json_t *msg;
    while ((msg = agent_link_read(&cfg->agent.link, 0))) {
        const char *op = json_string_value(json_object_get(msg, "op"));
        const char *text = json_string_value(json_object_get(msg, "limits"));
        if (op && !strcmp(op, "set_limits") && text) {
            struct limit_set limits;
            char why[256];
            limits_clear(&limits);
            if (limits_parse(&limits, text, why, sizeof why) == 0) {
                cfg->limits = limits;
                cfg->task.limits = limits_any(&cfg->limits) ? &cfg->limits : NULL;
            }
        }
        json_decref(msg);
    }
}

/* Process events go to the agent in batches, with each sample (and at the
 * end, or when many pile up): one write per interval, not per fork. */
static void send_processes(struct run_agent_options *o)
{
    if (!o->pending_processes || json_array_size(o->pending_processes) == 0)
        return;
    agent_link_send(&o->link, json_pack("{s:s, s:O}", "op", "processes", "events",
                                        o->pending_processes));
    json_array_clear(o->pending_processes);
}

static void on_process(void *ctx, pid_t pid, bool started)
{
    struct run_config *cfg = ctx;
    struct run_agent_options *o = &cfg->agent;
    if (!o->pending_processes || o->link.broken)
        return;
    json_array_append_new(o->pending_processes, json_pack("[i, i]", (int)pid, started ? 1 : 0));
    if (json_array_size(o->pending_processes) >= 4096)
        send_processes(o);
}

static void on_sample(void *ctx, const struct task_sample *sample)
{
    struct run_config *cfg = ctx;
    struct run_agent_options *o = &cfg->agent;
    if (o->inner_sample)
        o->inner_sample(o->inner_ctx, sample);
    send_processes(o);
    agent_link_sample(&o->link, sample);
    take_agent_messages(cfg);
}

void run_agent_hook_samples(struct run_config *cfg)
{
    struct run_agent_options *o = &cfg->agent;
    if (!o->linked)
        return;
    o->inner_sample = cfg->task.on_sample;
    o->inner_ctx = cfg->task.sample_ctx;
    cfg->task.on_sample = on_sample;
    cfg->task.on_process = on_process;
    cfg->task.sample_ctx = cfg;
    if (!o->pending_processes)
        o->pending_processes = json_array();
}

void run_agent_after_attempt(struct run_config *cfg, const struct task_result *result,
                             json_t *summary)
{
    struct run_agent_options *o = &cfg->agent;
    if (!o->linked)
        return;
    send_processes(o);
    json_t *broken = json_array();
    for (int f = 0; f < FIELD_COUNT; f++)
        if (result->limit_exceeded[f])
            json_array_append_new(broken, json_string(summary_field_by_id(f)->name));
    if (json_array_size(broken))
        agent_link_send(&o->link, json_pack("{s:s, s:o}", "op", "limit_exceeded", "fields", broken));
    else
        json_decref(broken);
    if (summary)
        agent_link_send(&o->link, json_pack("{s:s, s:O}", "op", "finished", "summary", summary));
}

void run_agent_close(struct run_config *cfg)
{
    json_decref(cfg->agent.pending_processes);
    cfg->agent.pending_processes = NULL;
    if (cfg->agent.linked)
        agent_link_close(&cfg->agent.link);
    cfg->agent.linked = false;
}

void run_agent_announce_segments(struct run_config *cfg)
{
    if (cfg->agent.linked && cfg->instrument.dir[0])
        agent_link_send(&cfg->agent.link,
                        json_pack("{s:s, s:s}", "op", "segments", "dir", cfg->instrument.dir));
}
