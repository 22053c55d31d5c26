/* 'tally run --agent' (see run_agent.h). */
#include "cli/run_agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#include "cli/run.h"
#include "cli/run_slurm_step.h"
#include "client/agent_socket.h"
#include "report/summary.h"
#include "util/atomic_file.h"
#include "util/clock.h"
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

/* The agent follows the command's tree and ends it if tally run is
 * killed ("guard"): tally run starts no guardian of its own. */
static void on_launched(void *ctx, pid_t pid)
{
    struct run_config *cfg = ctx;
    agent_link_send(&cfg->agent.link,
                    json_pack("{s:s, s:i, s:b}", "op", "follow", "pid", (int)pid, "guard", 1));
}

/* While the agent samples the tree: a message (limits to enforce) or the
 * agent's end. True when tally run must sample the tree itself from now on. */
static bool on_agent_input(void *ctx)
{
    struct run_config *cfg = ctx;
    take_agent_messages(cfg);
    if (cfg->agent.link.broken) {
        tally_error("run: --agent: the agent went away: tally run measures the task itself "
                    "from now on");
        return true;
    }
    return limits_any(&cfg->limits);
}

/* Level 1 with nothing that needs tally's own samples (a series, limits to
 * enforce, the files opened): the agent samples the tree, tally run waits. */
static bool agent_samples(const struct run_config *cfg)
{
    return cfg->task.level == 1 && cfg->task.follow_pid <= 0 && !cfg->time_series &&
           !limits_any(&cfg->limits) && !cfg->files_report;
}

void run_agent_hook_samples(struct run_config *cfg)
{
    struct run_agent_options *o = &cfg->agent;
    if (!o->linked)
        return;
    o->followed = false;
    if (agent_samples(cfg) && !o->link.broken) {
        o->followed = true;
        cfg->task.sampled_elsewhere = true;
        cfg->task.on_launched = on_launched;
        cfg->task.sampler_fd = o->link.fd;
        cfg->task.on_sampler_input = on_agent_input;
        cfg->task.sample_ctx = cfg;
        return;
    }
    /* an earlier attempt (--retry) may have been followed: tally run samples
     * this one itself, and the agent is not asked to follow it */
    cfg->task.sampled_elsewhere = false;
    cfg->task.on_launched = NULL;
    cfg->task.sampler_fd = -1;
    cfg->task.on_sampler_input = NULL;
    o->inner_sample = cfg->task.on_sample;
    o->inner_ctx = cfg->task.sample_ctx;
    cfg->task.on_sample = on_sample;
    cfg->task.on_process = on_process;
    cfg->task.sample_ctx = cfg;
    if (!o->pending_processes)
        o->pending_processes = json_array();
}

/* The agent is gone (killed, crashed, stopped): the summary is kept in the
 * spool beside its socket, which the next agent started there archives. */
static void spool_summary(const struct run_agent_options *o, json_t *summary)
{
    char socket[4096], dir[4200], file[4400];
    const char *why = NULL;
    char *text = json_dumps(summary, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(16));
    if (o->socket)
        snprintf(socket, sizeof socket, "%s", o->socket);
    if ((!o->socket && agent_socket_default_path(socket, sizeof socket) < 0) ||
        agent_socket_spool_dir(socket, dir, sizeof dir) < 0)
        why = "the path is too long";
    else if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        why = strerror(errno);
    else if (!text)
        why = "out of memory";
    snprintf(file, sizeof file, "%s/%lld-%d.summary", dir, (long long)time(NULL), (int)getpid());
    if (!why && atomic_write_file(file, text, strlen(text)) < 0)
        why = strerror(errno);
    if (why)
        tally_error("run: --agent: the agent is gone, and the summary could not be kept for the "
                    "next one: %s: %s", dir, why);
    else
        tally_error("run: --agent: the agent at %s is gone: the summary waits in %s for the next "
                    "agent started there to archive it",
                    socket, file);
    free(text);
}

