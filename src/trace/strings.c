/* String interning for traces: each distinct name is stored once in an arena
 * and found again through a hash map (util/hashmap.h) whose keys are the
 * arena's copies, so the reader never mallocs per event and names compare
 * by pointer. */
#include <stdlib.h>
#include <string.h>

#include "trace/strings.h"
#include "util/hashmap.h"

#define ARENA_BLOCK (64 * 1024)

struct arena_block {
    struct arena_block *next;
    size_t used, size;
    char data[];
};

struct trace_strings {
    struct hashmap names;   /* interned copy -> nothing; keys kept in the arena */
    struct arena_block *blocks;
};

struct trace_strings *trace_strings_new(void)
{
    return calloc(1, sizeof(struct trace_strings));
}

void trace_strings_free(struct trace_strings *st)
{
    if (!st)
        return;
    for (struct arena_block *b = st->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    hashmap_free(&st->names);
    free(st);
}

static char *arena_copy(struct trace_strings *st, const char *s, size_t len)
{
    struct arena_block *b = st->blocks;
    if (!b || b->size - b->used < len + 1) {
        size_t size = len + 1 > ARENA_BLOCK ? len + 1 : ARENA_BLOCK;
        b = malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->size = size;
        b->used = 0;
        b->next = st->blocks;
        st->blocks = b;
    }
    char *p = b->data + b->used;
    memcpy(p, s, len);
    p[len] = '\0';
    b->used += len + 1;
    return p;
}

const char *trace_strings_intern(struct trace_strings *st, const char *s, size_t len)
{
    const struct hashmap_slot *known = hashmap_find(&st->names, s, len);
    if (known)
        return known->key;
    char *copy = arena_copy(st, s, len);
    if (!copy || hashmap_put_kept(&st->names, copy, len, NULL) < 0)
        return NULL;
    return copy;
}
