/* One MPI summary for a whole Slurm step (run_slurm_step.h). */
#include "cli/run_slurm_step.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"
#include "cli/run_remote.h"
#include "client/agent_link.h"
#include "instrument/link_series.h"
#include "report/summary.h"
#include "util/clock.h"
#include "util/error.h"

#define STEP_POLL 0.1     /* seconds between rounds of asking the agents */
#define KEEP_ANSWER 2.0   /* seconds the agent has to take a handed-over rank */

int run_slurm_step_world(char *out, size_t size)
{
    const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
    out[0] = '\0';
    if (!job || !*job || !step || !*step)
        return -1;
    return (size_t)snprintf(out, size, "slurm-%s-%s", job, step) < size ? 0 : (out[0] = '\0', -1);
}

static int first_rank(const struct segment_set *set)
{
    for (size_t i = 0; i < set->count; i++)
        if (set->items[i]->d.flags & TALLY_SEG_MPI)
            return set->items[i]->d.rank;
    return -1;
}

/* The agent's answer to launch_keep: 0, or -1 with why. */
static int kept(struct agent_link *link, char *why, size_t size)
{
    double end = clock_monotonic_seconds() + KEEP_ANSWER;
    snprintf(why, size, "the agent did not answer within %.0f s", KEEP_ANSWER);
    json_t *m;
    while (clock_monotonic_seconds() < end && (m = agent_link_read(link, end - clock_monotonic_seconds()))) {
        const char *op = json_string_value(json_object_get(m, "op"));
        const char *error = json_string_value(json_object_get(m, "error"));
        int done = op && !strcmp(op, "launch_kept") ? 0 : error ? -1 : 1;
        if (error)
            snprintf(why, size, "%s", error);
        json_decref(m);
        if (done <= 0)
            return done;
    }
    return -1;
}

/* A rank's run that is not the gatherer: its MPI segments go to a fresh
 * directory that the agent keeps under the step's label. */
static void hand_over(struct run_config *cfg, const struct segment_set *set, const char *world)
{
    int rank = first_rank(set);
    if (rank < 0)
        return; /* not instrumented: the gatherer names it missing */
    if (!cfg->agent.linked || cfg->agent.link.broken) {
        tally_error("slurm: rank %d: no agent to hand its MPI figures to; the step's MPI summary will "
                    "name it missing", rank);
        return;
    }
    char dir[PATH_MAX], from[PATH_MAX + 32], to[PATH_MAX + 32], why[320];
    if (segment_dir_create(dir, sizeof dir) < 0)
        return;
    size_t moved = 0;
    for (size_t i = 0; i < set->count; i++) {
        const struct tally_seg_data *d = &set->items[i]->d;
        if (!(d->flags & TALLY_SEG_MPI))
            continue;
        snprintf(from, sizeof from, "%s/%d.seg", cfg->instrument.dir, (int)d->pid);
        snprintf(to, sizeof to, "%s/%d.seg", dir, (int)d->pid);
        if (rename(from, to) == 0)
            moved++;
        else
            tally_error_errno("slurm: rank %d: %s", d->rank, from);
    }
    if (!moved) {
        segment_dir_remove(dir);
        return;
    }
    if (agent_link_send(&cfg->agent.link, json_pack("{s:s, s:s, s:s}", "op", "launch_keep", "launch", world,
                                                    "segments", dir)) < 0) {
        snprintf(why, sizeof why, "the agent went away");
    } else if (kept(&cfg->agent.link, why, sizeof why) == 0) {
        return;
    }
    tally_error("slurm: rank %d: cannot hand its MPI figures to the agent: %s; the step's MPI summary "
                "will name it missing", rank, why);
    segment_dir_remove(dir);
}

/* Copies of set's MPI segments (the task's own summary keeps set). */
static int copy_ranks(const struct segment_set *set, struct segment_set *out)
{
    out->count = 0;
    out->items = calloc(set->count + 1, sizeof *out->items);
    if (!out->items)
        return -1;
    for (size_t i = 0; i < set->count; i++) {
        if (!(set->items[i]->d.flags & TALLY_SEG_MPI))
            continue;
        struct tally_segment *s = malloc(sizeof *s);
        if (!s)
            return -1;
        *s = *set->items[i];
        out->items[out->count++] = s;
    }
    return 0;
}

