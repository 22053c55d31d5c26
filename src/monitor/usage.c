/* Accounting of one task (see usage.h).
 *
 * Where each number comes from, and why it is exact:
 *  - cpu_time, context switches and page faults: at the end, the kernel's
 *    totals of the children tally reaped (getrusage RUSAGE_CHILDREN). The top
 *    process's total includes every descendant reaped below it, and tally is
 *    a child subreaper, so orphans are reaped by tally and counted too. During
 *    the run (series, limits): those totals plus, for every live process, its
 *    own and its reaped children's times from /proc/PID/stat.
 *  - bytes_read/written, storage_bytes_*: the same construction with I/O
 *    counters: the kernel adds a reaped child's counters to its parent's, so
 *    tally's /proc/self/io minus its own thread's is exactly what its reaped
 *    children and their descendants did (summing /proc/PID/io per process at
 *    exit would count a child twice, once in itself and once in its parent).
 *  - memory, virtual_memory, swap_memory, proportional_memory: the maximum
 *    over time of the sum over processes alive at the same moment. Updated at
 *    every sample (sum of current values) and at every exit (the exiting
 *    process's peak, VmHWM, plus the current values of the others, read afresh
 *    when there are few), so that short peaks are caught.
 *  - max_concurrent_processes, total_processes: from process events; at
 *    level 3 also from the I/O helper's reports (helper_reports.c), each pid
 *    counted once whichever told of it first.
 * The reaped-children totals belong to the whole tally process: tasks run
 * one after another are told apart by a baseline taken at usage_init; tasks
 * run at the same time in one process (a future agent) would need one
 * forked tally per task, or per-process exit readings instead. */
#include "monitor/usage.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "monitor/disk.h"
#include "monitor/proc_scan.h"
#include "platform/platform.h"
#include "util/clock.h"
#include "core/units.h"
#include "util/vec.h"

/* Read the others afresh at an exit when at most this many are alive. */
#define FRESH_READ_MAX_PROCESSES 32
/* Growth rate assumed when none was seen yet (MB/s), and the shortest gap
 * between samples near a limit. */
#define ASSUMED_GROWTH_MB_PER_S 1024.0
#define MIN_SAMPLE_GAP 0.005
#define FIRST_WARMUP_GAP 0.01
/* Below this peak RSS a process's PSS at exit is estimated from status. */
#define SMALL_PROCESS_BYTES (8u << 20)
/* Above this RSS, a process already measured by smaps_rollup has its PSS at
 * exit carried forward from that reading rather than read again: the walk
 * costs about 13 ms per GiB, paid while the process is held at its exit. */
#define PSS_WALK_AT_EXIT_MAX (1ull << 30)

struct usage_proc {
    unsigned long long starttime;
    uint64_t rss, vm, swap, pss;
    double cpu;            /* own + reaped children, seconds */
    bool has_sockets;      /* seen holding sockets: read them again at its exit */
    bool pss_walked;       /* pss was read from smaps_rollup ... */
    uint64_t private_at_walk; /* ... when statm said this much was private */
    struct proc_io io;     /* whole group, with reaped children */
};

static void update_network(struct usage *u);
static void read_reaped_raw(double *cpu, struct proc_io *io, struct rusage *ru);

double usage_now(void)
{
    return clock_monotonic_seconds();
}

static double mb(uint64_t bytes)
{
    return (double)bytes / BYTES_PER_MB;
}

/* Peak fields keep their maximum and when it was reached. */
static void raise_peak(struct usage *u, int field, double value)
{
    struct task_result *r = u->result;
    if (value > r->value[field] || r->peak_time[field] < 0) {
        if (value >= r->value[field]) {
            r->value[field] = value;
            r->peak_time[field] = usage_now() - u->start;
        }
    }
}

