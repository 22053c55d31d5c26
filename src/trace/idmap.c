/* Open-addressing hash map from 64-bit keys to ints (see idmap.h). */
#include <stdlib.h>

#include "trace/idmap.h"

static size_t slot_of(uint64_t key, size_t n)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (n - 1);
}

void idmap_init(struct idmap *m)
{
    m->keys = NULL;
    m->values = NULL;
    m->n_slots = m->n_used = 0;
}

void idmap_free(struct idmap *m)
{
    free(m->keys);
    free(m->values);
    idmap_init(m);
}

int idmap_get(const struct idmap *m, uint64_t key)
{
    if (!m->n_slots)
        return -1;
    uint64_t k = key + 1;
    for (size_t j = slot_of(key, m->n_slots);; j = (j + 1) & (m->n_slots - 1)) {
        if (m->keys[j] == 0)
            return -1;
        if (m->keys[j] == k)
            return m->values[j];
    }
}

static int grow(struct idmap *m)
{
    size_t n = m->n_slots ? m->n_slots * 2 : 64;
    uint64_t *keys = calloc(n, sizeof *keys);
    int *values = malloc(n * sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return -1;
    }
    for (size_t i = 0; i < m->n_slots; i++) {
        if (!m->keys[i])
            continue;
        size_t j = slot_of(m->keys[i] - 1, n);
        while (keys[j])
            j = (j + 1) & (n - 1);
        keys[j] = m->keys[i];
        values[j] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    m->keys = keys;
    m->values = values;
    m->n_slots = n;
    return 0;
}

int idmap_put(struct idmap *m, uint64_t key, int value)
{
    if ((m->n_used + 1) * 2 > m->n_slots && grow(m) < 0)
        return -1;
    uint64_t k = key + 1;
    size_t j = slot_of(key, m->n_slots);
    while (m->keys[j] && m->keys[j] != k)
        j = (j + 1) & (m->n_slots - 1);
    if (!m->keys[j])
        m->n_used++;
    m->keys[j] = k;
    m->values[j] = value;
    return 0;
}
