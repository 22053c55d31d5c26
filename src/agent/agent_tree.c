/* The agent's followed trees: tasks and their processes, refreshed at every
 * tick from ONE machine-wide /proc scan (proc_scan.h) whatever the number of
 * trees. A tree registered by 'tally run --agent' at level 2 is measured by
 * that tally run (in its own process: a tracer must own its tracees, and a
 * crash there cannot take the agent down); the agent only sees its
 * processes here and takes the samples it streams. At level 1 its tally run
 * only waits: the agent follows the command's tree (agent_task_follow) as
 * it follows a tree attached by pid, with a level-1 follower fed from the
 * same scan. Every
 * process of every tree keeps a bounded series (a ring of series_points). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/schema.h"
#include "archive/summary_store.h"
#include "agent/agent_tree.h"
#include "agent/agent_state.h"
#include "agent/host_series.h"
#include "report/series.h"
#include "client/agent_socket.h"
#include "report/summary.h"
#include "util/clock.h"
#include "util/directories.h"
#include "util/error.h"
#include "util/text_file.h"
#include "util/vec.h"

static long clock_ticks_per_second(void)
{
    long t = sysconf(_SC_CLK_TCK);
    return t > 0 ? t : 100;
}

struct agent_task *agent_task_add(struct agent *a, const char *app, const char *command,
                                  pid_t root, bool include_root)
{
    if (VEC_RESERVE(a->tasks, a->task_cap, a->task_count + 1) < 0)
        return NULL;
    struct agent_task *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->id = ++a->next_task_id;
    t->app = strdup(app);
    t->command = strdup(command ? command : "");
    t->root = root;
    t->include_root = include_root;
    struct proc_stat st;
    if (proc_read_stat(root, &st) == 0)
        t->root_start = st.starttime;
    t->start_epoch = clock_epoch_seconds();
    a->tasks[a->task_count++] = t;
    return t;
}

struct agent_task *agent_task_find(const struct agent *a, unsigned id)
{
    for (size_t i = 0; i < a->task_count; i++)
        if (a->tasks[i]->id == id)
            return a->tasks[i];
    return NULL;
}

struct agent_task *agent_task_of(const struct agent *a, pid_t pid)
{
    const struct agent_proc *p = pidmap_get(&a->procs, pid);
    return p ? agent_task_find(a, p->task) : NULL;
}

static bool is_followed(void *ctx, pid_t pid);
static bool is_tree_root(void *ctx, pid_t pid);

/* A level-1 follower of the agent's kind for the tree of pid; series, when
 * not NULL, gets a row (the host's columns included) at every interval. */
static struct follower *new_follower(const struct agent *a, pid_t pid,
                                     struct series_writer *series)
{
    struct task_options o;
    task_options_init(&o);
    o.interval = a->options.interval;
    if (series) {
        o.on_sample = host_series_append;
        o.sample_ctx = series;
    }
    o.skip_disk = true;
    /* Swap, PSS, I/O, open files and sockets of followed trees every 10 s:
     * with hundreds of trees these readings (a walk of /proc/PID/fd each)
     * would cost the agent more than everything else together; CPU, memory
     * and the processes come from the shared scan every interval. */
    o.details_every = fmax(10, o.interval);
    o.io_with_details = true; /* bytes every 10 s too (proc_get_info reads them live) */
    return follower_new(&o, pid);
}

int agent_task_follow(struct agent *a, struct agent_task *t, pid_t pid, char *why, size_t why_size)
{
    struct proc_stat st;
    if (t->follower || t->ended || t->ended_before_followed) {
        snprintf(why, why_size, "follow: the task is already followed");
        return -1;
    }
    int read = proc_read_stat(pid, &st);
    if (read < 0 && (errno == ENOENT || errno == ESRCH)) {
        /* A command shorter than the agent's answer: tally run has reaped it
         * (with the kernel's totals of it) before this request was read. */
        t->ended_before_followed = true;
        return 0;
    }
    if (read < 0 || st.ppid != t->root) {
        snprintf(why, why_size, "follow: process %d is not a child of the task's tally run", (int)pid);
        return -1;
    }
    struct follower *f = new_follower(a, pid, NULL);
    if (!f) {
        snprintf(why, why_size, "follow: process %d: %s", (int)pid,
                 errno == ESRCH ? "not running" : strerror(errno));
        return -1;
    }
    /* The tree is now the command's: the runner is no part of it. */
    t->runner_pid = t->root;
    t->follower = f;
    t->root = pid;
    t->root_start = st.starttime;
    t->include_root = true;
    return 0;
}

