/* Everything tally needs from the operating system to follow a process tree,
 * behind one interface (as htop does): per-process counters, the I/O of
 * reaped children, process launch, process events, machine facts and GPUs.
 * The Linux implementation lives in platform/linux/. All readers are cheap:
 * one open/read/close into a stack buffer, no stdio. */
#ifndef TALLY_PLATFORM_PLATFORM_H
#define TALLY_PLATFORM_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- per-process counters (procfs) ---- */

struct proc_stat {           /* /proc/PID/stat */
    pid_t ppid;
    char state;
    double cpu_self;         /* utime + stime, seconds */
    double cpu_children;     /* cutime + cstime: children this process reaped */
    uint64_t vm_bytes;       /* vsize */
    uint64_t rss_bytes;
    uint64_t minflt, majflt;
    unsigned long long starttime; /* clock ticks after boot: tells a reused pid apart */
};

struct proc_status {         /* /proc/PID/status (bytes) */
    uint64_t vm_peak, vm_size, vm_hwm, vm_rss, vm_swap;
    uint64_t rss_anon, rss_shmem;
    uint64_t context_switches;    /* voluntary + nonvoluntary (counts, not bytes) */
    int threads;
};

struct proc_statm {          /* /proc/PID/statm (bytes): cheap, current values only */
    uint64_t size, resident, shared;
};

struct proc_io {             /* /proc/PID/io */
    uint64_t rchar, wchar, read_bytes, write_bytes;
};

int proc_read_stat(pid_t pid, struct proc_stat *out);
int proc_read_status(pid_t pid, struct proc_status *out);
int proc_read_statm(pid_t pid, struct proc_statm *out);
/* The owner of process pid (the uid of /proc/PID). -1 when it is gone. */
int proc_owner(pid_t pid, uid_t *uid);
/* Its command name (/proc/PID/comm, without the newline) into out; "" and
 * -1 when it cannot be read. */
int proc_read_comm(pid_t pid, char *out, size_t size);
/* The path of the running program (/proc/self/exe) into out. -1 when it
 * cannot be read or does not fit. */
int proc_self_exe(char *out, size_t size);
/* Whole thread group, including the children it reaped. */
int proc_read_io(pid_t pid, struct proc_io *out);
/* Pids of this host: its upper bound (/proc/sys/kernel/pid_max, or the
 * kernel's hard limit PID_KERNEL_LIMIT when that cannot be read), whether a
 * number read from a message is a pid at all (in (0, pid_max]), and a pid
 * read from text (util's pid_parse with this host's pid_max: the whole
 * string, digits only). Every reader of a pid goes through one of these
 * before casting to pid_t (4294967297 cast to pid_t is 1). */
long long proc_pid_max(void);
bool proc_pid_in_range(long long value);
int proc_pid_parse(const char *text, pid_t *out);
/* Proportional set size (smaps_rollup Pss), bytes. */
int proc_read_pss(pid_t pid, uint64_t *pss_bytes);
/* CPU time of the process's live threads in nanoseconds (the sum of
 * /proc/PID/task/TID/schedstat's first field): exact, where stat's times
 * are in clock ticks (10 ms), so rates over short periods stay exact too.
 * Reaped children are not in it. */
int proc_read_cpu_ns(pid_t pid, uint64_t *ns);
/* I/O of the children this process has reaped so far (with their own
 * reaped descendants): the kernel adds a reaped child's counters to its
 * parent's; tally's own reads are subtracted. Exact. */
int proc_reaped_children_io(struct proc_io *out);
/* The executable of pid (/proc/PID/exe) into out; -1 when unreadable. */
int proc_read_exe(pid_t pid, char *out, size_t len);
/* Calls visit(ctx, target) with what each open fd of pid points to
 * ("/path", "socket:[123]", "pipe:[45]", ...). */
