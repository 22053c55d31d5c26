/* The summary in resource_monitor's own layout, for the resource_monitor
 * front end (tally rm): the fields its readers know (cctools' rmsummary
 * parser, used by Makeflow, Work Queue and resource_monitor_histograms), in
 * its order, with the -V verbatim fields first. tally's own numeric fields
 * are left out: cctools' reader prints a notice for every numeric field it
 * does not know, and stops (fatal) on any JSON object other than
 * limits_exceeded and peak_times. */
#ifndef TALLY_REPORT_RM_SUMMARY_H
#define TALLY_REPORT_RM_SUMMARY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "report/summary.h"

/* What the resource_monitor layout adds to summary_info. */
struct rm_summary_extra {
    const char *const *verbatim_keys;   /* -V 'key: value', in the order given */
    const char *const *verbatim_values;
    size_t verbatim_count;
    double bandwidth;           /* peak network bandwidth, Mbps; < 0: not measured */
    double bandwidth_peak_time; /* seconds after start */
    bool disk_measured;         /* false with --without-disk-footprint: no disk, total_files */
    json_t *snapshots;          /* --snapshot-events: array of rm_snapshot_to_json, or NULL */
    const char *input_files, *output_files; /* rm_files_list_text's strings, or NULL */
};

/* A new JSON object (caller owns it). */
json_t *rm_summary_to_json(const struct summary_info *info, const struct task_result *result,
                           const struct rm_summary_extra *extra);
/* One snapshot (--snapshot-events): NAME ("label(count),..."), the window
 * START..END (epoch s), and the largest values the samples of the window
 * had (value[] by field id, summary units), in resource_monitor's layout.
 * A new object (caller owns it). */
json_t *rm_snapshot_to_json(const char *name, double start, double end, const double *value);
/* Writes PATH atomically (indented when pretty). Returns -1 after one error line. */
int rm_summary_write(const char *path, const struct summary_info *info,
                     const struct task_result *result, const struct rm_summary_extra *extra,
                     bool pretty);

#endif
