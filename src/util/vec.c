/* Growable arrays (see vec.h). */
#include "util/vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VEC_FIRST_CAPACITY 8

int vec_reserve(void **items, size_t *capacity, size_t need, size_t item_size)
{
    if (need <= *capacity)
        return 0;
    size_t cap = *capacity ? *capacity : VEC_FIRST_CAPACITY;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    if (item_size && cap > SIZE_MAX / item_size)
        return -1;
    void *grown = realloc(*items, cap * item_size);
    if (!grown)
        return -1;
    *items = grown;
    *capacity = cap;
    return 0;
}

void *vec_push(void **items, size_t *count, size_t *capacity, size_t item_size)
{
    return vec_insert(items, count, capacity, item_size, *count);
}

void *vec_insert(void **items, size_t *count, size_t *capacity, size_t item_size, size_t at)
{
    if (at > *count || vec_reserve(items, capacity, *count + 1, item_size) < 0)
        return NULL;
    char *base = *items;
    memmove(base + (at + 1) * item_size, base + at * item_size, (*count - at) * item_size);
    memset(base + at * item_size, 0, item_size);
    (*count)++;
    return base + at * item_size;
}

void vec_remove(void *items, size_t *count, size_t item_size, size_t at)
{
    if (at >= *count)
        return;
    char *base = items;
    memmove(base + at * item_size, base + (at + 1) * item_size, (*count - at - 1) * item_size);
    (*count)--;
}
