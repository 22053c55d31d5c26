/* String interning for traces: each distinct name is stored once in an arena
 * and found again by hash, so the reader never mallocs per event and names
 * compare by pointer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/namemap.h"
#include "trace/strings.h"

#define ARENA_BLOCK (64 * 1024)

struct arena_block {
    struct arena_block *next;
    size_t used, size;
    char data[];
};

struct trace_strings {
    const char **slots;     /* open addressing, NULL = empty */
    uint32_t *hashes;
    size_t n_slots, n_used;
    struct arena_block *blocks;
};

struct trace_strings *trace_strings_new(void)
{
    struct trace_strings *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->n_slots = 256;
    st->slots = calloc(st->n_slots, sizeof *st->slots);
    st->hashes = calloc(st->n_slots, sizeof *st->hashes);
    if (!st->slots || !st->hashes) {
        trace_strings_free(st);
        return NULL;
    }
    return st;
}

void trace_strings_free(struct trace_strings *st)
{
    if (!st)
        return;
    for (struct arena_block *b = st->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(st->slots);
    free(st->hashes);
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

static int grow(struct trace_strings *st)
{
    size_t n = st->n_slots * 2;
    const char **slots = calloc(n, sizeof *slots);
    uint32_t *hashes = calloc(n, sizeof *hashes);
    if (!slots || !hashes) {
        free(slots);
        free(hashes);
        return -1;
    }
    for (size_t i = 0; i < st->n_slots; i++) {
        if (!st->slots[i])
            continue;
        size_t j = st->hashes[i] & (n - 1);
        while (slots[j])
            j = (j + 1) & (n - 1);
        slots[j] = st->slots[i];
        hashes[j] = st->hashes[i];
    }
    free(st->slots);
    free(st->hashes);
    st->slots = slots;
    st->hashes = hashes;
    st->n_slots = n;
    return 0;
}

const char *trace_strings_intern(struct trace_strings *st, const char *s, size_t len)
{
    uint32_t h = namemap_hash(s, len);
    size_t mask = st->n_slots - 1;
    for (size_t j = h & mask;; j = (j + 1) & mask) {
        const char *cur = st->slots[j];
        if (!cur)
            break;
        if (st->hashes[j] == h && !strncmp(cur, s, len) && cur[len] == '\0')
            return cur;
    }
    if ((st->n_used + 1) * 2 > st->n_slots && grow(st) < 0)
        return NULL;
    char *copy = arena_copy(st, s, len);
    if (!copy)
        return NULL;
    mask = st->n_slots - 1;
    size_t j = h & mask;
    while (st->slots[j])
        j = (j + 1) & mask;
    st->slots[j] = copy;
    st->hashes[j] = h;
    st->n_used++;
    return copy;
}
