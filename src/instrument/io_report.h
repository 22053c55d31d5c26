/* Level 3's reports from libtally-io's regions: the per-file records of
 * every process merged by path (Darshan's counters, with the per-process
 * split kept) into PREFIX.files.json, the summary's "io" object (totals per
 * module, the top files), and which processes the helper did not reach.
 * docs/io.md describes both formats. */
#ifndef TALLY_INSTRUMENT_IO_REPORT_H
#define TALLY_INSTRUMENT_IO_REPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "instrument/io_segments.h"
#include "monitor/task_types.h"

struct io_report;

/* start_epoch: the task's start (timestamps are seconds after it). */
struct io_report *io_report_new(double start_epoch);
void io_report_free(struct io_report *report);
/* Merges one image's records (io_image_set_load's callback). */
void io_report_add(void *report, const struct io_image *img);
/* PREFIX.files.json's object but its "processes" (an entry per image):
 * format, bound, incomplete, not_interposed, files. set: the images'
 * headers; result: the engine's list of every process's executable. */
json_t *io_report_files_json(const struct io_report *report, const struct io_image_set *set,
                             const struct task_result *result);
/* The same without "files" either, for io_report_files_write to write
 * them from the report as it walks it (when no MPI-IO counters are to be
 * merged into them). */
json_t *io_report_files_head(const struct io_report *report, const struct io_image_set *set,
                             const struct task_result *result);
/* PREFIX.files.json's text into F: DOC (io_report_files_json's, the
 * MPI-IO counters merged in or not, or io_report_files_head's) with
 * "processes", an entry per image of SET, streamed rather than built (2003
 * in the 1000-process loop), then "files": DOC's, or when DOC has none
 * REPORT's, written as io_report_file_array would build them; as
 * summary_write_object would write the whole object, a new line last. 0,
 * or -1 when F failed. */
int io_report_files_write(FILE *f, const json_t *doc, const struct io_report *report,
                          const struct io_image_set *set);
/* Its "files" array alone: one object per file, largest first, with its
 * counters and per-process split (the agent's live answer, docs/agent.md). */
json_t *io_report_file_array(const struct io_report *report);
/* Every file's counters merged (sums, earliest and latest times). */
void io_report_totals(const struct io_report *report, int64_t c[TALLY_IO_COUNTER_COUNT]);
/* The summary's "io" object; files_path: where the per-file report went. */
json_t *io_report_summary_json(const struct io_report *report, const struct io_image_set *set,
                               const struct task_result *result, const char *files_path);
/* The merged files, in the order first seen: how many, and file i's path
 * and counters (TALLY_IO_COUNTER_COUNT of them, io_segment.h's order). */
size_t io_report_count(const struct io_report *report);
const char *io_report_path(const struct io_report *report, size_t i);
const int64_t *io_report_counters(const struct io_report *report, size_t i);
/* A file name as a JSON string: UTF-8 as is, each byte that is not part of
 * valid UTF-8 written as the four characters \xNN (documented in docs/io.md). */
json_t *io_path_json(const char *path);

#endif
