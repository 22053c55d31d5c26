/* The level-3 hooks of 'tally run' (run_io.h). */
#include "cli/run_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/run.h"
#include "instrument/io_report.h"
#include "instrument/io_segments.h"
#include "instrument/launch.h"
#include "instrument/segments.h"
#include "report/summary.h"
#include "util/error.h"

#define IO_LIBRARY "libtally-io.so"

int run_io_prepare(struct run_config *cfg)
{
    struct run_io_options *o = &cfg->io;
    if (cfg->task.level != 3)
        return 0;
    if (cfg->task.follow_pid > 0) {
        tally_error("--level 3: needs a command to start (the helper is loaded at exec), not --pid");
        return -1;
    }
    char lib[PATH_MAX];
    if (instrument_library_path(IO_LIBRARY, lib, sizeof lib) < 0) {
        tally_error("--level 3: %s not found beside tally (set TALLY_LIBDIR)", IO_LIBRARY);
        return -1;
    }
    if (segment_dir_create(o->dir, sizeof o->dir) < 0)
        return -1;
    cfg->task.io_dir = o->dir; /* the engine counts processes from the regions */
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *value = malloc(len);
    if (!value) {
        tally_error("run: out of memory");
        return -1;
    }
    snprintf(value, len, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    int rc = setenv("LD_PRELOAD", value, 1) | setenv("TALLY_IO_DIR", o->dir, 1);
    free(value);
    if (rc < 0)
        tally_error_errno("--level 3: setenv");
    return rc < 0 ? -1 : 0;
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
    json_t *files = path ? io_report_files_json(report, &set, result) : NULL;
    int rc = files ? summary_write_object(path, files, true) : -1;
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
