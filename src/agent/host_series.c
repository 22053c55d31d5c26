/* The host's columns of a series row (see host_series.h). */
#include "agent/host_series.h"

#include "platform/platform.h"
#include "report/series.h"

void host_series_append(void *ctx, const struct task_sample *sample)
{
    struct host_sample h;
    if (host_read_sample(&h) < 0) {
        series_append(ctx, sample, NULL);
        return;
    }
    struct series_host host = {
        .cores = h.cores, .memory_total = h.memory_total, .net_bandwidth = h.net_bandwidth,
        .cpu_busy = h.cpu_busy, .memory_used = h.memory_used, .disk_read = h.disk_read,
        .disk_written = h.disk_written, .net_received = h.net_received, .net_sent = h.net_sent,
    };
    series_append(ctx, sample, &host);
}