/* PREFIX.mpi.paje: every rank's links over its lifetime, from the step's
 * first registration; returns that origin (epoch seconds), or NAN. */
static double write_paje(const struct segment_set *ranks, const char *prefix)
{
    uint64_t first = UINT64_MAX;
    for (size_t i = 0; i < ranks->count; i++)
        if (ranks->items[i]->d.t_register && ranks->items[i]->d.t_register < first)
            first = ranks->items[i]->d.t_register;
    struct link_series *series = link_series_new();
    if (!series)
        return NAN;
    double now = clock_monotonic_seconds();
    link_series_begin(series, first == UINT64_MAX ? now : (double)first / 1e9);
    link_series_gathered_set(series, ranks, now);
    char path[PATH_MAX + 16], why[256];
    snprintf(path, sizeof path, "%s.mpi.paje", prefix);
    double origin = link_series_origin(series) + clock_epoch_seconds() - clock_monotonic_seconds();
    if (link_series_write_paje(series, path, why, sizeof why) < 0) {
        tally_error("%s: %s", path, why);
        origin = NAN;
    }
    link_series_free(series);
    return origin;
}

/* The step's summary: the plugin's "slurm" annotation (less the task, with
 * the gatherer's node), the job's "requested", and the gathered "mpi". */
static json_t *step_summary(const struct run_config *cfg, json_t *mpi)
{
    json_t *o = json_object();
    json_t *slurm = json_deep_copy(json_object_get(cfg->annotate, "slurm"));
    if (json_is_object(slurm)) {
        json_object_del(slurm, "task");
        json_t *node = json_object_get(slurm, "node");
        if (node)
            json_object_set(slurm, "gatherer", node);
        json_object_del(slurm, "node");
        json_object_set_new(o, "slurm", slurm);
    } else
        json_decref(slurm);
    json_t *requested = json_object_get(cfg->annotate, "requested");
    if (requested)
        json_object_set(o, "requested", requested);
    json_object_set_new(o, "mpi", mpi);
    return o;
}

/* Task 0's run: gathers every rank of the step and writes its summary. */
static void gather(struct run_config *cfg, const struct segment_set *set, const char *world)
{
    const char *prefix = getenv("TALLY_SLURM_STEP_PREFIX");
    if (!prefix || !*prefix)
        return; /* not asked for (a plugin that does not name the file) */
    struct segment_set ranks = {0};
    if (copy_ranks(set, &ranks) < 0) {
        segment_set_free(&ranks);
        tally_error("slurm: %s: out of memory; no MPI summary of the step", world);
        return;
    }
    /* a step on one node: every rank's figures are with this node's agent */
    const char *nodes = getenv("SLURM_STEP_NUM_NODES");
    struct launch_gather_options go = {.timeout = run_remote_gather_timeout(), .poll = STEP_POLL,
                                       .here_only = nodes && !strcmp(nodes, "1")};
    json_t *remote = run_remote_gather_launch(world, &go, &ranks);
    struct window_spec w = cfg->instrument.window;
    w.rank_per_run = false; /* every rank of the step is expected here */
    json_t *mpi = run_remote_mpi_summary(&ranks, &w, remote);
    if (!mpi) {
        tally_error("slurm: %s: no rank's MPI figures could be gathered; no MPI summary of the step", world);
        segment_set_free(&ranks);
        return;
    }
    size_t missing = json_array_size(json_object_get(mpi, "missing_ranks"));
    if (missing)
        tally_error("slurm: %s: %s", world, json_string_value(json_array_get(json_object_get(mpi, "warnings"), 0)));
    double origin = write_paje(&ranks, prefix);
    if (isfinite(origin))
        json_object_set_new(mpi, "link_series_origin", json_real(origin));
    json_t *summary = step_summary(cfg, mpi);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s.mpi.summary", prefix);
    summary_write_object(path, summary, true);
    json_decref(summary);
    segment_set_free(&ranks);
}

void run_slurm_step_collect(struct run_config *cfg, const struct segment_set *set)
{
    struct run_instrument_options *o = &cfg->instrument;
    char world[96];
    if (!o->mpi || !o->window.rank_per_run || run_slurm_step_world(world, sizeof world) < 0)
        return;
    const char *procid = getenv("SLURM_PROCID");
    if (procid && !strcmp(procid, "0"))
        gather(cfg, set, world);
    else
        hand_over(cfg, set, world);
}