int proc_visit_fd_targets(pid_t pid, void (*visit)(void *ctx, const char *target), void *ctx);
/* Calls visit(ctx, path) for each file (absolute path) open in pid. */
int proc_visit_open_files(pid_t pid, void (*visit)(void *ctx, const char *path), void *ctx);
/* Calls visit(ctx, inode) for each socket open in pid. */
int proc_visit_sockets(pid_t pid, void (*visit)(void *ctx, uint64_t inode), void *ctx);
/* The owner (uid) of the other end of the IPv4 TCP connection fd when that
 * end is a socket of this host (a loopback client): the kernel's record of
 * it (NETLINK_SOCK_DIAG). -1 when it is not this host's or unknown. */
int tcp_peer_uid(int fd, uid_t *uid);
/* Calls visit for every TCP socket of the machine (IPv4 and IPv6) with the
 * bytes received and sent (acknowledged) through it so far. */
int net_visit_tcp(void (*visit)(void *ctx, uint64_t inode, uint64_t received, uint64_t sent),
                  void *ctx);
/* Calls visit(ctx, pid, &stat) for every process on the machine. */
int proc_visit_all(void (*visit)(void *ctx, pid_t pid, const struct proc_stat *stat), void *ctx);
/* Calls visit(ctx, pid, &stat) for root (when running) and every process
 * below it, found through /proc/PID/task/TID/children: what it reads is the
 * tree, whatever else runs on the machine. Zombies are visited (their own
 * children were re-parented). -1 with errno ENOSYS when the kernel has no
 * children files (CONFIG_PROC_CHILDREN): scan the machine instead. */
int proc_visit_tree(pid_t root, void (*visit)(void *ctx, pid_t pid, const struct proc_stat *stat),
                    void *ctx);
/* Calls visit(ctx, tid) for every thread of pid (/proc/PID/task); -1 when
 * it cannot be listed. */
int proc_visit_threads(pid_t pid, void (*visit)(void *ctx, pid_t tid), void *ctx);
/* Calls visit(ctx, pid) for every process on the machine, reading nothing
 * else (one directory listing). */
int proc_visit_pids(void (*visit)(void *ctx, pid_t pid), void *ctx);

/* ---- launching ---- */

/* Forks a child that execs argv (execvp) once the parent has prepared it.
 * flags: LAUNCH_TRACED: the parent seizes it with ptrace first (process
 * events followed; true means this flag). LAUNCH_GUARDED: a guardian ends
 * the tree if tally dies, so the child is not given PR_SET_PDEATHSIG (which
 * would end it alone, at once, cutting its children's link to the tree).
 * The child's exec error, if any, is read later with launch_exec_errno.
 * Returns 0; -1 on failure; -2 when ptrace is refused (the child was killed:
 * reap out->pid, then the caller may launch again untraced). */
struct launch {
    pid_t pid;
    int error_fd;            /* read end of a close-on-exec pipe */
};
#define LAUNCH_TRACED 1u
#define LAUNCH_GUARDED 2u
#define LAUNCH_EXEC_EVENTS 4u /* with LAUNCH_TRACED: the tracer reports execs (TRACER_EXEC) */
int launch_command(char *const argv[], unsigned flags, struct launch *out);
/* 0 when the exec succeeded, else its errno. Call after the child ended. */
int launch_exec_errno(struct launch *launch);

/* ---- process events (ptrace, no system-call stops) ---- */

enum tracer_event_kind {
    TRACER_NEW_PROCESS,  /* pid was created by parent (a process, not a thread) */
    TRACER_EXITING,      /* pid is exiting and still readable in /proc: read it, then tracer_resume */
    TRACER_GONE,         /* pid (a whole process) has ended; status as from waitpid */
    TRACER_INTERRUPTED,  /* a signal arrived (timer, interrupt): nothing else happened */
    TRACER_NO_PROCESSES, /* nothing left to follow */
    TRACER_EXEC,         /* pid has exec'd (launched with LAUNCH_EXEC_EVENTS), stopped before
                          * its new image's first instruction: tracer_resume or tracer_let_go */
};

