/* 'tally run --agent [ADDR] --app NAME': the task's whole tree registered
 * with the user's agent as a task of application NAME (the agent is started
 * when none runs), its samples streamed there, its summary handed over at
 * the end, and limits set live by the agent's proc_set_limits applied to
 * the running task. At level 1 (without --time-series, limits or --files)
 * the agent samples the task's tree itself with its one machine-wide scan
 * and tally run only waits (no timer, no /proc reading) until the task
 * ends, then merges the agent's peaks with the kernel's exact totals. tally run still writes its own reports; if the agent
 * dies the task goes on and nothing else changes. Kept apart from run.c,
 * which calls the hooks below (as run_archive.h). */
#ifndef TALLY_CLI_RUN_AGENT_H
#define TALLY_CLI_RUN_AGENT_H

#include <stdbool.h>

#include "client/agent_link.h"
#include "monitor/task_types.h"

enum { OPT_AGENT = 0x1100, OPT_APP };

#define RUN_AGENT_LONG_OPTIONS                      \
    {"agent", optional_argument, 0, OPT_AGENT},     \
    {"app", required_argument, 0, OPT_APP}

#define RUN_AGENT_USAGE                                                                    \
    "      --agent [SOCKET]    register the task with the user's agent (tally-agent(1)),\n" \
    "                          starting one if none runs; SOCKET as a separate word\n"      \
    "                          only when the command follows --; the reports are\n"        \
    "                          still written (-o, else tally-<pid>.* in the current\n"     \
    "                          directory) and the agent archives the summary\n"           \
    "      --app NAME          the application the task belongs to (with --agent)\n"

struct run_agent_options {
    bool enabled;
    const char *socket;        /* NULL: the default socket */
    const char *app;
    struct agent_link link;
    bool linked;
    void (*inner_sample)(void *ctx, const struct task_sample *sample);
    void *inner_ctx;
    json_t *pending_processes;  /* [[pid, 1|0], ...] since the last sample */
    bool followed;              /* this attempt's tree is followed (and guarded) by the agent */
};

/* 0 when c was one of the options above, -1 otherwise. */
int run_agent_option(int c, const char *arg, struct run_agent_options *o);

struct run_config;
/* Before the run: validates, connects (starting the agent) and registers.
 * An agent that cannot be reached is reported on one line and the task
 * runs without it. Returns -1 only for a bad combination of options. */
int run_agent_prepare(struct run_config *cfg);
/* Before each attempt: puts the agent's sample hook in front of the one
 * already set (the series writer). */
void run_agent_hook_samples(struct run_config *cfg);
/* Level 1 (the agent samples the tree, tally run only waits): after the
 * task, the agent's peaks merged into the kernel's exact totals. */
void run_agent_take_followed(struct run_config *cfg, struct task_result *result);
/* After an attempt: hands the summary over (the one written to
 * PREFIX.summary; NULL when there is none). */
void run_agent_after_attempt(struct run_config *cfg, const struct task_result *result,
                             json_t *summary);
void run_agent_close(struct run_config *cfg);
/* --probes/--mpi: tells the agent where the task's processes' segments are,
 * so that it can evaluate probe and MPI events (agent/agent_probes.c);
 * --level 3: where their I/O regions are (agent/agent_file_io.c). */
void run_agent_announce_segments(struct run_config *cfg);

#endif
