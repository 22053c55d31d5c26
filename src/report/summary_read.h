/* Reading summaries: PREFIX.summary as report/summary.h writes it, and
 * resource_monitor's. The one reader of the format for every room (archive,
 * trace, contract, instrument, the live tools): numeric fields are either
 * bare numbers or [value, "unit"] pairs. */
#ifndef TALLY_REPORT_SUMMARY_READ_H
#define TALLY_REPORT_SUMMARY_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/fields.h"

/* The number KEY of object O: a bare number, or the value of a
 * [value, "unit"] pair as it stands (no unit conversion); fallback when O is
 * not an object, KEY is absent or not a number. */
double summary_number(const json_t *o, const char *key, double fallback);

/* VALUE, a numeric field's member (a bare number, or a [number, "unit"] pair
 * in any unit of the field's dimension), in the field's unit (fields.c).
 * -1 with a reason naming the field when it is neither, the unit is not
 * one of the field's dimension, or the converted value is not finite. */
int summary_field_value(const struct summary_field *field, const json_t *value, double *out,
                        char *why, size_t why_size);
/* The same for a value already taken apart: a bare number (unit NULL), a
 * [number, "unit"] pair, or neither (number NULL: the error of a value of
 * another form). */
int summary_field_number(const struct summary_field *field, const double *number,
                         const char *unit, double *out, char *why, size_t why_size);

/* PATH for NAME: NAME when it ends in ".summary", else NAME.summary (a run's
 * PREFIX). 0, or -1 when it does not fit in SIZE. */
int summary_path(const char *name, char *path, size_t size);

/* The summary in PATH (caller owns it), or NULL with "PATH: why" in why:
 * read within TEXT_FILE_LARGE (256 MB), never waiting on a FIFO. */
json_t *summary_load(const char *path, char *why, size_t why_size);

#endif
