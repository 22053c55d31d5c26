/* The summary report: one JSON object in resource_monitor's format
 * ("field": [value, "unit"]) plus tally's own fields. */
#ifndef TALLY_REPORT_SUMMARY_H
#define TALLY_REPORT_SUMMARY_H

#include <jansson.h>
#include <stdbool.h>

#include "core/limits.h"
#include "monitor/task_types.h"

/* What the summary says about the run besides the measured result. */
struct summary_info {
    const char *command;  /* the command line as one string */
    const char *name;     /* --name, or NULL */
    const char *category; /* --category, or NULL */
    const struct limit_set *limits; /* the limits in force (values of limits_exceeded); may be NULL */
    const json_t *extra;  /* members appended (e.g. "mpi", "probes", "slurm"), never replacing one above; may be NULL */
};

/* A new JSON object (caller owns it). */
json_t *summary_to_json(const struct summary_info *info, const struct task_result *result);
/* Writes the JSON object O to PATH atomically, indented when pretty, else
 * on one line. Returns -1 and prints one error line on failure. */
int summary_write_object(const char *path, json_t *o, bool pretty);
/* Writes PATH atomically. Returns -1 and prints one error line on failure. */
int summary_write(const char *path, const struct summary_info *info, const struct task_result *result);

#endif
