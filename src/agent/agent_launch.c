/* Ranks of launches on other hosts (agent_launch.h). A rank whose
 * 'tally run --mpi' is on another host (started there by mpirun over ssh,
 * Hydra or srun) attaches itself to this host's agent with its launch id
 * and its segment directory on this host (lib/probe/remote.c). At the end
 * of the application, the launch host's tally run asks every agent for the
 * launch's ranks ({"op": "launch_ranks"}, over the socket or NATS) and each
 * agent answers with a copy of each segment it has: the data part up to the
 * links, in hexadecimal, and the links that carry messages, with its own
 * CLOCK_MONOTONIC times of the message's arrival and of each line, from
 * which the launch host aligns this host's clock to its own (gather.c).
 * With "release", the directory is removed once answered.
 *
 * Under Slurm each rank has a 'tally run' of its own on its node
 * (tally-slurm(7)); at its end, each rank's run but the step's gatherer
 * hands its rank's segment over ({"op": "launch_keep", "launch":
 * "slurm-JOB-STEP", "segments": DIR}), so one launch may have its segments
 * in several directories of a host, all answered together. */
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent_launch.h"
#include "agent/agent_state.h"
#include "tally/segment.h"
#include "util/clock.h"
#include "util/directories.h"
#include "util/hex.h"
#include "util/vec.h"
#include "util/pid_text.h"

struct launch_dir {
    char *launch, *dir;
    double handed;  /* launch_keep: when (monotonic s); 0: an attached rank's */
};

/* A handed-over directory nobody asked for within this long is dropped:
 * its gatherer waits at most an hour (TALLY_GATHER_TIMEOUT <= 3600 s). */
#define HANDED_LIFETIME 7200.0
/* At most this many handed-over directories kept at once (a rank's each):
 * what one client of the user can make the agent hold is bounded. */
#define HANDED_MAX 65536

struct agent_launches {
    struct launch_dir *items;
    size_t count, cap;
};

static bool launch_id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 64)
        return false;
    return strspn(id, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_") == n;
}

static struct launch_dir *find(struct agent_launches *l, const char *launch)
{
    for (size_t i = 0; l && i < l->count; i++)
        if (!strcmp(l->items[i].launch, launch))
            return &l->items[i];
    return NULL;
}

/* Handed-over directories older than HANDED_LIFETIME (now: monotonic s),
 * and at the agent's end (now < 0) all of them, removed. */
static void drop_stale(struct agent *a, double now)
{
    struct agent_launches *l = a->launches;
    for (size_t i = 0; l && i < l->count;) {
        struct launch_dir *d = &l->items[i];
        if (!d->handed || (now >= 0 && now - d->handed < HANDED_LIFETIME)) {
            i++;
            continue;
        }
        remove_flat_directory(d->dir);
        free(d->launch);
        free(d->dir);
        *d = l->items[--l->count];
    }
}

/* launch's segments in dir, kept (several directories may hold one
 * launch's segments: a Slurm step's ranks each hand theirs over). */
static int keep(struct agent *a, const char *launch, const char *dir, double handed, char *why, size_t why_size)
{
    if (!a->launches && !(a->launches = calloc(1, sizeof *a->launches)))
        goto oom;
    struct agent_launches *l = a->launches;
    for (size_t i = 0; i < l->count; i++)
        if (!strcmp(l->items[i].launch, launch) && !strcmp(l->items[i].dir, dir))
            return 0;
    if (VEC_RESERVE(l->items, l->cap, l->count + 1) < 0)
        goto oom;
    l->items[l->count].launch = strdup(launch);
    l->items[l->count].dir = strdup(dir);
    l->items[l->count].handed = handed;
    if (!l->items[l->count].launch || !l->items[l->count].dir) {
        free(l->items[l->count].launch);
        free(l->items[l->count].dir);
        goto oom;
    }
    l->count++;
    return 0;
oom:
    snprintf(why, why_size, "out of memory");
    return -1;
}

static int check(struct agent *a, const char *op, const char *launch, const char *dir, char *why, size_t why_size)
{
    struct stat st;
    if (!launch_id_ok(launch)) {
        snprintf(why, why_size, "%s: launch '%.80s' is not a launch id (letters, digits, - and _)", op, launch);
        return -1;
    }
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != a->uid || (st.st_mode & 077)) {
        snprintf(why, why_size, "%s: segments '%.200s' is not a private directory of this user", op, dir);
        return -1;
    }
    return 0;
}

int agent_launch_add(struct agent *a, struct agent_task *t, const char *launch, const char *dir,
                     char *why, size_t why_size)
{
    if (check(a, "attach", launch, dir, why, why_size) < 0)
        return -1;
    struct launch_dir *known = find(a->launches, launch);
    if (known && strcmp(known->dir, dir)) {
        snprintf(why, why_size, "attach: launch %s has its segments in %.200s, not %.200s", launch, known->dir, dir);
        return -1;
    }
    free(t->segment_dir);
    free(t->launch);
    t->segment_dir = strdup(dir);
    t->launch = strdup(launch);
    if (!t->segment_dir || !t->launch || keep(a, launch, dir, 0, why, why_size) < 0) {
        snprintf(why, why_size, "attach: out of memory");
        return -1;
    }
    return 0;
}

