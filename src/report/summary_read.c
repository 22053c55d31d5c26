/* Reading summaries (see summary_read.h). */
#include "report/summary_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "util/text_file.h"

double summary_number(const json_t *o, const char *key, double fallback)
{
    const json_t *v = json_object_get(o, key);
    if (json_is_array(v))
        v = json_array_get(v, 0);
    return json_is_number(v) ? json_number_value(v) : fallback;
}

/* The factor converting `unit` into the unit of `field` (e.g. "GB" → 1024
 * for memory), by the shared unit parser. */
static int unit_factor(const struct summary_field *field, const char *unit, double *factor,
                       char *why, size_t why_size)
{
    if (!strcmp(unit, field->unit)) {
        *factor = 1;
        return 0;
    }
    char text[64], reason[160];
    snprintf(text, sizeof text, "1 %s", unit);
    if (units_parse(text, field->dim, field->unit, factor, reason, sizeof reason) < 0) {
        snprintf(why, why_size, "field '%s': unit \"%s\" is not a unit of %s (want \"%s\")",
                 field->name, unit, field->dim == DIM_BYTES ? "bytes"
                                    : field->dim == DIM_TIME ? "time" : "a count",
                 field->unit);
        return -1;
    }
    return 0;
}

int summary_field_value(const struct summary_field *field, const json_t *value, double *out,
                        char *why, size_t why_size)
{
    if (json_is_number(value)) {
        double number = json_number_value(value);
        return summary_field_number(field, &number, NULL, out, why, why_size);
    }
    bool pair = json_is_array(value) && json_array_size(value) == 2 &&
                json_is_number(json_array_get(value, 0)) && json_is_string(json_array_get(value, 1));
    double number = pair ? json_number_value(json_array_get(value, 0)) : 0;
    return summary_field_number(field, pair ? &number : NULL,
                                pair ? json_string_value(json_array_get(value, 1)) : NULL, out, why,
                                why_size);
}

int summary_field_number(const struct summary_field *field, const double *number,
                         const char *unit, double *out, char *why, size_t why_size)
{
    if (number && !unit) {
        *out = *number;
        return 0;
    }
    if (!number) {
        snprintf(why, why_size, "field '%s': want [number, \"unit\"]", field->name);
        return -1;
    }
    double factor;
    if (unit_factor(field, unit, &factor, why, why_size) < 0)
        return -1;
    *out = *number * factor;
    if (!isfinite(*out)) { /* [1e308, "TB"]: an infinity would spoil the task's statistics */
        snprintf(why, why_size, "field '%s': value too large in %s", field->name, field->unit);
        return -1;
    }
    return 0;
}

int summary_path(const char *name, char *path, size_t size)
{
    size_t n = strlen(name);
    const char *suffix = n > 8 && !strcmp(name + n - 8, ".summary") ? "" : ".summary";
    int w = snprintf(path, size, "%s%s", name, suffix);
    return w < 0 || (size_t)w >= size ? -1 : 0;
}

json_t *summary_load(const char *path, char *why, size_t why_size)
{
    char detail[160];
    size_t len;
    char *text = text_file_read(path, TEXT_FILE_LARGE, &len, detail, sizeof detail);
    if (!text) {
        snprintf(why, why_size, "%s: %s", path, detail);
        return NULL;
    }
    json_error_t jerr;
    json_t *s = json_loadb(text, len, 0, &jerr);
    free(text);
    if (!s)
        snprintf(why, why_size, "%s: %s", path, jerr.text);
    return s;
}
