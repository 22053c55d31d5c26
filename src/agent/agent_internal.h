/* The agent's state, shared by its parts (agent.c: loop and clients;
 * agent_tree.c: tasks and processes; agent_eval.c: requests; proc_info.c:
 * per-process readings). Not a public interface. */
#ifndef TALLY_AGENT_AGENT_INTERNAL_H
#define TALLY_AGENT_AGENT_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent/agent.h"
#include "request/csr.h"
#include "request/request.h"
#include "monitor/follower.h"
#include "core/limits.h"
#include "monitor/proc_scan.h"
#include "platform/platform.h"
#include "core/fields.h"
#include "util/pidmap.h"

struct series_point {
    double time;        /* epoch seconds */
    double cpu_time;    /* seconds, own + reaped children */
    double memory;      /* MB resident */
    char state;
};

/* A process of a followed tree, as the last scan saw it. */
struct agent_proc {
    unsigned task;                 /* agent_task.id */
    unsigned long long starttime;
    struct proc_stat last;
    double last_at;                /* monotonic time of the last reading */
    double cores;                  /* over the last interval */
    struct series_point *ring;     /* series_points entries */
    size_t ring_head, ring_count;
    bool seen;                     /* in the current scan */
};

struct agent_client;

/* A followed tree: one task of an application. */
struct agent_task {
    unsigned id;
    char *app;
    char *segment_dir;             /* tally run --probes/--mpi: its processes' segments (agent_probes.c) */
    char *launch;                  /* a rank of another host's tally run --mpi: that launch's id */
    char *command;
    char *category;                /* tally run --category, or NULL */
    pid_t root;                    /* tree root: the tally run process, or the attached pid */
    bool include_root;             /* attached: the root is the task's; tally run's is not */
    unsigned long long root_start;
    struct follower *follower;     /* attached trees */
    struct agent_client *runner;   /* registered by tally run: its connection (NULL when gone) */
    double current[FIELD_COUNT];   /* latest values (tally run's samples or the follower's) */
    bool has_current;
    struct limit_set limits;       /* proc_set_limits on an attached tree */
    char *limits_text;
    bool limit_reported;
    double start_epoch;
    bool ended;
};

/* Which connection defined csr_N (its lines go there; deleted with it). */
struct csr_owner {
    unsigned csr;
    struct agent_client *client;
};

struct agent_client {
    int fd;
    unsigned id;
    char *in;   size_t in_len, in_cap, in_scanned; /* in[0..in_scanned) holds no newline */
    char *out;  size_t out_off, out_len, out_cap; /* pending: out[out_off, out_off + out_len) */
    bool closing;
    bool wants_out;                /* EPOLLOUT asked for: the socket was full */
    unsigned task;                 /* registered by this connection (tally run) */
    char *reply_subject;           /* a NATS reply inbox (fd -1): answers are published there */
};

struct agent {
    struct agent_options options;
    char socket_path[4096];
    char host[256], site[128];
    uid_t uid;
    int epoll_fd, listen_fd, lock_fd, tick_fd;
    struct agent_client **clients; size_t client_count, client_cap;
    size_t out_total;              /* output pending for all clients (bounded: client_output) */
    unsigned next_client_id;
    struct agent_task **tasks; size_t task_count, task_cap;
    unsigned next_task_id;
    struct pidmap procs;           /* pid -> struct agent_proc, processes of live tasks */
    struct proc_scan scan;
    struct csr_registry *registry; /* counters and conditional requests (csr.h) */
    struct csr_owner *owners; size_t owner_count, owner_cap; /* sorted by csr */
    unsigned long long owner_deletions; /* csr_deletions at the last sweep of owners */
    unsigned next_request_id;
    double started;                /* epoch */
    double next_tick;              /* monotonic */
    struct store *archive;         /* opened at the first finished task */
    bool archive_failed;
    size_t archived;               /* summaries written */
    bool stop_requested;           /* a client asked for shutdown */
    struct agent_nats *nats;       /* NULL: no NATS (agent_nats.c) */
    struct agent_segments *segments; /* instrumented processes' segments (agent_segments.c) */
    struct agent_probes *probes;   /* what csrs saw in the segments (agent_probes.c) */
    struct agent_levels *levels;   /* contract levels from tally contract watch (agent_levels.c) */
    struct agent_launches *launches; /* other hosts' launches with ranks here (agent_launch.c) */
    double boot_epoch;             /* when the machine booted (for process start times) */
    double clock_ticks;            /* of /proc/PID/stat times */
    char tag_listen, tag_tick, tag_stop, tag_nats, tag_metrics; /* epoll data of the fixed fds
                                                                  * (clients: their pointer) */
    struct metrics_server *metrics; /* --metrics, or NULL */
};