json_t *agent_task_follow_end(struct agent *a, struct agent_task *t)
{
    if (!t->follower) /* ended before it could be followed: no samples, none missing */
        return t->ended_before_followed ? json_object() : NULL;
    if (!follower_done(t->follower)) {
        /* One last look at what is left before the runner reaps it. */
        proc_scan_refresh_incremental(&a->scan, is_followed, a);
        proc_scan_assign_roots(&a->scan, is_tree_root, a);
        follower_take_scan(t->follower, &a->scan);
        follower_step(t->follower, clock_monotonic_seconds());
    }
    follower_finish(t->follower);
    struct summary_info info = {.command = t->command, .name = t->app};
    return summary_to_json(&info, follower_result(t->follower));
}

/* The processes of t to end, with their start times: its root, its
 * processes of the last tick, and the runner's children of the last scan. */
static void known_of_lost(const struct agent *a, const struct agent_task *t, struct pidmap *known)
{
    pidmap_init(known, sizeof(struct proc_tree_member));
    struct proc_tree_member *m = pidmap_put(known, t->root, NULL);
    if (m)
        m->starttime = t->root_start;
    for (size_t i = 0; i < a->procs.capacity; i++) {
        const struct agent_proc *p = pidmap_at(&a->procs, i);
        if (a->procs.keys[i] && p->task == t->id && (m = pidmap_put(known, a->procs.keys[i], NULL)))
            m->starttime = p->starttime;
    }
    /* Orphans of the task re-parented to the runner (a child subreaper) are
     * no descendants of the command: the last scan saw them the runner's. */
    for (size_t i = 0; t->runner_pid > 0 && i < a->scan.procs.capacity; i++) {
        const struct scan_proc *s = pidmap_at(&a->scan.procs, i);
        pid_t pid = a->scan.procs.keys[i];
        if (pid && s->stat.ppid == t->runner_pid && (m = pidmap_put(known, pid, NULL)))
            m->starttime = s->stat.starttime;
    }
}

/* A lost run's scratch directory (segments, regions), as its guardian
 * would: only a directory tally makes for a run (tally-probe-XXXXXX, see
 * segment_dir_create), itself a directory of the agent's user and no
 * symbolic link, whatever a client announced. */
static void remove_scratch(const struct agent *a, const char *dir)
{
    const char *base = dir ? strrchr(dir, '/') : NULL;
    struct stat st;
    if (base && !strncmp(base + 1, "tally-probe-", 12) && lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
        st.st_uid == a->uid)
        remove_flat_directory(dir);
}

void agent_tasks_runners_lost(struct agent *a, struct agent_task *const tasks[], size_t n)
{
    struct agent_task **lost = calloc(n ? n : 1, sizeof *lost);
    struct pidmap *known = calloc(n ? n : 1, sizeof *known);
    size_t *ended = calloc(n ? n : 1, sizeof *ended);
    size_t count = 0;
    for (size_t i = 0; lost && known && ended && i < n; i++) {
        struct agent_task *t = tasks[i];
        if (!t->guarded || t->ended)
            continue;
        t->guarded = false;
        known_of_lost(a, t, &known[count]);
        lost[count++] = t;
    }
    /* One stop-scan-kill for all of them: the loop waits meanwhile. */
    proc_trees_end(known, count, ended);
    for (size_t i = 0; i < count; i++) {
        pidmap_free(&known[i]);
        remove_scratch(a, lost[i]->segment_dir); /* nothing of its tree writes there now */
        remove_scratch(a, lost[i]->io_dir);
        fprintf(stderr, "tally: agent: the tally run of task %u (%s) is gone without ending it: "
                        "%zu process%s of its tree ended\n",
                lost[i]->id, lost[i]->app, ended[i], ended[i] == 1 ? "" : "es");
    }
    free(lost);
    free(known);
    free(ended);
}

