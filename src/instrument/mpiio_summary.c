/* The summary's mpi.mpiio (mpiio_summary.h). Totals: counts, bytes and
 * times from the per-function table of every rank (exact whatever the
 * number of files); opens split independent/collective from the files (an
 * open past a rank's TALLY_SEG_MAX_IO_FILES files is in opens_past_bound
 * only). Files: each rank's files merged by path, counters summed, with the
 * number of ranks that opened it; sorted by bytes moved. The same files with
 * each rank's own counters are what PREFIX.files.json gets (mpiio_files_json). */
#include "instrument/mpiio_summary.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/io_report.h"
#include "util/hashmap.h"
#include "util/vec.h"

static const char *const counter_names[] = {
#define NAME(name) #name,
    TALLY_MPIIO_COUNTERS(NAME)
#undef NAME
};

static int is_time(int c)
{
    return c == TALLY_MPIIO_F_READ_TIME || c == TALLY_MPIIO_F_WRITE_TIME || c == TALLY_MPIIO_F_META_TIME;
}

static json_t *counter_json(int c, uint64_t v)
{
    return is_time(c) ? json_real(round((double)v) / 1e9) : json_integer((json_int_t)v);
}

struct merged {
    char *path;
    uint64_t counter[TALLY_MPIIO_COUNTER_COUNT];
    int ranks;
    json_t *processes; /* each rank's own counters, when asked */
};

static uint64_t moved(const struct merged *m)
{
    return m->counter[TALLY_MPIIO_BYTES_READ] + m->counter[TALLY_MPIIO_BYTES_WRITTEN];
}

