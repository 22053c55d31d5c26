/* Which MPI ranks the agents' answers to a request have accounted for, so
 * that a tool gathering over NATS knows when every agent that holds a rank
 * has answered. An agent's done line to a switch (proc_record_start/stop of
 * an application) says which ranks of the application it holds:
 *   "ranks_here": [{"of": 64, "ranks": [16, 17, ...]}, ...]
 * one entry per MPI world size (each rank registers with exactly one agent,
 * that of its host). The gathering may end as soon as, for every world size
 * named, ranks 0 .. of-1 have all been named (docs/agent-nats.md). */
#ifndef TALLY_CLIENT_RANK_COVER_H
#define TALLY_CLIENT_RANK_COVER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define RANK_COVER_MAX_SIZE (1u << 22) /* larger world sizes are not counted */

struct rank_world {
    unsigned size;
    unsigned named;          /* distinct ranks named so far */
    unsigned char *seen;     /* one bit per rank */
};

struct rank_cover {
    struct rank_world *worlds;
    size_t count, cap;
};

void rank_cover_free(struct rank_cover *cover);
/* Takes the "ranks_here" of an agent's done line, if it has one; ranks out
 * of 0 .. of-1 and sizes of 0 or over RANK_COVER_MAX_SIZE are passed over. */
void rank_cover_take(struct rank_cover *cover, const json_t *done_line);
/* Some done line named ranks. */
bool rank_cover_known(const struct rank_cover *cover);
/* Known, and every rank of every world size named. */
bool rank_cover_complete(const struct rank_cover *cover);
/* The ranks not named yet, e.g. "ranks 16-31 and 40 of 64"; "" when none. */
void rank_cover_missing(const struct rank_cover *cover, char *out, size_t size);

#endif
