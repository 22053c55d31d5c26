/* What the mpi commands read from summaries (see mpi_report.h). */
#include "instrument/mpi_report.h"

#include <stdio.h>

#include "report/summary_read.h"

int mpi_report_load(const char *name, struct mpi_analysis *a, json_t **summary, char *why, size_t why_size)
{
    char path[4096];
    summary_path(name, path, sizeof path);
    *summary = summary_load(path, why, why_size);
    if (!*summary)
        return -1;
    char detail[256];
    if (mpi_analysis_from_json(json_object_get(*summary, "mpi"), a, detail, sizeof detail) < 0) {
        snprintf(why, why_size, "%s: %s", name, detail);
        json_decref(*summary);
        *summary = NULL;
        return -1;
    }
    return 0;
}

static json_t *rank_list(const int *ranks, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer(ranks[i]));
    return a;
}

static json_t *maybe(double v)
{
    return v < 0 ? json_null() : json_real(v);
}

json_t *mpi_report_hosts(const struct mpi_analysis *a, const json_t *mpi)
{
    json_t *hosts = json_array(), *by_name = json_object();
    for (size_t i = 0; i < a->measured; i++) {
        const struct rank_times *t = &a->per_rank[i];
        json_t *h = json_object_get(by_name, t->host);
        if (!h) {
            h = json_pack("{s:s, s:[], s:f, s:f, s:f}", "name", t->host, "ranks", "comm_time", 0.0, "wait_time",
                          0.0, "compute_time", 0.0);
            size_t k;
            json_t *known;
            json_array_foreach(json_object_get(mpi, "hosts"), k, known)
                if (json_equal(json_object_get(known, "name"), json_object_get(h, "name")) &&
                    json_object_get(known, "clock_offset"))
                    json_object_set(h, "clock_offset", json_object_get(known, "clock_offset"));
            json_array_append_new(hosts, h);
            json_object_set(by_name, t->host, h);
        }
        json_array_append_new(json_object_get(h, "ranks"), json_integer(t->rank));
        const char *keys[] = {"comm_time", "wait_time", "compute_time"};
        double add[] = {t->comm, t->wait, t->compute};
        for (int k = 0; k < 3; k++)
            json_object_set_new(h, keys[k], json_real(json_real_value(json_object_get(h, keys[k])) + add[k]));
    }
    json_decref(by_name);
    return hosts;
}

json_t *mpi_report_json(const struct mpi_analysis *a, const json_t *summary, const struct mpi_analysis *with)
{
    const json_t *mpi = json_object_get(summary, "mpi");
    json_t *o = json_object();
    json_object_set_new(o, "ranks", json_integer(a->ranks));
    json_object_set(o, "library", json_object_get(mpi, "library"));
    json_object_set(o, "window", json_object_get(mpi, "window"));
    json_object_set_new(o, "comm_time", json_real(a->comm));
    json_object_set_new(o, "compute_time", json_real(a->compute));
    json_object_set_new(o, "comm_ratio", maybe(a->comm_ratio));
    json_object_set_new(o, "comm_fraction", maybe(a->comm_fraction));
    json_object_set_new(o, "time_per_iteration", maybe(a->time_per_iteration));
    json_object_set_new(o, "hosts", mpi_report_hosts(a, mpi));
    int more[4096], less[4096];
    size_t nm = mpi_imbalanced_ranks(a, +1, 0.1, more, 4096), nl = mpi_imbalanced_ranks(a, -1, 0.1, less, 4096);
    json_object_set_new(o, "imbalance", json_pack("{s:f, s:o, s:o}", "mean_wait_time", a->mean_wait,
                                                  "waiting_more", rank_list(more, nm),
                                                  "waiting_less", rank_list(less, nl)));
    json_object_set_new(o, "busy_idle", json_pack("{s:f, s:f, s:o}", "busy", a->busy, "idle", a->idle,
                                                  "ratio", a->idle > 0 ? json_real(a->busy / a->idle) : json_null()));
    if (with)
        json_object_set_new(o, "coscheduling_increase",
                            json_real(coscheduling_increase(a->busy + with->busy, a->idle + with->idle)));
    json_t *matrix = json_array();
    for (int i = 0; i < a->ranks; i++) {
        json_t *row = json_array();
        for (int j = 0; j < a->ranks; j++)
            json_array_append_new(row, json_integer(a->matrix[i] ? a->matrix[i][j] : 0));
        json_array_append_new(matrix, row);
    }
    json_object_set_new(o, "link_matrix", matrix);
    json_t *counters = json_object_get(mpi, "counters");
    if (counters) { /* the run's, and each rank's over its window and run */
        json_t *c = json_deep_copy(counters);
        json_t *ranks = json_array();
        const json_t *per_rank = json_object_get(mpi, "per_rank");
        for (size_t i = 0; i < json_array_size(per_rank); i++) {
            const json_t *r = json_array_get(per_rank, i);
            const json_t *rc = json_object_get(r, "counters");
            if (rc) {
                json_t *e = json_deep_copy(rc);
                json_object_set(e, "rank", json_object_get(r, "rank"));
                json_array_append_new(ranks, e);
            }
        }
        json_object_set_new(c, "per_rank", ranks);
        json_object_set_new(o, "counters", c);
    }
    return o;
}

