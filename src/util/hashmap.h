/* A hash map from strings to pointers: open addressing with linear probing
 * (FNV-1a hashes, kept), at most 3/4 full, backward-shift deletion, as in
 * pidmap.h for process ids. The map owns copies of its keys; the values are
 * the caller's. Slots move when the map grows or loses a key.
 *
 *   struct hashmap m = {0};
 *   if (hashmap_put(&m, "app_x", app) < 0) ...   (out of memory)
 *   struct app *a = hashmap_get(&m, "app_x");
 *   for (size_t i = 0; i < m.capacity; i++) if (m.slots[i].key) ... m.slots[i].value
 *   hashmap_free(&m); */
#ifndef TALLY_UTIL_HASHMAP_H
#define TALLY_UTIL_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct hashmap_slot {
    char *key;          /* NULL: empty */
    void *value;
    uint64_t hash;
};

struct hashmap {
    struct hashmap_slot *slots;
    size_t capacity;    /* 0 or a power of two */
    size_t count;
};

/* The value of key, or NULL when absent. */
void *hashmap_get(const struct hashmap *map, const char *key);
/* Sets key (copied) to value, replacing a value it had. 0, or -1 when out
 * of memory (the map is unchanged). */
int hashmap_put(struct hashmap *map, const char *key, void *value);
/* Removes key; returns the value it had, or NULL when absent. */
void *hashmap_remove(struct hashmap *map, const char *key);
/* Frees the keys and the table (not the values); the map is empty again. */
void hashmap_free(struct hashmap *map);

#endif
