/* Growable arrays (see vec.h). */
#include "util/vec.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VEC_FIRST_CAPACITY 8

/* The doubled capacity that holds `need` items of item_size; 0 on overflow. */
static size_t grown_capacity(size_t capacity, size_t need, size_t item_size)
{
    size_t cap = capacity ? capacity : VEC_FIRST_CAPACITY;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return 0;
        cap *= 2;
    }
    if (item_size && cap > SIZE_MAX / item_size)
        return 0;
    return cap;
}

/* Reallocates *items to cap items; -1 (unchanged) when out of memory. */
static int grow_to(void **items, size_t cap, size_t item_size)
{
    void *grown = realloc(*items, cap * item_size);
    if (!grown)
        return -1;
    *items = grown;
    return 0;
}

int vec_reserve(void **items, size_t *capacity, size_t need, size_t item_size)
{
    if (need <= *capacity)
        return 0;
    size_t cap = grown_capacity(*capacity, need, item_size);
    if (!cap || grow_to(items, cap, item_size) < 0)
        return -1;
    *capacity = cap;
    return 0;
}

int vec_reserve_parallel(size_t *capacity, size_t need, ...)
{
    if (need <= *capacity)
        return 0;
    size_t largest = 0;
    va_list ap;
    va_start(ap, need);
    for (void **items; (items = va_arg(ap, void **));) {
        size_t item_size = va_arg(ap, size_t);
        if (item_size > largest)
            largest = item_size;
    }
    va_end(ap);
    size_t cap = grown_capacity(*capacity, need, largest);
    if (!cap)
        return -1;
    int rc = 0;
    va_start(ap, need);
    for (void **items; rc == 0 && (items = va_arg(ap, void **));)
        rc = grow_to(items, cap, va_arg(ap, size_t));
    va_end(ap);
    if (rc == 0)
        *capacity = cap;
    return rc;
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
