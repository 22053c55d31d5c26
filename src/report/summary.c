/* The summary report (see summary.h). Field order follows resource_monitor
 * (identity, exit, then every numeric field of core/fields.c as
 * [value, "unit"]), then peak_times and tally's own descriptive fields. */
#include "report/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_text.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "version.h"

/* Counts stay integers; MB and seconds keep 6 decimals (a byte, a microsecond). */
static json_t *number(double v, enum unit_dimension dim)
{
    if (dim == DIM_COUNT && v == floor(v) && fabs(v) < 9e15)
        return json_integer((json_int_t)v);
    return json_real(round(v * 1e6) / 1e6);
}

static json_t *pair(double v, const struct summary_field *f)
{
    return json_pack("[o, s]", number(v, f->dim), f->unit);
}

static const char *exit_type_name(enum task_exit_type t)
{
    switch (t) {
    case TASK_EXIT_SIGNAL:
        return "signal";
    case TASK_EXIT_LIMITS:
        return "limits";
    default:
        return "normal";
    }
}

json_t *summary_to_json(const struct summary_info *info, const struct task_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "command", json_string(info->command ? info->command : ""));
    if (info->name)
        json_object_set_new(o, "name", json_string(info->name));
    if (info->category)
        json_object_set_new(o, "category", json_string(info->category));
    json_object_set_new(o, "host", json_string(r->host));
    json_object_set_new(o, "exit_status", json_integer(r->exit_status));
    json_object_set_new(o, "exit_type", json_string(exit_type_name(r->exit_type)));
    if (r->exit_type == TASK_EXIT_SIGNAL || r->signal)
        json_object_set_new(o, "signal", json_integer(r->signal));
    if (r->interrupted) /* tally was told to stop (SIGINT, SIGTERM, SIGHUP) */
        json_object_set_new(o, "interrupted", json_true());
    if (r->launch_errno)
        json_object_set_new(o, "error",
                            json_string(r->status == 127 ? "command not found"
                                                         : "command cannot be executed"));
    json_t *exceeded = json_object();
    for (int i = 0; i < FIELD_COUNT; i++)
        if (r->limit_exceeded[i] && info->limits && info->limits->set[i])
            json_object_set_new(exceeded, summary_field_by_id(i)->name,
                                pair(info->limits->max[i], summary_field_by_id(i)));
    if (json_object_size(exceeded))
        json_object_set_new(o, "limits_exceeded", exceeded);
    else
        json_decref(exceeded);
    json_t *peaks = json_object();
    for (int i = 0; i < FIELD_COUNT; i++) {
        const struct summary_field *f = summary_field_by_id(i);
        json_object_set_new(o, f->name, pair(r->value[i], f));
        if (r->peak_time[i] >= 0)
            json_object_set_new(peaks, f->name,
                                json_pack("[o, s]", number(r->peak_time[i], DIM_TIME), "s"));
    }
    json_object_set_new(o, "peak_times", peaks);
    json_object_set_new(o, "level", json_integer(r->level));
    json_object_set_new(o, "tally_version", json_string(TALLY_VERSION));
    if (info->extra)
        json_object_update_missing(o, (json_t *)info->extra); /* never over a measured member */
    return o;
}

int summary_write(const char *path, const struct summary_info *info, const struct task_result *r)
{
    json_t *o = summary_to_json(info, r);
    int rc = summary_write_object(path, o, true);
    json_decref(o);
    return rc;
}

int summary_write_object(const char *path, json_t *o, bool pretty)
{
    if (!o) {
        tally_error("%s: cannot format the summary", path);
        return -1;
    }
    int rc = 0;
    struct atomic_file af;
    if (atomic_file_open(&af, path) < 0) {
        tally_error_errno("%s", path);
        return -1;
    }
    /* Written as json_dumps would format it, without its text in memory
     * (report/json_text.c): PREFIX.files.json has an entry per process.
     * A write that failed is the commit's to report (its first error); a
     * text that could not be made (json_text's buffer not allocated) is
     * not committed: the summary already there stays. */
    int formatted = json_text_write(af.fp, o, pretty ? 2 : 0, 16);
    fputc('\n', af.fp);
    if (formatted < 0 && !ferror(af.fp)) {
        atomic_file_abort(&af);
        tally_error("%s: cannot format the summary", path);
        return -1;
    }
    if (atomic_file_commit(&af) < 0) {
        tally_error_errno("%s", path);
        rc = -1;
    }
    return rc;
}
