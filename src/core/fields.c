/* The table of numeric summary fields (see fields.h). Names and units follow
 * resource_monitor so that readers of its summaries read tally's; the fields
 * after "context_switches" are tally's own additions. */
#include "core/fields.h"

#include <string.h>

static const struct summary_field fields[] = {
    {"start", "s", DIM_TIME, false},
    {"end", "s", DIM_TIME, false},
    {"wall_time", "s", DIM_TIME, true},
    {"cpu_time", "s", DIM_TIME, true},
    {"cores", "cores", DIM_COUNT, true},
    {"cores_avg", "cores", DIM_COUNT, false},
    {"gpus", "gpus", DIM_COUNT, true},
    {"memory", "MB", DIM_BYTES, true},
    {"virtual_memory", "MB", DIM_BYTES, true},
    {"swap_memory", "MB", DIM_BYTES, true},
    {"bytes_read", "MB", DIM_BYTES, true},
    {"bytes_written", "MB", DIM_BYTES, true},
    {"bytes_received", "MB", DIM_BYTES, true},
    {"bytes_sent", "MB", DIM_BYTES, true},
    {"disk", "MB", DIM_BYTES, true},
    {"total_files", "files", DIM_COUNT, true},
    {"context_switches", "switches", DIM_COUNT, false},
    {"max_concurrent_processes", "procs", DIM_COUNT, true},
    {"total_processes", "procs", DIM_COUNT, true},
    {"machine_cpus", "cores", DIM_COUNT, false},
    {"machine_load", "procs", DIM_COUNT, false},
    {"proportional_memory", "MB", DIM_BYTES, true},
    {"storage_bytes_read", "MB", DIM_BYTES, true},
    {"storage_bytes_written", "MB", DIM_BYTES, true},
    {"minor_page_faults", "faults", DIM_COUNT, false},
    {"major_page_faults", "faults", DIM_COUNT, true},
};

_Static_assert(sizeof fields / sizeof fields[0] == FIELD_COUNT,
               "fields[] and enum summary_field_id must list the same fields in the same order");

const struct summary_field *summary_field_by_id(enum summary_field_id id)
{
    return &fields[id];
}

int summary_field_id(const char *name)
{
    const struct summary_field *f = summary_field_find(name);
    return f ? (int)(f - fields) : -1;
}

const struct summary_field *summary_field_find(const char *name)
{
    /* the first two letters first: called for every member of every archived
     * summary, twice (a field's name shares its first letter with three
     * others, its first two with two at most) */
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i].name[0] == name[0] && fields[i].name[1] == name[1] &&
            !strcmp(fields[i].name, name))
            return &fields[i];
    return NULL;
}

const struct summary_field *summary_fields(size_t *count)
{
    *count = sizeof fields / sizeof fields[0];
    return fields;
}
