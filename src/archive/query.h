/* The archive's query grammar, compiled to a parameterised SQL condition.
 *
 *   expr       := term ('or' term)*
 *   term       := factor ('and' factor)*
 *   factor     := 'not' factor | '(' expr ')' | FIELD OP VALUE
 *   OP         := = | == | != | <> | < | <= | > | >=
 *   VALUE      := 'quoted' | "quoted" | words up to the next and/or/not/')'
 *
 * FIELD is a numeric summary field (src/core/fields.c), whose VALUE is a
 * quantity as people write it ("500 MB", "1 h 30 min", "2.5"); start and end
 * also take a UTC date ("2026-11-01", "2026-11-01T12:00:00"). Text fields:
 * name, category, set, host, tool, command, exit_type, taskid; integer fields:
 * id, exit_status, level, attempt. Keywords are case-insensitive. Errors name
 * the 1-based position of the bad token. */
#ifndef TALLY_ARCHIVE_QUERY_H
#define TALLY_ARCHIVE_QUERY_H

#include <stddef.h>

#include "archive/store.h"

#define QUERY_MAX_PARAMS 100

struct compiled_query {
    char *where;                              /* SQL condition with '?' */
    struct sql_value params[QUERY_MAX_PARAMS];
    size_t nparams;
    char *strings[QUERY_MAX_PARAMS];          /* owned text of the params */
    size_t nstrings;
};

/* Returns 0, or -1 with "position N: reason" in why. */
int query_compile(const char *expression, struct compiled_query *out, char *why, size_t why_size);
/* Appends "AND (column op ?)" with a real parameter (for --since/--until). */
int query_add_condition(struct compiled_query *q, const char *column, const char *op, double value);
void compiled_query_free(struct compiled_query *q);

/* "2026-11-01", "2026-11-01T12:00[:00]", "2026-11-01 12:00:00" (UTC) or
 * seconds since the epoch → seconds since the epoch. */
int query_parse_time(const char *text, double *epoch);

#endif
