/* Which MPI ranks the agents' answers to a request have accounted for, so
 * that a tool gathering over NATS knows when every agent that holds a rank
 * has answered. An agent's done line to a switch (proc_record_start/stop of
 * an application) says which ranks of the application it holds:
 *   "ranks_here": [{"world": "3f2a...", "of": 64, "ranks": [16, 17, ...]}, ...]
 * one entry per MPI world (its launch: the launch id of the tally run --mpi
 * that started it, or its Slurm job step) and size; each rank registers
 * with exactly one agent, that of its host. The gathering may end once,
 * for every world named, ranks 0 .. of-1 have all been named, and every
 * agent that began to answer has ended its answer (docs/agent-nats.md). */
#ifndef TALLY_CLIENT_RANK_COVER_H
#define TALLY_CLIENT_RANK_COVER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define RANK_COVER_MAX_SIZE (1u << 22) /* larger world sizes are not counted */
#define RANK_COVER_MAX_WORLDS 64      /* nor more distinct worlds than this */

struct rank_world {
    char *world;             /* the launch ("" when an agent did not say) */
    unsigned size;
    unsigned named;          /* distinct ranks named so far */
    unsigned char *seen;     /* one bit per rank */
};

struct rank_agent {
    char *node;
    bool done;
};

struct rank_cover {
    struct rank_world *worlds;
    size_t count, cap;
    struct rank_agent *agents;    /* the agents (nodes) whose lines came */
    size_t agent_count, agent_cap;
};

void rank_cover_free(struct rank_cover *cover);
/* One line of an agent's answer (its "node" noted as answering); a done
 * line's ranks are taken (rank_cover_take). Returns whether it is a done
 * line. */
bool rank_cover_line(struct rank_cover *cover, const char *data, size_t length);
/* Takes the "ranks_here" of an agent's done line, if it has one; ranks out
 * of 0 .. of-1, sizes of 0 or over RANK_COVER_MAX_SIZE and sizes past the
 * first RANK_COVER_MAX_WORLDS are passed over. */
void rank_cover_take(struct rank_cover *cover, const json_t *done_line);
/* Some done line named ranks. */
bool rank_cover_known(const struct rank_cover *cover);
/* Known, every rank of every world named, and every agent whose lines
 * came has sent its done line. */
bool rank_cover_complete(const struct rank_cover *cover);
/* The ranks not named yet, e.g. "ranks 16-31 and 40 of 64"; "" when none. */
void rank_cover_missing(const struct rank_cover *cover, char *out, size_t size);

#endif
