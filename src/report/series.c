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
    FIELD_PROPORTIONAL_MEMORY, FIELD_STORAGE_BYTES_READ, FIELD_STORAGE_BYTES_WRITTEN,
};

/* The host's columns after the task's (see series.h). */
static const char host_header[] =
    " host_cores host_memory_total host_network_bandwidth host_cpu_time host_memory_used"
    " host_disk_read host_disk_written host_received host_sent";

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
    fprintf(w->file.fp, "# units: wall_clock s (epoch), cpu_time s, cores cores, memory, bytes and disk MB (2^20 B), "
                        "host_network_bandwidth MB/s; host_ columns: the whole host, every user's processes "
                        "included (cores online, MemTotal, link speeds of /sys/class/net or 0, counters since "
                        "boot of /proc/stat, /proc/diskstats and /proc/net/dev, memory_used MemTotal - "
                        "MemAvailable)\n");
    fputs("#wall_clock", w->file.fp);
    for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++)
        fprintf(w->file.fp, " %s", summary_field_by_id(columns[i])->name);
    fputs(host_header, w->file.fp);
    fputc('\n', w->file.fp);
    return 0;
}

void series_append(struct series_writer *w, const struct task_sample *s,
                   const struct series_host *host)
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
    if (host) { /* unreadable: the last reading is written again */
        w->host = *host;
        w->have_host = 1;
    }
    struct series_host h = w->host;
    fprintf(w->file.fp, " %d %.3f %.3f %.2f %.3f %.6f %.6f %.6f %.6f", w->have_host ? h.cores : 0,
            h.memory_total, h.net_bandwidth, h.cpu_busy, h.memory_used, h.disk_read, h.disk_written,
            h.net_received, h.net_sent);
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
