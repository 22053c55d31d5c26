/* The view's default choices, shared by the SVG export and the command line
 * (the page makes the same ones in web/page_state.js.inc): which resource kind to show
 * and at which level of the hierarchy. */
#ifndef TALLY_VIEW_CHOICES_H
#define TALLY_VIEW_CHOICES_H

#include <stdbool.h>

#include "trace/trace.h"

/* "cpu" when the trace has it, else the kind of the first resource; NULL when
 * the trace holds no resource. */
const char *view_default_kind(const struct trace *t);
/* The type of the containers holding most resources of `kind` (the finest
 * level), or "root". */
const char *view_leaf_level(const struct trace *t, const char *kind);
bool view_has_kind(const struct trace *t, const char *kind);

#endif
