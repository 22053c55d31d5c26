/* 'tally mpi': the analyses of an instrumented MPI run (tally run --mpi).
 *   tally mpi report PREFIX [--format text|json] [--with OTHER]
 *   tally mpi predict --alone A [--together A2 | --slowdown S] --other-end B
 * See man/tally-mpi.1 and src/instrument/analysis.h for the formulas. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "instrument/analysis.h"
#include "instrument/mpi_report.h"
#include "report/summary_read.h"
#include "util/error.h"

static const char usage_text[] =
    "usage: tally mpi report PREFIX [--format text|json] [--with OTHER]\n"
    "       tally mpi predict --alone A [--together A2 | --slowdown S] --other-end B\n"
    "\n"
    "report: the computation/communication ratio T_c/(t2-t1-T_c), the progress rate,\n"
    "  per-rank times, imbalance (ranks waiting more are faster or less loaded),\n"
    "  busy/idle and the link matrix of PREFIX.summary (tally run --mpi).\n"
    "  --with OTHER: the co-scheduling increase of formula (2) for the two runs.\n"
    "predict: the finishing time of A co-scheduled with B: eq. (6)\n"
    "  T_a = T_a1 + T_b - T_b/S_a beside eq. (7) T_a = T_a1 * S_a.\n"
    "  --alone A       summary of A alone (wall_time = T_a1, its time per iteration)\n"
    "  --together A2   summary of a window of A running with B: S_a = its time per\n"
    "                  iteration over A's alone\n"
    "  --slowdown S    S_a given\n"
    "  --other-end B   B: seconds it runs beside A from A's start, or B's summary:\n"
    "                  with --together, T_b = B's end - the later start (the\n"
    "                  summaries' clocks), and A's window must lie inside B's run\n"
    "                  (MPI_Init to MPI_Finalize: mpi.started, mpi.finalizing);\n"
    "                  else B's wall_time\n"
    "\n"
    "Exit status: 0; 125 on bad options or unreadable summaries.\n";

/* PREFIX or PREFIX.summary → the loaded summary, or NULL after a message. */
static json_t *load_summary(const char *name)
{
    char path[4096], err[4352];
    summary_path(name, path, sizeof path);
    json_t *s = summary_load(path, err, sizeof err);
    if (!s)
        tally_error("mpi: %s", err);
    return s;
}

static int load_analysis(const char *name, struct mpi_analysis *a, json_t **summary)
{
    char why[4352];
    if (mpi_report_load(name, a, summary, why, sizeof why) < 0) {
        tally_error("mpi: %s", why);
        return -1;
    }
    return 0;
}

static void print_ranks(const char *label, const int *ranks, size_t n)
{
    printf("  %s:", label);
    if (!n)
        printf(" none");
    for (size_t i = 0; i < n; i++)
        printf(" %d", ranks[i]);
    printf("\n");
}

static void print_count(long long v, int width)
{
    if (v < 0)
        printf(" %*s", width, "-");
    else
        printf(" %*lld", width, v);
}

/* The window's counters per rank; the hardware ones only where counted. */
static void print_counters(const struct mpi_analysis *a)
{
    if (!a->hardware[0])
        return;
    bool hardware = !strcmp(a->hardware, "counted");
    printf("counters in the window (hardware counters %s):\n", a->hardware);
    printf("%6s %14s %12s %12s", "rank", "task-clock s", "page faults", "ctx switches");
    if (hardware)
        printf(" %16s %16s %6s", "instructions", "cycles", "IPC");
    printf("\n");
    for (size_t i = 0; i < a->measured; i++) {
        const struct rank_times *t = &a->per_rank[i];
        const struct rank_counters *c = &t->counters;
        printf("%6d", t->rank);
        if (c->task_clock < 0)
            printf(" %14s", "-");
        else
            printf(" %14.6f", c->task_clock);
        print_count(c->page_faults, 12);
        print_count(c->context_switches, 12);
        if (hardware) {
            print_count(c->instructions, 16);
            print_count(c->cycles, 16);
            if (c->instructions >= 0 && c->cycles > 0)
                printf(" %6.2f", (double)c->instructions / (double)c->cycles);
            else
                printf(" %6s", "-");
        }
        printf("\n");
    }
}

