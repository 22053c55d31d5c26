/* The numeric fields of a tally summary: their names (resource_monitor's where
 * it has them), the unit they are reported in, and what kind of quantity they
 * are. Shared by the summary writer, the limits parser, and the archive. */
#ifndef TALLY_CORE_FIELDS_H
#define TALLY_CORE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

enum unit_dimension {
    DIM_BYTES, /* reported in MB = 2^20 bytes, as resource_monitor does */
    DIM_TIME,  /* reported in seconds */
    DIM_COUNT, /* a plain count (processes, files, cores, ...) */
};

/* Index of each field in the table, in table order (summary_fields()). */
enum summary_field_id {
    FIELD_START,
    FIELD_END,
    FIELD_WALL_TIME,
    FIELD_CPU_TIME,
    FIELD_CORES,
    FIELD_CORES_AVG,
    FIELD_GPUS,
    FIELD_MEMORY,
    FIELD_VIRTUAL_MEMORY,
    FIELD_SWAP_MEMORY,
    FIELD_BYTES_READ,
    FIELD_BYTES_WRITTEN,
    FIELD_BYTES_RECEIVED,
    FIELD_BYTES_SENT,
    FIELD_DISK,
    FIELD_TOTAL_FILES,
    FIELD_CONTEXT_SWITCHES,
    FIELD_MAX_CONCURRENT_PROCESSES,
    FIELD_TOTAL_PROCESSES,
    FIELD_MACHINE_CPUS,
    FIELD_MACHINE_LOAD,
    FIELD_PROPORTIONAL_MEMORY,
    FIELD_STORAGE_BYTES_READ,
    FIELD_STORAGE_BYTES_WRITTEN,
    FIELD_MINOR_PAGE_FAULTS,
    FIELD_MAJOR_PAGE_FAULTS,
    FIELD_COUNT
};

struct summary_field {
    const char *name;
    const char *unit;          /* the unit string of its [value, "unit"] pair */
    enum unit_dimension dim;
    bool limitable;            /* may appear in --limits */
};

/* NULL when the name is not a numeric summary field. */
const struct summary_field *summary_field_find(const char *name);
/* All numeric fields, in the order summaries list them. */
const struct summary_field *summary_fields(size_t *count);

/* The field with that id (0 <= id < FIELD_COUNT). */
const struct summary_field *summary_field_by_id(enum summary_field_id id);
/* The id of a field name, or -1 when it is not a numeric summary field. */
int summary_field_id(const char *name);

#endif
