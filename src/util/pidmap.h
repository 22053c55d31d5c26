/* A small hash map from process ids to fixed-size records, for tables of
 * processes and threads that change at every fork and exit. Open addressing
 * with linear probing and backward-shift deletion; records move when the map
 * grows, so do not keep pointers across pidmap_put or pidmap_remove. */
#ifndef TALLY_UTIL_PIDMAP_H
#define TALLY_UTIL_PIDMAP_H

#include <stddef.h>
#include <sys/types.h>

struct pidmap {
    pid_t *keys;        /* 0 = empty slot */
    unsigned char *records;
    size_t record_size;
    size_t capacity;    /* power of two */
    size_t count;
};

void pidmap_init(struct pidmap *map, size_t record_size);
void pidmap_free(struct pidmap *map);
/* The record of pid, or NULL. */
void *pidmap_get(const struct pidmap *map, pid_t pid);
/* The record of pid, created zero-filled when absent (*created set). NULL when out of memory. */
void *pidmap_put(struct pidmap *map, pid_t pid, int *created);
void pidmap_remove(struct pidmap *map, pid_t pid);
/* Iteration: for (size_t i = 0; i < map->capacity; i++) if (map->keys[i]) use pidmap_at(map, i). */
static inline void *pidmap_at(const struct pidmap *map, size_t slot)
{
    return map->records + slot * map->record_size;
}

#endif