/* Fields that are tally run's own (its clock, the machine) or derived. */
static bool merged_field(int f)
{
    return f != FIELD_START && f != FIELD_END && f != FIELD_WALL_TIME && f != FIELD_CORES_AVG &&
           f != FIELD_MACHINE_CPUS && f != FIELD_MACHINE_LOAD;
}

void run_agent_take_followed(struct run_config *cfg, struct task_result *result)
{
    struct run_agent_options *o = &cfg->agent;
    if (!o->linked || !o->followed || o->link.broken) /* gone: said when it went */
        return;
    json_t *summary = NULL;
    if (agent_link_send(&o->link, json_pack("{s:s}", "op", "follow_end")) == 0) {
        double deadline = clock_monotonic_seconds() + 5;
        json_t *msg;
        while (!summary && clock_monotonic_seconds() < deadline &&
               (msg = agent_link_read(&o->link, deadline - clock_monotonic_seconds()))) {
            const char *op = json_string_value(json_object_get(msg, "op"));
            if (op && !strcmp(op, "followed"))
                summary = json_incref(json_object_get(msg, "summary"));
            json_decref(msg);
        }
    }
    if (!json_is_object(summary)) {
        tally_error("run: --agent: the agent gave no samples of the task (peaks are the kernel's "
                    "totals only)");
        json_decref(summary);
        return;
    }
    /* Both are lower bounds of the truth: the kernel's totals are exact for
     * what it counts (CPU, I/O of reaped processes, the largest process's
     * peak), the agent's samples see the sums over processes alive together. */
    json_t *peaks = json_object_get(summary, "peak_times");
    for (int f = 0; f < FIELD_COUNT; f++) {
        const char *name = summary_field_by_id(f)->name;
        double v = json_number_value(json_array_get(json_object_get(summary, name), 0));
        if (!merged_field(f) || !(v > result->value[f]))
            continue;
        result->value[f] = v;
        json_t *at = json_array_get(json_object_get(peaks, name), 0);
        if (json_is_number(at))
            result->peak_time[f] = json_number_value(at);
    }
    double wall = result->value[FIELD_WALL_TIME];
    result->value[FIELD_CORES_AVG] = wall > 0 ? result->value[FIELD_CPU_TIME] / wall : 0;
    json_decref(summary);
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
    if (summary) {
        agent_link_send(&o->link, json_pack("{s:s, s:O}", "op", "finished", "summary", summary));
        if (o->link.broken)
            spool_summary(o, summary);
    }
}

void run_agent_close(struct run_config *cfg)
{
    json_decref(cfg->agent.pending_processes);
    cfg->agent.pending_processes = NULL;
    if (cfg->agent.linked)
        agent_link_close(&cfg->agent.link);
    cfg->agent.linked = false;
}

/* The MPI world its ranks belong to, for the agent to tell tools (a
 * switch's ranks_here): the launch id; under Slurm, where each task is a
 * run of its own, the job step's. "" when there is none. */
static void world_of_run(const struct run_config *cfg, char *out, size_t size)
{
    if (!cfg->instrument.window.rank_per_run || run_slurm_step_world(out, size) < 0)
        snprintf(out, size, "%s", cfg->instrument.launch);
}

void run_agent_announce_segments(struct run_config *cfg)
{
    if (!cfg->agent.linked || (!cfg->instrument.dir[0] && !cfg->io.dir[0]))
        return;
    char world[96];
    world_of_run(cfg, world, sizeof world);
    json_t *msg = json_pack("{s:s}", "op", "segments");
    if (cfg->instrument.dir[0])
        json_object_set_new(msg, "dir", json_string(cfg->instrument.dir));
    if (cfg->io.dir[0]) /* level 3: proc_get_info's 0x200 and /metrics' I/O */
        json_object_set_new(msg, "io_dir", json_string(cfg->io.dir));
    if (world[0])
        json_object_set_new(msg, "world", json_string(world));
    agent_link_send(&cfg->agent.link, msg);
}