void usage_init(struct usage *u, const struct task_options *options, struct task_result *result)
{
    memset(u, 0, sizeof *u);
    u->options = options;
    u->result = result;
    pidmap_init(&u->procs, sizeof(struct usage_proc));
    pidmap_init(&u->counted, 1);
    pidmap_init(&u->ended, sizeof(unsigned long long));
    pidmap_init(&u->executable_index, sizeof(size_t));
    u->start = usage_now();
    u->start_epoch = clock_epoch_seconds();
    u->row_time = u->rate_time = u->start;
    u->next_regular = u->start + options->interval;
    u->next_warmup = INFINITY;
    u->disk_at = INFINITY;
    for (int i = 0; i < FIELD_COUNT; i++)
        result->peak_time[i] = -1;
    result->value[FIELD_START] = u->start_epoch;
    if (!options->foreign_tree)
        read_reaped_raw(&u->base_cpu, &u->base_io, &u->base_rusage);
    result->value[FIELD_MACHINE_CPUS] = machine_cpu_count();
}

void usage_free(struct usage *u)
{
    pidmap_free(&u->procs);
    pidmap_free(&u->counted);
    pidmap_free(&u->ended);
    pidmap_free(&u->executable_index);
    fileset_free(&u->files);
    net_usage_free(&u->net);
    disk_watch_stop(u->disk);
    u->disk = NULL;
}

bool usage_has_process(const struct usage *u, pid_t pid)
{
    return pidmap_get(&u->procs, pid) != NULL;
}

void usage_each_process(const struct usage *u, void (*fn)(void *ctx, pid_t pid), void *ctx)
{
    /* Collect first: fn may change the table. */
    size_t n = 0;
    pid_t *pids = malloc((u->procs.count + 1) * sizeof *pids);
    if (!pids)
        return;
    for (size_t i = 0; i < u->procs.capacity; i++)
        if (u->procs.keys[i])
            pids[n++] = u->procs.keys[i];
    for (size_t i = 0; i < n; i++)
        fn(ctx, pids[i]);
    free(pids);
}

static void check_limits(struct usage *u)
{
    const struct limit_set *limits = u->options->limits;
    if (!limits)
        return;
    double value[FIELD_COUNT];
    memcpy(value, u->result->value, sizeof value);
    /* Cumulative fields are compared by their current totals. */
    value[FIELD_WALL_TIME] = usage_now() - u->start;
    value[FIELD_CPU_TIME] = u->current[FIELD_CPU_TIME];
    value[FIELD_BYTES_READ] = u->current[FIELD_BYTES_READ];
    value[FIELD_BYTES_WRITTEN] = u->current[FIELD_BYTES_WRITTEN];
    value[FIELD_STORAGE_BYTES_READ] = u->current[FIELD_STORAGE_BYTES_READ];
    value[FIELD_STORAGE_BYTES_WRITTEN] = u->current[FIELD_STORAGE_BYTES_WRITTEN];
    value[FIELD_MAJOR_PAGE_FAULTS] = u->current[FIELD_MAJOR_PAGE_FAULTS];
    value[FIELD_BYTES_RECEIVED] = u->current[FIELD_BYTES_RECEIVED];
    value[FIELD_BYTES_SENT] = u->current[FIELD_BYTES_SENT];
    if (limits_check(limits, value, u->result->limit_exceeded) > 0)
        u->limit_broken = true;
}

bool usage_limit_action_needed(struct usage *u)
{
    if (!u->limit_broken || u->limits_reported)
        return false;
    u->limits_reported = true;
    return !u->options->measure_only;
}

/* Level 3: true the first time PID is told of, by a scan or by the helper
 * (a pid reused within one task is counted once). Below: always true. */
static bool first_telling(struct usage *u, pid_t pid)
{
    if (!u->options->io_dir || !*u->options->io_dir)
        return true;
    int created;
    return !pidmap_put(&u->counted, pid, &created) || created;
}

void usage_process_started(struct usage *u, pid_t pid)
{
    int created;
    struct usage_proc *p = pidmap_put(&u->procs, pid, &created);
    if (!p || !created)
        return;
    if (u->options->on_process)
        u->options->on_process(u->options->sample_ctx, pid, true);
    u->live++;
    if (u->live > u->live_max_since_row)
        u->live_max_since_row = u->live;
    if (first_telling(u, pid))
        u->result->value[FIELD_TOTAL_PROCESSES] += 1;
    guardian_watch(u->guardian, pid);
    raise_peak(u, FIELD_MAX_CONCURRENT_PROCESSES, u->live);
    check_limits(u);
}

