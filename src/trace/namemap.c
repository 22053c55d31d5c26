/* Name -> int hash map with the hash and length stored beside each key, so a
 * lookup costs one hash of the token and usually one memcmp (see namemap.h). */
#include <stdlib.h>
#include <string.h>

#include "trace/namemap.h"

uint32_t namemap_hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

void namemap_init(struct namemap *m)
{
    m->slots = NULL;
    m->n_slots = m->n_used = 0;
}

void namemap_free(struct namemap *m)
{
    free(m->slots);
    namemap_init(m);
}

int namemap_get(const struct namemap *m, const char *s, size_t len)
{
    if (!m->n_slots)
        return -1;
    uint32_t h = namemap_hash(s, len);
    size_t mask = m->n_slots - 1;
    for (size_t j = h & mask; m->slots[j].name; j = (j + 1) & mask) {
        const struct namemap_entry *e = &m->slots[j];
        if (e->hash == h && e->len == len && !memcmp(e->name, s, len))
            return e->value;
    }
    return -1;
}

static int grow(struct namemap *m)
{
    size_t n = m->n_slots ? m->n_slots * 2 : 64;
    struct namemap_entry *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->n_slots; i++) {
        if (!m->slots[i].name)
            continue;
        size_t j = m->slots[i].hash & (n - 1);
        while (slots[j].name)
            j = (j + 1) & (n - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->n_slots = n;
    return 0;
}

int namemap_put(struct namemap *m, const char *name, size_t len, int value)
{
    if ((m->n_used + 1) * 2 > m->n_slots && grow(m) < 0)
        return -1;
    uint32_t h = namemap_hash(name, len);
    size_t mask = m->n_slots - 1, j = h & mask;
    for (; m->slots[j].name; j = (j + 1) & mask) {
        struct namemap_entry *e = &m->slots[j];
        if (e->hash == h && e->len == len && !memcmp(e->name, name, len)) {
            e->value = value;
            return 0;
        }
    }
    m->slots[j] = (struct namemap_entry){name, h, (uint32_t)len, value};
    m->n_used++;
    return 0;
}
