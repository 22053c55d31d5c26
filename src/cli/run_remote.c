/* tally run across hosts (run_remote.h). */
#include "cli/run_remote.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cli/run.h"
#include "client/launch_gather.h"
#include "platform/platform.h"
#include "util/clock.h"
#include "util/error.h"

/* The variables a remote rank needs (those that are set). */
static const char *const forwarded[] = {
    "LD_PRELOAD", "TALLY_PROBE_DIR", "TALLY_LAUNCH", "TALLY_LAUNCH_HOST", "TALLY_EXE", "TALLY_APP",
    "TALLY_WINDOW_START", "TALLY_WINDOW_ITERATIONS", "TALLY_WINDOW_TIME_NS", "TALLY_WINDOW_CALLS",
    "TALLY_WINDOW_BY_MONITOR",
};

/* Open MPI: OMPI_MCA_mca_base_env_list gets the names (';'-separated). */
static int forward_openmpi(void)
{
    const char *old = getenv("OMPI_MCA_mca_base_env_list");
    char list[4096];
    int n = snprintf(list, sizeof list, "%s", old && *old ? old : "");
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) {
        if (!getenv(forwarded[i]))
            continue;
        n += snprintf(list + n, sizeof list - (size_t)n, "%s%s", n ? ";" : "", forwarded[i]);
        if ((size_t)n >= sizeof list) {
            tally_error("--mpi: OMPI_MCA_mca_base_env_list is too long");
            return -1;
        }
    }
    return setenv("OMPI_MCA_mca_base_env_list", list, 1);
}

int run_remote_prepare(struct run_config *cfg, enum mpi_flavour flavour)
{
    struct run_instrument_options *o = &cfg->instrument;
    unsigned char bytes[8];
    if (getrandom(bytes, sizeof bytes, 0) != sizeof bytes) {
        tally_error_errno("instrumentation: no random launch id");
        return -1;
    }
    snprintf(o->launch, sizeof o->launch, "%02x%02x%02x%02x%02x%02x%02x%02x", bytes[0], bytes[1], bytes[2],
             bytes[3], bytes[4], bytes[5], bytes[6], bytes[7]);
    char host[256] = "", exe[PATH_MAX];
    gethostname(host, sizeof host - 1);
    bool have_exe = proc_self_exe(exe, sizeof exe) == 0;
    if (setenv("TALLY_LAUNCH", o->launch, 1) < 0 || setenv("TALLY_LAUNCH_HOST", host, 1) < 0 ||
        (have_exe && setenv("TALLY_EXE", exe, 1) < 0))
        return -1;
    if (cfg->agent.app)
        setenv("TALLY_APP", cfg->agent.app, 1);
    else
        unsetenv("TALLY_APP");
    return flavour == MPI_FLAVOUR_OPENMPI ? forward_openmpi() : 0;
}

double run_remote_gather_timeout(void)
{
    const char *text = getenv("TALLY_GATHER_TIMEOUT");
    char *end;
    double t = text ? strtod(text, &end) : 0;
    return text && *text && !*end && t > 0 && t <= 3600 ? t : 5;
}

static int by_rank(const void *a, const void *b)
{
    const struct tally_segment *x = *(struct tally_segment *const *)a, *y = *(struct tally_segment *const *)b;
    return (x->d.rank > y->d.rank) - (x->d.rank < y->d.rank);
}

/* "2, 3, 5-9" */
static void rank_list(const bool *have, int ranks, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int r = 0; r < ranks && n < len; r++) {
        if (have[r])
            continue;
        int last = r;
        while (last + 1 < ranks && !have[last + 1])
            last++;
        n += (size_t)snprintf(out + n, len - n, last > r ? "%s%d-%d" : "%s%d", n ? ", " : "", r, last);
        r = last;
    }
}

/* Every host with ranks, in the order of their first rank (set is sorted
 * by rank): [{"name", "ranks", "clock_offset", and for the other hosts
 * "site" and "uncertainty"}]; the launch host's clock offset is 0. */
static json_t *hosts_json(const struct segment_set *set, const json_t *answered)
{
    json_t *hosts = json_array(), *by_name = json_object();
    char here[256] = "";
    gethostname(here, sizeof here - 1);
    for (size_t i = 0; i < set->count; i++) {
        const struct tally_segment *s = set->items[i];
        if (!(s->d.flags & TALLY_SEG_MPI))
            continue;
        json_t *entry = json_object_get(by_name, s->d.host);
        if (!entry) {
            entry = json_pack("{s:s, s:i}", "name", s->d.host, "ranks", 0);
            size_t k;
            json_t *h;
            json_array_foreach(answered, k, h)
                if (!strcmp(json_string_value(json_object_get(h, "name")) ?: "", s->d.host)) {
                    json_object_set(entry, "site", json_object_get(h, "site"));
                    json_object_set(entry, "clock_offset", json_object_get(h, "clock_offset"));
                    json_object_set(entry, "uncertainty", json_object_get(h, "uncertainty"));
                }
            if (!strcmp(s->d.host, here))
                json_object_set_new(entry, "clock_offset", json_pack("[f, s]", 0.0, "s"));
            json_array_append_new(hosts, entry);
            json_object_set(by_name, s->d.host, entry);
        }
        json_object_set_new(entry, "ranks", json_integer(json_integer_value(json_object_get(entry, "ranks")) + 1));
    }
    json_decref(by_name);
    return hosts;
}