/* ---- output ---- */
/* Queues one JSON line (steals the reference) for the client. */
void agent_send(struct agent *a, struct agent_client *c, json_t *line);
/* One line from client c: a JSON message ("op") or a request text. */
void agent_handle_line(struct agent *a, struct agent_client *c, const char *line);
/* Writes what every client has pending (once per loop turn). */
void agent_flush(struct agent *a);

/* ---- trees (agent_tree.c) ---- */
struct agent_task *agent_task_add(struct agent *a, const char *app, const char *command,
                                  pid_t root, bool include_root);
struct agent_task *agent_task_find(const struct agent *a, unsigned id);
/* Attaches a running tree by pid (level-1 follower). NULL with why. */
struct agent_task *agent_attach(struct agent *a, pid_t pid, const char *app, char *why,
                                size_t why_len);
/* A task registered by 'tally run --agent' at level 1: the agent follows
 * its command's tree (pid, a child of the runner) with a level-1 follower
 * fed by the shared scan, and its tally run only waits. -1 with why. */
int agent_task_follow(struct agent *a, struct agent_task *t, pid_t pid, char *why, size_t why_len);
/* The runner saw its command end: the follower's final values as a summary
 * (new reference), for the runner to merge with the kernel's exact totals;
 * NULL when the agent does not follow the task. The task stays until the
 * runner's "finished". */
json_t *agent_task_follow_end(struct agent *a, struct agent_task *t);
/* A process joined (started) or left the task, as its tally run saw it at
 * level 2 (every process, however short, at once). */
void agent_task_process(struct agent *a, struct agent_task *t, pid_t pid, bool started);
/* One tick: the shared scan, every tree's processes, events, samples, ends. */
void agent_tick(struct agent *a);
/* A task has ended: its summary to the archive, its processes dropped. */
void agent_task_end(struct agent *a, struct agent_task *t, json_t *summary);
/* Archives the summaries a 'tally run --agent' kept in the spool while no
 * agent ran (agent_socket_spool_dir), removing each one archived. */
void agent_archive_spool(struct agent *a);
void agent_task_free(struct agent_task *t);
/* The task of a live process, or NULL when pid belongs to no followed tree. */
struct agent_task *agent_task_of(const struct agent *a, pid_t pid);

/* ---- requests (agent_eval.c) ---- */
/* Evaluates one request text from client c: reply lines to c. */
void agent_request(struct agent *a, struct agent_client *c, const char *text);
/* Events seen by the tree code, for conditional requests. */
enum agent_event { AGENT_EVENT_PROC_CREATED, AGENT_EVENT_PROC_TERMINATED,
                   AGENT_EVENT_LIMIT_EXCEEDED };
void agent_event(struct agent *a, enum agent_event kind, const struct agent_task *t, pid_t pid,
                 json_t *detail);
/* timer(PERIOD) requests that are due; returns the next due time (monotonic) or INFINITY. */
double agent_fire_timers(struct agent *a, double now);
/* Drops what belongs to a client that went away (its conditional requests). */
void agent_forget_client(struct agent *a, struct agent_client *c);

/* ---- probe and MPI events (agent_probes.c) ---- */
/* Polls the segments of instrumented tasks while a csr on a probe or MPI
 * event is enabled; returns the next due time (monotonic), INFINITY when
 * none is. */
double agent_probes_poll(struct agent *a, double now);
/* Before csrs are disabled or deleted: their events so far are read now
 * (not lost with the last poll interval), and the next loop turn polls
 * again, switching off what they held on (agent_recording.c). */
