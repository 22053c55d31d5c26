/* Unit tests for top's rows (src/view/top_rows.c): readings of a
 * proc_get_info answer, rates from two refreshes of the same process, NaN
 * for a first sight or a counter that went down, contract and recording. */
#include <math.h>
#include <string.h>

#include "test.h"
#include "view/top_rows.h"

static json_t *answer(const char *object, const char *node, double cpu, double read_mb, double sent)
{
    return json_pack("{s:s, s:s, s:s, s:{s:i, s:s, s:s, s:[f, s], s:[f, s], s:[f, s], s:f, s:f, s:[f, s]}}",
                     "service", "proc_get_info", "object", object, "node", node, "result", "pid", 42, "state",
                     "S", "command", "solver -n 4", "cpu_time", cpu, "s", "bytes_read", read_mb, "MB",
                     "bytes_written", 0.0, "MB", "bytes_received", 0.0, "bytes_sent", sent, "memory", 12.5, "MB");
}

int main(void)
{
    struct top_row rows[2];
    struct top_previous first[2], second[2];
    json_t *lines = json_array();
    json_array_append_new(lines, answer("p_42@n1", "n1", 10.0, 1.0, 1000));
    CHECK_INT((int)top_rows_build(lines, 100.0, NULL, 0, rows, first), 1);
    CHECK_STR(rows[0].host, "n1");
    CHECK_INT(rows[0].pid, 42);
    CHECK_INT(rows[0].state, 'S');
    CHECK_STR(rows[0].command, "solver -n 4");
    CHECK_NEAR(rows[0].memory_mb, 12.5, 1e-12);
    CHECK(isnan(rows[0].cpu_percent)); /* first sight: no rate yet */
    CHECK(!rows[0].has_contract);
    CHECK_STR(rows[0].recording, "");
    CHECK_STR(first[0].key, "p_42@n1");
    json_decref(lines);

    lines = json_array();
    json_t *a = answer("p_42@n1", "n1", 11.5, 3.0, 500); /* sent went down */
    json_t *r = json_object_get(a, "result");
    json_object_set_new(r, "contract", json_pack("{s:f, s:f, s:{s:s, s:s}}", "overall", 0.7, "threshold", 0.5,
                                                 "worst", "space", "cpu", "dimension", "flops_per_s"));
    json_object_set_new(r, "probes", json_pack("{s:{s:[s, s], s:i, s:i}}", "recording", "on", "mpi", "probes",
                                               "ack", 1, "request", 2));
    json_array_append_new(lines, a);
    CHECK_INT((int)top_rows_build(lines, 102.0, first, 1, rows, second), 1);
    CHECK_NEAR(rows[0].cpu_percent, 75.0, 1e-9);             /* 1.5 s of CPU in 2 s */
    CHECK_NEAR(rows[0].read_bytes_per_s, 1048576.0, 1e-6);  /* 2 MB in 2 s */
    CHECK_NEAR(rows[0].write_bytes_per_s, 0, 1e-12);
    CHECK(isnan(rows[0].sent_bytes_per_s));
    CHECK(rows[0].has_contract);
    CHECK_NEAR(rows[0].contract_level, 0.7, 1e-12);
    CHECK_NEAR(rows[0].contract_threshold, 0.5, 1e-12);
    CHECK_STR(rows[0].contract_dimension, "flops_per_s");
    CHECK_STR(rows[0].recording, "mpi+probes*");
    CHECK(top_row_violating(&rows[0]));
    json_decref(lines);
    return test_done();
}
