/* The shared-memory segments of the agent's instrumented processes
 * (agent_segments.h): 'tally run --agent --probes|--mpi' tells the agent
 * the directory of its task's segments (DIR/PID.seg, one per process that
 * registered, include/tally/segment.h); they are mapped read-write, this
 * user's regular files only, when a csr needs their events (rescans), a
 * request reads or switches a process (on demand), and unmapped when their
 * task ends. Reading them is agent_probes.c's; switching their recording,
 * agent_recording.c's. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent_segments.h"
#include "agent/agent_state.h"
#include "agent/agent_tree.h"
#include "tally/segment.h"
#include "util/vec.h"
#include "util/pid_text.h"

struct agent_segments {
    struct agent_segment *items;
    size_t count, cap;
};

static struct agent_segments *segments_of(struct agent *a)
{
    if (!a->segments)
        a->segments = calloc(1, sizeof *a->segments);
    return a->segments;
}

static struct agent_segment *mapped(struct agent_segments *s, unsigned task, pid_t pid)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->items[i].task == task && s->items[i].pid == pid)
            return &s->items[i];
    return NULL;
}

/* Maps DIR/PID.seg when it is this user's and registered. */
static struct agent_segment *map_segment(struct agent *a, struct agent_segments *s,
                                         const struct agent_task *t, const char *file, pid_t pid)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", t->segment_dir, file);
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *m = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_uid == a->uid && S_ISREG(st.st_mode) &&
        (size_t)st.st_size >= TALLY_SEG_SIZE)
        m = mmap(NULL, TALLY_SEG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return NULL;
    struct tally_segment *seg = m;
    if (seg->control.c.magic != TALLY_SEG_MAGIC || seg->control.c.version != TALLY_SEG_VERSION ||
        seg->d.pid != pid) { /* not registered yet (next rescan), or not one we understand */
        munmap(m, TALLY_SEG_SIZE);
        return NULL;
    }
    struct agent_segment *item = VEC_PUSH(s->items, s->count, s->cap);
    if (!item) {
        munmap(m, TALLY_SEG_SIZE);
        return NULL;
    }
    *item = (struct agent_segment){.task = t->id, .pid = pid, .seg = seg};
    return item;
}

static void unmap_ended(struct agent *a, struct agent_segments *s)
{
    for (size_t i = 0; i < s->count;) {
        const struct agent_task *t = agent_task_find(a, s->items[i].task);
        if (t && !t->ended) {
            i++;
            continue;
        }
        munmap(s->items[i].seg, TALLY_SEG_SIZE);
        s->items[i] = s->items[--s->count];
    }
}

void agent_segments_rescan(struct agent *a)
{
    struct agent_segments *s = segments_of(a);
    if (!s)
        return;
    unmap_ended(a, s);
    for (size_t i = 0; i < a->task_count; i++) {
        const struct agent_task *t = a->tasks[i];
        if (t->ended || !t->segment_dir)
            continue;
        DIR *d = opendir(t->segment_dir);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            const char *end;
            pid_t pid;
            if (pid_parse(e->d_name, &end, PID_KERNEL_LIMIT, &pid) == 0 && !strcmp(end, ".seg") &&
                !mapped(s, t->id, pid))
                map_segment(a, s, t, e->d_name, pid);
        }
        closedir(d);
    }
}

size_t agent_segments_mapped(struct agent *a, struct agent_segment **out)
{
    struct agent_segments *s = a->segments;
    *out = s ? s->items : NULL;
    return s ? s->count : 0;
}

struct agent_segment *agent_segments_find(struct agent *a, pid_t pid)
{
    const struct agent_task *t = agent_task_of(a, pid);
    struct agent_segments *s = segments_of(a);
    if (!t || t->ended || !t->segment_dir || !s)
        return NULL;
    unmap_ended(a, s);
    struct agent_segment *m = mapped(s, t->id, pid);
    if (!m) { /* not mapped yet: on demand */
        char file[32];
        snprintf(file, sizeof file, "%d.seg", (int)pid);
        m = map_segment(a, s, t, file, pid);
    }
    return m;
}

void agent_segments_free(struct agent *a)
{
    struct agent_segments *s = a->segments;
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++)
        munmap(s->items[i].seg, TALLY_SEG_SIZE);
    free(s->items);
    free(s);
    a->segments = NULL;
}