static int by_bytes(const void *a, const void *b)
{
    const struct merged *x = a, *y = b;
    if (moved(x) != moved(y))
        return moved(x) > moved(y) ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* One rank's counters of a file: its pid and rank, and the counters that are not 0. */
static json_t *rank_counters_json(const struct tally_seg_data *d, const struct tally_seg_io_file *f)
{
    json_t *o = json_pack("{s:i, s:i}", "pid", (int)d->pid, "rank", d->rank);
    for (int c = 0; o && c < TALLY_MPIIO_COUNTER_COUNT; c++)
        if (f->counter[c])
            json_object_set_new(o, counter_names[c], counter_json(c, f->counter[c]));
    return o;
}

/* Every rank's files, merged by path; with_processes: each with its
 * "processes" (the ranks' own counters). */
static json_t *files_json(const struct segment_set *set, uint64_t *indep, uint64_t *coll, bool with_processes)
{
    struct merged *files = NULL;
    size_t count = 0, cap = 0;
    struct hashmap by_path;
    memset(&by_path, 0, sizeof by_path);
    for (size_t i = 0; i < set->count; i++) {
        const struct tally_seg_data *d = &set->items[i]->d;
        for (uint32_t k = 0; k < d->io_file_count && k < TALLY_SEG_MAX_IO_FILES; k++) {
            const struct tally_seg_io_file *f = &d->io_files[k];
            size_t len = strnlen(f->path, sizeof f->path);
            const struct hashmap_slot *known = hashmap_find(&by_path, f->path, len);
            struct merged *m;
            if (known) {
                m = &files[(intptr_t)known->value];
            } else {
                m = VEC_PUSH(files, count, cap);
                if (!m)
                    continue;
                memset(m, 0, sizeof *m);
                m->path = strndup(f->path, len);
                if (!m->path || hashmap_put_kept(&by_path, m->path, len, (void *)(intptr_t)(count - 1)) < 0) {
                    free(m->path);
                    count--;
                    continue;
                }
            }
            for (int c = 0; c < TALLY_MPIIO_COUNTER_COUNT; c++)
                m->counter[c] += f->counter[c];
            m->ranks++;
            if (with_processes && (m->processes || (m->processes = json_array())))
                json_array_append_new(m->processes, rank_counters_json(d, f));
            *indep += f->counter[TALLY_MPIIO_INDEP_OPENS];
            *coll += f->counter[TALLY_MPIIO_COLL_OPENS];
        }
    }
    hashmap_free(&by_path);
    qsort(files, count, sizeof *files, by_bytes);
    json_t *a = json_array();
    for (size_t i = 0; i < count; i++) {
        json_t *o = json_object(); /* a name that is not UTF-8 escaped as in PREFIX.files.json */
        json_object_set_new(o, "path", io_path_json(files[i].path));
        json_object_set_new(o, "ranks", json_integer(files[i].ranks));
        for (int c = 0; c < TALLY_MPIIO_COUNTER_COUNT; c++)
            json_object_set_new(o, counter_names[c], counter_json(c, files[i].counter[c]));
        if (files[i].processes)
            json_object_set_new(o, "processes", files[i].processes);
        json_array_append_new(a, o);
        free(files[i].path);
    }
    free(files);
    return a;
}

json_t *mpiio_summary_json(const struct segment_set *set)
{
    uint64_t calls[TALLY_MPI_FUNCTION_COUNT] = {0}, ns[TALLY_MPI_FUNCTION_COUNT] = {0},
             bytes[TALLY_MPI_FUNCTION_COUNT] = {0}, any = 0, past_bound = 0;
    for (size_t i = 0; i < set->count; i++) {
        for (int f = TALLY_MPI_File_open; f < TALLY_MPI_FUNCTION_COUNT; f++) {
            const struct tally_seg_function *fn = &set->items[i]->d.functions[f];
            calls[f] += fn->calls;
            ns[f] += fn->ns;
            bytes[f] += fn->bytes;
            any += fn->calls;
        }
        past_bound += set->items[i]->d.io_opens_past_bound;
    }
    if (!any)
        return NULL;
    static const int reads[] = {TALLY_MPI_File_read, TALLY_MPI_File_read_at, TALLY_MPI_File_read_all,
                                TALLY_MPI_File_read_at_all, TALLY_MPI_File_iread, TALLY_MPI_File_iread_at};
    static const int writes[] = {TALLY_MPI_File_write, TALLY_MPI_File_write_at, TALLY_MPI_File_write_all,
                                 TALLY_MPI_File_write_at_all, TALLY_MPI_File_iwrite, TALLY_MPI_File_iwrite_at};
    static const int meta[] = {TALLY_MPI_File_open, TALLY_MPI_File_close, TALLY_MPI_File_sync,
                               TALLY_MPI_File_set_view, TALLY_MPI_File_seek};
    uint64_t t[TALLY_MPIIO_COUNTER_COUNT] = {0};
    for (int k = 0; k < 6; k++) {
        t[TALLY_MPIIO_BYTES_READ] += bytes[reads[k]];
        t[TALLY_MPIIO_F_READ_TIME] += ns[reads[k]];
        t[TALLY_MPIIO_BYTES_WRITTEN] += bytes[writes[k]];
        t[TALLY_MPIIO_F_WRITE_TIME] += ns[writes[k]];
    }
    for (int k = 0; k < 5; k++)
        t[TALLY_MPIIO_F_META_TIME] += ns[meta[k]];
    t[TALLY_MPIIO_INDEP_READS] = calls[TALLY_MPI_File_read] + calls[TALLY_MPI_File_read_at];
    t[TALLY_MPIIO_INDEP_WRITES] = calls[TALLY_MPI_File_write] + calls[TALLY_MPI_File_write_at];
    t[TALLY_MPIIO_COLL_READS] = calls[TALLY_MPI_File_read_all] + calls[TALLY_MPI_File_read_at_all];
    t[TALLY_MPIIO_COLL_WRITES] = calls[TALLY_MPI_File_write_all] + calls[TALLY_MPI_File_write_at_all];
    t[TALLY_MPIIO_NB_READS] = calls[TALLY_MPI_File_iread] + calls[TALLY_MPI_File_iread_at];
    t[TALLY_MPIIO_NB_WRITES] = calls[TALLY_MPI_File_iwrite] + calls[TALLY_MPI_File_iwrite_at];
    t[TALLY_MPIIO_SYNCS] = calls[TALLY_MPI_File_sync];
    t[TALLY_MPIIO_VIEWS] = calls[TALLY_MPI_File_set_view];
    json_t *files = files_json(set, &t[TALLY_MPIIO_INDEP_OPENS], &t[TALLY_MPIIO_COLL_OPENS], false);
    json_t *o = json_object();
    for (int c = 0; c < TALLY_MPIIO_COUNTER_COUNT; c++)
        json_object_set_new(o, counter_names[c], counter_json(c, t[c]));
    json_object_set_new(o, "opens_past_bound", json_integer((json_int_t)past_bound));
    json_object_set_new(o, "files", files);
    return o;
}

json_t *mpiio_files_json(const struct segment_set *set)
{
    uint64_t indep = 0, coll = 0;
    json_t *files = files_json(set, &indep, &coll, true);
    if (files && json_array_size(files) == 0) {
        json_decref(files);
        return NULL;
    }
    return files;
}
