/* Level 3: processes found by scans without the helper, handed to the
 * tracer (uninterposed.h). */
#include "monitor/uninterposed.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/helper_reports.h"
#include "platform/platform.h"

void uninterposed_init(struct uninterposed *n, const char *dir)
{
    pidmap_init(&n->judged, sizeof(char *));
    n->dir = dir;
    n->adopted = 0;
}

void uninterposed_free(struct uninterposed *n)
{
    for (size_t i = 0; i < n->judged.capacity; i++)
        if (n->judged.keys[i])
            free(*(char **)pidmap_at(&n->judged, i));
    pidmap_free(&n->judged);
}

struct adopt_ctx {
    struct uninterposed *n;
    struct usage *u;
    struct tracer *tracer;
};

static void judge(void *ctx, pid_t pid)
{
    struct adopt_ctx *a = ctx;
    const char *exe = usage_executable(a->u, pid);
    if (!exe || !*exe || tracer_follows(a->tracer, pid))
        return;
    char **judged = pidmap_get(&a->n->judged, pid);
    if (judged && !strcmp(*judged, exe))
        return;
    int enters = helper_enters(pid, a->n->dir);
    if (enters < 0) /* inside its exec, or gone: the next scan will tell */
        return;
    /* the image judged must be the one the scan saw: a forked child of a
     * helper process that exec'd a static program since is judged as that
     * program at the next scan, not as its parent's program */
    char now[PATH_MAX];
    if (proc_read_exe(pid, now, sizeof now) < 0 || strcmp(now, exe))
        return;
    char *copy = strdup(exe);
    if (!copy || !(judged = pidmap_put(&a->n->judged, pid, NULL))) {
        free(copy);
        return;
    }
    free(*judged);
    *judged = copy;
    if (enters)
        return;
    usage_note_without_helper(a->u, pid);
    if (tracer_adopt(a->tracer, pid))
        a->n->adopted++;
}

void uninterposed_adopt(struct uninterposed *n, struct usage *u, struct tracer *tracer)
{
    struct adopt_ctx a = {n, u, tracer};
    usage_each_process(u, judge, &a);
}
