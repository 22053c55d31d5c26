/* The task's options and result: their defaults, scratch directories and
 * release (task_types.h). */
#include "monitor/task_types.h"

#include <stdlib.h>
#include <string.h>

void task_options_init(struct task_options *o)
{
    memset(o, 0, sizeof *o);
    o->level = 2;
    o->interval = 1.0;
    o->kill_grace = 2.0;
    o->event_poll = 300e-6;
    o->sampler_fd = -1;
}

size_t task_scratch_dirs(const struct task_options *o, const char *dirs[2])
{
    size_t n = 0;
    if (o->segment_dir && *o->segment_dir)
        dirs[n++] = o->segment_dir;
    if (o->io_dir && *o->io_dir)
        dirs[n++] = o->io_dir;
    return n;
}

void task_result_free(struct task_result *r)
{
    for (size_t i = 0; i < r->file_count; i++)
        free(r->files[i]);
    free(r->files);
    r->files = NULL;
    r->file_count = 0;
    for (size_t i = 0; i < r->executable_count; i++)
        free(r->executables[i].path);
    free(r->executables);
    r->executables = NULL;
    r->executable_count = 0;
}
