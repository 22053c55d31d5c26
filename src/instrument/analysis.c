/* The analyses of analysis.h, on the summary's `mpi` object. */
#include "instrument/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summary_read.h"

static long long count_value(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* The window's counters of per_rank entry R. */
static void counters_from_json(const json_t *r, struct rank_counters *c)
{
    const json_t *w = json_object_get(json_object_get(r, "counters"), "window");
    c->task_clock = summary_number(w, "task_clock", -1);
    c->page_faults = count_value(w, "page_faults");
    c->context_switches = count_value(w, "context_switches");
    c->instructions = count_value(w, "instructions");
    c->cycles = count_value(w, "cycles");
}

int mpi_analysis_from_json(const json_t *mpi, struct mpi_analysis *a, char *why, size_t why_size)
{
    memset(a, 0, sizeof *a);
    a->comm_ratio = a->comm_fraction = a->time_per_iteration = -1;
    if (!json_is_object(mpi) || !json_is_integer(json_object_get(mpi, "ranks"))) {
        snprintf(why, why_size, "no 'mpi' object (was the run made with tally run --mpi?)");
        return -1;
    }
    a->ranks = (int)json_integer_value(json_object_get(mpi, "ranks"));
    if (a->ranks <= 0 || a->ranks > 4096) {
        snprintf(why, why_size, "'mpi.ranks' = %d is out of range", a->ranks);
        return -1;
    }
    const json_t *per_rank = json_object_get(mpi, "per_rank");
    a->per_rank = calloc(json_array_size(per_rank) + 1, sizeof *a->per_rank);
    a->matrix = calloc((size_t)a->ranks, sizeof *a->matrix);
    if (!a->per_rank || !a->matrix) {
        snprintf(why, why_size, "out of memory");
        mpi_analysis_free(a);
        return -1;
    }
    double tpi_sum = 0;
    size_t tpi_n = 0;
    for (size_t i = 0; i < json_array_size(per_rank); i++) {
        const json_t *r = json_array_get(per_rank, i);
        if (summary_number(r, "span", -1) < 0)
            continue; /* the window never opened there */
        struct rank_times *t = &a->per_rank[a->measured++];
        t->rank = (int)json_integer_value(json_object_get(r, "rank"));
        const char *host = json_string_value(json_object_get(r, "host"));
        snprintf(t->host, sizeof t->host, "%s", host ? host : "");
        t->comm = summary_number(r, "comm_time", -1);
        t->wait = summary_number(r, "wait_time", -1);
        t->compute = summary_number(r, "compute_time", -1);
        t->span = summary_number(r, "span", -1);
        t->iterations = json_integer_value(json_object_get(r, "iterations"));
        t->time_per_iteration = summary_number(r, "time_per_iteration", -1);
        counters_from_json(r, &t->counters);
        a->comm += t->comm;
        a->wait += t->wait;
        a->compute += t->compute;
        a->span += t->span;
        if (t->time_per_iteration > 0) {
            tpi_sum += t->time_per_iteration;
            tpi_n++;
        }
    }
    if (a->measured) {
        a->mean_wait = a->wait / (double)a->measured;
        if (a->span > a->comm)
            a->comm_ratio = a->comm / (a->span - a->comm);
        if (a->span > 0)
            a->comm_fraction = a->comm / a->span;
    }
    a->busy = a->compute;
    a->idle = a->wait;
    if (tpi_n)
        a->time_per_iteration = tpi_sum / (double)tpi_n;
    const char *kind = json_string_value(json_object_get(json_object_get(mpi, "window"), "kind"));
    snprintf(a->window_kind, sizeof a->window_kind, "%s", kind ? kind : "?");
    const char *hardware = json_string_value(json_object_get(json_object_get(mpi, "counters"), "hardware"));
    snprintf(a->hardware, sizeof a->hardware, "%s", hardware ? hardware : "");
    const json_t *links = json_object_get(mpi, "links");
    for (size_t i = 0; i < json_array_size(links); i++) {
        const json_t *l = json_array_get(links, i);
        json_int_t from = json_integer_value(json_object_get(l, "from"));
        json_int_t to = json_integer_value(json_object_get(l, "to"));
        if (from < 0 || from >= a->ranks || to < 0 || to >= a->ranks)
            continue;
        if (!a->matrix[from] && !(a->matrix[from] = calloc((size_t)a->ranks, sizeof **a->matrix)))
            continue;
        a->matrix[from][to] += json_integer_value(json_object_get(l, "bytes"));
    }
    return 0;
}

void mpi_analysis_free(struct mpi_analysis *a)
{
    if (a->matrix)
        for (int i = 0; i < a->ranks; i++)
            free(a->matrix[i]);
    free(a->matrix);
    free(a->per_rank);
    a->matrix = NULL;
    a->per_rank = NULL;
}

/* Blocking time per iteration when the marker gives iterations, else in total. */
static double wait_measure(const struct rank_times *t)
{
    return t->iterations > 0 ? t->wait / (double)t->iterations : t->wait;
}

size_t mpi_imbalanced_ranks(const struct mpi_analysis *a, int sign, double margin, int *out, size_t max)
{
    if (!a->measured)
        return 0;
    double mean = 0;
    for (size_t i = 0; i < a->measured; i++)
        mean += wait_measure(&a->per_rank[i]);
    mean /= (double)a->measured;
    size_t n = 0;
    for (size_t i = 0; i < a->measured && n < max; i++) {
        double w = wait_measure(&a->per_rank[i]);
        if ((sign > 0 && w > mean * (1 + margin)) || (sign < 0 && w < mean * (1 - margin)))
            out[n++] = a->per_rank[i].rank;
    }
    return n;
}

double coscheduling_increase(double busy_sum, double idle_sum)
{
    if (busy_sum <= idle_sum || busy_sum + idle_sum <= 0)
        return 0;
    return (busy_sum - idle_sum) / (busy_sum + idle_sum);
}

double predict_eq6(double t_a1, double s_a, double t_b)
{
    if (t_b >= t_a1 * s_a) /* B outlasts A: A runs slowed down all along */
        return t_a1 * s_a;
    return t_a1 + t_b - t_b / s_a;
}

double predict_eq7(double t_a1, double s_a)
{
    return t_a1 * s_a;
}

double coscheduled_time(double a_start, double b_start, double b_end)
{
    double from = a_start > b_start ? a_start : b_start;
    return b_end > from ? b_end - from : 0;
}
