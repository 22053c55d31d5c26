/* Unit tests for the instrumentation analyses and summaries: eq. (6)/(7) and
 * formula (2) on ScoPro's published numbers, imbalance naming, the --window
 * parser, and the mpi object built from hand-made segments (ratio, links,
 * iterations of a window closed by the program's end). */
#include <stdlib.h>
#include <string.h>

#include "instrument/analysis.h"
#include "instrument/mpi_summary.h"
#include "instrument/window_spec.h"
#include "tally/segment_switch.h"
#include "test.h"

static struct tally_segment *rank_segment(int rank, int ranks, double comm_s, double span_s, double wait_s)
{
    struct tally_segment *s = calloc(1, sizeof *s);
    s->control.c.magic = TALLY_SEG_MAGIC;
    s->d.rank = rank;
    s->d.ranks = ranks;
    s->d.flags = TALLY_SEG_MPI | TALLY_SEG_FINISHED;
    strcpy(s->d.host, "h");
    strcpy(s->d.library, "Open MPI 4.1.4");
    tally_seg_period_open(&s->d.window, 11, 1000000000ull); /* marker hits 11 to 111 */
    tally_seg_period_close(&s->d.window, 111, 1000000000ull + (uint64_t)(span_s * 1e9));
    s->d.window.how = TALLY_WINDOW_OPENED_AT_HIT;
    s->d.comm_ns = (uint64_t)(comm_s * 1e9);
    s->d.wait_ns = (uint64_t)(wait_s * 1e9);
    s->d.functions[TALLY_MPI_Send].calls = 100;
    s->d.functions[TALLY_MPI_Send].bytes = 80000;
    s->d.links[(rank + 1) % ranks] = (struct tally_seg_link){80000, 100};
    return s;
}

