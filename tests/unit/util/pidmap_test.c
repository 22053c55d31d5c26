/* Unit tests for the pid hash map (src/util/pidmap.c): growth, removal with
 * backward shift keeping every other key reachable. */
#include "test.h"
#include "util/pidmap.h"

int main(void)
{
    struct pidmap m;
    pidmap_init(&m, sizeof(long));
    int created = 0, ok = 1;
    for (pid_t p = 1; p <= 5000; p++) {
        long *v = pidmap_put(&m, p * 7, &created);
        ok &= v != NULL && created;
        *v = p;
    }
    CHECK(ok);
    CHECK_INT(m.count, 5000);
    long *again = pidmap_put(&m, 14, &created);
    CHECK(again && !created && *again == 2);
    for (pid_t p = 1; p <= 5000; p += 2)
        pidmap_remove(&m, p * 7);
    CHECK_INT(m.count, 2500);
    ok = 1;
    for (pid_t p = 1; p <= 5000; p++) {
        long *v = pidmap_get(&m, p * 7);
        ok &= (p % 2) ? v == NULL : (v != NULL && *v == p);
    }
    CHECK(ok);
    CHECK(pidmap_get(&m, 3) == NULL);
    pidmap_remove(&m, 3); /* absent: no effect */
    CHECK_INT(m.count, 2500);
    pidmap_free(&m);
    CHECK(pidmap_get(&m, 14) == NULL);
    return test_done();
}
