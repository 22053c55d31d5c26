/* The numeric fields of a tally summary: their names (resource_monitor's where
 * it has them), the unit they are reported in, and what kind of quantity they
 * are. Shared by the summary writer, the limits parser, and the archive. */
#ifndef TALLY_REPORT_FIELDS_H
#define TALLY_REPORT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

enum unit_dimension {
    DIM_BYTES, /* reported in MB = 2^20 bytes, as resource_monitor does */
    DIM_TIME,  /* reported in seconds */
    DIM_COUNT, /* a plain count (processes, files, cores, ...) */
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

#endif
