/* Which Paje variables are capacities and which are per-category usage
 * (private to src/trace; the rules themselves are declared in trace.h). */
#ifndef TALLY_TRACE_VARMAP_H
#define TALLY_TRACE_VARMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "trace/trace.h"

enum var_role { VAR_IGNORED, VAR_CAPACITY, VAR_MULTIPLIER, VAR_USAGE };

struct var_class {
    enum var_role role;
    char kind[64];       /* resource kind */
    char category[128];  /* for VAR_USAGE */
    bool inferred;       /* VAR_CAPACITY named "K.peak-capacity" */
};

/* Classifies a variable name. `own_kinds` lists the kinds K for which a
 * variable "K.capacity" was already defined (tally's own convention), so that
 * "K.cat" is usage of cat on that kind. */
void varmap_classify(const struct trace_read_options *opts, const char *name,
                     const char *const *own_kinds, size_t n_own_kinds, struct var_class *out);

#endif