static void report_text(const char *name, const struct mpi_analysis *a, const json_t *summary,
                        const struct mpi_analysis *with, const char *with_name)
{
    const json_t *mpi = json_object_get(summary, "mpi");
    printf("%s: %s, %d ranks, %zu measured, window: %s", name,
           json_string_value(json_object_get(mpi, "library")), a->ranks, a->measured, a->window_kind);
    long long min_periods, max_periods; /* --window request: t2-t1 is the periods' sum */
    mpi_report_periods(mpi, &min_periods, &max_periods);
    if (min_periods == max_periods && min_periods >= 0)
        printf(", %lld period%s per rank (t2-t1: their sum)", (long long)min_periods, min_periods == 1 ? "" : "s");
    else if (min_periods >= 0)
        printf(", %lld to %lld periods per rank (t2-t1: their sum)", (long long)min_periods, (long long)max_periods);
    printf("\n");
    if (a->comm_ratio >= 0)
        printf("computation/communication: T_c %.6f s, computation %.6f s, T_c/(t2-t1-T_c) %.4f "
               "(communication %.2f %% of t2-t1)\n", a->comm, a->compute, a->comm_ratio, 100 * a->comm_fraction);
    else
        printf("computation/communication: not measured\n");
    if (a->time_per_iteration > 0)
        printf("progress: %.6f s per iteration\n", a->time_per_iteration);
    printf("%6s %-16s %12s %12s %12s %12s %10s\n", "rank", "host", "comm s", "wait s", "compute s", "t2-t1 s",
           "iterations");
    json_t *hosts = mpi_report_hosts(a, mpi); /* the ranks grouped by host */
    size_t h;
    json_t *host;
    json_array_foreach(hosts, h, host) {
        const char *name = json_string_value(json_object_get(host, "name"));
        const json_t *offset = json_object_get(host, "clock_offset");
        if (json_array_size(hosts) > 1) {
            printf("host %s: %zu rank%s, comm %.6f s, wait %.6f s, compute %.6f s", name,
                   json_array_size(json_object_get(host, "ranks")),
                   json_array_size(json_object_get(host, "ranks")) == 1 ? "" : "s",
                   json_real_value(json_object_get(host, "comm_time")),
                   json_real_value(json_object_get(host, "wait_time")),
                   json_real_value(json_object_get(host, "compute_time")));
            if (offset)
                printf(", clock %+.6f s from the launch host's", summary_number(host, "clock_offset", 0));
            printf("\n");
        }
        for (size_t i = 0; i < a->measured; i++) {
            const struct rank_times *t = &a->per_rank[i];
            if (strcmp(t->host, name))
                continue;
            printf("%6d %-16s %12.6f %12.6f %12.6f %12.6f %10lld\n", t->rank, t->host, t->comm, t->wait,
                   t->compute, t->span, t->iterations);
        }
    }
    json_decref(hosts);
    print_counters(a);
    int more[4096], less[4096];
    size_t nm = mpi_imbalanced_ranks(a, +1, 0.1, more, 4096), nl = mpi_imbalanced_ranks(a, -1, 0.1, less, 4096);
    printf("imbalance (time in blocking calls%s, 10 %% from the mean):\n",
           a->time_per_iteration > 0 ? " per iteration" : "");
    print_ranks("waiting more: faster or less loaded ranks", more, nm);
    print_ranks("waiting less: slower or more loaded ranks", less, nl);
    printf("busy/idle: busy (computation) %.6f s, idle (blocking) %.6f s", a->busy, a->idle);
    if (a->idle > 0)
        printf(", ratio %.4f", a->busy / a->idle);
    printf("\n");
    if (with)
        printf("co-scheduled with %s (formula 2): busy %.6f s, idle %.6f s: execution time +%.2f %%\n", with_name,
               a->busy + with->busy, a->idle + with->idle,
               100 * coscheduling_increase(a->busy + with->busy, a->idle + with->idle));
    printf("link matrix (bytes, row sends to column):\n%6s", "");
    for (int j = 0; j < a->ranks && j < 32; j++)
        printf(" %10d", j);
    printf("\n");
    for (int i = 0; i < a->ranks && i < 32; i++) {
        printf("%6d", i);
        for (int j = 0; j < a->ranks && j < 32; j++)
            printf(" %10lld", a->matrix[i] ? a->matrix[i][j] : 0);
        printf("\n");
    }
    if (a->ranks > 32)
        printf("(first 32 ranks; --format json has all)\n");
}

static int cmd_mpi_report(int argc, char **argv)
{
    static const struct option options[] = {
        {"format", required_argument, 0, 'f'}, {"with", required_argument, 0, 'w'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *format = "text", *with_name = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage_text, stdout);
            return TALLY_EXIT_OK;
        } else if (c == 'f')
            format = optarg;
        else if (c == 'w')
            with_name = optarg;
        else {
            tally_error("mpi report: unknown or incomplete option '%s' (see 'tally mpi --help')", argv[optind - 1]);
            return TALLY_EXIT_ERROR;
        }
    }
    if (strcmp(format, "text") && strcmp(format, "json")) {
        tally_error("mpi report: --format '%s' is not text or json", format);
        return TALLY_EXIT_ERROR;
    }
    if (optind + 1 != argc) {
        tally_error("mpi report: give one PREFIX (see 'tally mpi --help')");
        return TALLY_EXIT_ERROR;
    }
    struct mpi_analysis a, w;
    json_t *summary, *wsummary = NULL;
    if (load_analysis(argv[optind], &a, &summary) < 0)
        return TALLY_EXIT_ERROR;
    if (with_name && load_analysis(with_name, &w, &wsummary) < 0) {
        mpi_analysis_free(&a);
        json_decref(summary);
        return TALLY_EXIT_ERROR;
    }
    if (!strcmp(format, "json")) {
        json_t *o = mpi_report_json(&a, summary, wsummary ? &w : NULL);
        json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        printf("\n");
        json_decref(o);
    } else
        report_text(argv[optind], &a, summary, wsummary ? &w : NULL, with_name);
    mpi_analysis_free(&a);
    json_decref(summary);
    if (wsummary) {
        mpi_analysis_free(&w);
        json_decref(wsummary);
    }
    return TALLY_EXIT_OK;
}

