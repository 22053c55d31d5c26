/* 'tally archive predict NAME': the recommended first allocation of every
 * limitable resource of a task, by the job-sizing strategy of Tovar et al.
 * (src/archive/predict.h), with its expected waste and retry rate against
 * "always the maximum seen" and "a fixed quantile". */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/aggregate.h"
#include "archive/predict.h"
#include "cli/archive_cli.h"
#include "cli/commands.h"
#include "util/error.h"

static const char usage[] =
    "usage: tally archive predict [options] NAME\n"
    "  --db PATH|URI     the archive\n"
    "  --by KEY          look NAME up as a task name or a category (default: category\n"
    "                    when some run has that category, else name)\n"
    "  --min-runs N      fewest runs with a value to predict a resource from (default 10)\n"
    "  --quantile Q      the fixed-quantile baseline (default 0.95)\n"
    ARCHIVE_WINDOW_USAGE
    "  --format FORMAT   table (default) or json\n";

static json_t *outcome_json(const struct allocation_outcome *o)
{
    json_t *j = json_object();
    json_object_set_new(j, "allocation", json_real(o->allocation));
    json_object_set_new(j, "expected_waste", json_real(o->expected_waste));
    json_object_set_new(j, "retry_rate", json_real(o->retry_rate));
    return j;
}

int archive_predict_main(int argc, char **argv, const char *db)
{
    static const struct option options[] = {
        ARCHIVE_COMMON_OPTIONS,
        {"quantile", required_argument, NULL, 'q'},
        {"by", required_argument, NULL, 'b'},
        {"min-runs", required_argument, NULL, 'm'},
        ARCHIVE_WINDOW_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    struct archive_command cmd = {
        .name = "predict", .usage = usage, .db = db, .window_options = true};
    double quantile = 0.95, min_runs = PREDICT_MIN_RUNS;
    int c, outcome;
    while ((outcome = archive_next_option(&cmd, argc, argv, "h", options, &c)) ==
           ARCHIVE_OPTION_OWN) {
        int bad = c == 'q'   ? archive_parse_number(&cmd, "--quantile", optarg, 0, 1, &quantile)
                  : c == 'm' ? archive_parse_number(&cmd, "--min-runs", optarg, 1, 1e12, &min_runs)
                             : archive_parse_by(&cmd, optarg, &cmd.by);
        if (bad < 0)
            return TALLY_EXIT_ERROR;
    }
    if (outcome != ARCHIVE_OPTION_END)
        return outcome;
    if (argc - optind != 1) {
        tally_error("archive predict: give one task NAME");
        fputs(usage, stderr);
        return TALLY_EXIT_ERROR;
    }
    const char *name = argv[optind];
    enum output_format format = cmd.format;
    struct aggregate agg;
    struct store *store;
    int status = archive_load_aggregate(&cmd, name, &agg, &store);
    if (status >= 0)
        return status;
    store_close(store);
    size_t runs = (size_t)agg.runs;
    if ((double)runs < min_runs) {
        tally_error("archive predict: %s '%s'%s: too little history: %zu run%s, a prediction needs "
                    "at least %g (--min-runs)", cmd.by, name, cmd.window_text, runs,
                    runs == 1 ? "" : "s", min_runs);
        aggregate_free(&agg);
        return TALLY_EXIT_FAILURE;
    }
    json_t *doc = json_object();
    if (format == FORMAT_TABLE) {
        printf("%s %s%s: %zu summaries; first allocation minimising expected waste, retry at the"
               " maximum (Tovar et al. 2018)\n\n",
               cmd.by, name, cmd.window_text, runs);
        printf("%-24s %12s %-6s %14s %8s | %14s | %12s %14s %8s\n", "resource", "allocation", "unit",
               "waste/task", "retries", "max: waste", "p-quantile", "waste/task", "retries");
    } else {
        json_object_set_new(doc, "by", json_string(cmd.by));
        json_object_set_new(doc, cmd.by, json_string(name));
        json_object_set_new(doc, "runs", json_integer((json_int_t)runs));
    }
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    for (size_t k = 0; k < nfields && k < FIELD_COUNT; k++) {
        const struct summary_field *f = &fields[k];
        const struct aggregate_field *af = &agg.fields[k];
        if (!f->limitable || af->count == 0)
            continue;
        if ((double)af->count < min_runs) {
            if (format == FORMAT_TABLE)
                printf("%-24s too little history: %llu runs with a value\n", f->name,
                       (unsigned long long)af->count);
            continue;
        }
        struct prediction p;
        bool time_weighted;
        if (aggregate_predict(af, f, quantile, &p, &time_weighted) < 0)
            continue;
        char waste_unit[32];
        snprintf(waste_unit, sizeof waste_unit, "%s%s", f->unit, time_weighted ? "·s" : "");
        if (format == FORMAT_JSON) {
            json_t *j = json_object();
            json_object_set_new(j, "allocation", json_real(p.best.allocation));
            json_object_set_new(j, "unit", json_string(f->unit));
            json_object_set_new(j, "expected_waste", json_real(p.best.expected_waste));
            json_object_set_new(j, "waste_unit", json_string(waste_unit));
            json_object_set_new(j, "retry_rate", json_real(p.best.retry_rate));
            json_object_set_new(j, "samples", json_integer((json_int_t)p.samples));
            json_object_set_new(j, "max_seen", json_real(p.max_seen));
            json_object_set_new(j, "always_max", outcome_json(&p.always_max));
            json_t *q = outcome_json(&p.quantile);
            json_object_set_new(q, "quantile", json_real(quantile));
            json_object_set_new(j, "fixed_quantile", q);
            json_object_set_new(doc, f->name, j);
        } else {
            printf("%-24s %12.6g %-6s %14.6g %7.2f%% | %14.6g | %12.6g %14.6g %7.2f%%\n", f->name,
                   p.best.allocation, f->unit, p.best.expected_waste, 100 * p.best.retry_rate,
                   p.always_max.expected_waste, p.quantile.allocation, p.quantile.expected_waste,
                   100 * p.quantile.retry_rate);
        }
    }
    if (format == FORMAT_JSON) {
        char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        puts(text);
        free(text);
    } else {
        printf("\nwaste per task in unit·s (unit for time resources); quantile = %g\n", quantile);
    }
    json_decref(doc);
    aggregate_free(&agg);
    return TALLY_EXIT_OK;
}
