/* A hash map from names (byte strings, not NUL-terminated when looked up) to
 * ints, private to src/trace: the reader finds a token's type or container in
 * one probe, straight from the mapped file. */
#ifndef TALLY_TRACE_NAMEMAP_H
#define TALLY_TRACE_NAMEMAP_H

#include <stddef.h>
#include <stdint.h>

struct namemap_entry {
    const char *name;   /* stable storage (interned by the caller); NULL = empty */
    uint32_t hash, len;
    int value;
};

struct namemap {
    struct namemap_entry *slots;
    size_t n_slots, n_used;
};

/* FNV-1a hash of len bytes (also used by the string interning). */
uint32_t namemap_hash(const char *s, size_t len);

void namemap_init(struct namemap *m);
void namemap_free(struct namemap *m);
/* The value for s[0..len), or -1. */
int namemap_get(const struct namemap *m, const char *s, size_t len);
/* Maps name (len bytes, kept by the caller) to value, replacing. -1 when out of memory. */
int namemap_put(struct namemap *m, const char *name, size_t len, int value);

#endif