json_t *run_remote_gather(struct run_config *cfg, struct segment_set *set)
{
    struct run_instrument_options *o = &cfg->instrument;
    /* A rank per run (Slurm started the ranks): each under a launch of its
     * own, so no other rank can come under this one; none is waited for
     * (the step's gatherer gathers them apart: run_slurm_step.c). */
    if (!o->launch[0] || o->window.rank_per_run)
        return NULL;
    struct launch_gather_options go = {.timeout = run_remote_gather_timeout()};
    return run_remote_gather_launch(o->launch, &go, set);
}

json_t *run_remote_gather_launch(const char *launch, const struct launch_gather_options *go,
                                 struct segment_set *set)
{
    int ranks = 0;
    bool *have = calloc(TALLY_SEG_MAX_RANKS, sizeof *have);
    if (!have)
        return NULL;
    for (size_t i = 0; i < set->count; i++) {
        const struct tally_segment *s = set->items[i];
        if (!(s->d.flags & TALLY_SEG_MPI) || s->d.rank < 0 || s->d.rank >= TALLY_SEG_MAX_RANKS)
            continue;
        have[s->d.rank] = true;
        if (s->d.ranks > ranks && s->d.ranks <= TALLY_SEG_MAX_RANKS)
            ranks = s->d.ranks;
    }
    int held = 0;
    for (int r = 0; r < ranks; r++)
        held += have[r];
    if (ranks > 0 && held == ranks) {
        free(have);
        return NULL; /* every rank ran here */
    }
    double timeout = go->timeout;
    struct launch_gather g;
    double started = clock_monotonic_seconds();
    launch_gather_run(launch, have, ranks, go, &g);
    double took = clock_monotonic_seconds() - started;
    if (g.count) {
        struct tally_segment **grown = realloc(set->items, (set->count + g.count) * sizeof *grown);
        if (grown) {
            set->items = grown;
            for (size_t i = 0; i < g.count; i++) {
                set->items[set->count++] = g.items[i];
                have[g.items[i]->d.rank] = true;
                if (g.items[i]->d.ranks > ranks && g.items[i]->d.ranks <= TALLY_SEG_MAX_RANKS)
                    ranks = g.items[i]->d.ranks;
            }
            g.count = 0; /* the set owns them now */
            qsort(set->items, set->count, sizeof *set->items, by_rank);
        }
    }
    json_t *out = json_pack("{s:o, s:[f, s]}", "hosts", hosts_json(set, g.hosts), "gather_time",
                            round(took * 1e6) / 1e6, "s");
    json_t *missing = json_array();
    for (int r = 0; r < ranks; r++)
        if (!have[r])
            json_array_append_new(missing, json_integer(r));
    if (json_array_size(missing)) {
        char list[512], line[2048];
        rank_list(have, ranks, list, sizeof list);
        snprintf(line, sizeof line,
                 "rank%s %s of %d missing: no agent gave %s within %.3g s (%s)",
                 json_array_size(missing) > 1 ? "s" : "", list, ranks,
                 json_array_size(missing) > 1 ? "them" : "it", timeout,
                 g.problems[0] ? g.problems
                               : "their host's agent was stopped or unreachable, or they were not instrumented");
        json_object_set_new(out, "warning", json_string(line));
    } else if (ranks == 0 && g.problems[0]) {
        char line[1200];
        snprintf(line, sizeof line, "no rank here, and none gathered from other hosts: %s", g.problems);
        json_object_set_new(out, "warning", json_string(line));
    }
    json_object_set_new(out, "missing_ranks", missing);
    launch_gather_free(&g);
    free(have);
    return out;
}

json_t *run_remote_mpi_summary(const struct segment_set *set, const struct window_spec *w, json_t *remote)
{
    json_t *mpi = mpi_summary_json(set, w, clock_epoch_seconds() - clock_monotonic_seconds());
    if (mpi && remote) { /* the hosts that answered, and what is missing, first among the warnings */
        json_object_set(mpi, "hosts", json_object_get(remote, "hosts"));
        json_object_set(mpi, "missing_ranks", json_object_get(remote, "missing_ranks"));
        json_object_set(mpi, "gather_time", json_object_get(remote, "gather_time"));
        const char *warning = json_string_value(json_object_get(remote, "warning"));
        if (warning) {
            if (!json_object_get(mpi, "warnings"))
                json_object_set_new(mpi, "warnings", json_array());
            json_array_insert_new(json_object_get(mpi, "warnings"), 0, json_string(warning));
        }
    } else if (!mpi && remote && json_object_get(remote, "warning"))
        tally_error("mpi: %s", json_string_value(json_object_get(remote, "warning")));
    json_decref(remote);
    return mpi;
}
