/* The instrumentation hooks of 'tally run' (run_instrument.h): options, the
 * environment that makes every process register its segment, the
 * monitoring thread (uprobe markers), and the summary's mpi/probes objects.
 * Problems that do not stop the run (an unknown marker symbol, no uprobe
 * privilege, a window that never opened) are one line each; the summary is
 * still written. */
#include "cli/run_instrument.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/run.h"
#include "cli/run_remote.h"
#include "cli/run_slurm_step.h"
#include "instrument/launch.h"
#include "instrument/link_series.h"
#include "instrument/mpiio_summary.h"
#include "instrument/perf_summary.h"
#include "instrument/segments.h"
#include "instrument/session.h"
#include "instrument/window_spec.h"
#include "util/clock.h"
#include "util/error.h"

int run_instrument_option(int c, const char *arg, struct run_instrument_options *o)
{
    switch (c) {
    case OPT_MPI:
        o->mpi = true;
        return 0;
    case OPT_PROBES:
        o->probes = true;
        return 0;
    case OPT_WINDOW: {
        char why[256];
        if (window_spec_parse(arg, &o->window, why, sizeof why) < 0) {
            tally_error("--window: %s", why);
            return -1;
        }
        return 0;
    }
    case OPT_MARKER:
        if (!*arg) {
            tally_error("--marker: empty symbol name");
            return -1;
        }
        o->window.marker = arg;
        return 0;
    default:
        return 1;
    }
}

static int set_env_number(const char *name, long long v)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", v);
    return setenv(name, text, 1);
}

/* LD_PRELOAD = the libtally-mpi for the command's MPI, before what was there. */
static int preload_mpi_library(struct run_config *cfg, enum mpi_flavour *flavour)
{
    enum mpi_flavour f = MPI_FLAVOUR_UNKNOWN;
    const char *forced = getenv("TALLY_MPI");
    if (forced && *forced) {
        f = !strcmp(forced, "openmpi") ? MPI_FLAVOUR_OPENMPI : !strcmp(forced, "mpich") ? MPI_FLAVOUR_MPICH
                                                                                      : MPI_FLAVOUR_UNKNOWN;
        if (f == MPI_FLAVOUR_UNKNOWN) {
            tally_error("TALLY_MPI: '%s' is not openmpi or mpich", forced);
            return -1;
        }
    } else if (cfg->task.argv)
        f = mpi_flavour_of_command(cfg->task.argv);
    if (f == MPI_FLAVOUR_UNKNOWN) {
        tally_error("--mpi: cannot tell whether '%s' runs Open MPI or MPICH (name the launcher, "
                    "e.g. mpirun.openmpi, or set TALLY_MPI=openmpi|mpich)", cfg->command_text);
        return -1;
    }
    *flavour = f;
    char name[64], path[PATH_MAX];
    snprintf(name, sizeof name, "libtally-mpi-%s.so", mpi_flavour_name(f));
    if (instrument_library_path(name, path, sizeof path) < 0) {
        tally_error("--mpi: %s not found beside tally (set TALLY_LIBDIR)", name);
        return -1;
    }
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(path) + (old ? strlen(old) : 0) + 2;
    char *value = malloc(len);
    if (!value)
        return -1;
    snprintf(value, len, "%s%s%s", path, old && *old ? ":" : "", old ? old : "");
    int rc = setenv("LD_PRELOAD", value, 1);
    free(value);
    return rc;
}

int run_instrument_prepare(struct run_config *cfg)
{
    struct run_instrument_options *o = &cfg->instrument;
    if (!o->mpi && !o->probes && !o->window.set && !o->window.marker)
        return 0;
    if (o->window.marker && !o->window.set) { /* a marker alone: from its first hit to the end */
        o->window.set = true;
        o->window.start = 0;
    }
    if (!o->mpi)
        o->probes = true;
    if (o->window.by_request && o->window.marker) {
        tally_error("--window request: the agent switches it; --marker %s would too", o->window.marker);
        return -1;
    }
    if (o->window.by_request && !cfg->agent.enabled) {
        tally_error("--window request: needs --agent (requests reach the processes through the agent)");
        return -1;
    }
    if (cfg->task.follow_pid > 0) {
        tally_error("--mpi, --probes, --window: need a command to start, not --pid");
        return -1;
    }
    if (segment_dir_create(o->dir, sizeof o->dir) < 0)
        return -1;
    cfg->task.segment_dir = o->dir; /* removed by the guardian if tally dies */
    if (setenv("TALLY_PROBE_DIR", o->dir, 1) < 0)
        return -1;
    unsetenv("TALLY_WINDOW_START");
    unsetenv("TALLY_WINDOW_ITERATIONS");
    unsetenv("TALLY_WINDOW_TIME_NS");
    unsetenv("TALLY_WINDOW_CALLS");
    unsetenv("TALLY_WINDOW_BY_MONITOR");
    if (o->window.set) {
        set_env_number("TALLY_WINDOW_START", o->window.start);
        set_env_number("TALLY_WINDOW_ITERATIONS", o->window.iterations);
        if (o->window.time_limit > 0)
            set_env_number("TALLY_WINDOW_TIME_NS", (long long)(o->window.time_limit * 1e9));
        if (o->window.call_limit > 0)
            set_env_number("TALLY_WINDOW_CALLS", o->window.call_limit);
        if (o->window.marker)
            set_env_number("TALLY_WINDOW_BY_MONITOR", TALLY_WINDOW_BY_MONITOR);
        else if (o->window.by_request)
            set_env_number("TALLY_WINDOW_BY_MONITOR", TALLY_WINDOW_BY_REQUEST);
    }
    /* Slurm's plugin (tally-slurm(7)) runs each rank under a tally run of its own */
    const char *slurm = getenv("TALLY_SLURM_MPI");
    o->window.rank_per_run = slurm && !strcmp(slurm, "1");
    enum mpi_flavour flavour = MPI_FLAVOUR_UNKNOWN;
    if (o->mpi && preload_mpi_library(cfg, &flavour) < 0)
        return -1;
    if (run_remote_prepare(cfg, flavour) < 0)
        return -1;
    if (o->mpi && cfg->time_series && !(o->series = link_series_new())) {
        tally_error("run: out of memory");
        return -1;
    }
    if (o->window.marker || o->series) {
        struct session_options so = {.dir = o->dir, .window = &o->window, .argv = cfg->task.argv,
                                     .series = o->series, .series_interval = cfg->task.interval};
        char why[512];
        o->session = instrument_session_start(&so, why, sizeof why);
        if (!o->session && o->window.marker && o->series) { /* keep the series without the marker */
            tally_error("--marker %s: %s; measuring without the marker", o->window.marker, why);
            struct window_spec none = o->window;
            none.marker = NULL;
            so.window = &none;
            o->session = instrument_session_start(&so, why, sizeof why);
        } else if (!o->session && o->window.marker) /* the run goes on: the window will say it never opened */
            tally_error("--marker %s: %s; measuring without the marker", o->window.marker, why);
        if (!o->session && o->series)
            tally_error("--time-series: %s; no link series", why);
    }
    return 0;
}

