/* 'tally rm --with-inotify' at level 3 (rm_io.h): libtally-io's merged
 * records turned into resource_monitor's PREFIX.files and the summary's
 * input_files and output_files. */
#include "cli/rm_io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/run_io.h"
#include "instrument/io_report.h"
#include "instrument/io_segments.h"
#include "instrument/segments.h"
#include "monitor/task_types.h"
#include "report/rm_files.h"
#include "tally/io_segment.h"
#include "util/error.h"

int rm_io_prepare(struct rm_io *io, struct task_options *task)
{
    memset(io, 0, sizeof *io);
    if (run_io_preload(task, io->dir, sizeof io->dir, "rm: --with-inotify") == 0)
        return 0;
    fprintf(stderr, "tally: rm: --with-inotify: without the level-3 helper, PREFIX.files lists"
                    " the files seen open, without counts\n");
    io->dir[0] = '\0';
    return -1;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct rm_file_entry *)a)->path, ((const struct rm_file_entry *)b)->path);
}

/* The files the task opened (by open or fopen: the helper's pseudo-files
 * <STDOUT>, <incomplete> and files only inherited or stat'ed are not).
 * names[i] holds entry i's path for the summary's lists (a JSON string:
 * bytes that are not UTF-8 as \xNN, docs/io.md). */
static struct rm_file_entry *entries_of(const struct io_report *report, size_t *n, json_t ***names)
{
    size_t count = io_report_count(report);
    struct rm_file_entry *e = calloc(count ? count : 1, sizeof *e);
    *names = calloc(count ? count : 1, sizeof **names);
    if (!*names) {
        free(e);
        return NULL;
    }
    *n = 0;
    for (size_t i = 0; e && i < count; i++) {
        const char *path = io_report_path(report, i);
        const int64_t *c = io_report_counters(report, i);
        long long opens = c[POSIX_OPENS] + c[STDIO_OPENS];
        if (path[0] == '<' || opens == 0)
            continue;
        struct rm_file_entry *f = &e[(*n)++];
        struct stat st;
        bool there = stat(path, &st) == 0;
        f->path = path;
        (*names)[*n - 1] = io_path_json(path);
        f->list_path = json_string_value((*names)[*n - 1]);
        f->device = there ? (long long)st.st_dev : -1;
        f->size_final = there ? (long long)st.st_size : -1;
        f->opens = opens;
        f->closes = -1; /* not counted by the helper */
        f->reads = c[POSIX_READS] + c[STDIO_READS];
        f->writes = c[POSIX_WRITES] + c[STDIO_WRITES];
        f->output = f->writes > 0;
        /* a file the task never wrote kept its size */
        f->size_initial = f->writes == 0 ? f->size_final : -1;
    }
    if (e)
        qsort(e, *n, sizeof *e, by_path);
    return e;
}

int rm_io_collect(struct rm_io *io, const struct task_result *result, const char *files_path)
{
    if (!io->dir[0])
        return 0;
    struct io_report *report = io_report_new(result->value[FIELD_START]);
    struct io_image_set set;
    if (!report || io_image_set_load(io->dir, &set, io_report_add, report) < 0) {
        io_report_free(report);
        tally_error("rm: --with-inotify: the helper's records could not be read");
        return -1;
    }
    size_t n = 0;
    json_t **names = NULL;
    struct rm_file_entry *e = entries_of(report, &n, &names);
    int rc = e ? rm_files_write_entries(files_path, e, n) : -1;
    if (e) {
        io->input_files = rm_files_list_text(e, n, false);
        io->output_files = rm_files_list_text(e, n, true);
    } else {
        tally_error("rm: out of memory");
    }
    for (size_t i = 0; names && i < n; i++)
        json_decref(names[i]);
    free(names);
    free(e);
    io_image_set_free(&set);
    io_report_free(report);
    return rc;
}

void rm_io_end(struct rm_io *io)
{
    if (io->dir[0])
        segment_dir_remove(io->dir);
    io->dir[0] = '\0';
    free(io->input_files);
    free(io->output_files);
    io->input_files = io->output_files = NULL;
}