static void add_file(void *ctx, const char *path)
{
    fileset_add(ctx, path);
}

/* Sums of the current memory values over live processes, except 'except'. */
struct memory_sums {
    double rss, vm, swap, pss;
};

/* smaps_rollup's PSS of a process that holds memory, with its private
 * resident memory at that moment (for carrying the PSS forward). */
static void walk_pss(pid_t pid, struct usage_proc *p)
{
    uint64_t pss;
    struct proc_statm statm;
    if (proc_read_pss(pid, &pss) < 0)
        return;
    p->pss = pss;
    p->pss_walked = proc_read_statm(pid, &statm) == 0;
    if (p->pss_walked)
        p->private_at_walk = statm.resident - statm.shared;
}

/* The PSS of a live process now: smaps_rollup for one that holds memory,
 * its private resident memory (from status) for a small one. */
static void read_pss(pid_t pid, struct usage_proc *p)
{
    struct proc_status status;
    if (p->rss >= SMALL_PROCESS_BYTES) {
        walk_pss(pid, p);
    } else if (proc_read_status(pid, &status) == 0) {
        p->pss = status.rss_anon + status.rss_shmem;
    }
}

/* Sums over live processes except 'except'. fresh: read their current
 * values first (rss and vm; PSS too with fresh_pss). */
static void sum_memory(struct usage *u, pid_t except, bool fresh, bool fresh_pss,
                       struct memory_sums *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < u->procs.capacity; i++) {
        pid_t pid = u->procs.keys[i];
        if (!pid || pid == except)
            continue;
        struct usage_proc *p = pidmap_at(&u->procs, i);
        struct proc_stat st;
        if (fresh && proc_read_stat(pid, &st) == 0) {
            p->rss = st.rss_bytes;
            p->vm = st.vm_bytes;
            if (fresh_pss)
                read_pss(pid, p);
        } else if (fresh) {
            /* Gone, not yet told (level 3: a process no tracer follows
             * ends unseen until a scan): it holds nothing any more. */
            p->rss = p->vm = p->swap = p->pss = 0;
        }
        s->rss += mb(p->rss);
        s->vm += mb(p->vm);
        s->swap += mb(p->swap);
        s->pss += mb(p->pss);
    }
}

void usage_process_gone(struct usage *u, pid_t pid, uint64_t peak_rss)
{
    if (!pidmap_get(&u->procs, pid))
        return;
    if (peak_rss > 0) {
        /* Its exact peak with the others as last read (at its exit stop). */
        struct memory_sums others;
        sum_memory(u, pid, false, false, &others);
        raise_peak(u, FIELD_MEMORY, mb(peak_rss) + others.rss);
        check_limits(u);
    }
    pidmap_remove(&u->procs, pid);
    u->live--;
    if (u->options->on_process)
        u->options->on_process(u->options->sample_ctx, pid, false);
}

/* Level 3: which executable the process ran last, to tell the processes
 * the I/O helper did not reach (static, setuid) from those it did. */
void usage_process_reported(struct usage *u, pid_t pid)
{
    if (!first_telling(u, pid))
        return;
    u->result->value[FIELD_TOTAL_PROCESSES] += 1;
    check_limits(u);
}

void usage_note_executable(struct usage *u, pid_t pid)
{
    struct task_result *r = u->result;
    char path[4096];
    if (proc_read_exe(pid, path, sizeof path) < 0)
        return; /* gone meanwhile: what an earlier scan saw stays */
    int created;
    size_t *at = pidmap_put(&u->executable_index, pid, &created);
    if (!at)
        return;
    if (!created) {
        if (strcmp(r->executables[*at].path, path)) {
            char *copy = strdup(path);
            if (copy) {
                free(r->executables[*at].path);
                r->executables[*at].path = copy;
                r->executables[*at].without_helper = false;
            }
        }
        return;
    }
    char *copy = strdup(path);
    if (!copy || VEC_RESERVE(r->executables, u->executable_capacity, r->executable_count + 1) < 0) {
        free(copy);
        pidmap_remove(&u->executable_index, pid);
        return;
    }
    *at = r->executable_count;
    r->executables[r->executable_count].pid = pid;
    r->executables[r->executable_count].path = copy;
    r->executables[r->executable_count].without_helper = false;
    r->executable_count++;
}

