/* proc_get_info's readings of one process, read from /proc at the moment of
 * the request (the process's own truth, not the last sample), in the
 * summary's units ([value, "unit"] pairs, MB = 2^20 bytes), selected by the
 * flag bits of request.h. PROC_INFO_PROBES reads the process's shared-memory
 * segment (libtally-probe, libtally-mpi) instead of /proc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/proc_info.h"
#include "agent/agent_state.h"
#include "agent/agent_recording.h"
#include "agent/agent_segments.h"
#include "agent/agent_file_io.h"
#include "agent/agent_tree.h"
#include "agent/agent_levels.h"
#include "monitor/network.h"
#include "tally/segment.h"
#include "tally/segment_switch.h"
#include "util/clock.h"
#include "core/units.h"

/* name: [value, "unit"], the unit as the summary gives it (fields.c). */
static void put_field(json_t *o, const char *name, double value)
{
    const struct summary_field *f = summary_field_find(name);
    json_object_set_new(o, name, json_pack("[f, s]", value, f ? f->unit : ""));
}

double proc_boot_epoch(void)
{
    return clock_epoch_seconds() - machine_uptime();
}

static double mb(uint64_t bytes)
{
    return (double)bytes / BYTES_PER_MB;
}

static void count_file(void *ctx, const char *path)
{
    (void)path;
    (*(int *)ctx)++;
}

/* What a segment holds now, as a tool reads it: {"rank": R (-1 outside
 * MPI), "counters": {NAME: value...}, "hits": {PROBE: hits...},
 * "mpi": {"messages": N, "bytes": N, "recorded_time", "comm_time",
 * "wait_time", "comm_ratio"}} (mpi: what the rank sent to every rank,
 * collectives by the link rule of docs/instrumentation.md, and its
 * communication share over what it recorded so far; only with libtally-mpi). Values are cumulative since the process started. */
static json_t *segment_json(const struct tally_seg_data *d)
{
    json_t *counters = json_object(), *hits = json_object();
    uint32_t n = __atomic_load_n(&d->counter_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < TALLY_SEG_MAX_COUNTERS; i++) {
        char name[TALLY_SEG_NAME];
        snprintf(name, sizeof name, "%.*s", TALLY_SEG_NAME - 1, d->counters[i].name);
        int64_t v = __atomic_load_n(&d->counters[i].value, __ATOMIC_RELAXED);
        json_object_set_new(counters, name, json_integer((json_int_t)v));
    }
    n = __atomic_load_n(&d->probe_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < TALLY_SEG_MAX_PROBES; i++) {
        char name[TALLY_SEG_NAME];
        snprintf(name, sizeof name, "%.*s", TALLY_SEG_NAME - 1, d->probes[i].name);
        uint64_t v = __atomic_load_n(&d->probes[i].hits, __ATOMIC_RELAXED);
        json_object_set_new(hits, name, json_integer((json_int_t)v));
    }
    json_t *o = json_pack("{s:i, s:o, s:o, s:I}", "rank", (int)d->rank, "counters", counters,
                          "hits", hits, "marker_hits", (json_int_t)d->marker_hits);
    if (d->flags & TALLY_SEG_MPI) {
        uint64_t messages = 0, bytes = 0;
        int32_t ranks = d->ranks < TALLY_SEG_MAX_RANKS ? d->ranks : TALLY_SEG_MAX_RANKS;
        for (int32_t r = 0; r < ranks; r++) {
            messages += d->links[r].messages;
            bytes += d->links[r].bytes;
        }
        /* the window so far, live: ScoPro's ratio T_c / (t2 - t1 - T_c) over
         * the periods recorded up to now (as the summary will have it) */
        double recorded = (double)tally_seg_recorded_ns(&d->window, clock_monotonic_ns()) / 1e9;
        double comm = (double)d->comm_ns / 1e9;
        json_object_set_new(o, "mpi", json_pack("{s:I, s:I, s:f, s:f, s:f, s:o}", "messages", (json_int_t)messages,
                                                "bytes", (json_int_t)bytes, "recorded_time", recorded,
                                                "comm_time", comm, "wait_time", (double)d->wait_ns / 1e9,
                                                "comm_ratio", recorded > comm ? json_real(comm / (recorded - comm))
                                                                              : json_null()));
    }
    return o;
}

