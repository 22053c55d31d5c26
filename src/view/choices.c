/* The view's default choices; see choices.h. */
#include "view/choices.h"

#include <stdlib.h>
#include <string.h>

const char *view_default_kind(const struct trace *t)
{
    for (size_t r = 0; r < t->n_resources; r++)
        if (!strcmp(t->resources[r].kind, "cpu"))
            return "cpu";
    return t->n_resources ? t->resources[0].kind : NULL;
}

const char *view_leaf_level(const struct trace *t, const char *kind)
{
    size_t *count = calloc(t->n_types ? t->n_types : 1, sizeof *count);
    int best = -1;
    for (size_t r = 0; r < t->n_resources && count; r++)
        if (kind && !strcmp(t->resources[r].kind, kind)) {
            int type = t->containers[t->resources[r].container].type;
            if (++count[type] > (best < 0 ? 0 : count[best]))
                best = type;
        }
    free(count);
    return best > 0 ? t->types[best].name : "root"; /* type 0 is the root's */
}

bool view_has_kind(const struct trace *t, const char *kind)
{
    for (size_t r = 0; r < t->n_resources; r++)
        if (kind && !strcmp(t->resources[r].kind, kind))
            return true;
    return false;
}
