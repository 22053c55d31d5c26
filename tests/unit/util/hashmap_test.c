/* Unit tests for the hash map (src/util/hashmap.c): growth, lookups of
 * present and absent keys, replacement, and removal with backward shift
 * keeping every other key reachable; byte-string keys (copied or kept by the
 * caller) and 64-bit id keys. */
#include "test.h"
#include "util/hashmap.h"

#include <stdint.h>
#include <stdio.h>

/* Byte strings: a key is its len bytes, not a prefix or an extension. */
static void byte_keys(void)
{
    struct hashmap m = {0};
    const char *text = "host_1 host_12 host_1"; /* tokens inside a line, as a reader sees them */
    CHECK(hashmap_find(&m, text, 6) == NULL);
    CHECK_INT(hashmap_put_kept(&m, text, 6, (void *)1), 0);        /* "host_1", the caller's bytes */
    CHECK_INT(hashmap_put_bytes(&m, text + 7, 7, (void *)12), 0);  /* "host_12", copied */
    CHECK_INT(m.count, 2);
    struct hashmap_slot *s = hashmap_find(&m, text + 15, 6);       /* the second "host_1" */
    CHECK(s && s->key == text && (intptr_t)s->value == 1 && !(s->len & HASHMAP_OWNED));
    s = hashmap_find(&m, "host_12", 7);
    CHECK(s && s->key != text + 7 && s->key[7] == '\0' && (intptr_t)s->value == 12 && (s->len & HASHMAP_OWNED));
    CHECK(hashmap_find(&m, "host_", 5) == NULL);
    CHECK(hashmap_find(&m, "host_123", 8) == NULL);
    CHECK((intptr_t)hashmap_get(&m, "host_12") == 12); /* the string calls see the same keys */
    CHECK_INT(hashmap_put_kept(&m, "host_1", 6, (void *)-1), 0); /* replaced, the first pointer kept */
    CHECK(hashmap_find(&m, text, 6)->key == text && (intptr_t)hashmap_find(&m, text, 6)->value == -1);
    CHECK_INT(m.count, 2);
    hashmap_free(&m); /* frees "host_12" only: ASan reports a double or bad free */
}

/* 64-bit ids, in sequence (packed index pairs) and far apart. */
static void id_keys(void)
{
    struct hashmap m = {0};
    int ok = 1;
    for (uint64_t a = 0; a < 100; a++)
        for (uint64_t b = 0; b < 100; b++)
            ok &= hashmap_put_id(&m, a << 32 | b, (void *)(intptr_t)(a * 100 + b)) == 0;
    CHECK(ok);
    CHECK_INT(m.count, 10000);
    ok = 1;
    for (uint64_t a = 0; a < 100; a++)
        for (uint64_t b = 0; b < 100; b++) {
            struct hashmap_slot *s = hashmap_find_id(&m, a << 32 | b);
            ok &= s && (intptr_t)s->value == (intptr_t)(a * 100 + b);
        }
    CHECK(ok);
    CHECK(hashmap_find_id(&m, (uint64_t)100 << 32) == NULL);
    CHECK(hashmap_find_id(&m, UINT64_MAX - 1) == NULL);
    CHECK_INT(hashmap_put_id(&m, UINT64_MAX - 1, (void *)5), 0);
    CHECK(hashmap_find_id(&m, UINT64_MAX - 1) && (intptr_t)hashmap_find_id(&m, UINT64_MAX - 1)->value == 5);
    CHECK_INT(hashmap_put_id(&m, UINT64_MAX, (void *)6), -1); /* the one id refused */
    CHECK(hashmap_find_id(&m, 0) && (intptr_t)hashmap_find_id(&m, 0)->value == 0); /* id 0 is an id */
    CHECK_INT(hashmap_put_id(&m, 7, (void *)70), 0); /* replaced */
    CHECK_INT(m.count, 10001);
    CHECK((intptr_t)hashmap_find_id(&m, 7)->value == 70);
    hashmap_free(&m);
}

int main(void)
{
    byte_keys();
    id_keys();
    struct hashmap m = {0};
    CHECK(hashmap_get(&m, "absent") == NULL);
    CHECK(hashmap_remove(&m, "absent") == NULL);
    char key[32];
    int ok = 1;
    for (intptr_t i = 1; i <= 5000; i++) {
        snprintf(key, sizeof key, "app_%ld", (long)i);
        ok &= hashmap_put(&m, key, (void *)i) == 0;
    }
    CHECK(ok);
    CHECK_INT(m.count, 5000);
    CHECK(m.capacity >= 5000 * 4 / 3 && (m.capacity & (m.capacity - 1)) == 0);
    CHECK((intptr_t)hashmap_get(&m, "app_77") == 77);
    CHECK(hashmap_get(&m, "app_0") == NULL);
    CHECK(hashmap_get(&m, "app_77 ") == NULL);

    CHECK_INT(hashmap_put(&m, "app_77", (void *)7700), 0); /* replaced, not added */
    CHECK_INT(m.count, 5000);
    CHECK((intptr_t)hashmap_get(&m, "app_77") == 7700);

    for (intptr_t i = 1; i <= 5000; i += 2) {
        snprintf(key, sizeof key, "app_%ld", (long)i);
        ok &= (intptr_t)hashmap_remove(&m, key) == (i == 77 ? 7700 : i);
    }
    CHECK(ok);
    CHECK_INT(m.count, 2500);
    ok = 1;
    for (intptr_t i = 1; i <= 5000; i++) {
        snprintf(key, sizeof key, "app_%ld", (long)i);
        intptr_t v = (intptr_t)hashmap_get(&m, key);
        ok &= (i % 2) ? v == 0 : v == i;
    }
    CHECK(ok);
    size_t seen = 0;
    for (size_t i = 0; i < m.capacity; i++)
        seen += m.slots[i].key != NULL;
    CHECK_INT(seen, 2500);
    CHECK(hashmap_put(&m, "", (void *)1) == 0 && (intptr_t)hashmap_get(&m, "") == 1); /* the empty key is a key */
    hashmap_free(&m);
    CHECK_INT(m.count, 0);
    CHECK(hashmap_get(&m, "app_2") == NULL);
    return test_done();
}