void agent_probes_flush(struct agent *a, double now);
/* Is some process of a task with segments inside the event's objects? */
bool agent_probes_match(const struct agent *a, const struct request_call *event);
void agent_probes_free(struct agent *a);
/* 'times' occurrences of a probe or MPI event (kind, name) in process pid
 * of task t, their $len adding up to len_sum, through the registry
 * (agent_eval.c): csrs whose actions are only increments take all of them
 * exactly (csr_apply_batch); the others fire once. */
void agent_instrumented_event(struct agent *a, const struct agent_task *t, pid_t pid,
                              enum event_kind kind, const char *name, double times,
                              double len_sum);

/* ---- instrumented processes' segments (agent_segments.c) ---- */
struct tally_segment;
struct agent_segment {
    unsigned task;                 /* the agent task it belongs to */
    pid_t pid;
    struct tally_segment *seg;     /* mapped read-write, this user's file */
    uint32_t held;                 /* TALLY_ON_* kinds proc_record_start holds on */
    uint32_t by_csr;               /* TALLY_ON_* kinds enabled csrs want (agent_recording.c) */
    double held_until;             /* monotonic s when `held` is released; 0: at proc_record_stop */
};
/* Unmaps the segments of ended tasks and maps those registered since. */
void agent_segments_rescan(struct agent *a);
/* The mapped ones, without looking for new ones. */
size_t agent_segments_mapped(struct agent *a, struct agent_segment **out);
/* The segment of process pid of an instrumented task, mapped on demand and
 * kept while its task lives; NULL when it has none (not instrumented, not
 * registered yet, or not this user's). Valid until the next call of these. */
struct agent_segment *agent_segments_find(struct agent *a, pid_t pid);
void agent_segments_free(struct agent *a);

/* ---- switching recording (agent_recording.c) ---- */
/* proc_record_start/stop on pid: KINDS (TALLY_ON_* bits) held on or
 * released; a start with a DURATION > 0 (seconds) releases what is held
 * when it has passed. Returns the process's answer, or NULL with why (not
 * instrumented, not started with --window request, finished). */
json_t *agent_record_switch(struct agent *a, pid_t pid, uint32_t kinds, bool on, double duration,
                            double now, char *why, size_t why_len);
/* Releases what timed starts held once their duration has passed; returns
 * the next such deadline (monotonic s), INFINITY when there is none. */
double agent_recording_expire(struct agent *a, double now);
/* At each probe poll: processes started with --window request record what
 * a request holds on or an enabled csr on their events (wanted[0..n))
 * wants, and nothing else. */
void agent_recording_follow(struct agent *a, const struct csr_pushdown *wanted, size_t n);
/* {"on": ["mpi", ...], "driver", "periods", "request", "ack", "ack_ms"} of a segment. */
json_t *agent_recording_json(const struct tally_segment *seg);

/* ---- ranks of launches on other hosts (agent_launch.c) ---- */
/* A rank of launch `launch` (tally run --mpi on another host) attached as
 * task t, its segment in dir (a directory of this user): kept for
 * agent_launch_ranks. 0, or -1 with why. */
int agent_launch_add(struct agent *a, struct agent_task *t, const char *launch, const char *dir,
                     char *why, size_t why_len);
/* {"op": "launch_ranks", "launch": ID, "release": bool}: one line per
 * segment of that launch on this host, then a done line (emit steals each
 * line). received: this host's CLOCK_MONOTONIC ns when the message came. */
void agent_launch_ranks(struct agent *a, const json_t *msg, uint64_t received,
                        void (*emit)(void *ctx, json_t *line), void *ctx);
void agent_launches_free(struct agent *a);

/* ---- per-process readings (proc_info.c) ---- */
/* proc_get_info's flag bits are request.h's proc_info_flag. */
/* The readings of pid selected by flags, or NULL with why (vanished). */
json_t *proc_info_json(struct agent *a, pid_t pid, unsigned flags, char *why,
                       size_t why_len);
/* When the machine booted, epoch seconds. */
double proc_boot_epoch(void);

#endif
