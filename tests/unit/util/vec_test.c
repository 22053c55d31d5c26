/* Unit tests for growable arrays (src/util/vec.c): growth by doubling with
 * the items kept, insertion and removal in order, zero-filled new items. */
#include "test.h"
#include "util/vec.h"

#include <stdint.h>
#include <stdlib.h>

struct item {
    int id;
    char tag[3];
};

int main(void)
{
    struct item *items = NULL;
    size_t count = 0, cap = 0;
    int ok = 1;
    for (int i = 0; i < 1000; i++) {
        struct item *it = VEC_PUSH(items, count, cap);
        ok &= it != NULL && it->id == 0 && it->tag[0] == 0;
        if (it)
            it->id = i;
    }
    CHECK(ok);
    CHECK_INT(count, 1000);
    CHECK_INT(cap, 1024); /* 8, 16, ..., 1024 */
    ok = 1;
    for (int i = 0; i < 1000; i++)
        ok &= items[i].id == i;
    CHECK(ok);

    struct item *first = VEC_INSERT(items, count, cap, 0);
    CHECK(first == &items[0] && first->id == 0);
    first->id = -1;
    CHECK_INT(count, 1001);
    CHECK_INT(items[1].id, 0);
    CHECK_INT(items[1000].id, 999);
    CHECK(VEC_INSERT(items, count, cap, count + 1) == NULL); /* past the end */
    CHECK_INT(count, 1001);

    VEC_REMOVE(items, count, 0);
    CHECK_INT(count, 1000);
    CHECK_INT(items[0].id, 0);
    VEC_REMOVE(items, count, 500);
    CHECK_INT(count, 999);
    CHECK_INT(items[500].id, 501);
    VEC_REMOVE(items, count, 5000); /* absent: nothing */
    CHECK_INT(count, 999);

    CHECK_INT(VEC_RESERVE(items, cap, 10), 0); /* already room */
    CHECK_INT(cap, 1024);
    CHECK_INT(VEC_RESERVE(items, cap, 3000), 0);
    CHECK_INT(cap, 4096);
    CHECK_INT(items[998].id, 999);
    free(items);

    /* An impossible size fails and leaves the array as it was. */
    long *small = NULL;
    size_t n = 0, c = 0;
    long *one = VEC_PUSH(small, n, c);
    CHECK(one != NULL);
    *one = 42;
    CHECK_INT(VEC_RESERVE(small, c, SIZE_MAX / 4), -1);
    CHECK_INT(c, 8);
    CHECK_INT(small[0], 42);
    free(small);

    /* Parallel arrays grow together under one capacity, items kept. */
    int *ids = NULL;
    double *values = NULL;
    size_t pn = 0, pcap = 0;
    ok = 1;
    for (int i = 0; i < 100; i++) {
        ok &= vec_reserve_parallel(&pcap, pn + 1, VEC_ARRAY(ids), VEC_ARRAY(values), NULL) == 0;
        ids[pn] = i;
        values[pn++] = i * 0.5;
    }
    CHECK(ok);
    CHECK_INT(pcap, 128);
    ok = 1;
    for (int i = 0; i < 100; i++)
        ok &= ids[i] == i && values[i] == i * 0.5;
    CHECK(ok);
    CHECK_INT(vec_reserve_parallel(&pcap, 50, VEC_ARRAY(ids), VEC_ARRAY(values), NULL), 0);
    CHECK_INT(pcap, 128); /* already room */
    /* too large for the widest item: fails, capacity and items unchanged */
    CHECK_INT(vec_reserve_parallel(&pcap, SIZE_MAX / 4, VEC_ARRAY(ids), VEC_ARRAY(values), NULL), -1);
    CHECK_INT(pcap, 128);
    CHECK(ids[99] == 99 && values[99] == 49.5);
    free(ids);
    free(values);
    return test_done();
}
