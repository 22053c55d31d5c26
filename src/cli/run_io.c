/* The level-3 hooks of 'tally run' (run_io.h). */
#include "cli/run_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/run.h"
#include "instrument/io_mpiio_merge.h"
#include "instrument/io_report.h"
#include "instrument/io_segments.h"
#include "instrument/launch.h"
#include "instrument/segments.h"
#include "monitor/helper_reports.h"
#include "report/summary.h"
#include "util/atomic_file.h"
#include "util/error.h"

int run_io_preload(struct task_options *task, char *dir, size_t dir_size, const char *who)
{
    if (task->follow_pid > 0) {
        tally_error("%s: needs a command to start (the helper is loaded at exec), not --pid", who);
        return -1;
    }
    char lib[PATH_MAX];
    if (instrument_library_path(TALLY_IO_LIBRARY, lib, sizeof lib) < 0) {
        tally_error("%s: %s not found beside tally (set TALLY_LIBDIR)", who, TALLY_IO_LIBRARY);
        return -1;
    }
    if (segment_dir_create(dir, dir_size) < 0)
        return -1;
    task->level = 3;
    task->io_dir = dir; /* the engine counts processes from the regions */
    /* The tracer follows what the helper cannot enter (docs/io.md); a
     * setuid or setgid command would lose its privileges to a tracer that
     * has none: it is launched untraced, as level 3 did before. */
    char command[PATH_MAX];
    struct stat st;
    task->io_untraced = geteuid() != 0 && task->argv && task->argv[0] &&
                        command_path(task->argv[0], command, sizeof command) == 0 && stat(command, &st) == 0 &&
                        (st.st_mode & (S_ISUID | S_ISGID));
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *value = malloc(len);
    if (!value) {
        tally_error("%s: out of memory", who);
        return -1;
    }
    snprintf(value, len, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    int rc = setenv("LD_PRELOAD", value, 1) | setenv("TALLY_IO_DIR", dir, 1);
    free(value);
    if (rc < 0)
        tally_error_errno("%s: setenv", who);
    return rc < 0 ? -1 : 0;
}

int run_io_prepare(struct run_config *cfg)
{
    if (cfg->task.level != 3)
        return 0;
    return run_io_preload(&cfg->task, cfg->io.dir, sizeof cfg->io.dir, "--level 3");
}

/* PREFIX.files.json's text: the object built, its processes (and files) streamed. */
struct files_text {
    const json_t *doc;
    const struct io_report *report;
    const struct io_image_set *set;
};

static int write_files(void *ctx, FILE *out)
{
    const struct files_text *t = ctx;
    return io_report_files_write(out, t->doc, t->report, t->set);
}

int run_io_collect(struct run_config *cfg, const struct task_result *result)
{
    struct run_io_options *o = &cfg->io;
    if (!o->dir[0])
        return 0;
    json_decref(o->summary_io);
    o->summary_io = NULL;
    struct io_report *report = io_report_new(result->value[FIELD_START]);
    struct io_image_set set;
    if (!report || io_image_set_load(o->dir, &set, io_report_add, report) < 0) {
        io_report_free(report);
        return -1;
    }
    char *path = run_report_path(cfg->prefix, ".files.json");
    /* The files are built as JSON values only for MPI-IO's counters to be
     * merged into them; otherwise they are written as the report is walked. */
    const json_t *mpiio = cfg->instrument.mpiio_files;
    bool merge = json_array_size(mpiio) > 0;
    json_t *files = !path ? NULL : merge ? io_report_files_json(report, &set, result)
                                         : io_report_files_head(report, &set, result);
    if (files && merge && io_files_add_mpiio(files, mpiio) < 0)
        json_decref(files), files = NULL; /* out of memory: no half-merged report */
    struct files_text text = {files, report, &set};
    int rc = files ? atomic_write_with(path, write_files, &text) : -1;
    if (files && rc < 0)
        tally_error_errno("%s", path);
    if (rc == 0)
        o->summary_io = io_report_summary_json(report, &set, result, path);
    json_decref(files);
    free(path);
    io_image_set_free(&set);
    io_report_free(report);
    /* a --retry attempt starts from an empty directory */
    segment_dir_remove(o->dir);
    if (mkdir(o->dir, 0700) < 0)
        tally_error_errno("level 3: %s", o->dir);
    return rc;
}

void run_io_end(struct run_config *cfg)
{
    struct run_io_options *o = &cfg->io;
    if (o->dir[0])
        segment_dir_remove(o->dir);
    o->dir[0] = '\0';
    json_decref(o->summary_io);
    o->summary_io = NULL;
}
