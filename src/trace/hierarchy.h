/* Regrouping a trace's containers from a --hierarchy file (private to src/trace). */
#ifndef TALLY_TRACE_HIERARCHY_H
#define TALLY_TRACE_HIERARCHY_H

#include <stddef.h>

#include "trace/trace.h"

/* Reads lines "CHILD PARENT [PARENT-TYPE]" ('#' starts a comment): CHILD (an
 * existing container) moves under PARENT, which is created when missing, of
 * type PARENT-TYPE (default "site"), in CHILD's former parent. Later lines may
 * regroup the groups ("cluster1 siteA site"). Errors name FILE:LINE. */
int trace_apply_hierarchy(struct trace *t, const char *path, char *why, size_t why_size);

#endif
