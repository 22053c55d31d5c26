/* 'tally agent': the local monitor of one user on one host (seed 001's
 * Local Monitor). One process, one epoll loop: a Unix socket for tools and
 * for 'tally run --agent', a timerfd tick that takes ONE machine-wide /proc
 * scan and hands it to every followed tree, and the trees themselves:
 * registered by 'tally run --agent' (measured there, at level 2, in that
 * process; the agent sees their processes and the samples tally run
 * streams) or attached by pid (followed here with the level-1 follower).
 * It answers OMIS-style requests (agent_eval.c) and writes every finished
 * task's summary to the archive. Protocol: docs/agent.md. */
#ifndef TALLY_AGENT_AGENT_H
#define TALLY_AGENT_AGENT_H

#include <stdbool.h>
#include <stddef.h>

struct agent_options {
    const char *socket_path;   /* NULL: agent_socket_default_path */
    const char *archive;       /* archive location; NULL: tally archive's default */
    bool no_archive;           /* do not write summaries */
    double interval;           /* sampling interval, seconds (default 1) */
    size_t series_points;      /* per-process series kept (default 120) */
    const char *site;          /* site name (default "local") */
    const char *host;          /* node name (default: the host name) */
    const char *metrics;       /* ADDR:PORT to serve OpenMetrics on, or NULL */
    size_t client_output;      /* bytes of output kept for all clients together (default 64 MiB) */
    int stop_fd;               /* readable: shut down cleanly (the caller's signalfd); -1: none */
    int ready_fd;              /* written one byte and closed once listening; -1: none */
    int log_fd;                /* made stderr once listening (detached agents); -1: none */
    const char *nats_url;      /* NULL: this host only; else the site's nats-server (agent_nats.h) */
    const char *nats_creds;    /* NATS credentials file (NULL: none) */
    const char *nats_user;     /* the user whose subjects to serve (default: the login name) */
    bool nats_insecure;        /* join a server that admits clients without credentials */
    const char *time_series_dir; /* attached trees write their runs (series, summary) here; NULL: none */
};

void agent_options_init(struct agent_options *options);
/* Runs until stop_fd is readable. Returns 0, or -1 after a message (cannot
 * listen: another agent runs, bad directory, ...). */
int agent_run(const struct agent_options *options);

#endif