struct tracer_event {
    enum tracer_event_kind kind;
    pid_t pid;
    pid_t parent;
    int status;
    uint64_t peak_rss;   /* TRACER_GONE: the process's peak resident memory (bytes), when it
                          * was followed to its death; else 0 */
};

struct tracer;
/* Follows the tree of an already seized process (launch_command traced).
 * poll_window: longest poll for the next event during bursts (seconds, 0:
 * never; see event_wait.c). */
struct tracer *tracer_new(pid_t top, double poll_window);
void tracer_free(struct tracer *tracer);
/* Waits for the next event worth reporting; handles all other stops
 * (signal re-injection, group stops, new threads) itself. */
void tracer_next(struct tracer *tracer, struct tracer_event *event);
/* Lets a process stopped at TRACER_EXITING or TRACER_EXEC go on. */
void tracer_resume(struct tracer *tracer, pid_t pid);
/* Lets a process stopped at TRACER_EXITING go on and stops following it
 * (PTRACE_DETACH): its death then goes straight to its parent instead of
 * through the tracer, one round trip less per process. For a process whose
 * exit readings are complete and that has no other thread left; no
 * TRACER_GONE follows for it. At TRACER_EXEC: the process and the
 * children it will start are no longer followed (a TRACER_GONE comes only
 * if it is tally's own child). Returns false (and resumes it as
 * tracer_resume) when it cannot be detached. */
bool tracer_let_go(struct tracer *tracer, pid_t pid);
/* Starts following a running process found another way (a scan), with
 * every thread it has and the children it starts from now on, with exec
 * events; it is not stopped. False when it cannot be traced (gone, or not
 * tally's to trace). */
bool tracer_adopt(struct tracer *tracer, pid_t pid);
/* True when pid is one of the processes (or threads) followed. */
bool tracer_follows(const struct tracer *tracer, pid_t pid);

/* ---- a new image, at its exec stop (exec_image.c) ---- */

struct proc_loader {
    bool dynamic; /* the kernel loaded an interpreter for it (the loader runs) */
    bool secure;  /* AT_SECURE: setuid/setgid: the loader ignores LD_PRELOAD */
};
/* From /proc/PID/auxv; -1 when unreadable, or when pid is inside an exec
 * that has not yet set its new image's stack up (auxiliary vector and
 * environment: read again later). */
int proc_read_loader(pid_t pid, struct proc_loader *out);
/* The values of names[0..count) (count <= 31) in the environment pid's
 * image was started with (/proc/PID/environ, read once) into values[i]
 * (truncated to size): a bit mask of those set (bit i: names[i]), -1 when
 * unreadable. */
int proc_read_environ_vars(pid_t pid, size_t count, const char *const names[], char *const values[],
                           size_t size);

/* ---- ending a tree whose monitor is gone (tree_end.c) ---- */

struct pidmap;
/* A process of the tree, in a pidmap keyed by pid: its start time (field 22
 * of /proc/PID/stat) tells it from a later process reusing the pid. */
struct proc_tree_member {
    unsigned long long starttime;
};
/* Stops every live process of `known` and every descendant of one
 * (scanning until the set no longer grows, adding them to known), then
 * kills them all with SIGKILL. Takes at most about 2 s. Returns how many
 * processes were killed. */
size_t proc_tree_end(struct pidmap *known);
/* The same for the n trees known[0..n), each round one scan of /proc for all of
 * them (still about 2 s at most in all); ended[k] (when not NULL): how many
 * processes of tree k were killed. */
void proc_trees_end(struct pidmap *known, size_t n, size_t ended[]);

/* ---- the guardian (guardian.c): nothing of a task outlives a killed tally ---- */

struct guardian;
/* Starts the guardian process, before the task and before tally becomes a
 * child subreaper. scratch_dirs[0..n): directories of files the run made
 * for its processes (segments, the I/O helper's regions) that the guardian
 * removes after ending the tree if tally dies (read now: the guardian is a
 * fork). NULL when it cannot be started. */