/* Drops a series not committed (nothing is left in its directory). */
static void close_series(struct series_writer *series, char *prefix)
{
    if (series)
        series_abort(series);
    free(series);
    free(prefix);
}

/* --time-series DIR: the run's prefix DIR/APP.HOST.PID ('/' in APP or HOST
 * becomes '_') and its series, open. */
static int open_series(const struct agent *a, const char *app, pid_t pid, const char *command,
                       char **prefix, struct series_writer **series, char *why, size_t why_size)
{
    char name[600];
    snprintf(name, sizeof name, "%s.%s.%d", app, a->host, (int)pid);
    for (char *c = name; *c; c++)
        if (*c == '/')
            *c = '_';
    size_t len = strlen(a->options.time_series_dir) + strlen(name) + 16;
    *prefix = malloc(len);
    char *path = malloc(len);
    *series = calloc(1, sizeof **series);
    if (!*prefix || !path || !*series) {
        free(path);
        close_series(*series, *prefix);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    snprintf(*prefix, len, "%s/%s", a->options.time_series_dir, name);
    snprintf(path, len, "%s.series", *prefix);
    if (series_open(*series, path, command) < 0) {
        snprintf(why, why_size, "time series: %s: %s", path, strerror(errno));
        free(path);
        free(*series);
        free(*prefix);
        *series = NULL;
        *prefix = NULL;
        return -1;
    }
    free(path);
    return 0;
}

/* The run of an attached tree that has ended: its series committed and its
 * summary beside it, with the application as its category when it has none
 * (what 'tally trace from-runs' groups by). */
static void write_run(struct agent_task *t, json_t *summary)
{
    if (series_commit(t->series) < 0 || !summary)
        goto out;
    json_t *copy = json_deep_copy(summary);
    if (!copy)
        goto out;
    if (!json_object_get(copy, "category"))
        json_object_set_new(copy, "category", json_string(t->category ? t->category : t->app));
    size_t len = strlen(t->series_prefix) + 16;
    char *path = malloc(len);
    if (path) {
        snprintf(path, len, "%s.summary", t->series_prefix);
        summary_write_object(path, copy, true);
    }
    free(path);
    json_decref(copy);
out:
    close_series(t->series, t->series_prefix);
    t->series = NULL;
    t->series_prefix = NULL;
}

struct agent_task *agent_attach(struct agent *a, pid_t pid, const char *app, char *why,
                                size_t why_size)
{
    uid_t owner;
    if (proc_owner(pid, &owner) < 0) {
        snprintf(why, why_size, "process %d does not exist", (int)pid);
        return NULL;
    }
    if (owner != a->uid) {
        snprintf(why, why_size, "process %d belongs to another user", (int)pid);
        return NULL;
    }
    struct agent_task *existing = agent_task_of(a, pid);
    if (existing) {
        snprintf(why, why_size, "process %d is already part of application %s", (int)pid,
                 existing->app);
        return NULL;
    }
    char command[256];
    proc_read_comm(pid, command, sizeof command);
    char *prefix = NULL;
    struct series_writer *series = NULL;
    if (a->options.time_series_dir &&
        open_series(a, app, pid, command, &prefix, &series, why, why_size) < 0)
        return NULL;
    struct follower *f = new_follower(a, pid, series);
    if (!f) {
        snprintf(why, why_size, "process %d: %s", (int)pid,
                 errno == ESRCH ? "not running" : strerror(errno));
        close_series(series, prefix);
        return NULL;
    }
    struct agent_task *t = agent_task_add(a, app, command, pid, true);
    if (!t) {
        follower_free(f);
        close_series(series, prefix);
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    t->follower = f;
    t->series = series;
    t->series_prefix = prefix;
    /* Its processes join at once, not at the next tick. */
    agent_tick(a);
    return t;
}

void agent_task_free(struct agent_task *t)
{
    if (!t)
        return;
    follower_free(t->follower);
    close_series(t->series, t->series_prefix);
    free(t->app);
    free(t->category);
    free(t->segment_dir);
    free(t->io_dir);
    free(t->launch);
    free(t->world);
    free(t->command);
    free(t->limits_text);
    free(t);
}

static bool is_tree_root(void *ctx, pid_t pid)
{
    const struct agent *a = ctx;
    for (size_t i = 0; i < a->task_count; i++)
        if (a->tasks[i]->root == pid && !a->tasks[i]->ended)
            return true;
    return false;
}

/* Processes whose readings the agent uses: read at every scan. */
static bool is_followed(void *ctx, pid_t pid)
{
    const struct agent *a = ctx;
    return pidmap_get(&a->procs, pid) != NULL || is_tree_root(ctx, pid);
}

static struct agent_task *task_of_root(const struct agent *a, pid_t root)
{
    for (size_t i = 0; i < a->task_count; i++)
        if (a->tasks[i]->root == root && !a->tasks[i]->ended)
            return a->tasks[i];
    return NULL;
}

static void ring_push(const struct agent *a, struct agent_proc *p, const struct series_point *pt)
{
    size_t n = a->options.series_points;
    if (!p->ring || n == 0)
        return;
    p->ring[p->ring_head] = *pt;
    p->ring_head = (p->ring_head + 1) % n;
    if (p->ring_count < n)
        p->ring_count++;
}

static struct agent_proc *new_process(struct agent *a, const struct agent_task *t, pid_t pid,
                                      unsigned long long starttime)
{
    struct agent_proc *p = pidmap_put(&a->procs, pid, NULL);
    if (!p)
        return NULL;
    memset(p, 0, sizeof *p);
    p->task = t->id;
    p->starttime = starttime;
    p->ring = calloc(a->options.series_points ? a->options.series_points : 1, sizeof *p->ring);
    p->last_at = -1;
    return p;
}

static void drop_process(struct agent *a, pid_t pid, bool report)
{
    struct agent_proc *p = pidmap_get(&a->procs, pid);
    if (!p)
        return;
    struct agent_task *t = agent_task_find(a, p->task);
    free(p->ring);
    pidmap_remove(&a->procs, pid);
    if (report && t)
        a->up.event(a, AGENT_EVENT_PROC_TERMINATED, t, pid, NULL);
}

void agent_task_process(struct agent *a, struct agent_task *t, pid_t pid, bool started)
{
    struct agent_proc *p = pidmap_get(&a->procs, pid);
    if (!started) {
        if (p && p->task == t->id)
            drop_process(a, pid, true);
        return;
    }
    if (p || t->ended)
        return;
    struct proc_stat st;
    bool alive = proc_read_stat(pid, &st) == 0;
    p = new_process(a, t, pid, alive ? st.starttime : 0);
    if (!p)
        return;
    if (alive) {
        p->last = st;
        p->last_at = clock_monotonic_seconds();
    }
    p->seen = true;
    a->up.event(a, AGENT_EVENT_PROC_CREATED, t, pid, NULL);
}

/* The processes of every tree from the scan: new ones, vanished ones,
 * their readings and series. Between ticks (a scan at a request) the
 * processes known already keep the tick's readings: their rate of CPU
 * ("cores", over the last interval) and their series stay the tick's, not
 * a rate over the few milliseconds since it. */
static void update_processes(struct agent *a, double now, bool tick)
{
    double epoch = clock_epoch_seconds();
    double ticks = (double)clock_ticks_per_second();
    (void)ticks;
    for (size_t i = 0; i < a->procs.capacity; i++)
        if (a->procs.keys[i])
            ((struct agent_proc *)pidmap_at(&a->procs, i))->seen = false;
    for (size_t i = 0; i < a->scan.procs.capacity; i++) {
        pid_t pid = a->scan.procs.keys[i];
        if (!pid)
            continue;
        const struct scan_proc *e = pidmap_at(&a->scan.procs, i);
        if (!e->root)
            continue;
        struct agent_task *t = task_of_root(a, e->root);
        if (!t || (pid == t->root && !t->include_root))
            continue;
        struct agent_proc *p = pidmap_get(&a->procs, pid);
        if (p && p->starttime == 0) /* reported by tally run after it ended */
            p->starttime = e->stat.starttime;
        if (p && p->starttime != e->stat.starttime) { /* pid reused */
            drop_process(a, pid, true);
            p = NULL;
        }
        bool created = false;
        if (!p) {
            p = new_process(a, t, pid, e->stat.starttime);
            if (!p)
                continue;
            created = true;
        } else if (!tick && p->last_at >= 0) {
            p->seen = true;
            continue;
        }
        if (p->last_at >= 0 && now > p->last_at) {
            double dcpu = (e->stat.cpu_self + e->stat.cpu_children) -
                          (p->last.cpu_self + p->last.cpu_children);
            p->cores = fmax(0, dcpu) / (now - p->last_at);
        }
        p->last = e->stat;
        p->last_at = now;
        p->seen = true;
        struct series_point pt = {epoch, e->stat.cpu_self + e->stat.cpu_children,
                                  (double)e->stat.rss_bytes / (1024.0 * 1024.0), e->stat.state};
        ring_push(a, p, &pt);
        if (created)
            a->up.event(a, AGENT_EVENT_PROC_CREATED, t, pid, NULL);
    }
    /* Collect first: dropping changes the table. */
    pid_t gone[256];
    for (;;) {
        size_t n = 0;
        for (size_t i = 0; i < a->procs.capacity && n < 256; i++)
            if (a->procs.keys[i] && !((struct agent_proc *)pidmap_at(&a->procs, i))->seen)
                gone[n++] = a->procs.keys[i];
        for (size_t i = 0; i < n; i++)
            drop_process(a, gone[i], true);
        if (n < 256)
            break;
    }
}

static void store_summary(struct agent *a, json_t *summary)
{
    if (a->options.no_archive || a->archive_failed || !summary)
        return;
    char why[512];
    if (!a->archive) {
        char *location = a->options.archive ? strdup(a->options.archive) : store_default_location();
        a->archive = store_open(location, why, sizeof why);
        if (!a->archive) {
            tally_error("agent: archive %s: %s (summaries are not archived)",
                        location ? location : "(default)", why);
            a->archive_failed = true;
            free(location);
            return;
        }
        free(location);
    }
    /* 'tally run --agent --archive' may store the same summary: it is kept once */
    if (archive_store_summary(a->archive, summary, "agent", NULL, NULL) < 0)
        tally_error("agent: archive %s: a summary was not stored", a->archive->location);
    else
        a->archived++;
}

void agent_archive_spool(struct agent *a)
{
    char dir[4200];
    if (a->options.no_archive || agent_socket_spool_dir(a->socket_path, dir, sizeof dir) < 0)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t archived = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n <= 8 || strcmp(e->d_name + n - 8, ".summary"))
            continue;
        char path[4500], why[160] = "not a JSON summary";
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *text = text_file_read(path, TEXT_FILE_LARGE, NULL, why, sizeof why);
        json_t *summary = text ? json_loads(text, 0, NULL) : NULL;
        free(text);
        size_t before = a->archived;
        store_summary(a, summary);
        if (a->archived > before && unlink(path) == 0)
            archived++;
        else if (!summary)
            tally_error("agent: %s: %s (left in the spool)", path, why);
        json_decref(summary);
    }
    closedir(d);
    if (archived)
        fprintf(stderr, "tally: agent: archived %zu summar%s that tally run kept while no agent "
                "ran (%s)\n", archived, archived == 1 ? "y" : "ies", dir);
}