void usage_note_without_helper(struct usage *u, pid_t pid)
{
    usage_note_executable(u, pid);
    const size_t *at = pidmap_get(&u->executable_index, pid);
    if (at)
        u->result->executables[*at].without_helper = true;
}

const char *usage_executable(const struct usage *u, pid_t pid)
{
    const size_t *at = pidmap_get(&u->executable_index, pid);
    return at ? u->result->executables[*at].path : NULL;
}

void usage_note_ended(struct usage *u, pid_t pid)
{
    struct proc_stat st;
    if (proc_read_stat(pid, &st) < 0)
        return;
    unsigned long long *at = pidmap_put(&u->ended, pid, NULL);
    if (at)
        *at = st.starttime;
}

bool usage_ended(const struct usage *u, pid_t pid, unsigned long long starttime)
{
    const unsigned long long *at = pidmap_get(&u->ended, pid);
    return at && *at == starttime;
}

void usage_forget_ended(struct usage *u)
{
    if (!u->ended.count)
        return;
    pidmap_free(&u->ended);
    pidmap_init(&u->ended, sizeof(unsigned long long));
}

bool usage_process_exiting(struct usage *u, pid_t pid)
{
    struct usage_proc *p = pidmap_get(&u->procs, pid);
    struct proc_status *status = &u->exit_status;
    u->exit_pending = 0;
    /* One file (~17 us) gives its peaks exactly (VmHWM, VmPeak), its swap,
     * its private memory and whether another thread is left. */
    if (!p || proc_read_status(pid, status) < 0)
        return false;
    uint64_t private_now = status->rss_anon; /* statm's resident - shared */
    if (status->vm_rss >= SMALL_PROCESS_BYTES) {
        /* A process that holds memory: its PSS from smaps_rollup (a
         * page-table walk), except for a very large one already walked:
         * its PSS then moves by its private memory since (pages it shares
         * are counted as they were). */
        if (p->pss_walked && status->vm_rss > PSS_WALK_AT_EXIT_MAX) {
            double pss = (double)p->pss + (double)private_now - (double)p->private_at_walk;
            p->pss = (uint64_t)fmin(fmax(pss, (double)private_now), (double)status->vm_rss);
        } else {
            walk_pss(pid, p);
        }
    } else {
        /* A small one, like most short processes: its private memory
         * stands for its PSS. */
        p->pss = status->rss_anon + status->rss_shmem;
    }
    p->swap = status->vm_swap;
    if (u->options->track_files)
        proc_visit_open_files(pid, add_file, &u->files);
    if (p->has_sockets) { /* the last counters, before the sockets close (if not yet closed) */
        net_usage_add_process(&u->net, pid);
        net_usage_refresh(&u->net);
        update_network(u);
    }
    u->exit_pending = pid;
    return status->threads <= 1;
}

void usage_account_exit(struct usage *u)
{
    pid_t pid = u->exit_pending;
    struct usage_proc *p = pidmap_get(&u->procs, pid);
    u->exit_pending = 0;
    if (!p)
        return;
    const struct proc_status *status = &u->exit_status;
    struct memory_sums others;
    /* The others are read afresh (when few) only when this exit can make a
     * new peak: the exiting process held memory. A small one adds little to
     * sums that samples and the others' own exits already bound. */
    bool fresh = u->live <= FRESH_READ_MAX_PROCESSES && status->vm_hwm >= SMALL_PROCESS_BYTES;
    sum_memory(u, pid, fresh, fresh, &others);
    raise_peak(u, FIELD_MEMORY, mb(status->vm_hwm) + others.rss);
    raise_peak(u, FIELD_VIRTUAL_MEMORY, mb(status->vm_peak) + others.vm);
    raise_peak(u, FIELD_SWAP_MEMORY, mb(status->vm_swap) + others.swap);
    raise_peak(u, FIELD_PROPORTIONAL_MEMORY, mb(p->pss) + others.pss);
    check_limits(u);
}

