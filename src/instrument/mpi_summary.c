/* Building the summary's `mpi` and `probes` objects (mpi_summary.h). */
#include "instrument/mpi_summary.h"

#include "instrument/mpiio_summary.h"
#include "instrument/perf_summary.h"
#include "tally/segment_switch.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const function_names[TALLY_MPI_FUNCTION_COUNT] = {
#define NAME(fn) "MPI_" #fn,
    TALLY_MPI_FUNCTIONS(NAME)
#undef NAME
};

static json_t *seconds(double s)
{
    return json_pack("[f, s]", round(s * 1e9) / 1e9, "s");
}

static json_t *bytes_pair(uint64_t b)
{
    return json_pack("[I, s]", (json_int_t)b, "B");
}

static double ns_to_s(uint64_t ns)
{
    return (double)ns * 1e-9;
}

/* A monotonic time as [epoch seconds, "s"], to the microsecond. */
static json_t *epoch_seconds(uint64_t ns, double epoch_offset)
{
    return json_pack("[f, s]", round((ns_to_s(ns) + epoch_offset) * 1e6) / 1e6, "s");
}

static void warn(json_t *warnings, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(json_t *warnings, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    json_array_append_new(warnings, json_string(line));
}

/* The measured time of one rank: from t1, the first period's opening, to
 * t2, the last one's closing, in ns, of which span in its periods (one
 * period but for --window request); false when no period opened. */
static bool measured_span(const struct tally_segment *s, uint64_t *t1, uint64_t *t2, uint64_t *span)
{
    const struct tally_seg_window *w = &s->d.window;
    if (w->state == TALLY_WINDOW_WAITING || w->state == TALLY_WINDOW_NONE || !w->periods)
        return false;
    *t1 = w->t_first_on;
    if (w->state == TALLY_WINDOW_CLOSED) /* else the process vanished with a period open: */
        *t2 = w->t_off;                  /* up to its last sign of life */
    else
        *t2 = s->d.marker_t_last > w->t_on ? s->d.marker_t_last : w->t_on;
    *span = tally_seg_recorded_ns(w, *t2);
    return *t2 >= *t1;
}

static json_t *functions_json(const struct segment_set *set)
{
    json_t *o = json_object();
    for (int f = 0; f < TALLY_MPI_FUNCTION_COUNT; f++) {
        uint64_t calls = 0, ns = 0, bytes = 0;
        for (size_t i = 0; i < set->count; i++) {
            const struct tally_seg_function *fn = &set->items[i]->d.functions[f];
            calls += fn->calls;
            ns += fn->ns;
            bytes += fn->bytes;
        }
        if (calls)
            json_object_set_new(o, function_names[f],
                                json_pack("{s:I, s:o, s:o}", "calls", (json_int_t)calls, "time",
                                          seconds(ns_to_s(ns)), "bytes", bytes_pair(bytes)));
    }
    return o;
}

static json_t *links_json(const struct segment_set *set)
{
    json_t *a = json_array();
    for (size_t i = 0; i < set->count; i++) {
        const struct tally_segment *s = set->items[i];
        for (int to = 0; to < TALLY_SEG_MAX_RANKS; to++)
            if (s->d.links[to].messages)
                json_array_append_new(a, json_pack("{s:i, s:i, s:I, s:I}", "from", s->d.rank, "to", to,
                                                   "bytes", (json_int_t)s->d.links[to].bytes,
                                                   "messages", (json_int_t)s->d.links[to].messages));
    }
    return a;
}

static uint64_t iterations_of(const struct tally_segment *s)
{
    const struct tally_seg_window *w = &s->d.window;
    uint64_t its = w->hits_in;
    if (w->state == TALLY_WINDOW_OPEN && s->d.marker_hits > w->hits_on)
        its += s->d.marker_hits - w->hits_on;
    uint64_t both = TALLY_WINDOW_OPENED_AT_HIT | TALLY_WINDOW_CLOSED_AT_END;
    return its + ((w->how & both) == both ? 1 : 0);
}

json_t *mpi_summary_json(const struct segment_set *set, const struct window_spec *spec, double epoch_offset)
{
    struct segment_set ranks = {0};
    struct tally_segment *items[TALLY_SEG_MAX_RANKS];
    for (size_t i = 0; i < set->count && ranks.count < TALLY_SEG_MAX_RANKS; i++)
        if (set->items[i]->d.flags & TALLY_SEG_MPI)
            items[ranks.count++] = set->items[i];
    ranks.items = items;
    if (!ranks.count)
        return NULL;
    json_t *warnings = json_array();
    int size = items[0]->d.ranks;
    if ((int)ranks.count != size && !spec->rank_per_run)
        warn(warnings, "%zu of %d ranks registered", ranks.count, size);
    json_t *per_rank = json_array();
    double sum_comm = 0, sum_span = 0, sum_tpi = 0;
    size_t measured = 0, tpi_ranks = 0;
    uint64_t min_iterations = UINT64_MAX, max_iterations = 0;
    uint64_t first_on = UINT64_MAX, last_off = 0; /* the window on any rank */
    uint64_t last_init = 0, first_finalize = UINT64_MAX; /* every rank between MPI_Init and MPI_Finalize */
    for (size_t i = 0; i < ranks.count; i++) {
        const struct tally_segment *s = items[i];
        uint64_t t1, t2, span_ns;
        json_t *r = json_pack("{s:i, s:s, s:i}", "rank", s->d.rank, "host", s->d.host, "pid", s->d.pid);
        if (s->d.t_init_end > last_init)
            last_init = s->d.t_init_end;
        if (s->d.t_finalize && s->d.t_finalize < first_finalize)
            first_finalize = s->d.t_finalize;
        if (s->d.flags & TALLY_SEG_ABORTED)
            warn(warnings, "rank %d called MPI_Abort", s->d.rank);
        else if (!(s->d.flags & TALLY_SEG_FINISHED) && !s->d.t_finalize)
            warn(warnings, "rank %d (pid %d) ended without MPI_Finalize or exit (killed?)", s->d.rank, s->d.pid);
        if (!measured_span(s, &t1, &t2, &span_ns)) {
            if (spec->by_request)
                warn(warnings, "recording was never switched on for rank %d (no proc_record_start, "
                               "no csr on its events)", s->d.rank);
            else
                warn(warnings, "the window never opened on rank %d (%llu marker hits%s)", s->d.rank,
                     (unsigned long long)s->d.marker_hits,
                     spec->set && spec->start >= 0 ? ", fewer than start + 1" : "");
            json_object_set_new(r, "window", json_string("never opened"));
            json_array_append_new(per_rank, r);
            continue;
        }
        double span = ns_to_s(span_ns), comm = ns_to_s(s->d.comm_ns);
        json_object_set_new(r, "comm_time", seconds(comm));
        json_object_set_new(r, "wait_time", seconds(ns_to_s(s->d.wait_ns)));
        json_object_set_new(r, "compute_time", seconds(span > comm ? span - comm : 0));
        json_object_set_new(r, "span", seconds(span));
        if (spec->by_request)
            json_object_set_new(r, "periods", json_integer((json_int_t)s->d.window.periods));
        json_t *counters = perf_rank_json(&s->d.perf);
        if (counters)
            json_object_set_new(r, "counters", counters);
        uint64_t its = iterations_of(s);
        json_object_set_new(r, "iterations", json_integer((json_int_t)its));
        if (its) {
            json_object_set_new(r, "time_per_iteration", seconds(span / (double)its));
            sum_tpi += span / (double)its;
            tpi_ranks++;
        }
        if (spec->set && s->d.window.state != TALLY_WINDOW_CLOSED)
            warn(warnings, "rank %d ended during the window", s->d.rank);
        else if (spec->set && spec->iterations > 0 && its < (uint64_t)spec->iterations)
            warn(warnings, "rank %d measured %llu of %lld iterations (the program ended first)", s->d.rank,
                 (unsigned long long)its, spec->iterations);
        if (its < min_iterations)
            min_iterations = its;
        if (its > max_iterations)
            max_iterations = its;
        if (t1 < first_on)
            first_on = t1;
        if (t2 > last_off)
            last_off = t2;
        json_array_append_new(per_rank, r);
        sum_comm += comm;
        sum_span += span;
        measured++;
    }
    json_t *o = json_object();
    json_object_set_new(o, "ranks", json_integer(size));
    json_object_set_new(o, "library", json_string(items[0]->d.library));
    json_object_set_new(o, "functions", functions_json(&ranks));
    json_t *mpiio = mpiio_summary_json(&ranks);
    if (mpiio)
        json_object_set_new(o, "mpiio", mpiio);
    json_object_set_new(o, "links", links_json(&ranks));
    json_object_set_new(o, "per_rank", per_rank);
    /* when all ranks were past MPI_Init and none yet in MPI_Finalize, on the
     * summary's clock: the program's own run, without its launch */
    if (last_init)
        json_object_set_new(o, "started", epoch_seconds(last_init, epoch_offset));
    if (first_finalize != UINT64_MAX)
        json_object_set_new(o, "finalizing", epoch_seconds(first_finalize, epoch_offset));
    bool ratio = measured && sum_span > sum_comm;
    json_object_set_new(o, "comm_ratio", ratio ? json_real(sum_comm / (sum_span - sum_comm)) : json_null());
    json_object_set_new(o, "comm_fraction", measured && sum_span > 0 ? json_real(sum_comm / sum_span) : json_null());
    json_t *w = json_object();
    json_object_set_new(w, "kind", json_string(!spec->set          ? "whole run"
                                               : spec->by_request ? "request"
                                               : spec->marker     ? "uprobe marker"
                                                                  : "marker"));
    if (spec->set && !spec->by_request) {
        json_object_set_new(w, "start", json_integer(spec->start));
        json_object_set_new(w, "iterations", json_integer(spec->iterations));
        if (spec->time_limit > 0)
            json_object_set_new(w, "time_limit", seconds(spec->time_limit));
        if (spec->call_limit > 0)
            json_object_set_new(w, "call_limit", json_integer(spec->call_limit));
        if (spec->marker)
            json_object_set_new(w, "marker", json_string(spec->marker));
    }
    json_object_set_new(w, "ranks_measured", json_integer((json_int_t)measured));
    if (measured) {
        json_object_set_new(w, "measured_iterations", json_integer((json_int_t)min_iterations));
        if (max_iterations != min_iterations)
            json_object_set_new(w, "measured_iterations_max", json_integer((json_int_t)max_iterations));
        json_object_set_new(w, "mean_span", seconds(sum_span / (double)measured));
        /* when, on the summary's clock (start, end), so that it can be
         * placed against another job's run (tally mpi predict) */
        json_object_set_new(w, "opened", epoch_seconds(first_on, epoch_offset));
        json_object_set_new(w, "closed", epoch_seconds(last_off, epoch_offset));
    }
    if (tpi_ranks) /* the progress rate */
        json_object_set_new(w, "time_per_iteration", seconds(sum_tpi / (double)tpi_ranks));
    json_object_set_new(o, "window", w);
    json_t *counters = perf_summary_json(&ranks);
    if (counters)
        json_object_set_new(o, "counters", counters);
    if (json_array_size(warnings))
        json_object_set_new(o, "warnings", warnings);
    else
        json_decref(warnings);
    return o;
}

json_t *probes_summary_json(const struct segment_set *set)
{
    json_t *a = json_array();
    struct tally_segment **probing = calloc(set->count + 1, sizeof *probing);
    size_t probing_count = 0;
    if (!probing)
        return NULL;
    for (size_t i = 0; i < set->count; i++) {
        const struct tally_segment *s = set->items[i];
        if (!s->d.probe_count && !s->d.counter_count && !s->d.marker_hits)
            continue;
        json_t *p = json_pack("{s:i, s:i, s:s}", "pid", s->d.pid, "rank", s->d.rank, "exe", s->d.exe);
        json_t *marker = json_pack("{s:I}", "hits", (json_int_t)s->d.marker_hits);
        if (s->d.marker_hits > 1)
            json_object_set_new(marker, "time_per_iteration",
                                seconds(ns_to_s(s->d.marker_t_last - s->d.marker_t_first) /
                                        (double)(s->d.marker_hits - 1)));
        json_object_set_new(p, "marker", marker);
        json_t *probes = json_object();
        for (uint32_t k = 0; k < s->d.probe_count; k++) {
            const struct tally_seg_probe *pr = &s->d.probes[k];
            json_t *e = json_pack("{s:I}", "hits", (json_int_t)pr->hits);
            if (pr->hits)
                json_object_set_new(e, "first_to_last", seconds(ns_to_s(pr->t_last - pr->t_first)));
            json_object_set_new(probes, pr->name, e);
        }
        json_object_set_new(p, "probes", probes);
        json_t *counters = json_object();
        for (uint32_t k = 0; k < s->d.counter_count; k++)
            json_object_set_new(counters, s->d.counters[k].name, json_integer(s->d.counters[k].value));
        json_object_set_new(p, "counters", counters);
        json_t *perf = perf_rank_json(&s->d.perf);
        if (perf)
            json_object_set_new(p, "perf_counters", perf);
        json_array_append_new(a, p);
        probing[probing_count++] = set->items[i];
    }
    struct segment_set probing_set = {probing, probing_count};
    json_t *perf = perf_summary_json(&probing_set);
    free(probing);
    if (!json_array_size(a)) {
        json_decref(a);
        json_decref(perf);
        return NULL;
    }
    json_t *o = json_pack("{s:o}", "processes", a);
    if (perf)
        json_object_set_new(o, "perf_counters", perf);
    return o;
}