int main(void)
{
    /* ScoPro Table 7a, IS(A)/EP(B) 4 nodes: T_a1 226.22, S_a 1.12, T_b 148 */
    CHECK_NEAR(predict_eq6(226.22, 1.12, 148), 226.22 + 148 - 148 / 1.12, 1e-9);
    CHECK_NEAR(predict_eq7(226.22, 1.12), 253.3664, 1e-9);
    CHECK_NEAR(predict_eq6(10, 2, 30), 20, 1e-12); /* B outlasts A: A slowed all along */
    CHECK_NEAR(coscheduling_increase(3, 1), 0.5, 1e-12);
    CHECK_NEAR(coscheduling_increase(1, 3), 0, 1e-12);
    /* T_b from the runs' clocks: B started 10 s before A, ends 60 s after A's start */
    CHECK_NEAR(coscheduled_time(1000, 990, 1060), 60, 1e-9);
    CHECK_NEAR(coscheduled_time(1000, 1020, 1060), 40, 1e-9); /* B started 20 s after A */
    CHECK_NEAR(coscheduled_time(1000, 900, 950), 0, 1e-12);   /* B ended before A started */

    struct window_spec w;
    char why[256];
    memset(&w, 0, sizeof w);
    CHECK_INT(window_spec_parse("start=500, iterations=100,time=2 min,calls=7", &w, why, sizeof why), 0);
    CHECK_INT(w.start, 500);
    CHECK_INT(w.iterations, 100);
    CHECK_NEAR(w.time_limit, 120, 1e-9);
    CHECK_INT(w.call_limit, 7);
    CHECK_INT(window_spec_parse("start=5,stop=6", &w, why, sizeof why), -1);
    CHECK_CONTAINS(why, "unknown key 'stop'");
    CHECK_INT(window_spec_parse("iterations=-3", &w, why, sizeof why), -1);
    CHECK_CONTAINS(why, "iterations='-3'");
    CHECK_INT(window_spec_parse("start", &w, why, sizeof why), -1);
    CHECK_CONTAINS(why, "not key=value");
    memset(&w, 0, sizeof w);
    CHECK_INT(window_spec_parse("request", &w, why, sizeof why), 0);
    CHECK(w.set && w.by_request && w.start == -1);
    memset(&w, 0, sizeof w);
    CHECK_INT(window_spec_parse("request,start=0", &w, why, sizeof why), -1);
    CHECK_CONTAINS(why, "'request' stands alone");

    /* four ranks: 0 and 1 wait twice as long as 2 and 3 */
    struct tally_segment *segs[4] = {rank_segment(0, 4, 0.4, 1.0, 0.4), rank_segment(1, 4, 0.4, 1.0, 0.4),
                                     rank_segment(2, 4, 0.2, 1.0, 0.2), rank_segment(3, 4, 0.2, 1.0, 0.2)};
    segs[2]->d.window.t_first_on += 500000000ull; /* rank 2's window: 1.5 s to 2.5 s, the last to close */
    segs[2]->d.window.t_on += 500000000ull;
    segs[2]->d.window.t_off += 500000000ull;
    for (int i = 0; i < 4; i++) { /* MPI_Init returned at 0.5-0.8 s, MPI_Finalize entered at 3.0-2.7 s */
        segs[i]->d.t_init_end = 500000000ull + (uint64_t)i * 100000000ull;
        segs[i]->d.t_finalize = 3000000000ull - (uint64_t)i * 100000000ull;
    }
    struct segment_set set = {segs, 4};
    struct window_spec spec = {.set = true, .start = 10, .iterations = 100};
    json_t *mpi = mpi_summary_json(&set, &spec, 1000);
    CHECK(mpi != NULL);
    /* the window on any rank, on the epoch clock: first opening, last closing */
    const json_t *win = json_object_get(mpi, "window");
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(win, "opened"), 0)), 1001.0, 1e-6);
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(win, "closed"), 0)), 1002.5, 1e-6);
    /* all ranks past MPI_Init: the last one's return; the first MPI_Finalize entry */
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(mpi, "started"), 0)), 1000.8, 1e-6);
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(mpi, "finalizing"), 0)), 1002.7, 1e-6);
    CHECK_INT(json_integer_value(json_object_get(mpi, "ranks")), 4);
    CHECK_STR(json_string_value(json_object_get(mpi, "library")), "Open MPI 4.1.4");
    CHECK_NEAR(json_real_value(json_object_get(mpi, "comm_ratio")), 1.2 / (4 - 1.2), 1e-9);
    CHECK_NEAR(json_real_value(json_object_get(mpi, "comm_fraction")), 0.3, 1e-9);
    CHECK_INT(json_array_size(json_object_get(mpi, "links")), 4);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(json_object_get(mpi, "functions"), "MPI_Send"),
                                                 "calls")), 400);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(json_object_get(mpi, "per_rank"), 0), "iterations")),
              100);
    CHECK(json_object_get(mpi, "warnings") == NULL);

    struct mpi_analysis a;
    CHECK_INT(mpi_analysis_from_json(mpi, &a, why, sizeof why), 0);
    int ranks[4];
    size_t n = mpi_imbalanced_ranks(&a, +1, 0.1, ranks, 4);
    CHECK_INT(n, 2);
    CHECK_INT(ranks[0], 0);
    CHECK_INT(ranks[1], 1);
    n = mpi_imbalanced_ranks(&a, -1, 0.1, ranks, 4);
    CHECK_INT(n, 2);
    CHECK_INT(ranks[0], 2);
    CHECK_NEAR(a.busy, 4 - 1.2, 1e-9);
    CHECK_NEAR(a.idle, 1.2, 1e-9);
    CHECK_INT(a.matrix[0][1], 80000);
    CHECK_INT(a.matrix[3][0], 80000);
    mpi_analysis_free(&a);
    json_decref(mpi);

    /* one rank of four: a missing rank, unless each rank has a run of its own (Slurm) */
    struct segment_set one = {segs, 1};
    struct window_spec whole = {0};
    mpi = mpi_summary_json(&one, &whole, 0);
    CHECK_STR(json_string_value(json_array_get(json_object_get(mpi, "warnings"), 0)), "1 of 4 ranks registered");
    json_decref(mpi);
    whole.rank_per_run = true;
    mpi = mpi_summary_json(&one, &whole, 0);
    CHECK_INT(json_integer_value(json_object_get(mpi, "ranks")), 4);
    CHECK(json_object_get(mpi, "warnings") == NULL);
    json_decref(mpi);

    /* a window the program's end closed counts its last iteration; one never opened is named */
    segs[0]->d.window.how |= TALLY_WINDOW_CLOSED_AT_END;
    segs[1]->d.window.state = TALLY_WINDOW_WAITING;
    segs[1]->d.marker_hits = 7;
    mpi = mpi_summary_json(&set, &spec, 0);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(json_object_get(mpi, "per_rank"), 0), "iterations")),
              101);
    json_t *warnings = json_object_get(mpi, "warnings");
    CHECK_CONTAINS(json_string_value(json_array_get(warnings, 0)), "the window never opened on rank 1 (7 marker hits");
    json_decref(mpi);

    /* --window request: two periods on rank 0 (1 s with hits 11-111, then
     * 0.5 s from 3 s with hits 200-250); rank 1 never switched on */
    struct tally_seg_window *w0 = &segs[0]->d.window;
    w0->how = 0;
    tally_seg_period_open(w0, 200, 3000000000ull);
    tally_seg_period_close(w0, 250, 3500000000ull);
    struct window_spec by_request = {.set = true, .start = -1, .by_request = true};
    mpi = mpi_summary_json(&set, &by_request, 0);
    const json_t *r0 = json_array_get(json_object_get(mpi, "per_rank"), 0);
    CHECK_INT(json_integer_value(json_object_get(r0, "periods")), 2);
    CHECK_INT(json_integer_value(json_object_get(r0, "iterations")), 150);
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(r0, "span"), 0)), 1.5, 1e-9);
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(r0, "compute_time"), 0)), 1.5 - 0.4, 1e-9);
    win = json_object_get(mpi, "window");
    CHECK_STR(json_string_value(json_object_get(win, "kind")), "request");
    CHECK(json_object_get(win, "start") == NULL);
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(win, "closed"), 0)), 3.5, 1e-6);
    CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(mpi, "warnings"), 0)),
                   "recording was never switched on for rank 1");
    json_t *not_mpi = json_string("x");
    CHECK(mpi_analysis_from_json(not_mpi, &a, why, sizeof why) < 0);
    json_decref(not_mpi);
    json_decref(mpi);
    for (int i = 0; i < 4; i++)
        free(segs[i]);
    return test_done();
}
