/* The agent's state, shared by its parts: the structures only. Each part
 * declares its functions in its own header (agent_io.h: agent.c's clients,
 * agent_tree.h, agent_eval.h, agent_probes.h, agent_segments.h,
 * agent_recording.h, agent_launch.h, proc_info.h), which includes this one;
 * a file includes the headers of the parts it calls, never of a part that
 * calls it: those are reached through struct agent_upcalls. Not a public
 * interface. */
#ifndef TALLY_AGENT_AGENT_STATE_H
#define TALLY_AGENT_AGENT_STATE_H

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
struct tally_segment;             /* include/tally/segment.h */

/* A followed tree: one task of an application. */
struct agent_task {
    unsigned id;
    char *app;
    char *segment_dir;             /* tally run --probes/--mpi: its processes' segments (agent_probes.c) */
    char *io_dir;                  /* tally run --level 3: its processes' I/O regions (agent_file_io.c) */
    char *launch;                  /* a rank of another host's tally run --mpi: that launch's id */
    char *world;                   /* the MPI world of its ranks (launch id, Slurm job step), or NULL */
    char *command;
    char *category;                /* tally run --category, or NULL */
    pid_t root;                    /* tree root: the tally run process, or the attached pid */
    bool include_root;             /* attached: the root is the task's; tally run's is not */
    unsigned long long root_start;
    struct follower *follower;     /* attached trees */
    struct series_writer *series;  /* attached with --time-series DIR: its PREFIX.series */
    char *series_prefix;           /* DIR/APP.HOST.PID */
    struct agent_client *runner;   /* registered by tally run: its connection (NULL when gone) */
    double current[FIELD_COUNT];   /* latest values (tally run's samples or the follower's) */
    bool has_current;
    struct limit_set limits;       /* proc_set_limits on an attached tree */
    char *limits_text;
    bool limit_reported;
    double start_epoch;
    bool ended;
    bool scanned;                  /* a scan has looked for its processes since it was added */
    bool guarded;                  /* its runner asked: end the tree if the runner dies first */
    pid_t runner_pid;              /* followed: the tally run (the root before the command's) */
    bool ended_before_followed;    /* asked to follow a command that had already ended (and
                                    * been reaped): nothing of it to sample */
};

/* Which connection defined csr_N (its lines go there; deleted with it).
 * client NULL: the csr was deleted (the entry is removed later, in one
 * pass for many: agent_eval.c). */
struct csr_owner {
    unsigned csr;
    struct agent_client *client;
};

/* At most this many csrs per connection (a quarter of the registry's
 * CSR_MAX_CSRS), so that one client cannot take every csr from others. */
#define AGENT_CLIENT_CSRS 16384

struct agent_client {
    int fd;
    unsigned id;
    char *in;   size_t in_len, in_cap, in_scanned; /* in[0..in_scanned) holds no newline */
    bool backlog;                  /* complete lines in `in` wait for its next turn */
    size_t lines_taken;            /* lines read from it so far */
    bool read_paused;              /* sent a fragment without a line end: not read until */
    double read_after;             /* this monotonic time (agent.c) */
    char *out;  size_t out_off, out_len, out_cap; /* pending: out[out_off, out_off + out_len) */
    bool closing;
    bool peer_gone;                /* the other end closed or reset (not closed by the agent) */
    bool wants_out;                /* EPOLLOUT asked for: the socket was full */
    unsigned task;                 /* registered by this connection (tally run) */
    size_t csrs;                   /* csrs it defined that are not deleted */
    char *reply_subject;           /* a NATS reply inbox (fd -1): answers are published there */
};

/* Events seen by the tree code, for conditional requests. */
enum agent_event { AGENT_EVENT_PROC_CREATED, AGENT_EVENT_PROC_TERMINATED,
                   AGENT_EVENT_LIMIT_EXCEEDED };

/* The sender of one message and the way back to it (agent_ops.h). */
struct agent_peer {
    struct agent *agent;
    struct agent_client *client; /* a socket client; NULL over NATS */
    const char *inbox;           /* NATS: the message's reply subject; NULL on the socket */
    uint64_t received;           /* CLOCK_MONOTONIC ns when the message came */
};

/* The calls back up. The loop (agent.c) calls the operations (agent_ops.c),
 * which call the evaluation of requests (agent_eval.c), which calls the
 * probes, trees and segments, and every part answers through agent_io.c and
 * the NATS transport below them. What a lower part must hand to one above
 * it (a tree's event, the probes' counts, a message NATS received) goes
 * through these pointers, set by agent_ops_connect, so that no part calls
 * into a part that calls it. */
struct agent_upcalls {
    /* agent_eval.c: agent_event, agent_instrumented_event */
    void (*event)(struct agent *a, enum agent_event kind, const struct agent_task *t, pid_t pid,
                  json_t *detail);
    void (*instrumented_event)(struct agent *a, const struct agent_task *t, pid_t pid,
                               enum event_kind kind, const char *name, double times, double len_sum);
    /* a message from a NATS inbox: agent_ops_take, agent_peer_error, agent_request */
    void (*take_op)(const struct agent_peer *p, json_t *msg);
    void (*peer_error)(const struct agent_peer *p, const char *why);
    void (*request)(struct agent *a, struct agent_client *c, const char *text);
};

struct agent {
    struct agent_options options;
    struct agent_upcalls up;       /* set by agent_ops_connect */
    char socket_path[4096];
    char host[256], site[128];
    uid_t uid;
    int epoll_fd, listen_fd, lock_fd, tick_fd;
    struct agent_client **clients; size_t client_count, client_cap;
    size_t out_total;              /* output pending for all clients (bounded: client_output) */
    size_t read_paused;            /* clients whose reads are paused (agent.c) */
    unsigned next_client_id;
    struct agent_task **tasks; size_t task_count, task_cap;
    unsigned next_task_id;
    struct pidmap procs;           /* pid -> struct agent_proc, processes of live tasks */
    struct proc_scan scan;
    struct csr_registry *registry; /* counters and conditional requests (csr.h) */
    struct csr_owner *owners; size_t owner_count, owner_cap; /* sorted by csr */
    size_t owners_stale;           /* entries of deleted csrs (client NULL) */
    unsigned next_request_id;
    double started;                /* epoch */
    double next_tick;              /* monotonic */
    double scan_began;             /* monotonic: the last scan of the trees began */
    bool scanning;                 /* a scan of the trees is under way */
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

#endif
