/* Level 3 seen live (see agent_file_io.h): the regions of a task's
 * processes are loaded and merged by instrument/io_report, as 'tally run'
 * does at the end, at the moment of the request. A region is another
 * process's memory being written: a counter may be one operation behind,
 * never torn (each is one aligned 64-bit store). */
#include "agent/agent_file_io.h"

#include <stdio.h>
#include <string.h>

#include "instrument/io_report.h"
#include "instrument/io_segments.h"


json_t *agent_file_io_of_process(const struct agent_task *t, pid_t pid, char *why, size_t why_size)
{
    if (!t || !t->io_dir) {
        snprintf(why, why_size, "not followed at level 3 (tally run --agent --level 3)");
        return NULL;
    }
    struct io_report *report = io_report_new(t->start_epoch);
    struct io_image_set set;
    if (!report || io_image_set_load_pid(t->io_dir, pid, &set, io_report_add, report) < 0) {
        io_report_free(report);
        snprintf(why, why_size, "its level-3 records cannot be read");
        return NULL;
    }
    json_t *files = io_report_file_array(report);
    json_t *answer = json_pack("{s:o, s:b}", "files", files, "interposed", set.count > 0);
    io_image_set_free(&set);
    io_report_free(report);
    return answer;
}

int agent_file_io_totals(const struct agent_task *t, int64_t c[TALLY_IO_COUNTER_COUNT])
{
    if (!t->io_dir)
        return -1;
    struct io_report *report = io_report_new(t->start_epoch);
    struct io_image_set set;
    if (!report || io_image_set_load(t->io_dir, &set, io_report_add, report) < 0) {
        io_report_free(report);
        return -1;
    }
    int64_t mine[TALLY_IO_COUNTER_COUNT];
    io_report_totals(report, mine);
    for (int i = 0; i < TALLY_IO_COUNTER_COUNT; i++)
        if (__builtin_add_overflow(c[i], mine[i], &c[i]))
            c[i] = INT64_MAX;
    io_image_set_free(&set);
    io_report_free(report);
    return 0;
}