void run_instrument_collect(struct run_config *cfg)
{
    struct run_instrument_options *o = &cfg->instrument;
    if (!o->dir[0])
        return;
    if (o->session) {
        const char *problem = instrument_session_finish(o->session);
        if (problem)
            tally_error("--marker %s: %s", o->window.marker, problem);
    }
    struct segment_set set;
    if (segment_set_load(o->dir, &set) < 0)
        return;
    json_decref(o->summary_extra);
    o->summary_extra = json_object();
    json_decref(o->mpiio_files);
    o->mpiio_files = o->mpi && cfg->io.dir[0] ? mpiio_files_json(&set) : NULL;
    json_t *remote = o->mpi ? run_remote_gather(cfg, &set) : NULL;
    json_t *mpi = o->mpi ? run_remote_mpi_summary(&set, &o->window, remote) : NULL;
    if (mpi) {
        json_t *warnings = json_object_get(mpi, "warnings");
        for (size_t i = 0; i < json_array_size(warnings); i++)
            tally_error("mpi: %s", json_string_value(json_array_get(warnings, i)));
        char line[512];
        if (perf_summary_note(json_object_get(mpi, "counters"), line, sizeof line))
            tally_error("mpi: %s", line);
        json_object_set_new(o->summary_extra, "mpi", mpi);
    } else if (o->mpi) {
        tally_error("mpi: no rank registered (did the program call MPI_Init? is it an MPI program?)");
        json_object_set_new(o->summary_extra, "mpi", json_null());
    }
    if (mpi && o->series && isfinite(link_series_origin(o->series))) /* PREFIX.mpi.paje's t = 0, dated */
        json_object_set_new(mpi, "link_series_origin",
                            json_real(link_series_origin(o->series) + clock_epoch_seconds() -
                                      clock_monotonic_seconds()));
    if (o->series) {
        link_series_gathered_set(o->series, &set, clock_monotonic_seconds());
        char path[PATH_MAX], why[256];
        snprintf(path, sizeof path, "%s.mpi.paje", cfg->prefix);
        if (link_series_write_paje(o->series, path, why, sizeof why) < 0)
            tally_error("%s: %s", path, why);
        link_series_free(o->series);
        o->series = link_series_new(); /* a --retry attempt starts again */
    }
    json_t *probes = probes_summary_json(&set);
    char note[512];
    if (probes && !mpi && perf_summary_note(json_object_get(probes, "perf_counters"), note, sizeof note))
        tally_error("probes: %s", note); /* an MPI run said it already */
    if (probes)
        json_object_set_new(o->summary_extra, "probes", probes);
    run_slurm_step_collect(cfg, &set); /* a Slurm rank: hand over, or gather the step */
    segment_set_free(&set);
    /* a --retry attempt starts from an empty directory */
    segment_dir_remove(o->dir);
    if (mkdir(o->dir, 0700) < 0)
        tally_error_errno("instrumentation: %s", o->dir);
}

void run_instrument_end(struct run_config *cfg)
{
    struct run_instrument_options *o = &cfg->instrument;
    if (o->session)
        instrument_session_free(o->session);
    o->session = NULL;
    link_series_free(o->series);
    o->series = NULL;
    json_decref(o->mpiio_files);
    o->mpiio_files = NULL;
    if (o->dir[0])
        segment_dir_remove(o->dir);
    o->dir[0] = '\0';
    json_decref(o->summary_extra);
    o->summary_extra = NULL;
}
