/* The launch host's side of one application on many hosts: at the end of
 * 'tally run --mpi', the ranks that ran on other hosts (registered with
 * their own hosts' agents, lib/probe/remote.c) are gathered from the
 * agents: the local agent over its socket, the others over NATS (the URL
 * and credentials of the user's agent.conf). Each agent answers with a copy
 * of each of the launch's segments (src/agent/agent_launch.c) and releases
 * them.
 *
 * Clocks: each answer line carries the agent's CLOCK_MONOTONIC times of the
 * request's arrival (t1) and of the line's sending (t2); with the launch
 * host's sending (t0) and receiving (t3), the host's offset is NTP's
 * ((t1 - t0) + (t2 - t3)) / 2, within half the round trip minus the agent's
 * time, (t3 - t0) - (t2 - t1); the line with the shortest round trip of each
 * host is kept, and every time of that host's segments is moved onto the
 * launch host's clock.
 *
 * The wait is bounded: it ends when every rank of the application is in
 * hand (the local ones counted), or at the timeout. The agents are asked
 * once when the ranks are known to be over (mpirun has returned), or, with
 * a poll interval, again and again until then (a Slurm step's gatherer,
 * whose peers may end after it: tally-slurm(7)). */
#ifndef TALLY_CLIENT_LAUNCH_GATHER_H
#define TALLY_CLIENT_LAUNCH_GATHER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct tally_segment;

struct launch_gather {
    struct tally_segment **items;   /* segments gathered (malloc'd), clocks aligned */
    size_t count;
    json_t *hosts;                  /* [{"name", "site", "ranks", "clock_offset": [s, "s"],
                                         "uncertainty": [s, "s"]}] of the answering agents */
    char problems[1024];            /* why an agent could not be asked ("" when none) */
};

struct launch_gather_options {
    double timeout;  /* seconds at most */
    double poll;     /* 0: ask the agents once (the NATS answers awaited until the timeout);
                        else seconds between rounds of asking until every rank is in hand */
    bool here_only;  /* every rank ran on this host (a one-node Slurm step): no NATS */
};

/* Gathers launch's ranks. have[r] is true for ranks already in hand (the
 * local segments, r < ranks); ranks: the application's size, 0 when not
 * known yet (learnt from the first answer). Never fails: what it could not
 * reach (in the last round) is in g->problems. */
void launch_gather_run(const char *launch, const bool *have, int ranks, const struct launch_gather_options *o,
                       struct launch_gather *g);
void launch_gather_free(struct launch_gather *g);

#endif
