/* Fuzz harness (libFuzzer) for reading a region libtally-io left
 * (src/instrument/io_segments.c) and reporting it (io_report.c: merging by
 * path, PREFIX.files.json, the summary's io, file names that are not
 * UTF-8): the input, padded or cut to a region's size, is one DIR/io.1.0,
 * with the magic and version set so that most inputs get past them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/io_report.h"
#include "instrument/io_segments.h"
#include "instrument/segments.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/tally-io-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return 0;
    char path[64];
    snprintf(path, sizeof path, "%s/io.1.0", dir);
    unsigned char *region = calloc(1, TALLY_IO_SIZE);
    if (!region)
        return 0;
    /* The input fills the header and the first records, and the last
     * bytes of the input land in the incomplete record too. */
    memcpy(region, data, size < TALLY_IO_SIZE ? size : TALLY_IO_SIZE);
    if (size > 64)
        memcpy(region + TALLY_IO_SIZE - TALLY_IO_RECORD, data + size - 64, 64);
    struct tally_io_header *h = (struct tally_io_header *)region;
    if (size >= 32) {
        h->magic = TALLY_IO_MAGIC;
        h->version = TALLY_IO_VERSION;
        h->record_size = TALLY_IO_RECORD;
        h->capacity = TALLY_IO_CAPACITY;
    }
    FILE *f = fopen(path, "w");
    if (f) {
        fwrite(region, 1, TALLY_IO_SIZE, f);
        fclose(f);
        struct io_report *report = io_report_new(1e9);
        struct io_image_set set;
        struct task_executable exe = {.pid = h->pid, .path = (char *)"/bin/true"};
        struct task_result result;
        memset(&result, 0, sizeof result);
        result.executables = &exe;
        result.executable_count = 1;
        if (report && io_image_set_load(dir, &set, io_report_add, report) == 0) {
            json_t *files = io_report_files_json(report, &set, &result);
            char *text = json_dumps(files, 0);
            free(text);
            json_decref(files);
            json_decref(io_report_summary_json(report, &set, &result, "x.files.json"));
            io_image_set_free(&set);
        }
        io_report_free(report);
    }
    free(region);
    segment_dir_remove(dir);
    return 0;
}
