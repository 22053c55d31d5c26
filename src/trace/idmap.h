/* A small open-addressing hash map from 64-bit keys (interned-string
 * pointers, packed index pairs) to non-negative ints, private to src/trace. */
#ifndef TALLY_TRACE_IDMAP_H
#define TALLY_TRACE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct idmap {
    uint64_t *keys;   /* key + 1; 0 = empty slot */
    int *values;
    size_t n_slots, n_used;
};

void idmap_init(struct idmap *m);
void idmap_free(struct idmap *m);
/* The value stored for key, or -1. */
int idmap_get(const struct idmap *m, uint64_t key);
/* Stores key -> value (replacing). Returns -1 when out of memory. */
int idmap_put(struct idmap *m, uint64_t key, int value);

static inline uint64_t idmap_pair(uint32_t a, uint32_t b) { return ((uint64_t)a << 32) | b; }

#endif
