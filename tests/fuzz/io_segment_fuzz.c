/* Fuzz harness (libFuzzer) for reading a region libtally-io left
 * (src/instrument/io_segments.c) and reporting it (io_report.c: merging by
 * path, PREFIX.files.json, the summary's io, file names that are not
 * UTF-8): the input, padded or cut to a region's size, is one DIR/io.1.0,
 * with the magic and version set so that most inputs get past them, and
 * the same region again as the first slot of the run file DIR/io.slots
 * (sparse), whose count of slots taken comes from the input: the slots'
 * reading, the images' numbering and the time-stamp-counter conversion
 * (header.ticks from the input too). PREFIX.files.json's text, its
 * processes streamed (json_text.c), must parse back with an entry per
 * image, and be the same text when its files are written as the report is
 * walked (io_report_files_head) instead of built. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "instrument/io_report.h"
#include "instrument/io_segments.h"
#include "instrument/segments.h"

/* Writes the region at offset `at` of f: only its bytes that the input can
 * have set (its first `used`, and the incomplete record's first 64), the
 * rest left to the file's holes, which read as the zeros they are (a
 * megabyte written twice per input was most of the harness's time). */
static void put_region(FILE *f, long at, const unsigned char *region, size_t used)
{
    fseek(f, at, SEEK_SET);
    fwrite(region, 1, used, f);
    fseek(f, at + (long)(TALLY_IO_SIZE - TALLY_IO_RECORD), SEEK_SET);
    fwrite(region + TALLY_IO_SIZE - TALLY_IO_RECORD, 1, 64, f);
}

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
    size_t used = size > sizeof *h ? size : sizeof *h;
    if (used > TALLY_IO_SIZE)
        used = TALLY_IO_SIZE;
    if (size >= 32) {
        h->magic = TALLY_IO_MAGIC;
        h->version = TALLY_IO_VERSION;
        h->record_size = TALLY_IO_RECORD;
        h->capacity = TALLY_IO_CAPACITY;
    }
    char slots_path[300];
    snprintf(slots_path, sizeof slots_path, "%s/%s", dir, TALLY_IO_RUN_FILE);
    FILE *run = fopen(slots_path, "w");
    if (run) {
        struct tally_io_run head = {.magic = TALLY_IO_RUN_MAGIC, .version = TALLY_IO_VERSION,
                                    .slot_size = TALLY_IO_SLOT, .slots = TALLY_IO_SLOTS,
                                    .taken = size > 0 ? data[0] % 4 : 0,
                                    .anchor_ns = size > 8 ? (uint64_t)data[1] << 40 : 1,
                                    .anchor_ticks = size > 8 ? (uint64_t)data[2] << 30 : 1};
        fwrite(&head, sizeof head, 1, run);
        put_region(run, (long)tally_io_slot_offset(0), region, used);
        fclose(run);
        if (truncate(slots_path, (off_t)tally_io_slot_offset(TALLY_IO_SLOTS)) < 0)
            unlink(slots_path);
    }
    FILE *f = fopen(path, "w");
    if (f) {
        put_region(f, 0, region, used);
        fclose(f);
        if (truncate(path, TALLY_IO_SIZE) < 0)
            unlink(path);
        struct io_report *report = io_report_new(1e9);
        struct io_image_set set;
        struct task_executable exe = {.pid = h->pid, .path = (char *)"/bin/true"};
        struct task_result result;
        memset(&result, 0, sizeof result);
        result.executables = &exe;
        result.executable_count = 1;
        if (report && io_image_set_load(dir, &set, io_report_add, report) == 0) {
            json_t *files = io_report_files_json(report, &set, &result);
            /* The processes' entries are written, not built: the text must
             * parse, with an entry per image. */
            char *text = NULL;
            size_t len = 0;
            FILE *sink = open_memstream(&text, &len);
            if (sink && files) {
                int rc = io_report_files_write(sink, files, report, &set);
                fclose(sink);
                json_t *back = rc == 0 ? json_loadb(text, len, 0, NULL) : NULL;
                if (rc == 0 && json_array_size(json_object_get(back, "processes")) != set.count)
                    abort(); /* not JSON, or not every image */
                json_decref(back);
                /* its files written as the report is walked: the same text */
                json_t *head = io_report_files_head(report, &set, &result);
                char *walked = NULL;
                size_t walked_len = 0;
                FILE *again = head ? open_memstream(&walked, &walked_len) : NULL;
                if (again) {
                    int rc2 = io_report_files_write(again, head, report, &set);
                    fclose(again);
                    if (rc == 0 && (rc2 != 0 || walked_len != len || memcmp(walked, text, len)))
                        abort();
                }
                free(walked);
                json_decref(head);
            } else if (sink) {
                fclose(sink);
            }
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
