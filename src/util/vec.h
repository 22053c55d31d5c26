/* Growable arrays: an array is three fields of its owner, T *items and
 * size_t count, capacity (all zero when empty). The capacity doubles (from
 * 8), so n appends cost O(n); a failed growth leaves the array as it was.
 *
 *   struct job *j = VEC_PUSH(q->jobs, q->job_count, q->job_cap);
 *   if (!j) return -1;              (out of memory; nothing changed)
 *   j->id = 7;                      (the new item is zero-filled)
 *
 * Parallel arrays (one item of each per index) share one capacity:
 *
 *   if (vec_reserve_parallel(&h->cap, h->n + 1, VEC_ARRAY(h->ids), VEC_ARRAY(h->hosts), NULL) < 0)
 *       return -1;
 *
 * Pointers into the array do not survive a growth. The macros evaluate
 * their arguments more than once: pass plain lvalues. */
#ifndef TALLY_UTIL_VEC_H
#define TALLY_UTIL_VEC_H

#include <stddef.h>

/* Room for `need` items: 0, or -1 when out of memory (unchanged). */
int vec_reserve(void **items, size_t *capacity, size_t need, size_t item_size);
/* Room for `need` items in every array given as (void **items, size_t
 * item_size) pairs (VEC_ARRAY), the list ending with NULL; the arrays share
 * *capacity. 0, or -1 when out of memory: the capacity is then unchanged and
 * every array still holds its items (some may have grown). New room is not
 * zeroed. */
int vec_reserve_parallel(size_t *capacity, size_t need, ...);
/* Appends one zero-filled item; its address, or NULL when out of memory. */
void *vec_push(void **items, size_t *count, size_t *capacity, size_t item_size);
/* Inserts one zero-filled item at index at (0 <= at <= count), moving the
 * ones after it up; its address, or NULL when out of memory. */
void *vec_insert(void **items, size_t *count, size_t *capacity, size_t item_size, size_t at);
/* Removes the item at index at, moving the ones after it down (order kept). */
void vec_remove(void *items, size_t *count, size_t item_size, size_t at);

#define VEC_RESERVE(items, capacity, need) \
    vec_reserve((void **)&(items), &(capacity), (need), sizeof *(items))
#define VEC_ARRAY(items) (void **)&(items), sizeof *(items)
#define VEC_PUSH(items, count, capacity) \
    ((__typeof__(items))vec_push((void **)&(items), &(count), &(capacity), sizeof *(items)))
#define VEC_INSERT(items, count, capacity, at) \
    ((__typeof__(items))vec_insert((void **)&(items), &(count), &(capacity), sizeof *(items), (at)))
#define VEC_REMOVE(items, count, at) vec_remove((items), &(count), sizeof *(items), (at))

#endif
