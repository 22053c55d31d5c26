/* The hash map of the project: open addressing with linear probing, at most
 * half full, hashes kept beside the keys, backward-shift deletion (pidmap.h
 * is its sibling for process ids with records inline). Values are the
 * caller's pointers (or integers cast through intptr_t). Three kinds of key,
 * one kind to a map:
 *   - strings: hashmap_get/put/remove copy a NUL-terminated key;
 *   - byte strings (len bytes, not NUL-terminated when looked up):
 *     hashmap_find, and hashmap_put_bytes (copied) or hashmap_put_kept (the
 *     caller keeps the bytes alive, e.g. interned names, as long as the map);
 *   - 64-bit ids: hashmap_find_id, hashmap_put_id.
 * Slots move when the map grows or loses a key. A slot is 24 bytes: a
 * trace's reader keeps maps of tens of thousands of keys in cache.
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
    const char *key;    /* NULL: empty; the key's bytes (an id key: the id + 1, never read) */
    void *value;
    uint32_t hash;      /* FNV-1a of the key's bytes; of an id key, the id mixed */
    uint32_t len;       /* bytes of the key, with HASHMAP_OWNED when the map made
                         * the copy (freed with it); HASHMAP_ID: an id key */
};
#define HASHMAP_OWNED 0x80000000u
#define HASHMAP_ID 0x7fffffffu

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
/* Frees the keys it copied and the table (not the values); the map is empty again. */
void hashmap_free(struct hashmap *map);

/* The slot of key[0..len), or NULL when absent. */
struct hashmap_slot *hashmap_find(const struct hashmap *map, const char *key, size_t len);
/* Sets key[0..len) to value: put_bytes copies the key (NUL added), put_kept
 * keeps the caller's pointer. 0, or -1 when out of memory or len >= 2 GiB - 1. */
int hashmap_put_bytes(struct hashmap *map, const char *key, size_t len, void *value);
int hashmap_put_kept(struct hashmap *map, const char *key, size_t len, void *value);

/* The slot of id, or NULL when absent. */
struct hashmap_slot *hashmap_find_id(const struct hashmap *map, uint64_t id);
/* Sets id to value: 0, or -1 when out of memory or id is UINT64_MAX. */
int hashmap_put_id(struct hashmap *map, uint64_t id, void *value);

#endif