void agent_task_end(struct agent *a, struct agent_task *t, json_t *summary)
{
    if (t->ended)
        return;
    t->ended = true;
    json_t *own = NULL;
    if (!summary && t->follower) {
        follower_finish(t->follower);
        struct summary_info info = {.command = t->command, .name = t->app,
                                    .limits = limits_any(&t->limits) ? &t->limits : NULL};
        own = summary_to_json(&info, follower_result(t->follower));
        summary = own;
    }
    if (summary && t->follower && follower_result(t->follower)->exit_type == TASK_EXIT_LIMITS &&
        !t->limit_reported) {
        t->limit_reported = true;
        a->up.event(a, AGENT_EVENT_LIMIT_EXCEEDED, t, t->root, NULL);
    }
    store_summary(a, summary);
    if (t->series)
        write_run(t, summary);
    json_decref(own);
    /* Its processes leave with it. */
    pid_t pids[256];
    for (;;) {
        size_t n = 0;
        for (size_t i = 0; i < a->procs.capacity && n < 256; i++)
            if (a->procs.keys[i] &&
                ((struct agent_proc *)pidmap_at(&a->procs, i))->task == t->id)
                pids[n++] = a->procs.keys[i];
        for (size_t i = 0; i < n; i++)
            drop_process(a, pids[i], true);
        if (n < 256)
            break;
    }
}

