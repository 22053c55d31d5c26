/* The time series in resource_monitor's layout (see rm_series.h). */
#include "report/rm_series.h"

#include <string.h>

#include "util/error.h"

int rm_series_open(struct series_writer *w, const char *path)
{
    memset(w, 0, sizeof *w);
    if (atomic_file_open(&w->file, path) < 0) {
        tally_error_errno("%s", path);
        return -1;
    }
    w->open = 1;
    fputs("# Units:\n"
          "# wall_clock in seconds since the epoch, cpu_time in seconds\n"
          "# virtual, resident and swap memory in megabytes.\n"
          "# disk, bytes_read, bytes_written, bytes_received, bytes_sent in megabytes.\n"
          "# bandwidth in Mbps.\n"
          "# cpu_time, bytes_read, bytes_written, bytes_sent, and bytes_received show cumulative values.\n"
          "# wall_clock, max_concurrent_processes, virtual, resident, swap, files, and disk show values at the sample point.\n"
          "#wall_clock cpu_time cores max_concurrent_processes virtual_memory memory swap_memory"
          " bytes_read bytes_written bytes_received bytes_sent bandwidth machine_load total_files disk\n",
          w->file.fp);
    return 0;
}

void rm_series_append(struct series_writer *w, const struct task_sample *s, double machine_load,
                      double bandwidth)
{
    if (!w->open)
        return;
    const double *v = s->value;
    fprintf(w->file.fp, "%.6f %.6f %.3f %.0f %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.3f %.0f %.0f %.6f\n",
            s->wall_clock, v[FIELD_CPU_TIME], v[FIELD_CORES], v[FIELD_MAX_CONCURRENT_PROCESSES],
            v[FIELD_VIRTUAL_MEMORY], v[FIELD_MEMORY], v[FIELD_SWAP_MEMORY], v[FIELD_BYTES_READ],
            v[FIELD_BYTES_WRITTEN], v[FIELD_BYTES_RECEIVED], v[FIELD_BYTES_SENT], bandwidth,
            machine_load, v[FIELD_TOTAL_FILES], v[FIELD_DISK]);
}
