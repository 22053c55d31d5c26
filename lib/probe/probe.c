/* libtally-probe's API (include/tally/probe.h): probes, counters and the
 * iteration marker. The off path reads the first word of
 * `tally__probe_control`, a page of this library's data that becomes a view
 * of the segment's control page at registration. It is exported so that the
 * header's inline fast paths read it in the application: one load and one
 * branch, no call. The library reaches it through its GOT entry, so that
 * when the application's link made a copy of it (a copy relocation: same
 * size, same page alignment), the page mapped and read is that copy. The
 * functions here are the API's exported entry points (and the on path). */
#define TALLY_PROBE_NO_INLINE /* define the functions, not the inline wrappers */
#include "tally/probe.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "segment_client.h"

_Static_assert(offsetof(struct tally_seg_control, on) == 0, "the control word is the page's first");
_Static_assert(TALLY__PROBES_ON == TALLY_ON_PROBES, "probe.h and segment.h agree on the probes bit");
_Static_assert(TALLY__CONTROL_WORDS * sizeof(uint32_t) == TALLY_SEG_PAGE, "the control page is one page");

TALLY_PROBE_API volatile uint32_t tally__probe_control[TALLY__CONTROL_WORDS] __attribute__((aligned(TALLY_SEG_PAGE)));

static inline int probes_on(void)
{
    return (tally__probe_control[0] & TALLY_ON_PROBES) != 0;
}

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tally_segment *cached;

static void forget_in_child(void)
{
    cached = NULL; /* the child registers its own segment when it uses one */
}

__attribute__((constructor)) static void probe_library_loaded(void)
{
    tally__segment_map_control((void *)tally__probe_control);
    pthread_atfork(NULL, NULL, forget_in_child);
}

/* An entry of a name table (probes or counters): the slot of NAME, taken
 * when new; -1 when full. */
static int slot_of(char (*names)[TALLY_SEG_NAME], size_t stride, uint32_t *count,
                   uint32_t max, const char *name)
{
    if (!name)
        return -1;
    pthread_mutex_lock(&names_lock);
    int found = -1;
    for (uint32_t i = 0; i < *count && found < 0; i++)
        if (!strncmp(*(char (*)[TALLY_SEG_NAME])((char *)names + i * stride), name, TALLY_SEG_NAME - 1))
            found = (int)i;
    if (found < 0 && *count < max) {
        found = (int)*count;
        char *slot = (char *)names + (size_t)found * stride;
        strncpy(slot, name, TALLY_SEG_NAME - 1);
        slot[TALLY_SEG_NAME - 1] = '\0';
        __atomic_store_n(count, *count + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&names_lock);
    return found;
}

int tally_probe_id(const char *name)
{
    struct tally_segment *s = tally__segment();
    if (!s)
        return -1;
    return slot_of(&s->d.probes[0].name, sizeof s->d.probes[0], &s->d.probe_count,
                   TALLY_SEG_MAX_PROBES, name);
}

int tally_counter_id(const char *name)
{
    struct tally_segment *s = tally__segment();
    if (!s)
        return -1;
    return slot_of(&s->d.counters[0].name, sizeof s->d.counters[0], &s->d.counter_count,
                   TALLY_SEG_MAX_COUNTERS, name);
}

/* The segment once registered (recording implies it is): saves the call to
 * tally__segment on the recording path. A monitor's pending switch is
 * taken here (the probe and counter paths when on, every marker hit). */
static struct tally_segment *segment(void)
{
    struct tally_segment *s = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (!s && (s = tally__segment()))
        __atomic_store_n(&cached, s, __ATOMIC_RELEASE);
    if (s && __builtin_expect(tally__probe_control[0] & TALLY_ON_PENDING, 0))
        tally__acknowledge(s);
    return s;
}

__attribute__((noinline)) static void probe_hit_recorded(int id)
{
    struct tally_segment *s = segment();
    if (!s || id < 0 || id >= TALLY_SEG_MAX_PROBES)
        return;
    struct tally_seg_probe *p = &s->d.probes[id];
    uint64_t now = tally__now_ns();
    if (__atomic_fetch_add(&p->hits, 1, __ATOMIC_RELAXED) == 0)
        p->t_first = now;
    p->t_last = now;
}

void tally_probe_hit(int id)
{
    if (__builtin_expect(!probes_on(), 1))
        return;
    probe_hit_recorded(id);
}

void tally_counter_add(int id, int64_t delta)
{
    if (__builtin_expect(!probes_on(), 1))
        return;
    struct tally_segment *s = segment();
    if (s && id >= 0 && id < TALLY_SEG_MAX_COUNTERS)
        __atomic_fetch_add(&s->d.counters[id].value, delta, __ATOMIC_RELAXED);
}

int tally_probe_active(void)
{
    return probes_on();
}

void tally_mark(void)
{
    struct tally_segment *s = segment();
    if (!s)
        return;
    uint64_t now = tally__now_ns();
    uint64_t hit = __atomic_add_fetch(&s->d.marker_hits, 1, __ATOMIC_RELAXED);
    if (hit == 1)
        s->d.marker_t_first = now;
    s->d.marker_t_last = now;
    struct tally_seg_window *w = &s->d.window;
    if (w->driver != TALLY_WINDOW_BY_MARKER)
        return;
    if (w->state == TALLY_WINDOW_WAITING && hit == (uint64_t)w->start + 1) {
        w->how |= TALLY_WINDOW_OPENED_AT_HIT;
        tally__window_open(s, now);
    }
    else if (w->state == TALLY_WINDOW_OPEN &&
             ((w->iterations > 0 && hit == w->hits_on + (uint64_t)w->iterations) ||
              (w->time_limit_ns > 0 && now - w->t_on >= (uint64_t)w->time_limit_ns)))
        tally__window_close(s, now);
}
