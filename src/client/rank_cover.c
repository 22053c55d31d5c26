/* Counting the ranks named by the agents' answers (rank_cover.h). */
#include "client/rank_cover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

void rank_cover_free(struct rank_cover *cover)
{
    for (size_t i = 0; i < cover->count; i++) {
        free(cover->worlds[i].world);
        free(cover->worlds[i].seen);
    }
    free(cover->worlds);
    for (size_t i = 0; i < cover->agent_count; i++)
        free(cover->agents[i].node);
    free(cover->agents);
    memset(cover, 0, sizeof *cover);
}

static struct rank_world *world_of(struct rank_cover *cover, const char *world, unsigned size)
{
    for (size_t i = 0; i < cover->count; i++)
        if (cover->worlds[i].size == size && !strcmp(cover->worlds[i].world, world))
            return &cover->worlds[i];
    if (cover->count >= RANK_COVER_MAX_WORLDS)
        return NULL;
    unsigned char *seen = calloc((size + 7) / 8, 1);
    char *name = strdup(world);
    struct rank_world *w = seen && name ? VEC_PUSH(cover->worlds, cover->count, cover->cap) : NULL;
    if (!w) {
        free(seen);
        free(name);
        return NULL;
    }
    *w = (struct rank_world){.world = name, .size = size, .seen = seen};
    return w;
}

void rank_cover_take(struct rank_cover *cover, const json_t *done_line)
{
    size_t i, k;
    json_t *entry, *rank;
    json_array_foreach(json_object_get(done_line, "ranks_here"), i, entry) {
        json_int_t of = json_integer_value(json_object_get(entry, "of"));
        if (of <= 0 || of > RANK_COVER_MAX_SIZE)
            continue;
        const char *world = json_string_value(json_object_get(entry, "world"));
        struct rank_world *w = world_of(cover, world ? world : "", (unsigned)of);
        if (!w)
            continue;
        json_array_foreach(json_object_get(entry, "ranks"), k, rank) {
            json_int_t r = json_integer_value(rank);
            if (!json_is_integer(rank) || r < 0 || r >= of || (w->seen[r / 8] & (1u << (r % 8))))
                continue;
            w->seen[r / 8] |= (unsigned char)(1u << (r % 8));
            w->named++;
        }
    }
}

bool rank_cover_line(struct rank_cover *cover, const char *data, size_t length)
{
    json_t *line = json_loadb(data, length, 0, NULL);
    bool done = json_is_true(json_object_get(line, "done"));
    const char *node = json_string_value(json_object_get(line, "node"));
    struct rank_agent *agent = NULL;
    for (size_t i = 0; node && i < cover->agent_count && !agent; i++)
        if (!strcmp(cover->agents[i].node, node))
            agent = &cover->agents[i];
    char *name = node && !agent ? strdup(node) : NULL;
    if (name && cover->agent_count < RANK_COVER_MAX_WORLDS * 64 &&
        (agent = VEC_PUSH(cover->agents, cover->agent_count, cover->agent_cap)))
        agent->node = name;
    else
        free(name);
    if (agent && done)
        agent->done = true;
    if (done)
        rank_cover_take(cover, line);
    json_decref(line);
    return done;
}

bool rank_cover_known(const struct rank_cover *cover)
{
    return cover->count > 0;
}

bool rank_cover_complete(const struct rank_cover *cover)
{
    for (size_t i = 0; i < cover->count; i++)
        if (cover->worlds[i].named < cover->worlds[i].size)
            return false;
    for (size_t i = 0; i < cover->agent_count; i++)
        if (!cover->agents[i].done)
            return false;
    return cover->count > 0;
}

static bool seen(const struct rank_world *w, unsigned r)
{
    return w->seen[r / 8] & (1u << (r % 8));
}

void rank_cover_missing(const struct rank_cover *cover, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < cover->count && n < size; i++) {
        const struct rank_world *w = &cover->worlds[i];
        if (w->named == w->size)
            continue;
        unsigned runs = 0, missing = w->size - w->named;
        n += (size_t)snprintf(out + n, size - n, "%s%s ", n ? "; " : "", missing == 1 ? "rank" : "ranks");
        for (unsigned r = 0; r < w->size && n < size; r++) {
            if (seen(w, r))
                continue;
            unsigned end = r;
            while (end + 1 < w->size && !seen(w, end + 1))
                end++;
            if (runs++ == 8) { /* enough to say which */
                n += (size_t)snprintf(out + n, size - n, ", ...");
                break;
            }
            n += (size_t)snprintf(out + n, size - n, runs > 1 ? ", %u" : "%u", r);
            if (end > r && n < size)
                n += (size_t)snprintf(out + n, size - n, "-%u", end);
            r = end;
        }
        if (n < size)
            n += (size_t)snprintf(out + n, size - n, " of %u", w->size);
    }
    if (n >= size && size > 4)
        strcpy(out + size - 4, "...");
}