/* GPUs on which a live process of the task runs (NVML; 0 without it). */
static void update_gpus(struct usage *u)
{
    pid_t pids[256];
    size_t n = 0;
    for (size_t i = 0; i < u->procs.capacity && n < sizeof pids / sizeof pids[0]; i++)
        if (u->procs.keys[i])
            pids[n++] = u->procs.keys[i];
    double gpus = gpu_count_in_use(pids, n);
    u->current[FIELD_GPUS] = gpus;
    raise_peak(u, FIELD_GPUS, gpus);
}

static void update_network(struct usage *u)
{
    net_usage_totals(&u->net, &u->current[FIELD_BYTES_RECEIVED], &u->current[FIELD_BYTES_SENT]);
}

/* The kernel's totals of the children reaped since the task started (tally
 * may have run other tasks before in the same process: their share, taken
 * at usage_init, is subtracted). ru's maxrss is left as the kernel gives it. */
static void read_reaped_raw(double *cpu, struct proc_io *io, struct rusage *ru)
{
    getrusage(RUSAGE_CHILDREN, ru);
    *cpu = (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 +
           (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
    if (io && proc_reaped_children_io(io) < 0)
        memset(io, 0, sizeof *io);
}

static void reaped_children_totals(const struct usage *u, double *cpu, struct proc_io *io,
                                   struct rusage *ru)
{
    if (u->options->foreign_tree) { /* not ours: nothing of it is reaped here */
        *cpu = 0;
        memset(ru, 0, sizeof *ru);
        if (io)
            memset(io, 0, sizeof *io);
        return;
    }
    read_reaped_raw(cpu, io, ru);
    const struct rusage *b = &u->base_rusage;
    *cpu -= u->base_cpu;
    ru->ru_minflt -= b->ru_minflt;
    ru->ru_majflt -= b->ru_majflt;
    ru->ru_nvcsw -= b->ru_nvcsw;
    ru->ru_nivcsw -= b->ru_nivcsw;
    if (io) {
        io->rchar -= u->base_io.rchar;
        io->wchar -= u->base_io.wchar;
        io->read_bytes -= u->base_io.read_bytes;
        io->write_bytes -= u->base_io.write_bytes;
    }
}

static bool bytes_limit_set(const struct limit_set *l)
{
    return l && (l->set[FIELD_BYTES_READ] || l->set[FIELD_BYTES_WRITTEN] ||
                 l->set[FIELD_STORAGE_BYTES_READ] || l->set[FIELD_STORAGE_BYTES_WRITTEN]);
}

static void take_disk(struct usage *u, const struct disk_usage *d)
{
    u->current[FIELD_DISK] = d->megabytes;
    u->current[FIELD_TOTAL_FILES] = d->files;
    raise_peak(u, FIELD_DISK, d->megabytes);
    raise_peak(u, FIELD_TOTAL_FILES, d->files);
}

/* The walks' first is half an interval after the start, in time for the
 * first regular sample (one interval after the start), the first to take a
 * walk's figures: a walk at the start, as made before, was thrown away
 * unseen by every task shorter than the interval, which have the end's walk
 * only (disk_measure of a repository of 3,300 entries cost 7.4 ms of CPU,
 * cold, more than the rest of tally's work for a 0.13 s task); and so was
 * the walker thread (usage_schedule_background), started and stopped (0.2
 * to 0.3 ms of CPU) without ever walking. */
void usage_start_background(struct usage *u)
{
    if (u->options->skip_disk || u->disk)
        return;
    u->disk = disk_watch_start(u->options->measure_dirs, u->options->measure_dir_count,
                               u->options->interval, u->options->interval / 2);
}

void usage_schedule_background(struct usage *u)
{
    if (u->options->skip_disk || u->disk)
        return;
    u->disk_at = usage_now() + u->options->interval / 2;
}

/* How early the walker may start: more than the loops' own margin for a
 * sample that is due (0.5 ms; the agent's follower 5% of the interval), so
 * that a loop woken just before the walker's start never takes it for a
 * sample's: it starts the walker instead, and sleeps on. */
static double background_margin(const struct usage *u)
{
    return fmax(0.001, 0.1 * u->options->interval);
}

void usage_start_background_when_due(struct usage *u)
{
    if (u->disk_at - usage_now() > background_margin(u))
        return;
    u->disk_at = INFINITY;
    u->disk = disk_watch_start(u->options->measure_dirs, u->options->measure_dir_count,
                               u->options->interval, 0);
}

static void emit_row(struct usage *u, double now)
{
    struct task_sample s;
    memset(&s, 0, sizeof s);
    s.wall_clock = u->start_epoch + (now - u->start);
    memcpy(s.value, u->current, sizeof s.value);
    s.value[FIELD_MAX_CONCURRENT_PROCESSES] = u->live_max_since_row;
    s.current_processes = u->live;
    u->live_max_since_row = u->live;
    if (u->options->on_sample)
        u->options->on_sample(u->options->sample_ctx, &s);
}

/* cores over the interval since the previous regular sample. */
static void update_cores(struct usage *u, double now, double cpu)
{
    double dt = now - u->row_time;
    if (dt <= 0)
        return;
    double cores = fmax(0, cpu - u->row_cpu) / dt;
    double machine = u->result->value[FIELD_MACHINE_CPUS];
    if (cores > machine) /* tick rounding of /proc times; the machine cannot do more */
        cores = machine;
    u->current[FIELD_CORES] = cores;
    raise_peak(u, FIELD_CORES, cores);
    u->row_time = now;
    u->row_cpu = cpu;
}

/* /proc/PID/stat, from the caller's fresh scan when there is one (a
 * follower in the agent: the scan has just read it). */
static int sample_stat(const struct usage *u, pid_t pid, struct proc_stat *st)
{
    if (u->scan) {
        const struct scan_proc *e = proc_scan_get(u->scan, pid);
        if (e && !e->kept) {
            *st = e->stat;
            return 0;
        }
    }
    return proc_read_stat(pid, st);
}

void usage_sample(struct usage *u, bool regular)
{
    double now = usage_now();
    /* The costlier readings (status for swap, smaps_rollup — a page-table
     * walk under the task's mmap lock —, open fds for files and sockets) are
     * taken at regular samples, but no more often than keeps them near 1% of
     * the time when the task has many or large processes. */
    bool details_due = regular && now >= u->next_details;
    bool read_io = (regular && (details_due || !u->options->io_with_details)) ||
                   bytes_limit_set(u->options->limits);
    struct memory_sums sums = {0};
    double cpu_live = 0;
    struct proc_io io_live = {0};
    uint64_t majflt_live = 0;
    for (size_t i = 0; i < u->procs.capacity; i++) {
        pid_t pid = u->procs.keys[i];
        if (!pid)
            continue;
        struct usage_proc *p = pidmap_at(&u->procs, i);
        struct proc_stat st;
        if (sample_stat(u, pid, &st) == 0 && st.state != 'Z') {
            p->rss = st.rss_bytes;
            p->vm = st.vm_bytes;
            p->cpu = st.cpu_self + st.cpu_children;
            majflt_live += st.majflt;
            if (details_due) {
                struct proc_status status;
                if (proc_read_status(pid, &status) == 0) {
                    p->swap = status.vm_swap;
                    if (p->rss < SMALL_PROCESS_BYTES)
                        p->pss = status.rss_anon + status.rss_shmem;
                }
                if (p->rss >= SMALL_PROCESS_BYTES)
                    read_pss(pid, p);
                if (u->options->track_files)
                    proc_visit_open_files(pid, add_file, &u->files);
                if (net_usage_add_process(&u->net, pid) > 0)
                    p->has_sockets = true;
            }
            if (read_io)
                proc_read_io(pid, &p->io);
        }
        sums.rss += mb(p->rss);
        sums.vm += mb(p->vm);
        sums.swap += mb(p->swap);
        sums.pss += mb(p->pss);
        cpu_live += p->cpu;
        io_live.rchar += p->io.rchar;
        io_live.wchar += p->io.wchar;
        io_live.read_bytes += p->io.read_bytes;
        io_live.write_bytes += p->io.write_bytes;
    }
    u->current[FIELD_MEMORY] = sums.rss;
    u->current[FIELD_VIRTUAL_MEMORY] = sums.vm;
    u->current[FIELD_SWAP_MEMORY] = sums.swap;
    u->current[FIELD_PROPORTIONAL_MEMORY] = sums.pss;
    raise_peak(u, FIELD_MEMORY, sums.rss);
    raise_peak(u, FIELD_VIRTUAL_MEMORY, sums.vm);
    raise_peak(u, FIELD_SWAP_MEMORY, sums.swap);
    raise_peak(u, FIELD_PROPORTIONAL_MEMORY, sums.pss);

    struct rusage ru;
    struct proc_io io_reaped;
    double cpu_reaped;
    reaped_children_totals(u, &cpu_reaped, read_io ? &io_reaped : NULL, &ru);
    double cpu = fmax(u->cpu_now, cpu_reaped + cpu_live); /* never backwards */
    u->cpu_now = cpu;
    u->current[FIELD_CPU_TIME] = cpu;
    u->current[FIELD_MAJOR_PAGE_FAULTS] = (double)ru.ru_majflt + (double)majflt_live;
    if (read_io) {
        u->current[FIELD_BYTES_READ] = mb(io_reaped.rchar + io_live.rchar);
        u->current[FIELD_BYTES_WRITTEN] = mb(io_reaped.wchar + io_live.wchar);
        u->current[FIELD_STORAGE_BYTES_READ] = mb(io_reaped.read_bytes + io_live.read_bytes);
        u->current[FIELD_STORAGE_BYTES_WRITTEN] = mb(io_reaped.write_bytes + io_live.write_bytes);
    }
    u->current[FIELD_WALL_TIME] = now - u->start;
    if (regular) { /* known sockets: one netlink dump, nothing when there are none */
        net_usage_refresh(&u->net);
        update_network(u);
    }
    if (details_due)
        update_gpus(u);

    /* Growth rates of the quantities, for the next sample time near a limit. */
    double dt = now - u->rate_time;
    if (dt > 0)
        for (int f = 0; f < FIELD_COUNT; f++) {
            u->rate[f] = (u->current[f] - u->rate_value[f]) / dt;
            u->rate_value[f] = u->current[f];
        }

    if (details_due) {
        double took = usage_now() - now;
        u->next_details = now + fmax(fmax(u->options->interval, u->options->details_every), 100 * took);
    }
    if (regular) {
        update_cores(u, now, cpu);
        struct disk_usage d;
        if (u->disk && disk_watch_latest(u->disk, &d))
            take_disk(u, &d);
        emit_row(u, now);
        u->next_regular = now + u->options->interval;
    }
    if (now >= u->next_warmup) { /* doubling gaps until the interval takes over */
        double next = u->start + 2 * (now - u->start);
        u->next_warmup = next < u->next_regular ? next : INFINITY;
    }
    check_limits(u);
    u->rate_time = now;
}

void usage_enable_warmup(struct usage *u)
{
    u->next_warmup = u->start + FIRST_WARMUP_GAP;
}

bool usage_warmup_due(const struct usage *u)
{
    return usage_now() >= u->next_warmup;
}

bool usage_regular_due(const struct usage *u)
{
    return usage_now() >= u->next_regular;
}

double usage_next_sample_in(const struct usage *u)
{
    double now = usage_now();
    double next = fmin(fmin(u->next_regular, u->next_warmup), u->disk_at);
    const struct limit_set *l = u->options->limits;
    if (l && !u->limit_broken) {
        for (int f = 0; f < FIELD_COUNT; f++) {
            if (!l->set[f])
                continue;
            const struct summary_field *field = summary_field_by_id(f);
            double gap = -1;
            if (f == FIELD_WALL_TIME) {
                gap = l->max[f] - (now - u->start) + 0.001;
            } else if (f == FIELD_CPU_TIME) {
                gap = (l->max[f] - u->current[f]) / u->result->value[FIELD_MACHINE_CPUS];
            } else if (field->dim == DIM_BYTES && f != FIELD_DISK) {
                /* Sample often enough that growing at the assumed rate
                 * (or faster, as last seen) would only reach half of the headroom left. */
                gap = (l->max[f] - u->current[f]) / fmax(ASSUMED_GROWTH_MB_PER_S, u->rate[f]) / 2;
            }
            if (gap >= 0 || f == FIELD_WALL_TIME || f == FIELD_CPU_TIME)
                next = fmin(next, u->rate_time + fmax(gap, MIN_SAMPLE_GAP));
        }
    }
    return next > now ? next - now : 0;
}

void usage_finish(struct usage *u, bool reaped_all)
{
    struct task_result *r = u->result;
    double now = usage_now();
    if (reaped_all) {
        struct rusage ru;
        struct proc_io io;
        double cpu;
        reaped_children_totals(u, &cpu, &io, &ru);
        u->current[FIELD_CPU_TIME] = cpu;
        u->current[FIELD_BYTES_READ] = mb(io.rchar);
        u->current[FIELD_BYTES_WRITTEN] = mb(io.wchar);
        u->current[FIELD_STORAGE_BYTES_READ] = mb(io.read_bytes);
        u->current[FIELD_STORAGE_BYTES_WRITTEN] = mb(io.write_bytes);
        u->current[FIELD_MINOR_PAGE_FAULTS] = (double)ru.ru_minflt;
        u->current[FIELD_MAJOR_PAGE_FAULTS] = (double)ru.ru_majflt;
        r->value[FIELD_CONTEXT_SWITCHES] = (double)ru.ru_nvcsw + (double)ru.ru_nivcsw;
        /* The largest single process peak (ru_maxrss, KB) bounds the sum from
         * below (when it is this task's: it is a maximum over tally's life). */
        if (ru.ru_maxrss > u->base_rusage.ru_maxrss)
            raise_peak(u, FIELD_MEMORY, (double)ru.ru_maxrss / 1024.0);
    }
    /* Cumulative fields: their final totals, reached at the end. */
    static const int cumulative[] = {
        FIELD_CPU_TIME, FIELD_BYTES_READ, FIELD_BYTES_WRITTEN, FIELD_STORAGE_BYTES_READ,
        FIELD_STORAGE_BYTES_WRITTEN, FIELD_MINOR_PAGE_FAULTS, FIELD_MAJOR_PAGE_FAULTS,
        FIELD_BYTES_RECEIVED, FIELD_BYTES_SENT,
    };
    for (size_t i = 0; i < sizeof cumulative / sizeof cumulative[0]; i++) {
        r->value[cumulative[i]] = u->current[cumulative[i]];
        r->peak_time[cumulative[i]] = now - u->start;
    }
    double wall = now - u->start;
    r->value[FIELD_END] = u->start_epoch + wall;
    r->value[FIELD_WALL_TIME] = wall;
    r->peak_time[FIELD_WALL_TIME] = wall;
    r->value[FIELD_CORES_AVG] = wall > 0 ? r->value[FIELD_CPU_TIME] / wall : 0;
    /* The last (partial) interval counts for cores (the peak, and the last
     * row of the series) when it is long enough for /proc's tick-rounded
     * times not to dominate, or when it is all there is. */
    double last = now - u->row_time;
    if (r->peak_time[FIELD_CORES] < 0 || last >= 0.1) {
        double cores = last > 0 ? fmax(0, r->value[FIELD_CPU_TIME] - u->row_cpu) / last : 0;
        if (r->peak_time[FIELD_CORES] < 0)
            cores = r->value[FIELD_CORES_AVG];
        cores = fmin(cores, r->value[FIELD_MACHINE_CPUS]);
        raise_peak(u, FIELD_CORES, cores);
        u->current[FIELD_CORES] = cores;
    }
    /* The directories once more, as the task left them. */
    disk_watch_stop(u->disk);
    u->disk = NULL;
    struct disk_usage d;
    if (!u->options->skip_disk) {
        disk_measure(u->options->measure_dirs, u->options->measure_dir_count, &d);
        take_disk(u, &d);
    }
    r->value[FIELD_MACHINE_LOAD] = machine_load_average();
    check_limits(u);
    if (u->options->track_files)
        r->files = fileset_take_sorted(&u->files, &r->file_count);
    /* The last point of the series. */
    u->current[FIELD_CPU_TIME] = r->value[FIELD_CPU_TIME];
    emit_row(u, now);
}