struct guardian *guardian_start(const char *const *scratch_dirs, size_t n);
/* pid belongs to the task: the guardian ends it (and what descends from it)
 * if tally dies before guardian_stop. */
void guardian_watch(struct guardian *g, pid_t pid);
/* The task is over: the guardian exits, ending nothing. Frees g. */
void guardian_stop(struct guardian *g);

/* ---- machine ---- */

int machine_cpu_count(void);
/* Tasks runnable on the machine right now, the caller included (the
 * fourth field of /proc/loadavg); -1 when unreadable. */
int proc_runnable_tasks(void);
double machine_load_average(void);
/* The 1, 5 and 15 minute load averages; 0s and -1 when unreadable. */
int machine_load_averages(double load[3]);
/* Seconds since boot (/proc/uptime); 0 when unreadable. */
double machine_uptime(void);
/* A line of /proc/meminfo (KEY: N kB, e.g. "MemTotal") in MB; 0 when absent. */
double machine_meminfo_mb(const char *key);
/* The whole host at one moment (host.c): capacities, and cumulative
 * counters of everything that runs on it, whoever runs it. */
struct host_sample {
    int cores;               /* online CPUs */
    double cpu_busy;         /* CPU-seconds busy since boot, all users (/proc/stat) */
    double memory_total;     /* MemTotal, MB (2^20 B) */
    double memory_used;      /* MemTotal - MemAvailable, MB */
    double disk_read, disk_written;   /* MB since boot, whole physical disks */
    double net_received, net_sent;    /* MB since boot, all interfaces but lo */
    double net_bandwidth;    /* MB/s, the interfaces' link speeds; 0 when unknown */
};
/* Returns -1 when /proc/stat or /proc/meminfo cannot be read. */
int host_read_sample(struct host_sample *out);
/* The interfaces' link speeds (/sys/class/net/IF/speed of those up, lo
 * aside) in MB/s; 0 when none says. */
double host_network_bandwidth(void);

/* A disk's sequential speed, measured (disk_speed.c) by writing `bytes` of
 * incompressible data to a new file in a directory, synced, then reading
 * them back; the file is unlinked at once, so nothing is left behind. */
struct disk_speed {
    double write_mbs, read_mbs;   /* MB/s (2^20 B) */
    bool direct;                  /* through O_DIRECT; false: the file system refused it
                                   * (tmpfs), so the read came from memory */
};
/* Returns -1 with a reason in why (the directory, the write or the read that failed). */
int disk_measure_speed(const char *dir, size_t bytes, struct disk_speed *out, char *why,
                       size_t why_size);
/* GPUs on which one of pids runs (NVML via dlopen; 0 without NVML). */
int gpu_count_in_use(const pid_t *pids, size_t count);

/* ---- executables (ELF) and uprobes: instrumentation of unmodified binaries ---- */

/* 1 when PATH is a dynamically linked ELF executable (it names a program
 * interpreter, PT_INTERP), 0 when it is a static one, -1 when it is not a
 * readable 64-bit ELF file. */
int elf_is_dynamic(const char *path);
/* Calls visit(ctx, name) for each DT_NEEDED library of the ELF file PATH.
 * Returns -1 when PATH is not a readable 64-bit ELF file. */
int elf_visit_needed(const char *path, void (*visit)(void *ctx, const char *name), void *ctx);
/* The file offset of function SYMBOL in ELF file PATH (.symtab, then
 * .dynsym), what a uprobe needs. Returns -1 with a reason in why. */
int elf_symbol_offset(const char *path, const char *symbol, uint64_t *offset, char *why, size_t why_size);

/* A uprobe through perf_event_open on the uprobe PMU (no tracefs): counts
 * the hits of the instruction at OFFSET of PATH in process PID. Returns a
 * file descriptor, or -1 with a one-line reason (privilege, no uprobe PMU). */
int uprobe_open(const char *path, uint64_t offset, pid_t pid, char *why, size_t why_size);
/* Hits so far; -1 when the descriptor cannot be read. */
int64_t uprobe_hits(int fd);

#endif
