/* String-keyed hash map (see hashmap.h). */
#include "util/hashmap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(const char *key)
{
    uint64_t h = 14695981039346656037ULL;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

/* The slot of key, or of the empty slot where it would go. */
static size_t find(const struct hashmap *m, const char *key, uint64_t hash)
{
    size_t mask = m->capacity - 1, i = (size_t)hash & mask;
    while (m->slots[i].key && (m->slots[i].hash != hash || strcmp(m->slots[i].key, key)))
        i = (i + 1) & mask;
    return i;
}

void *hashmap_get(const struct hashmap *m, const char *key)
{
    if (!m->count)
        return NULL;
    size_t i = find(m, key, fnv1a(key));
    return m->slots[i].key ? m->slots[i].value : NULL;
}

static int grow(struct hashmap *m)
{
    size_t cap = m->capacity ? 2 * m->capacity : 16;
    struct hashmap_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    struct hashmap grown = {slots, cap, m->count};
    for (size_t i = 0; i < m->capacity; i++)
        if (m->slots[i].key)
            slots[find(&grown, m->slots[i].key, m->slots[i].hash)] = m->slots[i];
    free(m->slots);
    *m = grown;
    return 0;
}

int hashmap_put(struct hashmap *m, const char *key, void *value)
{
    uint64_t hash = fnv1a(key);
    if (m->capacity) {
        size_t i = find(m, key, hash);
        if (m->slots[i].key) {
            m->slots[i].value = value;
            return 0;
        }
    }
    if (4 * (m->count + 1) > 3 * m->capacity && grow(m) < 0)
        return -1;
    char *copy = strdup(key);
    if (!copy)
        return -1;
    m->slots[find(m, key, hash)] = (struct hashmap_slot){copy, value, hash};
    m->count++;
    return 0;
}

void *hashmap_remove(struct hashmap *m, const char *key)
{
    if (!m->count)
        return NULL;
    size_t mask = m->capacity - 1, i = find(m, key, fnv1a(key));
    if (!m->slots[i].key)
        return NULL;
    void *value = m->slots[i].value;
    free(m->slots[i].key);
    /* Backward shift: move up each later key of the run whose home slot is
     * not in (i, j], so that every key stays reachable from its home. */
    for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
        size_t home = (size_t)m->slots[j].hash & mask;
        bool between = i <= j ? (i < home && home <= j) : (i < home || home <= j);
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
        free(m->slots[i].key);
    free(m->slots);
    *m = (struct hashmap){0};
}
