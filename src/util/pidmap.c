/* Hash map from pids to records (see pidmap.h). */
#include "util/pidmap.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(pid_t pid, size_t capacity)
{
    return ((unsigned)pid * 2654435761u) & (capacity - 1);
}

void pidmap_init(struct pidmap *map, size_t record_size)
{
    memset(map, 0, sizeof *map);
    map->record_size = record_size;
}

void pidmap_free(struct pidmap *map)
{
    free(map->keys);
    free(map->records);
    map->keys = NULL;
    map->records = NULL;
    map->capacity = map->count = 0;
}

void *pidmap_get(const struct pidmap *map, pid_t pid)
{
    if (!map->capacity || pid <= 0)
        return NULL;
    for (size_t i = slot_of(pid, map->capacity);; i = (i + 1) & (map->capacity - 1)) {
        if (map->keys[i] == pid)
            return pidmap_at(map, i);
        if (!map->keys[i])
            return NULL;
    }
}

static int grow(struct pidmap *map)
{
    size_t capacity = map->capacity ? map->capacity * 2 : 64;
    pid_t *keys = calloc(capacity, sizeof *keys);
    unsigned char *records = calloc(capacity, map->record_size);
    if (!keys || !records) {
        free(keys);
        free(records);
        return -1;
    }
    for (size_t i = 0; i < map->capacity; i++) {
        if (!map->keys[i])
            continue;
        size_t j = slot_of(map->keys[i], capacity);
        while (keys[j])
            j = (j + 1) & (capacity - 1);
        keys[j] = map->keys[i];
        memcpy(records + j * map->record_size, pidmap_at(map, i), map->record_size);
    }
    free(map->keys);
    free(map->records);
    map->keys = keys;
    map->records = records;
    map->capacity = capacity;
    return 0;
}

void *pidmap_put(struct pidmap *map, pid_t pid, int *created)
{
    if (created)
        *created = 0;
    void *found = pidmap_get(map, pid);
    if (found)
        return found;
    if ((map->count + 1) * 4 > map->capacity * 3 && grow(map) < 0)
        return NULL;
    size_t i = slot_of(pid, map->capacity);
    while (map->keys[i])
        i = (i + 1) & (map->capacity - 1);
    map->keys[i] = pid;
    memset(pidmap_at(map, i), 0, map->record_size);
    map->count++;
    if (created)
        *created = 1;
    return pidmap_at(map, i);
}

void pidmap_remove(struct pidmap *map, pid_t pid)
{
    if (!map->capacity)
        return;
    size_t mask = map->capacity - 1, i = slot_of(pid, map->capacity);
    while (map->keys[i] != pid) {
        if (!map->keys[i])
            return;
        i = (i + 1) & mask;
    }
    /* Backward-shift deletion keeps every probe chain unbroken. */
    for (size_t j = (i + 1) & mask; map->keys[j]; j = (j + 1) & mask) {
        size_t home = slot_of(map->keys[j], map->capacity);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            map->keys[i] = map->keys[j];
            memcpy(pidmap_at(map, i), pidmap_at(map, j), map->record_size);
            i = j;
        }
    }
    map->keys[i] = 0;
    map->count--;
}
