/* The hash map (see hashmap.h): one probing engine for string, byte-string
 * and id keys. */
#include "util/hashmap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The key of every id slot: a constant address, never dereferenced. */
static const char id_key[1];

static uint64_t fnv1a(const char *key, size_t len)
{
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)key[i]) * 1099511628211ULL;
    return h;
}

/* The home slot of a key: FNV-1a's low bits spread strings well enough, ids
 * in sequence (packed index pairs) are mixed first. */
static inline size_t home(const char *key, uint64_t hash, size_t mask)
{
    if (key == id_key) {
        hash ^= hash >> 33;
        hash *= 0xff51afd7ed558ccdULL;
        hash ^= hash >> 33;
    }
    return (size_t)hash & mask;
}

/* The index of key's slot, or of the empty slot where it would go. Always
 * inlined, so that each caller gets the loop of its own kind of key (the
 * reader of a trace probes millions of times). */
static inline __attribute__((always_inline)) size_t locate(const struct hashmap *m, const char *key,
                                                           size_t len, uint64_t hash)
{
    size_t mask = m->capacity - 1, i = home(key, hash, mask);
    const struct hashmap_slot *slots = m->slots;
    if (key == id_key) {
        while (slots[i].key && (slots[i].hash != hash || slots[i].key != id_key))
            i = (i + 1) & mask;
        return i;
    }
    while (slots[i].key && (slots[i].hash != hash || slots[i].len != len || slots[i].key == id_key ||
                            memcmp(slots[i].key, key, len)))
        i = (i + 1) & mask;
    return i;
}

static inline __attribute__((always_inline)) struct hashmap_slot *find(const struct hashmap *m, const char *key,
                                                                       size_t len, uint64_t hash)
{
    if (!m->count)
        return NULL;
    struct hashmap_slot *s = &m->slots[locate(m, key, len, hash)];
    return s->key ? s : NULL;
}

static int grow(struct hashmap *m)
{
    size_t cap = m->capacity ? 2 * m->capacity : 16;
    struct hashmap_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->capacity; i++) {
        if (!m->slots[i].key)
            continue;
        size_t j = home(m->slots[i].key, m->slots[i].hash, cap - 1);
        while (slots[j].key)
            j = (j + 1) & (cap - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->capacity = cap;
    return 0;
}

/* copy: 1 copies the key, 0 keeps the caller's pointer. */
static int put(struct hashmap *m, const char *key, size_t len, uint64_t hash, int copy, void *value)
{
    if (len > UINT32_MAX)
        return -1;
    struct hashmap_slot *s = find(m, key, len, hash);
    if (s) {
        s->value = value;
        return 0;
    }
    if (2 * (m->count + 1) > m->capacity && grow(m) < 0)
        return -1;
    const char *stored = key;
    if (copy) {
        char *dup = malloc(len + 1);
        if (!dup)
            return -1;
        memcpy(dup, key, len);
        dup[len] = '\0';
        stored = dup;
    }
    m->slots[locate(m, key, len, hash)] = (struct hashmap_slot){stored, value, hash, (uint32_t)len, (uint32_t)copy};
    m->count++;
    return 0;
}

void *hashmap_get(const struct hashmap *m, const char *key)
{
    size_t len = strlen(key);
    struct hashmap_slot *s = find(m, key, len, fnv1a(key, len));
    return s ? s->value : NULL;
}

int hashmap_put(struct hashmap *m, const char *key, void *value)
{
    return hashmap_put_bytes(m, key, strlen(key), value);
}

struct hashmap_slot *hashmap_find(const struct hashmap *m, const char *key, size_t len)
{
    return find(m, key, len, fnv1a(key, len));
}

int hashmap_put_bytes(struct hashmap *m, const char *key, size_t len, void *value)
{
    return put(m, key, len, fnv1a(key, len), 1, value);
}

int hashmap_put_kept(struct hashmap *m, const char *key, size_t len, void *value)
{
    return put(m, key, len, fnv1a(key, len), 0, value);
}

struct hashmap_slot *hashmap_find_id(const struct hashmap *m, uint64_t id)
{
    return find(m, id_key, 0, id);
}

int hashmap_put_id(struct hashmap *m, uint64_t id, void *value)
{
    return put(m, id_key, 0, id, 0, value);
}

void *hashmap_remove(struct hashmap *m, const char *key)
{
    size_t len = strlen(key);
    uint64_t hash = fnv1a(key, len);
    if (!find(m, key, len, hash))
        return NULL;
    size_t mask = m->capacity - 1, i = locate(m, key, len, hash);
    void *value = m->slots[i].value;
    if (m->slots[i].owned)
        free((char *)m->slots[i].key);
    /* Backward shift: move up each later key of the run whose home slot is
     * not in (i, j], so that every key stays reachable from its home. */
    for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
        size_t h = home(m->slots[j].key, m->slots[j].hash, mask);
        bool between = i <= j ? (i < h && h <= j) : (i < h || h <= j);
        if (!between) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i] = (struct hashmap_slot){0};
    m->count--;
    return value;
}

void hashmap_free(struct hashmap *m)
{
    for (size_t i = 0; i < m->capacity; i++)
        if (m->slots[i].owned)
            free((char *)m->slots[i].key);
    free(m->slots);
    *m = (struct hashmap){0};
}
