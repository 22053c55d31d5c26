/* MPI-IO per file for libtally-mpi (record.h): each rank's files in its
 * segment (at most TALLY_SEG_MAX_IO_FILES; opens past them counted), found
 * by their open MPI_File handle, with Darshan's MPIIO counters. A file
 * opened again after its close (the same path) goes on in the same entry.
 * Single-threaded updates, as record.c's. */
#include "record.h"

#include <string.h>
#include <unistd.h>

static uint64_t handle_of(MPI_File fh) { return (uint64_t)(uintptr_t)fh; }

static struct tally_seg_io_file *file_of(struct tally_segment *s, MPI_File fh)
{
    uint64_t h = handle_of(fh);
    for (uint32_t i = 0; h && i < s->d.io_file_count && i < TALLY_SEG_MAX_IO_FILES; i++)
        if (s->d.io_files[i].handle == h)
            return &s->d.io_files[i];
    return NULL;
}

void record_io_open(MPI_Comm comm, const char *filename, MPI_File fh, uint64_t dt)
{
    struct tally_segment *s = record_segment();
    if (!s || !filename)
        return;
    char path[TALLY_SEG_IO_PATH], cwd[TALLY_SEG_IO_PATH - 1]; /* room for the '/' */
    /* relative names made absolute; a prefix such as "ufs:" kept as given;
     * a longer name is cut (the segment's field is fixed) */
    size_t n = 0;
    if (filename[0] != '/' && !strchr(filename, ':') && getcwd(cwd, sizeof cwd)) {
        n = strnlen(cwd, sizeof cwd - 1);
        memcpy(path, cwd, n);
        path[n++] = '/';
    }
    size_t rest = strnlen(filename, sizeof path - 1 - n);
    memcpy(path + n, filename, rest);
    path[n + rest] = '\0';
    struct tally_seg_io_file *f = NULL;
    for (uint32_t i = 0; i < s->d.io_file_count && i < TALLY_SEG_MAX_IO_FILES; i++)
        if (s->d.io_files[i].handle == 0 && !strcmp(s->d.io_files[i].path, path))
            f = &s->d.io_files[i];
    if (!f && s->d.io_file_count < TALLY_SEG_MAX_IO_FILES) {
        f = &s->d.io_files[s->d.io_file_count];
        memcpy(f->path, path, sizeof f->path);
        s->d.io_file_count++;
    }
    if (!f) {
        s->d.io_opens_past_bound++;
        return;
    }
    int size = 0;
    PMPI_Comm_size(comm, &size);
    f->handle = handle_of(fh);
    f->counter[size == 1 ? TALLY_MPIIO_INDEP_OPENS : TALLY_MPIIO_COLL_OPENS]++;
    f->counter[TALLY_MPIIO_F_META_TIME] += dt;
}

void record_io(MPI_File fh, int count, int bytes_counter, uint64_t bytes, int time_counter, uint64_t dt)
{
    struct tally_segment *s = record_segment();
    struct tally_seg_io_file *f = s ? file_of(s, fh) : NULL;
    if (!f)
        return;
    if (count >= 0)
        f->counter[count]++;
    if (bytes_counter >= 0)
        f->counter[bytes_counter] += bytes;
    if (time_counter >= 0)
        f->counter[time_counter] += dt;
}

void record_io_close(MPI_File fh, uint64_t dt)
{
    struct tally_segment *s = record_segment();
    struct tally_seg_io_file *f = s ? file_of(s, fh) : NULL;
    if (!f)
        return;
    f->counter[TALLY_MPIIO_F_META_TIME] += dt;
    f->handle = 0;
}