/* Removes ended tasks that nothing refers to any more. */
static void sweep_ended(struct agent *a)
{
    size_t k = 0;
    for (size_t i = 0; i < a->task_count; i++) {
        struct agent_task *t = a->tasks[i];
        if (t->ended && !t->runner)
            agent_task_free(t);
        else
            a->tasks[k++] = t;
    }
    a->task_count = k;
}

static bool limits_broken(const struct agent_task *t)
{
    const struct task_result *r = follower_result(t->follower);
    for (int f = 0; f < FIELD_COUNT; f++)
        if (r->limit_exceeded[f])
            return true;
    return false;
}

static void tasks_scan(struct agent *a, bool tick)
{
    bool any = false;
    for (size_t i = 0; i < a->task_count; i++)
        any |= !a->tasks[i]->ended;
    if (!any || a->scanning)
        return;
    a->scanning = true;
    a->scan_began = clock_monotonic_seconds();
    /* Marked first: the events of this scan run conditional requests at
     * once, and one naming an application of a task not yet scanned would
     * otherwise scan again from inside this one (a scan per new process,
     * nested as deep as the tree is large). */
    for (size_t i = 0; i < a->task_count; i++)
        a->tasks[i]->scanned = true;
    proc_scan_refresh_incremental(&a->scan, is_followed, a);
    proc_scan_assign_roots(&a->scan, is_tree_root, a);
    update_processes(a, clock_monotonic_seconds(), tick);
    a->scanning = false;
}