void mpi_report_periods(const json_t *mpi, long long *min, long long *max)
{
    *min = *max = -1;
    const json_t *rank;
    size_t k;
    json_array_foreach(json_object_get(mpi, "per_rank"), k, rank) {
        const json_t *p = json_object_get(rank, "periods");
        if (!json_is_integer(p))
            continue;
        if (*min < 0 || json_integer_value(p) < *min)
            *min = json_integer_value(p);
        if (json_integer_value(p) > *max)
            *max = json_integer_value(p);
    }
}

double mpi_time_per_iteration(const json_t *summary)
{
    return summary_number(json_object_get(json_object_get(summary, "mpi"), "window"), "time_per_iteration", -1);
}

double mpi_wall_time(const json_t *summary)
{
    return summary_number(summary, "wall_time", -1);
}

double mpi_other_time(const json_t *a2, const json_t *b, double b_wall, const char **how)
{
    double a_start = summary_number(a2, "start", -1), b_start = summary_number(b, "start", -1),
           b_end = summary_number(b, "end", -1);
    if (a_start > 0 && b_start > 0 && b_end > 0) {
        *how = b_start <= a_start ? "B's end - A's start" : "B's end - B's start (B started after A)";
        return coscheduled_time(a_start, b_start, b_end);
    }
    *how = "B's wall time (B assumed started with A)";
    return b_wall;
}

int mpi_window_inside(const json_t *a2, const char *a2_name, const json_t *b, const char *b_name, char *why,
                      size_t why_size)
{
    const json_t *w = json_object_get(json_object_get(a2, "mpi"), "window"), *b_mpi = json_object_get(b, "mpi");
    double opened = summary_number(w, "opened", -1), closed = summary_number(w, "closed", -1),
           a_start = summary_number(a2, "start", -1);
    double b_from = summary_number(b_mpi, "started", -1), b_to = summary_number(b_mpi, "finalizing", -1);
    const char *span = "MPI_Init to MPI_Finalize";
    if (b_from <= 0 || b_to <= 0) {
        b_from = summary_number(b, "start", -1);
        b_to = summary_number(b, "end", -1);
        span = "start to end";
    }
    if (opened <= 0 || closed <= 0 || b_from <= 0 || b_to <= 0 || a_start <= 0) {
        snprintf(why, why_size, "cannot tell whether %s's window was inside %s's run (no mpi.window.opened/closed "
                 "or start/end)", a2_name, b_name);
        return -1;
    }
    if (opened < b_from || closed > b_to) {
        snprintf(why, why_size, "%s's window (%.3f to %.3f s after its start) is not inside %s's run (%s: %.3f "
                 "to %.3f s): S_a is not the slowdown beside %s", a2_name, opened - a_start, closed - a_start,
                 b_name, span, b_from - a_start, b_to - a_start, b_name);
        return -1;
    }
    return 0;
}
