/* libtally-probe: named probes, counters and an iteration marker that an
 * application calls; what they record lives in a shared-memory segment that
 * the monitor (tally run, the agent) reads and switches on and off. Outside
 * a monitor every call returns at once.
 *
 *   #include <tally/probe.h>          cc app.c $(pkg-config --cflags --libs tally-probe)
 *   int step = tally_probe_id("nextstep"), sent = tally_counter_id("bytes_sent");
 *   for (...) { tally_mark(); ...; tally_counter_add(sent, n); tally_probe_hit(step); }
 *
 * Fortran: call tally_mark()  (or ScoPro's call measuremark()),
 *          call tally_probe_id('nextstep', id); call tally_probe_hit(id)
 *          call tally_counter_id('bytes', id); call tally_counter_add(id, n)  (n: integer*8)
 *
 * Cost: while recording is off, tally_probe_hit, tally_counter_add and
 * tally_probe_active are inline here: one load of the library's control word
 * and one predictable branch, no call. On, a call into the library: a
 * CLOCK_MONOTONIC read (vDSO, no system call) and a counter update.
 * Thread-safe. Define TALLY_PROBE_NO_INLINE before including this header to
 * call the functions instead (the same functions, always exported). */
#ifndef TALLY_PROBE_H
#define TALLY_PROBE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TALLY_PROBE_API __attribute__((visibility("default")))

/* The id of probe NAME (at most 47 bytes kept), registering it on first use;
 * -1 when there is no room (64 probes) or no monitor. */
TALLY_PROBE_API int tally_probe_id(const char *name);
/* One hit of probe ID: counted with its first and last time while probes are on. */
TALLY_PROBE_API void tally_probe_hit(int id);
/* The id of counter NAME, as tally_probe_id. */
TALLY_PROBE_API int tally_counter_id(const char *name);
/* Adds DELTA to counter ID while probes are on. */
TALLY_PROBE_API void tally_counter_add(int id, int64_t delta);
/* The iteration marker: call it once at the top of the main loop. Counts
 * hits and opens and closes the measurement window (tally run --window). */
TALLY_PROBE_API void tally_mark(void);
/* Non-zero while probes are being recorded. */
TALLY_PROBE_API int tally_probe_active(void);

/* Not API: the library's control page, whose first word has bit
 * TALLY__PROBES_ON set while probes are recorded (the library maps the
 * monitor's control page over it at registration). Read by the inline fast
 * paths below. */
#define TALLY__PROBES_ON 1u
#define TALLY__CONTROL_WORDS 1024
extern TALLY_PROBE_API volatile uint32_t tally__probe_control[TALLY__CONTROL_WORDS];

#ifndef TALLY_PROBE_NO_INLINE
static inline __attribute__((always_inline)) int tally__probes_on(void)
{
    return __builtin_expect((tally__probe_control[0] & TALLY__PROBES_ON) != 0, 0);
}

static inline __attribute__((always_inline)) void tally__probe_hit_inline(int id)
{
    if (tally__probes_on())
        tally_probe_hit(id);
}

static inline __attribute__((always_inline)) void tally__counter_add_inline(int id, int64_t delta)
{
    if (tally__probes_on())
        tally_counter_add(id, delta);
}

/* The API's names use the inline paths; (tally_probe_hit)(id) or
 * &tally_probe_hit still reach the exported functions. */
#define tally_probe_hit(id) tally__probe_hit_inline(id)
#define tally_counter_add(id, delta) tally__counter_add_inline(id, delta)
#define tally_probe_active() tally__probes_on()
#endif

#ifdef __cplusplus
}
#endif

#endif
