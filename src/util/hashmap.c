/* The hash map (see hashmap.h): one probing engine for string, byte-string
 * and id keys. */
#include "util/hashmap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define LEN_MASK 0x7fffffffu

static uint32_t fnv1a(const char *key, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)key[i]) * 16777619u;
    return h;
}

/* The hash of an id: mixed, so that ids in sequence (packed index pairs)
 * spread over the table. */
static uint32_t id_hash(uint64_t id)
{
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    return (uint32_t)id;
}

static const char *id_as_key(uint64_t id)
{
    return (const char *)(uintptr_t)(id + 1);
}

/* The index of key's slot, or of the empty slot where it would go (len is
 * HASHMAP_ID for an id key). Always inlined, so that each caller gets the
 * loop of its own kind of key: the reader of a trace probes millions of
 * times. An id slot's len never equals a byte key's, so the kinds do not
 * meet. */
static inline __attribute__((always_inline)) size_t locate(const struct hashmap *m, const char *key,
                                                           uint32_t len, uint32_t hash)
{
    size_t mask = m->capacity - 1, i = hash & mask;
    const struct hashmap_slot *slots = m->slots;
    if (len == HASHMAP_ID) {
        while (slots[i].key && (slots[i].key != key || slots[i].len != HASHMAP_ID))
            i = (i + 1) & mask;
        return i;
    }
    while (slots[i].key && (slots[i].hash != hash || (slots[i].len & LEN_MASK) != len ||
                            memcmp(slots[i].key, key, len)))
        i = (i + 1) & mask;
    return i;
}

static inline __attribute__((always_inline)) struct hashmap_slot *find(const struct hashmap *m, const char *key,
                                                                       uint32_t len, uint32_t hash)
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
        size_t j = m->slots[i].hash & (cap - 1);
        while (slots[j].key)
            j = (j + 1) & (cap - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->capacity = cap;
    return 0;
}

/* owned: HASHMAP_OWNED copies the key, 0 keeps the caller's pointer (and
 * an id's key). */
static int put(struct hashmap *m, const char *key, uint32_t len, uint32_t hash, uint32_t owned,
               void *value)
{
    struct hashmap_slot *s = find(m, key, len, hash);
    if (s) {
        s->value = value;
        return 0;
    }
    if (2 * (m->count + 1) > m->capacity && grow(m) < 0)
        return -1;
    const char *stored = key;
    if (owned) {
        char *dup = malloc((size_t)len + 1);
        if (!dup)
            return -1;
        memcpy(dup, key, len);
        dup[len] = '\0';
        stored = dup;
    }
    m->slots[locate(m, key, len, hash)] = (struct hashmap_slot){stored, value, hash, len | owned};
    m->count++;
    return 0;
}

void *hashmap_get(const struct hashmap *m, const char *key)
{
    size_t len = strlen(key);
    if (len >= LEN_MASK)
        return NULL;
    struct hashmap_slot *s = find(m, key, (uint32_t)len, fnv1a(key, len));
    return s ? s->value : NULL;
}

int hashmap_put(struct hashmap *m, const char *key, void *value)
{
    return hashmap_put_bytes(m, key, strlen(key), value);
}

struct hashmap_slot *hashmap_find(const struct hashmap *m, const char *key, size_t len)
{
    if (len >= LEN_MASK)
        return NULL;
    return find(m, key, (uint32_t)len, fnv1a(key, len));
}

int hashmap_put_bytes(struct hashmap *m, const char *key, size_t len, void *value)
{
    if (len >= LEN_MASK)
        return -1;
    return put(m, key, (uint32_t)len, fnv1a(key, len), HASHMAP_OWNED, value);
}

int hashmap_put_kept(struct hashmap *m, const char *key, size_t len, void *value)
{
    if (len >= LEN_MASK)
        return -1;
    return put(m, key, (uint32_t)len, fnv1a(key, len), 0, value);
}

struct hashmap_slot *hashmap_find_id(const struct hashmap *m, uint64_t id)
{
    if (id == UINT64_MAX)
        return NULL;
    return find(m, id_as_key(id), HASHMAP_ID, id_hash(id));
}

int hashmap_put_id(struct hashmap *m, uint64_t id, void *value)
{
    if (id == UINT64_MAX)
        return -1;
    return put(m, id_as_key(id), HASHMAP_ID, id_hash(id), 0, value);
}

void *hashmap_remove(struct hashmap *m, const char *key)
{
    size_t len = strlen(key);
    if (len >= LEN_MASK)
        return NULL;
    uint32_t hash = fnv1a(key, len);
    if (!find(m, key, (uint32_t)len, hash))
        return NULL;
    size_t mask = m->capacity - 1, i = locate(m, key, (uint32_t)len, hash);
    void *value = m->slots[i].value;
    if (m->slots[i].len & HASHMAP_OWNED)
        free((char *)m->slots[i].key);
    /* Backward shift: move up each later key of the run whose home slot is
     * not in (i, j], so that every key stays reachable from its home. */
    for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
        size_t h = m->slots[j].hash & mask;
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
        if (m->slots[i].len & HASHMAP_OWNED)
            free((char *)m->slots[i].key);
    free(m->slots);
    *m = (struct hashmap){0};
}
