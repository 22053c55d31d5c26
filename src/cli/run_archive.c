/* 'tally run' ↔ archive: submitting summaries, limits from the archive's
 * prediction, and retrying a task stopped by a limit (see run_archive.h). */
#include "cli/run_archive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive/schema.h"
#include "archive/aggregate_store.h"
#include "archive/predict.h"
#include "archive/summary_store.h"
#include "cli/run.h"
#include "util/error.h"

/* The resources a first allocation is predicted for: what a batch system
 * reserves. cores is left out: it is measured as a rate, and a limit at its
 * predicted value would stop tasks on sampling noise. The disk limit is a
 * limit on what the task wrote (bytes_written), never on 'disk', the size of
 * the working directory: that holds what was there before the task and the
 * reports of earlier runs, so a history of it says nothing of the task. */
static const enum summary_field_id predicted_resources[] = {FIELD_MEMORY, FIELD_BYTES_WRITTEN,
                                                            FIELD_WALL_TIME};

int run_archive_option(int c, const char *arg, struct run_archive_options *o)
{
    switch (c) {
    case OPT_ARCHIVE:
        o->submit = true;
        o->submit_db = arg;
        return 0;
    case OPT_LIMITS_FROM_ARCHIVE:
        o->limits_from_archive = true;
        o->limits_db = arg;
        return 0;
    case OPT_RETRY:
        o->retry = true;
        return 0;
    default:
        return -1;
    }
}

/* The limit set from a predicted first allocation: the stated margin above
 * it (RUN_ARCHIVE_MARGIN, and at least RUN_ARCHIVE_MIN_TIME_MARGIN seconds or
 * RUN_ARCHIVE_MIN_BYTES_MARGIN MB), so that a run a little larger than any
 * before is not stopped. */
static double with_margin(const struct summary_field *f, double allocation)
{
    double margin = allocation * RUN_ARCHIVE_MARGIN;
    double least = f->dim == DIM_TIME ? RUN_ARCHIVE_MIN_TIME_MARGIN
                   : f->dim == DIM_BYTES ? RUN_ARCHIVE_MIN_BYTES_MARGIN : 0;
    return allocation + (margin > least ? margin : least);
}

/* Prediction and maximum seen for every predicted resource of `name`, for
 * the resources the history measured: at least PREDICT_MIN_RUNS runs with a
 * value, and a largest value above 0 (a resource that was never measured,
 * e.g. bytes_written where /proc/PID/io could not be read, is reported as 0:
 * a limit at 0 would stop the task at its first byte). */
static int load_predictions(struct run_config *cfg, struct store *store)
{
    struct run_archive_options *o = &cfg->archive;
    struct aggregate h;
    char why[512];
    /* by --category when given (the group job sizing learns from, as Work
     * Queue does), else by --name; from the aggregates, as 'archive predict' */
    const char *by = cfg->category ? "category" : "name";
    const char *key = cfg->category ? cfg->category : cfg->name;
    size_t days;
    aggregate_init(&h);
    if (aggregate_load(store, cfg->category ? AGGREGATE_BY_CATEGORY : AGGREGATE_BY_NAME, key,
                       -1000000000LL, 1000000000LL, &h, &days, why, sizeof why) < 0) {
        tally_error("run: --limits-from-archive %s: %s", store->location, why);
        aggregate_free(&h);
        return -1;
    }
    size_t runs = (size_t)h.runs;
    if (runs < PREDICT_MIN_RUNS) {
        tally_error("run: --limits-from-archive: %zu summaries with %s '%s' in %s, fewer than the"
                    " %d a prediction needs: running without limits from the archive", runs,
                    by, key, store->location, PREDICT_MIN_RUNS);
        aggregate_free(&h);
        return 0;
    }
    char said[512] = "";
    size_t n = 0;
    for (size_t p = 0; p < sizeof predicted_resources / sizeof predicted_resources[0]; p++) {
        enum summary_field_id id = predicted_resources[p];
        const struct summary_field *f = summary_field_by_id(id);
        {
            /* the same prediction as 'tally archive predict' */
            struct prediction pred;
            bool weighted;
            if (h.fields[id].count < PREDICT_MIN_RUNS ||
                aggregate_predict(&h.fields[id], f, 0.95, &pred, &weighted) < 0 ||
                !(pred.max_seen > 0))
                continue;
            o->max_seen.set[id] = true;
            o->max_seen.max[id] = with_margin(f, pred.max_seen);
            if (!cfg->limits.set[id]) { /* explicit --limits win */
                cfg->limits.set[id] = true;
                cfg->limits.max[id] = with_margin(f, pred.best.allocation);
                if (n < sizeof said)
                    n += (size_t)snprintf(said + n, sizeof said - n, "%s%s %.6g %s", n ? ", " : "",
                                          f->name, cfg->limits.max[id], f->unit);
            }
        }
    }
    if (n)
        fprintf(stderr, "tally: run: limits from the archive (%zu runs of %s '%s', first allocation"
                " + %g%%): %s\n", runs, by, key, 100 * RUN_ARCHIVE_MARGIN, said);
    aggregate_free(&h);
    return 0;
}

