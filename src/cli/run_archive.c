/* 'tally run' ↔ archive: submitting summaries, limits from the archive's
 * prediction, and retrying a task stopped by a limit (see run_archive.h). */
#include "cli/run_archive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive/history.h"
#include "archive/predict.h"
#include "archive/summary_store.h"
#include "cli/run.h"
#include "util/error.h"

/* The resources a first allocation is predicted for: what a batch system
 * reserves. cores is left out: it is measured as a rate, and a limit at its
 * predicted value would stop tasks on sampling noise. */
static const enum summary_field_id predicted_resources[] = {FIELD_MEMORY, FIELD_DISK,
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

/* Prediction and maximum seen for every predicted resource of `name`. */
static int load_predictions(struct run_config *cfg, struct store *store)
{
    struct run_archive_options *o = &cfg->archive;
    struct history h;
    char why[512];
    if (history_load(store, cfg->name, NULL, false, &h, why, sizeof why) < 0) {
        tally_error("run: --limits-from-archive %s: %s", store->location, why);
        return -1;
    }
    if (h.rows == 0) {
        tally_error("run: --limits-from-archive: no summaries named '%s' in %s: running without "
                    "limits from the archive", cfg->name, store->location);
        history_free(&h);
        return 0;
    }
    double *peaks = malloc(h.rows * sizeof *peaks), *weights = malloc(h.rows * sizeof *weights);
    int wall = -1;
    for (size_t k = 0; k < h.nresources; k++)
        if (h.resources[k] == summary_field_by_id(FIELD_WALL_TIME))
            wall = (int)k;
    for (size_t p = 0; p < sizeof predicted_resources / sizeof predicted_resources[0]; p++) {
        enum summary_field_id id = predicted_resources[p];
        for (size_t k = 0; k < h.nresources; k++) {
            if (h.resources[k] != summary_field_by_id(id) || h.present[k] == 0)
                continue;
            /* the same weighting as 'tally archive predict' */
            bool weighted = id != FIELD_WALL_TIME && wall >= 0;
            size_t n = 0;
            for (size_t r = 0; r < h.rows; r++) {
                double v = history_value(&h, r, k);
                double t = weighted ? history_value(&h, r, (size_t)wall) : 1;
                if (isnan(v))
                    continue;
                peaks[n] = v;
                weights[n++] = isnan(t) ? 1 : t;
            }
            struct prediction pred;
            if (predict_first_allocation(peaks, weighted ? weights : NULL, n, 0.95, &pred) < 0)
                continue;
            o->max_seen.set[id] = true;
            o->max_seen.max[id] = pred.max_seen;
            if (!cfg->limits.set[id]) { /* explicit --limits win */
                cfg->limits.set[id] = true;
                cfg->limits.max[id] = pred.best.allocation;
            }
        }
    }
    free(peaks);
    free(weights);
    history_free(&h);
    return 0;
}

int run_archive_prepare(struct run_config *cfg)
{
    struct run_archive_options *o = &cfg->archive;
    if (!o->limits_from_archive)
        return 0;
    if (!cfg->name) {
        tally_error("run: --limits-from-archive needs --name (the task whose history to use)");
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
