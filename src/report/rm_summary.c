/* The summary in resource_monitor's layout (see rm_summary.h). Built from
 * summary_to_json, so values, units and limits_exceeded are the same as in
 * 'tally run' summaries; only the choice and order of fields differ. */
#include "report/rm_summary.h"

#include <math.h>
#include <string.h>

#include "version.h"

/* resource_monitor's numeric fields that tally measures, in its order. */
static const char *const rm_numeric_fields[] = {
    "start", "end", "wall_time", "cpu_time", "memory", "virtual_memory", "swap_memory", "disk",
    "bytes_read", "bytes_written", "bytes_received", "bytes_sent", "bandwidth", "gpus", "cores",
    "cores_avg", "machine_cpus", "machine_load", "context_switches", "max_concurrent_processes",
    "total_processes", "total_files",
};

/* Descriptive fields, after the verbatim ones, in resource_monitor's order
 * (tally's own strings and numbers are ignored by cctools' reader). */
static const char *const rm_head_fields[] = {
    "host", "command", "exit_status", "exit_type", "signal", "interrupted", "error", "limits_exceeded",
};

static bool is_disk_field(const char *name)
{
    return !strcmp(name, "disk") || !strcmp(name, "total_files");
}

static void copy_field(json_t *to, json_t *from, const char *name)
{
    json_t *v = json_object_get(from, name);
    if (v && !json_object_get(to, name))
        json_object_set(to, name, v);
}

json_t *rm_summary_to_json(const struct summary_info *info, const struct task_result *r,
                           const struct rm_summary_extra *x)
{
    json_t *all = summary_to_json(info, r);
    json_t *peaks_all = json_object_get(all, "peak_times");
    if (x->bandwidth >= 0) {
        json_object_set_new(all, "bandwidth", json_pack("[f, s]", x->bandwidth, "Mbps"));
        json_object_set_new(peaks_all, "bandwidth", json_pack("[f, s]", x->bandwidth_peak_time, "s"));
    }
    json_t *o = json_object();
    for (size_t i = 0; i < x->verbatim_count; i++)
        json_object_set_new(o, x->verbatim_keys[i], json_string(x->verbatim_values[i]));
    copy_field(o, all, "category"); /* --category when no -V category: gave one */
    copy_field(o, all, "name");
    json_object_set_new(o, "monitor", json_string("tally"));
    json_object_set_new(o, "monitor_version", json_string(TALLY_VERSION));
    /* resource_monitor says "limits" whenever a limit was exceeded, also
     * under --measure-only where the task ran on to its normal end. */
    if (json_object_get(all, "limits_exceeded"))
        json_object_set_new(all, "exit_type", json_string("limits"));
    for (size_t i = 0; i < sizeof rm_head_fields / sizeof rm_head_fields[0]; i++) {
        copy_field(o, all, rm_head_fields[i]);
        if (i == 0 && x->input_files) /* after host, as resource_monitor */
            json_object_set_new(o, "input_files", json_string(x->input_files));
        if (i == 0 && x->output_files)
            json_object_set_new(o, "output_files", json_string(x->output_files));
    }
    json_t *peaks = json_object();
    for (size_t i = 0; i < sizeof rm_numeric_fields / sizeof rm_numeric_fields[0]; i++) {
        const char *name = rm_numeric_fields[i];
        if (!x->disk_measured && is_disk_field(name))
            continue;
        copy_field(o, all, name);
        copy_field(peaks, peaks_all, name);
    }
    json_object_set_new(o, "peak_times", peaks);
    if (x->snapshots && json_array_size(x->snapshots))
        json_object_set(o, "snapshots", x->snapshots);
    copy_field(o, all, "level");
    json_decref(all);
    return o;
}

/* The fields a sample carries (see report/series.h), in resource_monitor's order. */
static const int snapshot_fields[] = {
    FIELD_CPU_TIME, FIELD_MEMORY, FIELD_VIRTUAL_MEMORY, FIELD_SWAP_MEMORY, FIELD_DISK,
    FIELD_BYTES_READ, FIELD_BYTES_WRITTEN, FIELD_BYTES_RECEIVED, FIELD_BYTES_SENT, FIELD_CORES,
    FIELD_MAX_CONCURRENT_PROCESSES, FIELD_TOTAL_FILES,
};

/* Seconds and MB to a microsecond and a byte, as summary.c writes them. */
static double rounded(double v)
{
    return round(v * 1e6) / 1e6;
}

json_t *rm_snapshot_to_json(const char *name, double start, double end, const double *value)
{
    json_t *o = json_object();
    json_object_set_new(o, "snapshot_name", json_string(name));
    json_object_set_new(o, "start", json_pack("[f, s]", rounded(start), "s"));
    json_object_set_new(o, "end", json_pack("[f, s]", rounded(end), "s"));
    json_object_set_new(o, "wall_time", json_pack("[f, s]", rounded(end - start), "s"));
    for (size_t i = 0; i < sizeof snapshot_fields / sizeof snapshot_fields[0]; i++) {
        const struct summary_field *f = summary_field_by_id(snapshot_fields[i]);
        double v = value[snapshot_fields[i]];
        json_object_set_new(o, f->name, f->dim == DIM_COUNT && f != summary_field_by_id(FIELD_CORES)
                                            ? json_pack("[I, s]", (json_int_t)v, f->unit)
                                            : json_pack("[f, s]", rounded(v), f->unit));
    }
    return o;
}

int rm_summary_write(const char *path, const struct summary_info *info, const struct task_result *r,
                     const struct rm_summary_extra *x, bool pretty)
{
    json_t *o = rm_summary_to_json(info, r, x);
    int rc = summary_write_object(path, o, pretty);
    json_decref(o);
    return rc;
}
