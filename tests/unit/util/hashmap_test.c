/* Unit tests for the string hash map (src/util/hashmap.c): growth, lookups
 * of present and absent keys, replacement, and removal with backward shift
 * keeping every other key reachable. */
#include "test.h"
#include "util/hashmap.h"

#include <stdint.h>
#include <stdio.h>

int main(void)
{
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