/* A number of seconds (*summary stays NULL), or a summary's wall_time (the
 * summary is kept in *summary for its other fields). */
static int seconds_or_wall_time(const char *text, double *out, json_t **summary)
{
    *summary = NULL;
    char *end;
    double v = strtod(text, &end);
    if (end != text && !*end && v > 0 && isfinite(v)) {
        *out = v;
        return 0;
    }
    json_t *s = load_summary(text);
    if (!s)
        return -1;
    *out = mpi_wall_time(s);
    if (*out <= 0) {
        tally_error("mpi predict: %s: no wall_time", text);
        json_decref(s);
        return -1;
    }
    *summary = s;
    return 0;
}

/* The progress rate of a summary, or <= 0 after a message. */
static double time_per_iteration_of(const json_t *s, const char *name)
{
    double v = mpi_time_per_iteration(s);
    if (v <= 0)
        tally_error("mpi predict: %s: no progress rate (mpi.window.time_per_iteration: run with a marker)", name);
    return v;
}

static int cmd_mpi_predict(int argc, char **argv)
{
    static const struct option options[] = {
        {"alone", required_argument, 0, 'a'}, {"together", required_argument, 0, 't'},
        {"slowdown", required_argument, 0, 's'}, {"other-end", required_argument, 0, 'b'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *alone = NULL, *together = NULL, *other = NULL;
    double s_a = -1;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'h':
            fputs(usage_text, stdout);
            return TALLY_EXIT_OK;
        case 'a':
            alone = optarg;
            break;
        case 't':
            together = optarg;
            break;
        case 'b':
            other = optarg;
            break;
        case 's':
            s_a = strtod(optarg, &end);
            if (end == optarg || *end || !(s_a > 0) || !isfinite(s_a)) {
                tally_error("mpi predict: --slowdown '%s' is not a positive number", optarg);
                return TALLY_EXIT_ERROR;
            }
            break;
        default:
            tally_error("mpi predict: unknown or incomplete option '%s' (see 'tally mpi --help')", argv[optind - 1]);
            return TALLY_EXIT_ERROR;
        }
    }
    if (!alone || !other || (s_a < 0) == !together || optind != argc) {
        tally_error("mpi predict: give --alone, --other-end and one of --together or --slowdown");
        return TALLY_EXIT_ERROR;
    }
    int status = TALLY_EXIT_ERROR;
    double t_a1, b_wall;
    json_t *a1 = NULL, *b = NULL, *a2 = NULL;
    if (seconds_or_wall_time(alone, &t_a1, &a1) < 0 || seconds_or_wall_time(other, &b_wall, &b) < 0)
        goto out;
    const char *how = "given";
    double t_b = b_wall;
    if (together) {
        if (!a1) {
            tally_error("mpi predict: --together needs --alone as a summary (its progress rate)");
            goto out;
        }
        if (!(a2 = load_summary(together)))
            goto out;
        double alone_tpi = time_per_iteration_of(a1, alone), together_tpi = time_per_iteration_of(a2, together);
        if (alone_tpi <= 0 || together_tpi <= 0)
            goto out;
        s_a = together_tpi / alone_tpi;
        if (b) {
            t_b = mpi_other_time(a2, b, b_wall, &how);
            char why[1024];
            if (mpi_window_inside(a2, together, b, other, why, sizeof why) < 0)
                tally_error("mpi predict: %s", why);
        }
    } else if (b)
        how = "B's wall time (B assumed started with A)";
    printf("T_a1 %.3f s, S_a %.4f, T_b %.3f s (%s)\n", t_a1, s_a, t_b, how);
    printf("eq. (6) T_a = T_a1 + T_b - T_b/S_a = %.3f s\n", predict_eq6(t_a1, s_a, t_b));
    printf("eq. (7) T_a = T_a1 * S_a           = %.3f s\n", predict_eq7(t_a1, s_a));
    status = TALLY_EXIT_OK;
out:
    json_decref(a1);
    json_decref(b);
    json_decref(a2);
    return status;
}

int cmd_mpi(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage_text, argc < 2 ? stderr : stdout);
        return argc < 2 ? TALLY_EXIT_ERROR : TALLY_EXIT_OK;
    }
    if (!strcmp(argv[1], "report"))
        return cmd_mpi_report(argc - 1, argv + 1);
    if (!strcmp(argv[1], "predict"))
        return cmd_mpi_predict(argc - 1, argv + 1);
    tally_error("mpi: unknown subcommand '%s' (report, predict)", argv[1]);
    return TALLY_EXIT_ERROR;
}