json_t *proc_info_json(struct agent *a, pid_t pid, unsigned flags, char *why,
                       size_t why_size)
{
    if (flags == 0)
        flags = PROC_INFO_ALL;
    struct proc_stat st;
    if (proc_read_stat(pid, &st) < 0) {
        snprintf(why, why_size, "process %d does not exist", (int)pid);
        return NULL;
    }
    const struct agent_proc *p = pidmap_get(&a->procs, pid);
    const struct agent_task *t = agent_task_of(a, pid);
    struct proc_status status; /* ~50 us: only when swap or context switches are asked for */
    bool has_status =
        (flags & (PROC_INFO_MEMORY | PROC_INFO_CPU)) && proc_read_status(pid, &status) == 0;
    json_t *o = json_object();
    if (flags & PROC_INFO_STATE) {
        char comm[64];
        proc_read_comm(pid, comm, sizeof comm);
        uid_t uid = 0;
        proc_owner(pid, &uid);
        /* starttime is in clock ticks after boot. */
        double start = a->boot_epoch + (double)st.starttime / a->clock_ticks;
        json_object_set_new(o, "pid", json_integer(pid));
        json_object_set_new(o, "ppid", json_integer(st.ppid));
        json_object_set_new(o, "host", json_string(a->host));
        if (t) {
            json_object_set_new(o, "app", json_string(t->app));
            json_object_set_new(o, "task", json_integer(t->id));
        }
        json_object_set_new(o, "command", json_string(comm));
        json_object_set_new(o, "state", json_stringn(&st.state, 1));
        json_object_set_new(o, "uid", json_integer(uid));
        put_field(o, "start", start);
        put_field(o, "wall_time", clock_epoch_seconds() - start);
    }
    if (flags & PROC_INFO_CPU) {
        put_field(o, "cpu_time", st.cpu_self + st.cpu_children);
        /* of cpu_time, what its ended children (and theirs) used: the kernel adds a child's
         * time to its parent when the parent reaps it */
        put_field(o, "children_cpu_time", st.cpu_children);
        put_field(o, "cores", p ? p->cores : 0);
        put_field(o, "context_switches",
                  has_status ? (double)status.context_switches : 0);
    }
    if (flags & PROC_INFO_MEMORY) {
        uint64_t pss = 0;
        proc_read_pss(pid, &pss);
        put_field(o, "memory", mb(st.rss_bytes));
        put_field(o, "virtual_memory", mb(st.vm_bytes));
        put_field(o, "swap_memory", has_status ? mb(status.vm_swap) : 0);
        put_field(o, "proportional_memory", mb(pss));
        put_field(o, "minor_page_faults", (double)st.minflt);
        put_field(o, "major_page_faults", (double)st.majflt);
    }
    if (flags & PROC_INFO_IO) {
        struct proc_io io = {0};
        proc_read_io(pid, &io);
        put_field(o, "bytes_read", mb(io.rchar));
        put_field(o, "bytes_written", mb(io.wchar));
        put_field(o, "storage_bytes_read", mb(io.read_bytes));
        put_field(o, "storage_bytes_written", mb(io.write_bytes));
    }
    if (flags & PROC_INFO_NETWORK) {
        struct net_usage net = {0};
        double received = 0, sent = 0;
        if (net_usage_add_process(&net, pid) > 0) {
            net_usage_refresh(&net);
            net_usage_totals(&net, &received, &sent);
        }
        net_usage_free(&net);
        put_field(o, "bytes_received", received);
        put_field(o, "bytes_sent", sent);
    }
    if (flags & PROC_INFO_FILES) {
        int files = 0;
        proc_visit_open_files(pid, count_file, &files);
        json_object_set_new(o, "open_files", json_pack("[i, s]", files, "files"));
    }
    if ((flags & PROC_INFO_SERIES) && p) {
        json_t *rows = json_array();
        size_t n = a->options.series_points;
        for (size_t k = 0; k < p->ring_count; k++) {
            const struct series_point *pt = &p->ring[(p->ring_head + n - p->ring_count + k) % n];
            json_array_append_new(rows, json_pack("[f, f, f, s#]", pt->time, pt->cpu_time,
                                                  pt->memory, &pt->state, (int)1));
        }
        json_object_set_new(o, "series_columns",
                            json_pack("[s, s, s, s]", "time", "cpu_time", "memory", "state"));
        json_object_set_new(o, "series", rows);
    }
    if (flags & PROC_INFO_PROBES) {
        const struct agent_segment *m = agent_segments_find(a, pid);
        json_t *probes = m ? segment_json(&m->seg->d) : NULL;
        if (probes) /* what it records now, and whether it took the last switch */
            json_object_set_new(probes, "recording", agent_recording_json(m->seg));
        uint64_t ns;
        if (probes && proc_read_cpu_ns(pid, &ns) == 0) /* exact, for contract rates */
            json_object_set_new(probes, "cpu_seconds", json_real((double)ns / 1e9));
        if (probes)
            json_object_set_new(o, "probes", probes);
    }
    if (flags & PROC_INFO_FILE_IO) {
        char detail[128];
        json_t *io = agent_file_io_of_process(t, pid, detail, sizeof detail);
        json_object_set_new(o, "file_io", io ? io : json_pack("{s:s}", "error", detail));
    }
    if (flags & PROC_INFO_CONTRACT) {
        json_t *levels = agent_levels_of_process(a->levels, pid);
        if (levels)
            json_object_set_new(o, "contract", levels);
    }
    return o;
}
