/* --hierarchy FILE: puts containers under groups (host -> site, or deeper
 * child -> parent mappings), for spatial aggregation of flat traces. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/hierarchy.h"
#include "util/vec.h"
#include "util/text_file.h"

static void detach(struct trace *t, int child)
{
    int parent = t->containers[child].parent;
    if (parent < 0)
        return;
    struct trace_container *p = &t->containers[parent];
    for (size_t i = 0; i < p->n_children; i++)
        if (p->children[i] == child) {
            memmove(&p->children[i], &p->children[i + 1], (p->n_children - i - 1) * sizeof(int));
            p->n_children--;
            break;
        }
}

static int attach(struct trace *t, int child, int parent)
{
    struct trace_container *p = &t->containers[parent];
    int *c = VEC_PUSH(p->children, p->n_children, p->cap_children);
    if (!c)
        return -1;
    *c = child;
    t->containers[child].parent = parent;
    return 0;
}

static bool is_ancestor(const struct trace *t, int maybe_ancestor, int c)
{
    for (; c >= 0; c = t->containers[c].parent)
        if (c == maybe_ancestor)
            return true;
    return false;
}

/* True when type maybe_ancestor is type ty or one of its parents in the type tree. */
static bool is_type_ancestor(const struct trace *t, int maybe_ancestor, int ty)
{
    for (size_t steps = 0; ty >= 0 && steps <= t->n_types; ty = t->types[ty].parent, steps++)
        if (ty == maybe_ancestor)
            return true;
    return false;
}

int trace_apply_hierarchy(struct trace *t, const char *path, char *why, size_t why_size)
{
    struct text_lines in;
    char detail[160];
    if (text_lines_open(&in, path, TEXT_FILE_LARGE, TEXT_LINE_MAX, detail, sizeof detail) < 0) {
        snprintf(why, why_size, "%s: %s", path, detail);
        return -1;
    }
    char *line;
    size_t lineno = 0;
    int rc = 0, got;
    /* whole lines and words, within bounds: a long line or name is refused,
     * never cut in two */
    while (rc == 0 && (got = text_lines_next(&in, &line, NULL)) != 0) {
        if (got < 0) {
            snprintf(why, why_size, "%s: %s", path, in.why);
            rc = -1;
            break;
        }
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *words[4], *save = NULL;
        int n = 0;
        for (char *w = strtok_r(line, " \t\r\n\v\f", &save); w && n < 4;
             w = strtok_r(NULL, " \t\r\n\v\f", &save))
            words[n++] = w;
        if (n == 0)
            continue;
        const char *child = words[0], *parent = n > 1 ? words[1] : "", *type = n > 2 ? words[2] : "";
        if (n < 2 || n > 3) {
            snprintf(why, why_size, "%s:%zu: expected 'CHILD PARENT [PARENT-TYPE]'", path, lineno);
            rc = -1;
            break;
        }
        int c = trace_find_container(t, child);
        if (c <= 0) {
            snprintf(why, why_size, "%s:%zu: unknown container '%s'", path, lineno, child);
            rc = -1;
            break;
        }
        int p = trace_find_container(t, parent);
        int old_parent = t->containers[c].parent;
        if (p < 0) {
            const char *tname = n == 3 ? type : "site";
            int ty = trace_find_type(t, tname);
            if (ty < 0)
                ty = trace_add_type(t, tname, t->containers[old_parent].type);
            p = ty < 0 ? -1
                       : trace_add_container(t, parent, NULL, ty, old_parent,
                                             t->containers[c].start);
            if (p < 0) {
                snprintf(why, why_size, "%s: out of memory", path);
                rc = -1;
                break;
            }
        } else if (is_ancestor(t, c, p)) {
            snprintf(why, why_size, "%s:%zu: '%s' cannot go under its own descendant '%s'", path,
                     lineno, child, parent);
            rc = -1;
            break;
        }
        /* the type tree follows (the last regrouping of a type wins), and
         * must stay a tree: a host cannot go under a host, nor a site under
         * a cluster when clusters are under sites */
        int child_type = t->containers[c].type, parent_type = t->containers[p].type;
        if (is_type_ancestor(t, child_type, parent_type)) {
            snprintf(why, why_size,
                     "%s:%zu: '%s' (type %s) cannot go under '%s' (type %s): a type cannot "
                     "contain itself",
                     path, lineno, child, t->types[child_type].name, parent,
                     t->types[parent_type].name);
            rc = -1;
            break;
        }
        detach(t, c);
        t->types[t->containers[c].type].parent = t->containers[p].type;
        if (attach(t, c, p) < 0) {
            snprintf(why, why_size, "%s: out of memory", path);
            rc = -1;
        }
    }
    text_lines_close(&in);
    return rc;
}
