/* String set with open addressing (see fileset.h). */
#include "monitor/fileset.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static int insert(char **slots, size_t capacity, char *path)
{
    size_t i = hash(path) & (capacity - 1);
    while (slots[i]) {
        if (!strcmp(slots[i], path))
            return 0;
        i = (i + 1) & (capacity - 1);
    }
    slots[i] = path;
    return 1;
}

void fileset_add(struct fileset *set, const char *path)
{
    if ((set->count + 1) * 2 > set->capacity) {
        size_t capacity = set->capacity ? set->capacity * 2 : 64;
        char **slots = calloc(capacity, sizeof *slots);
        if (!slots)
            return;
        for (size_t i = 0; i < set->capacity; i++)
            if (set->slots[i])
                insert(slots, capacity, set->slots[i]);
        free(set->slots);
        set->slots = slots;
        set->capacity = capacity;
    }
    size_t i = hash(path) & (set->capacity - 1);
    while (set->slots[i]) {
        if (!strcmp(set->slots[i], path))
            return;
        i = (i + 1) & (set->capacity - 1);
    }
    char *copy = strdup(path);
    if (copy) {
        set->slots[i] = copy;
        set->count++;
    }
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **fileset_take_sorted(struct fileset *set, size_t *count)
{
    char **list = malloc((set->count + 1) * sizeof *list);
    size_t n = 0;
    for (size_t i = 0; list && i < set->capacity; i++)
        if (set->slots[i])
            list[n++] = set->slots[i];
    if (list)
        qsort(list, n, sizeof *list, compare_paths);
    else
        for (size_t i = 0; i < set->capacity; i++)
            free(set->slots[i]);
    free(set->slots);
    set->slots = NULL;
    set->capacity = set->count = 0;
    *count = n;
    return list;
}

void fileset_free(struct fileset *set)
{
    for (size_t i = 0; i < set->capacity; i++)
        free(set->slots[i]);
    free(set->slots);
    set->slots = NULL;
    set->capacity = set->count = 0;
}
