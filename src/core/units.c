/* Parsing of quantities with units (see units.h). */
#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct unit_name {
    const char *name;
    double factor; /* multiplier into the summary unit */
};

static const struct unit_name byte_units[] = {
    {"b", 1.0 / BYTES_PER_MB},  {"byte", 1.0 / BYTES_PER_MB}, {"bytes", 1.0 / BYTES_PER_MB},
    {"k", 1.0 / 1024},          {"kb", 1.0 / 1024},           {"kib", 1.0 / 1024},
    {"m", 1},                   {"mb", 1},                    {"mib", 1},
    {"g", 1024},                {"gb", 1024},                 {"gib", 1024},
    {"t", 1048576},             {"tb", 1048576},              {"tib", 1048576},
};

static const struct unit_name time_units[] = {
    {"us", 1e-6},       {"usec", 1e-6},     {"ms", 1e-3},       {"msec", 1e-3},
    {"s", 1},           {"sec", 1},         {"secs", 1},        {"second", 1},
    {"seconds", 1},     {"m", 60},          {"min", 60},        {"mins", 60},
    {"minute", 60},     {"minutes", 60},    {"h", 3600},        {"hr", 3600},
    {"hrs", 3600},      {"hour", 3600},     {"hours", 3600},    {"d", 86400},
    {"day", 86400},     {"days", 86400},
};

static int lookup(const struct unit_name *table, size_t n, const char *word, double *factor)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(table[i].name, word)) {
            *factor = table[i].factor;
            return 0;
        }
    return -1;
}

static int unit_factor(enum unit_dimension dim, const char *count_unit, const char *word,
                       double *factor)
{
    switch (dim) {
    case DIM_BYTES:
        return lookup(byte_units, sizeof byte_units / sizeof byte_units[0], word, factor);
    case DIM_TIME:
        return lookup(time_units, sizeof time_units / sizeof time_units[0], word, factor);
    case DIM_COUNT:
        if (count_unit && !strcasecmp(word, count_unit)) {
            *factor = 1;
            return 0;
        }
        return -1;
    }
    return -1;
}

static const char *dimension_hint(enum unit_dimension dim)
{
    switch (dim) {
    case DIM_BYTES:
        return "expected B, KB, MB, GB, TB (or KiB, MiB, GiB, TiB)";
    case DIM_TIME:
        return "expected us, ms, s, min, h or d";
    case DIM_COUNT:
        return "expected a plain number";
    }
    return "";
}

int units_parse(const char *text, enum unit_dimension dim, const char *count_unit, double *value,
                char *why, size_t why_size)
{
    const char *p = text;
    double total = 0;
    int terms = 0;

    while (isspace((unsigned char)*p))
        p++;
    if (!*p) {
        snprintf(why, why_size, "empty value");
        return -1;
    }
    while (*p) {
        if (terms > 0 && dim != DIM_TIME) {
            snprintf(why, why_size, "unexpected '%s' after the unit", p);
            return -1;
        }
        errno = 0;
        char *end;
        if (!(isdigit((unsigned char)*p) || *p == '.')) {
            snprintf(why, why_size, "'%s' is not a number", p);
            return -1;
        }
        double number = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(number)) {
            snprintf(why, why_size, "'%s' is not a number", p);
            return -1;
        }
        p = end;
        while (isspace((unsigned char)*p))
            p++;
        char word[16];
        size_t len = 0;
        while (isalpha((unsigned char)p[len]))
            len++;
        double factor = 1;
        if (len > 0) {
            if (len >= sizeof word) {
                snprintf(why, why_size, "unknown unit '%.*s' (%s)", (int)len, p, dimension_hint(dim));
                return -1;
            }
            memcpy(word, p, len);
            word[len] = '\0';
            if (unit_factor(dim, count_unit, word, &factor) < 0) {
                snprintf(why, why_size, "unknown unit '%s' (%s)", word, dimension_hint(dim));
                return -1;
            }
            p += len;
        } else if (*p) {
            snprintf(why, why_size, "unexpected '%s' after the number", p);
            return -1;
        } else if (terms > 0) {
            snprintf(why, why_size, "a bare number cannot follow a unit");
            return -1;
        }
        total += number * factor;
        if (!isfinite(total)) { /* "1e308 TB": finite number, infinite quantity */
            snprintf(why, why_size, "'%s' is too large", text);
            return -1;
        }
        terms++;
        while (isspace((unsigned char)*p))
            p++;
    }
    *value = total;
    return 0;
}
