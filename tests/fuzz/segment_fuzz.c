/* Fuzz harness (libFuzzer) for reading a segment another process wrote
 * (src/instrument/segments.c) and summarizing it (mpi_summary.c, with its
 * counters: perf_summary.c, and MPI-IO's files: mpiio_summary.c): the input,
 * padded or cut to a segment's size, is one DIR/PID.seg. Build:
 *   clang -g -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Isrc -Iinclude \
 *     tests/fuzz/segment_fuzz.c src/instrument/segments.c src/instrument/mpi_summary.c \
 *     src/instrument/perf_summary.c \
 *     src/util/error.c $(pkg-config --cflags --libs jansson) -lm -o build/fuzz/segment_fuzz */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "instrument/mpi_summary.h"
#include "instrument/segments.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[] = "/tmp/tally-seg-fuzz-XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    char path[64];
    snprintf(path, sizeof path, "%s/1.seg", dir);
    struct tally_segment *s = calloc(1, TALLY_SEG_SIZE);
    memcpy(s, data, size < TALLY_SEG_SIZE ? size : TALLY_SEG_SIZE);
    /* the MPI-IO files lie past the links, beyond most inputs: the input
     * fills them too (mpiio_summary.c reads them when a File function was
     * called: one is, for such inputs) */
    size_t io_at = offsetof(struct tally_segment, d.io_file_count), io_len = TALLY_SEG_SIZE - io_at;
    if (size < io_at) {
        memcpy((char *)s + io_at, data, size < io_len ? size : io_len);
        s->d.functions[TALLY_MPI_File_open].calls |= 1;
    }
    if (size >= 16) { /* let most inputs past the magic check */
        s->control.c.magic = TALLY_SEG_MAGIC;
        s->control.c.version = TALLY_SEG_VERSION;
    }
    FILE *f = fopen(path, "w");
    if (f) {
        fwrite(s, 1, TALLY_SEG_SIZE, f);
        fclose(f);
        struct segment_set set;
        if (segment_set_load(dir, &set) == 0) {
            struct window_spec w = {.set = true, .start = 3, .iterations = 5};
            json_decref(mpi_summary_json(&set, &w, 0));
            json_decref(probes_summary_json(&set));
            segment_set_free(&set);
        }
    }
    free(s);
    segment_dir_remove(dir);
    return 0;
}