int run_archive_prepare(struct run_config *cfg)
{
    struct run_archive_options *o = &cfg->archive;
    if (!o->limits_from_archive)
        return 0;
    if (!cfg->name && !cfg->category) {
        tally_error("run: --limits-from-archive needs --name or --category (the task whose "
                    "history to use)");
        return -1;
    }
    char why[512];
    char *location = o->limits_db ? strdup(o->limits_db) : store_default_location();
    struct store *store = store_open(location, why, sizeof why);
    if (!store) {
        tally_error("run: --limits-from-archive %s: %s", location ? location : "", why);
        free(location);
        return -1;
    }
    free(location);
    int rc = load_predictions(cfg, store);
    store_close(store);
    cfg->task.limits = limits_any(&cfg->limits) ? &cfg->limits : NULL;
    return rc;
}

static void submit(struct run_config *cfg, json_t *summary, const char *summary_path, int attempt)
{
    struct run_archive_options *o = &cfg->archive;
    char why[512];
    char *location = o->submit_db ? strdup(o->submit_db) : store_default_location();
    struct store *store = store_open(location, why, sizeof why);
    if (!store) {
        tally_error("run: --archive %s: %s (the summary is kept in %s)", location ? location : "",
                    why, summary_path);
        free(location);
        return;
    }
    free(location);
    struct ingest_options options = {
        .attempt = o->retry ? attempt : 0,
        .previous_attempt = o->previous_id,
    };
    long long id = 0;
    /* an agent given the same summary may have stored it already: 0 */
    if (!summary || archive_store_summary(store, summary, summary_path, &options, &id) < 0)
        tally_error("run: --archive %s: not stored (the summary is kept in %s)", store->location,
                    summary_path);
    else if (id)
        o->previous_id = id;
    store_close(store);
}

/* Raises each broken limit to the maximum seen, or doubles it. Returns false
 * when no limit was broken (nothing to retry). */
static bool raise_broken_limits(struct run_config *cfg, const struct task_result *result)
{
    bool raised = false;
    for (int i = 0; i < FIELD_COUNT; i++) {
        if (!result->limit_exceeded[i] || !cfg->limits.set[i])
            continue;
        /* only a broken limit is raised: a retry adds no limit, so it never
         * limits a resource the archive did not measure */
        double old = cfg->limits.max[i], seen = cfg->archive.max_seen.max[i];
        double next = cfg->archive.max_seen.set[i] && seen > old ? seen : 2 * old;
        cfg->limits.max[i] = next;
        const struct summary_field *f = summary_field_by_id(i);
        fprintf(stderr, "tally: run: %s limit %g %s broken; retrying with %g %s\n", f->name, old,
                f->unit, next, f->unit);
        raised = true;
    }
    return raised;
}

/* PREFIX.summary (.series, .files) → PREFIX.attempt1.summary (...), so the
 * second attempt does not overwrite the first one's reports. */
static void keep_first_attempt_reports(const char *prefix)
{
    static const char *const suffixes[] = {"summary", "series", "files"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char *from = NULL, *to = NULL;
        if (asprintf(&from, "%s.%s", prefix, suffixes[i]) >= 0 &&
            asprintf(&to, "%s.attempt1.%s", prefix, suffixes[i]) >= 0 && access(from, F_OK) == 0 &&
            rename(from, to) < 0)
            tally_error_errno("run: cannot keep the first attempt's report as %s", to);
        free(from);
        free(to);
    }
}

bool run_archive_after_attempt(struct run_config *cfg, const struct task_result *result,
                               int attempt, json_t *summary_json)
{
    char *summary = NULL;
    if (asprintf(&summary, "%s.summary", cfg->prefix) < 0)
        return false;
    if (cfg->archive.submit)
        submit(cfg, summary_json, summary, attempt);
    free(summary);
    bool again = cfg->archive.retry && attempt == 1 && result->exit_type == TASK_EXIT_LIMITS &&
                 raise_broken_limits(cfg, result);
    if (again)
        keep_first_attempt_reports(cfg->prefix);
    return again;
}
