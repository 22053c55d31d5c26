/* The time-series report (see series.h). */
#include "report/series.h"

#include <stdlib.h>
#include <string.h>

#include "util/command_line.h"
#include "util/error.h"

/* Columns after wall_clock, in order (the header names them). */
static const int columns[] = {
    FIELD_CPU_TIME,      FIELD_CORES,          FIELD_MAX_CONCURRENT_PROCESSES,
    FIELD_VIRTUAL_MEMORY, FIELD_MEMORY,        FIELD_SWAP_MEMORY,
    FIELD_BYTES_READ,    FIELD_BYTES_WRITTEN,  FIELD_BYTES_RECEIVED,
    FIELD_BYTES_SENT,    FIELD_TOTAL_FILES,    FIELD_DISK,
    FIELD_PROPORTIONAL_MEMORY,
};

int series_open(struct series_writer *w, const char *path, const char *command)
{
    memset(w, 0, sizeof *w);
    if (atomic_file_open(&w->file, path) < 0) {
        tally_error_errno("%s", path);
        return -1;
    }
    w->open = 1;
    /* one line whatever the command holds (a -c script's newlines) */
    char *line = command_line_one_line(command ? command : "");
    fprintf(w->file.fp, "# tally time series of: %s\n", line ? line : "");
    free(line);
    fprintf(w->file.fp, "# units: wall_clock s (epoch), cpu_time s, cores cores, memory, bytes and disk MB (2^20 B)\n");
    fputs("#wall_clock", w->file.fp);
    for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++)
        fprintf(w->file.fp, " %s", summary_field_by_id(columns[i])->name);
    fputc('\n', w->file.fp);
    return 0;
}

void series_append(struct series_writer *w, const struct task_sample *s)
{
    if (!w->open)
        return;
    fprintf(w->file.fp, "%.6f", s->wall_clock);
    for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++) {
        double v = s->value[columns[i]];
        if (summary_field_by_id(columns[i])->dim == DIM_COUNT && columns[i] != FIELD_CORES)
            fprintf(w->file.fp, " %.0f", v);
        else
            fprintf(w->file.fp, " %.6f", v);
    }
    fputc('\n', w->file.fp);
}

int series_commit(struct series_writer *w)
{
    if (!w->open)
        return 0;
    w->open = 0;
    char *path = strdup(w->file.final_path);
    int rc = atomic_file_commit(&w->file);
    if (rc < 0)
        tally_error_errno("%s", path ? path : "series");
    free(path);
    return rc;
}

void series_abort(struct series_writer *w)
{
    if (w->open)
        atomic_file_abort(&w->file);
    w->open = 0;
}
