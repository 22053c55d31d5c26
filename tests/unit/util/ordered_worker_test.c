/* Unit tests for the thread that works on handed items in order
 * (src/util/ordered_worker.c): items are worked on in their order, in a
 * thread other than the caller's, only once handed; a wait gives the
 * item's outcome; a failure stops the items after it; a stop does not wait
 * for items not begun. */
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include "test.h"
#include "util/ordered_worker.h"

struct record {
    pthread_t caller;
    size_t order[256];
    size_t n;
    bool other_thread;
    long fail_at;    /* the item that fails, or -1 */
    useconds_t slow; /* each item's time */
};

static int work(void *ctx, size_t item)
{
    struct record *r = ctx;
    if (r->slow)
        usleep(r->slow);
    r->other_thread = r->other_thread || !pthread_equal(pthread_self(), r->caller);
    if ((long)item == r->fail_at)
        return -1;
    r->order[r->n++] = item;
    return 0;
}

int main(void)
{
    ordered_worker_stop(NULL); /* nothing to do */

    struct record r = {.caller = pthread_self(), .fail_at = -1};
    struct ordered_worker *w = ordered_worker_start(work, &r);
    CHECK(w != NULL);
    usleep(20000);
    CHECK_INT(r.n, 0); /* nothing handed: nothing done */
    ordered_worker_hand(w, 3);
    CHECK_INT(ordered_worker_wait(w, 2), 0);
    CHECK_INT(r.n, 3);
    CHECK(r.order[0] == 0 && r.order[1] == 1 && r.order[2] == 2);
    CHECK(r.other_thread);
    ordered_worker_hand(w, 2); /* handing fewer takes nothing back */
    ordered_worker_hand(w, 10);
    CHECK_INT(ordered_worker_wait(w, 9), 0);
    CHECK_INT(ordered_worker_wait(w, 4), 0); /* an item done before */
    bool in_order = r.n == 10;
    for (size_t i = 0; i < r.n; i++)
        in_order = in_order && r.order[i] == i;
    CHECK(in_order);
    ordered_worker_stop(w);

    /* a failure: its wait and the later ones say so; nothing after it runs */
    struct record f = {.caller = pthread_self(), .fail_at = 5};
    w = ordered_worker_start(work, &f);
    CHECK(w != NULL);
    ordered_worker_hand(w, 8);
    CHECK_INT(ordered_worker_wait(w, 4), 0);
    CHECK_INT(ordered_worker_wait(w, 5), -1);
    CHECK_INT(ordered_worker_wait(w, 7), -1);
    CHECK_INT(f.n, 5);
    ordered_worker_stop(w);

    /* a stop leaves the items not begun: 100 handed items of 20 ms each */
    struct record s = {.caller = pthread_self(), .fail_at = -1, .slow = 20000};
    w = ordered_worker_start(work, &s);
    CHECK(w != NULL);
    ordered_worker_hand(w, 100);
    CHECK_INT(ordered_worker_wait(w, 0), 0);
    ordered_worker_stop(w);
    printf("# %zu of 100 slow items worked on before the stop\n", s.n);
    CHECK(s.n >= 1 && s.n <= 10); /* the one begun at the stop, not the 90 after */
    return test_done();
}