int agent_launch_keep(struct agent *a, const char *launch, const char *dir, char *why, size_t why_size)
{
    if (check(a, "launch_keep", launch, dir, why, why_size) < 0)
        return -1;
    drop_stale(a, clock_monotonic_seconds());
    size_t handed = 0;
    for (size_t i = 0; a->launches && i < a->launches->count; i++)
        handed += a->launches->items[i].handed > 0;
    if (handed >= HANDED_MAX) {
        snprintf(why, why_size, "launch_keep: %d handed-over directories are kept already (the most): "
                 "gather them or stop the agent", HANDED_MAX);
        return -1;
    }
    if (keep(a, launch, dir, clock_monotonic_seconds(), why, why_size) < 0) {
        snprintf(why, why_size, "launch_keep: out of memory");
        return -1;
    }
    return 0;
}

/* One segment file as a line, or NULL when it is not a registered segment. */
static json_t *segment_line(struct agent *a, const char *dir, const char *file, uint64_t received)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    /* O_NONBLOCK: a FIFO named like a segment is not waited on (the agent
     * hung there); it is then refused as not a regular file */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    struct stat st;
    struct tally_segment *s = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == a->uid &&
        (size_t)st.st_size >= TALLY_SEG_SIZE && (s = malloc(sizeof *s))) {
        size_t done = 0;
        ssize_t n;
        while (done < sizeof *s && (n = pread(fd, (char *)s + done, sizeof *s - done, (off_t)done)) > 0)
            done += (size_t)n;
        if (done != sizeof *s || s->control.c.magic != TALLY_SEG_MAGIC || s->control.c.version != TALLY_SEG_VERSION) {
            free(s);
            s = NULL;
        }
    }
    close(fd);
    if (!s)
        return NULL;
    size_t head = offsetof(struct tally_seg_data, links);
    char *hex = malloc(2 * head + 1);
    json_t *links = json_array();
    for (int to = 0; to < TALLY_SEG_MAX_RANKS; to++)
        if (s->d.links[to].messages)
            json_array_append_new(links, json_pack("[i, I, I]", to, (json_int_t)s->d.links[to].bytes,
                                                   (json_int_t)s->d.links[to].messages));
    json_t *line = NULL;
    if (hex)
        line = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:o, s:I, s:I, s:I, s:I}", "op", "launch_rank",
                         "node", a->host, "site", a->site, "pid", (int)s->d.pid, "rank", (int)s->d.rank,
                         "version", TALLY_SEG_VERSION, "data", hex_encode(&s->d, head, hex), "links", links,
                         "on", (json_int_t)s->control.c.on, "ack_ns", (json_int_t)s->control.c.ack_ns,
                         "received", (json_int_t)received, "sent", (json_int_t)clock_monotonic_ns());
    else
        json_decref(links);
    free(hex);
    free(s);
    return line;
}

void agent_launch_ranks(struct agent *a, const json_t *msg, uint64_t received,
                        void (*emit)(void *ctx, json_t *line), void *ctx)
{
    const char *launch = json_string_value(json_object_get(msg, "launch"));
    if (!launch || !launch_id_ok(launch)) {
        emit(ctx, json_pack("{s:s, s:s, s:s, s:b, s:s}", "op", "launch_ranks", "node", a->host, "site", a->site,
                            "done", 1, "error", "launch_ranks: needs \"launch\" (a launch id)"));
        return;
    }
    int count = 0;
    bool release = json_is_true(json_object_get(msg, "release"));
    struct agent_launches *all = a->launches;
    for (size_t i = 0; all && i < all->count;) {
        struct launch_dir *l = &all->items[i];
        if (strcmp(l->launch, launch)) {
            i++;
            continue;
        }
        DIR *d = opendir(l->dir);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            const char *end;
            pid_t pid;
            if (pid_parse(e->d_name, &end, PID_KERNEL_LIMIT, &pid) < 0 || strcmp(end, ".seg"))
                continue;
            json_t *line = segment_line(a, l->dir, e->d_name, received);
            if (line) {
                emit(ctx, line);
                count++;
            }
        }
        if (d)
            closedir(d);
        if (!release) {
            i++;
            continue;
        }
        remove_flat_directory(l->dir);
        free(l->launch);
        free(l->dir);
        *l = all->items[--all->count]; /* i now holds the one moved here */
    }
    emit(ctx, json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:b}", "op", "launch_ranks", "node", a->host,
                        "site", a->site, "launch", launch, "ranks", count, "received", (json_int_t)received,
                        "sent", (json_int_t)clock_monotonic_ns(), "done", 1));
}

void agent_launches_free(struct agent *a)
{
    drop_stale(a, -1); /* handed-over ranks nobody gathered: nobody will */
    struct agent_launches *l = a->launches;
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++) {
        free(l->items[i].launch);
        free(l->items[i].dir);
    }
    free(l->items);
    free(l);
    a->launches = NULL;
}
