/* Following a run for the resource_monitor front end (see rm_sampling.h). */
#include "rmcompat/rm_sampling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "platform/platform.h"
#include "report/rm_series.h"
#include "report/rm_summary.h"

double rm_sampling_epoch_now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec * 1e-6;
}

/* At a sample: a snapshot when a watched file's event fired (written to
 * PREFIX.snapshot.NN, as resource_monitor, and kept for the summary). */
static void take_snapshot_if_due(struct rm_sampling *sm, const struct task_sample *s)
{
    for (int i = 0; i < FIELD_COUNT; i++)
        sm->window_max[i] = fmax(sm->window_max[i], s->value[i]);
    char labels[1024];
    if (rm_snapshots_poll(sm->watch, labels, sizeof labels) == 0)
        return;
    json_t *snap = rm_snapshot_to_json(labels, sm->window_start, s->wall_clock, sm->window_max);
    char *path = NULL;
    if (asprintf(&path, "%s.snapshot.%02zu", sm->prefix, json_array_size(sm->snapshots)) >= 0)
        summary_write_object(path, snap, sm->pretty); /* a failure is said; the run goes on */
    free(path);
    json_array_append_new(sm->snapshots, snap);
    memset(sm->window_max, 0, sizeof sm->window_max);
    sm->window_start = s->wall_clock;
}

void rm_sampling_on_sample(void *ctx, const struct task_sample *s)
{
    struct rm_sampling *sm = ctx;
    double net_mb = s->value[FIELD_BYTES_RECEIVED] + s->value[FIELD_BYTES_SENT];
    double bandwidth = 0; /* Mbps over the interval that ends here */
    if (sm->have_previous && s->wall_clock > sm->previous_time)
        bandwidth = (net_mb - sm->previous_net_mb) * 1048576.0 * 8 / 1e6 /
                    (s->wall_clock - sm->previous_time);
    if (bandwidth > sm->bandwidth_peak) {
        sm->bandwidth_peak = bandwidth;
        sm->bandwidth_peak_clock = s->wall_clock;
    }
    sm->have_previous = true;
    sm->previous_time = s->wall_clock;
    sm->previous_net_mb = net_mb;
    if (sm->series_on)
        rm_series_append(&sm->series, s, machine_load_average(), bandwidth);
    if (sm->watch)
        take_snapshot_if_due(sm, s);
}
