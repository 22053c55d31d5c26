/* Resource limits for a task (the watchdog): which summary fields are
 * limited and to what value, parsed from "memory: 2 GB, wall_time: 10 min"
 * strings or files, and checked against measured values. Values are kept in
 * the summary unit of each field (MB, s, counts; see report/fields.h). */
#ifndef TALLY_MONITOR_LIMITS_H
#define TALLY_MONITOR_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

#include "report/fields.h"

struct limit_set {
    bool set[FIELD_COUNT];
    double max[FIELD_COUNT]; /* in the field's summary unit */
};

/* Empties the set. */
void limits_clear(struct limit_set *limits);
/* True when at least one limit is set. */
bool limits_any(const struct limit_set *limits);

/* Adds the limits of TEXT: "field: value" items separated by ',' ';' or
 * newlines ('=' may replace ':'); '#' starts a comment up to the end of the
 * line. Values take units (units_parse); a bare number is in the field's
 * summary unit. On error returns -1 with a reason naming the bad part in
 * why (e.g. "unknown field 'memry'"), and the set is left unchanged. */
int limits_parse(struct limit_set *limits, const char *text, char *why, size_t why_len);
/* The items of TEXT as limits_parse splits them (at ',' ';' and newlines,
 * '#' comments removed, blanks around each trimmed, empty ones skipped),
 * each handed to fn, which returns 0 or -1 with the reason in why. The
 * number of items, or -1 at the first fn refused (or out of memory). */
typedef int (*limits_item_fn)(void *ctx, char *item, char *why, size_t why_len);
int limits_each_item(const char *text, limits_item_fn fn, void *ctx, char *why, size_t why_len);
/* As limits_parse on the contents of the file at PATH (one item per line).
 * The reason names the line ("line 3: ..."), or the file when unreadable. */
int limits_parse_file(struct limit_set *limits, const char *path, char *why, size_t why_len);

/* Marks in exceeded[] each set limit that value[] is above; returns how
 * many are (newly or already) marked. value[] is indexed by field id. */
int limits_check(const struct limit_set *limits, const double *value, bool *exceeded);

#endif
