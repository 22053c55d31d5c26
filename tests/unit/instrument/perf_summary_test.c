/* Unit tests for the summary's counters (instrument/perf_summary.c): values
 * per rank and summed, the hardware status told from perf_event_open's errno
 * (absent, refused, counted), instructions per cycle, the one-line note, and
 * what tally mpi report reads back (analysis.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/analysis.h"
#include "instrument/mpi_summary.h"
#include "instrument/perf_summary.h"
#include "tally/segment_switch.h"
#include "test.h"

static const uint32_t software = (1u << TALLY_PERF_TASK_CLOCK) | (1u << TALLY_PERF_PAGE_FAULTS) |
                                 (1u << TALLY_PERF_CONTEXT_SWITCHES);

static struct tally_segment *rank_with_counters(int rank, uint64_t task_clock_ns, int hardware_errno)
{
    struct tally_segment *s = calloc(1, sizeof *s);
    s->d.rank = rank;
    s->d.ranks = 2;
    s->d.flags = TALLY_SEG_MPI | TALLY_SEG_FINISHED;
    tally_seg_period_open(&s->d.window, 0, 1000000000ull);
    tally_seg_period_close(&s->d.window, 0, 3000000000ull);
    struct tally_seg_perf *p = &s->d.perf;
    p->hardware_errno = hardware_errno;
    p->opened = software | (hardware_errno ? 0 : TALLY_PERF_HARDWARE_MASK);
    p->window_read = p->run_read = 1;
    p->window[TALLY_PERF_TASK_CLOCK] = task_clock_ns;
    p->window[TALLY_PERF_PAGE_FAULTS] = 3;
    p->window[TALLY_PERF_CONTEXT_SWITCHES] = 10;
    p->window[TALLY_PERF_INSTRUCTIONS] = 3000;
    p->window[TALLY_PERF_CYCLES] = 2000;
    for (int e = 0; e < TALLY_PERF_EVENT_COUNT; e++)
        p->run[e] = 2 * p->window[e];
    return s;
}

int main(void)
{
    struct tally_segment *segs[2] = {rank_with_counters(0, 500000000, ENOENT),
                                     rank_with_counters(1, 1500000000, ENOENT)};
    struct segment_set set = {segs, 2};
    struct window_spec spec = {.set = true, .start = 0, .iterations = 0};
    json_t *mpi = mpi_summary_json(&set, &spec, 0);
    json_t *counters = json_object_get(mpi, "counters");
    CHECK_CONTAINS(json_string_value(json_object_get(counters, "hardware")), "absent: no hardware PMU on this machine");
    CHECK_STR(json_string_value(json_object_get(counters, "software")), "counted");
    CHECK_NEAR(json_real_value(json_array_get(json_object_get(json_object_get(counters, "window"), "task_clock"), 0)),
               2.0, 1e-9);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(counters, "run"), "page_faults")), 12);
    CHECK(json_object_get(json_object_get(counters, "window"), "instructions") == NULL);
    json_t *rank1 = json_object_get(json_array_get(json_object_get(mpi, "per_rank"), 1), "counters");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(rank1, "window"), "context_switches")), 10);
    char line[320];
    CHECK(perf_summary_note(counters, line, sizeof line));
    CHECK_CONTAINS(line, "hardware counters absent: no hardware PMU on this machine (perf_event_open: ");
    CHECK_CONTAINS(line, "counting task-clock, page faults and context switches only");

    struct mpi_analysis a;
    char why[256];
    CHECK_INT(mpi_analysis_from_json(mpi, &a, why, sizeof why), 0);
    CHECK_NEAR(a.per_rank[1].counters.task_clock, 1.5, 1e-9);
    CHECK_INT(a.per_rank[0].counters.page_faults, 3);
    CHECK_INT(a.per_rank[0].counters.instructions, -1);
    CHECK_CONTAINS(a.hardware, "absent");
    mpi_analysis_free(&a);
    json_decref(mpi);

    /* counted hardware: instructions, cycles and their ratio; no note */
    for (int i = 0; i < 2; i++) {
        free(segs[i]);
        segs[i] = rank_with_counters(i, 1000000000, 0);
    }
    mpi = mpi_summary_json(&set, &spec, 0);
    counters = json_object_get(mpi, "counters");
    CHECK_STR(json_string_value(json_object_get(counters, "hardware")), "counted");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(counters, "window"), "instructions")), 6000);
    CHECK_NEAR(json_real_value(json_object_get(json_object_get(counters, "window"), "instructions_per_cycle")), 1.5,
               1e-12);
    CHECK(!perf_summary_note(counters, line, sizeof line));
    json_decref(mpi);

    /* refused by the kernel; a window never counted has no "window" */
    segs[0]->d.perf.hardware_errno = EACCES;
    segs[0]->d.perf.window_read = 0;
    json_t *alone = perf_rank_json(&segs[0]->d.perf);
    CHECK(json_object_get(alone, "window") == NULL);
    CHECK(json_object_get(alone, "run") != NULL);
    json_decref(alone);
    counters = perf_summary_json(&set);
    CHECK_CONTAINS(json_string_value(json_object_get(counters, "hardware")), "refused: perf_event_paranoid");
    json_decref(counters);
    for (int i = 0; i < 2; i++)
        free(segs[i]);
    return test_done();
}