void agent_tasks_scan(struct agent *a)
{
    tasks_scan(a, false);
}

const struct agent_task *agent_task_of_rescanned(struct agent *a, pid_t pid)
{
    const struct agent_task *t = agent_task_of(a, pid);
    if (t || a->scanning || clock_monotonic_seconds() - a->scan_began < 0.01)
        return t;
    tasks_scan(a, false);
    return agent_task_of(a, pid);
}

void agent_tick(struct agent *a)
{
    double now = clock_monotonic_seconds();
    tasks_scan(a, true);
    for (size_t i = 0; i < a->task_count; i++) {
        struct agent_task *t = a->tasks[i];
        if (t->ended)
            continue;
        if (t->follower) {
            follower_take_scan(t->follower, &a->scan);
            follower_step(t->follower, now);
            memcpy(t->current, follower_current(t->follower), sizeof t->current);
            t->has_current = true;
            if (!t->limit_reported && limits_broken(t)) {
                t->limit_reported = true;
                a->up.event(a, AGENT_EVENT_LIMIT_EXCEEDED, t, t->root, NULL);
            }
            /* A runner's task ends with the runner's "finished" (its
             * summary has the exact totals); an attached one here. */
            if (follower_done(t->follower) && !t->runner)
                agent_task_end(a, t, NULL);
        } else if (!t->runner) {
            /* Its tally run went away without a summary (killed): the tree
             * ends when its processes are gone. */
            const struct scan_proc *r = proc_scan_get(&a->scan, t->root);
            bool alive = r && r->stat.starttime == t->root_start && r->stat.state != 'Z';
            bool any_proc = false;
            for (size_t k = 0; k < a->procs.capacity && !any_proc; k++)
                any_proc = a->procs.keys[k] &&
                           ((struct agent_proc *)pidmap_at(&a->procs, k))->task == t->id;
            if (!alive && !any_proc)
                agent_task_end(a, t, NULL);
        }
    }
    sweep_ended(a);
}
