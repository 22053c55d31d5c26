/* 'tally archive outliers NAME': runs whose usage departs from their task's
 * history, by the robust rule of src/archive/outliers.h, each with its run id,
 * host, resource, value and how far out it is. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/aggregate.h"
#include "archive/document_pack.h"
#include "archive/outliers.h"
#include "cli/archive_cli.h"
#include "cli/commands.h"
#include "report/summary_read.h"
#include "util/error.h"

static const char usage[] =
    "usage: tally archive outliers [options] NAME\n"
    "  --db PATH|URI     the archive\n"
    "  --by KEY          look NAME up as a task name or a category (default: category\n"
    "                    when some run has that category, else name)\n"
    "  --threshold Z     robust z-score above which a run is an outlier (default 3.5)\n"
    "  --ratio R         also a run above R times the median (default 10)\n"
    ARCHIVE_WINDOW_USAGE
    "  --format FORMAT   table (default) or json\n"
    "Runs stopped by a limit are always listed.\n";

/* The limits a run broke, from its archived document: "memory 300 MB
 * (reached 301 MB)", several joined by ", "; "" when the document has none. */
struct broken {
    char text[512];
    json_t *limits; /* {"memory": [300, "MB"], ...} */
};

static void read_broken(json_t *doc, struct broken *b)
{
    json_t *limits = json_object_get(doc, "limits_exceeded");
    const char *field;
    json_t *limit;
    size_t n = 0;
    json_object_foreach(limits, field, limit) {
        json_t *used = json_object_get(doc, field);
        double lv = summary_number(limits, field, 0);
        const char *unit = json_string_value(json_array_get(limit, 1));
        double uv = summary_number(doc, field, 0);
        n += (size_t)snprintf(b->text + n, n < sizeof b->text ? sizeof b->text - n : 0,
                              "%s%s %.6g%s%s", n ? ", " : "", field, lv, unit ? " " : "",
                              unit ? unit : "");
        if (used && n < sizeof b->text)
            n += (size_t)snprintf(b->text + n, sizeof b->text - n, " (reached %.6g%s%s)", uv,
                                  unit ? " " : "", unit ? unit : "");
        if (n >= sizeof b->text)
            break;
    }
    b->limits = json_incref(limits);
}

static void limits_broken_by(struct store *store, long long id, struct broken *b)
{
    char why[256];
    b->text[0] = '\0';
    b->limits = NULL;
    json_t *doc = store ? document_load(store, id, true, why, sizeof why) : NULL;
    if (doc)
        read_broken(doc, b);
    json_decref(doc);
}

static const char *reason_word(enum outlier_reason r)
{
    return r == OUTLIER_ROBUST_Z ? "robust_z" : r == OUTLIER_RATIO ? "ratio" : "limit";
}

/* A run flagged from the aggregates: its id, the resource (NULL: stopped by
 * a limit), its value, the median and robust z it was judged by. */
struct flagged {
    long long id;
    const struct summary_field *field;
    double value, median, robust_z;
    enum outlier_reason reason;
};

static int by_z_then_limit(const void *a, const void *b)
{
    const struct flagged *p = a, *q = b;
    if ((p->reason == OUTLIER_LIMIT) != (q->reason == OUTLIER_LIMIT))
        return p->reason == OUTLIER_LIMIT ? 1 : -1;
    return (p->robust_z < q->robust_z) - (p->robust_z > q->robust_z);
}

static bool describes_the_host(const char *field)
{
    return !strcmp(field, "machine_cpus") || !strcmp(field, "machine_load");
}

/* The run's host and set (malloc'd, NULL when unknown). */
struct identity {
    char *host, *set;
};

static int read_identity(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct identity *who = ctx;
    if (ncols >= 2) {
        who->host = row[0].type == SQL_TEXT ? strdup(row[0].text) : NULL;
        who->set = row[1].type == SQL_TEXT ? strdup(row[1].text) : NULL;
    }
    return 1;
}

/* Runs above their peers: for each resource, the largest values the per-day
 * aggregates kept (AGGREGATE_TOP a day) whose robust z, from the histogram's
 * median and MAD, is above threshold or that are above ratio × the median;
 * *unlisted counts the runs the histogram puts above the lower of the two
 * cuts but no day kept. */
static size_t flag_high(const struct aggregate *agg, double threshold, double ratio,
                        struct flagged *out, size_t capacity, size_t *unlisted)
{
    size_t nfields, n = 0;
    const struct summary_field *fields = summary_fields(&nfields);
    *unlisted = 0;
    for (size_t k = 0; k < nfields && k < FIELD_COUNT; k++) {
        const struct aggregate_field *f = &agg->fields[k];
        double median, scale;
        if (f->count == 0 || describes_the_host(fields[k].name) || !strcmp(fields[k].name, "start") ||
            !strcmp(fields[k].name, "end") || aggregate_robust_center(f, &median, &scale) < 0)
            continue;
        double cut = scale > 0 ? median + threshold * scale : INFINITY;
        if (median > 0 && ratio * median < cut)
            cut = ratio * median;
        if (!isfinite(cut))
            continue;
        size_t listed = 0;
        for (size_t t = 0; t < f->ntop; t++) {
            double v = f->top[t].value, z = scale > 0 ? (v - median) / scale : 0;
            if (!(v > cut))
                continue;
            listed++;
            if (n < capacity)
                out[n++] = (struct flagged){f->top[t].id, &fields[k], v, median, z,
                                            z > threshold ? OUTLIER_ROBUST_Z : OUTLIER_RATIO};
        }
        uint64_t above = 0; /* runs in bins wholly above the cut */
        for (size_t b = 0; b < f->nbins; b++)
            if (f->bins[b].index != INT32_MIN && pow(AGGREGATE_GAMMA, f->bins[b].index) > cut)
                above += f->bins[b].count;
        if (above > listed)
            *unlisted += (size_t)(above - listed);
    }
    return n;
}

int archive_outliers_main(int argc, char **argv, const char *db)
{
    static const struct option options[] = {
        ARCHIVE_COMMON_OPTIONS,
        {"threshold", required_argument, NULL, 't'},
        {"ratio", required_argument, NULL, 'r'},
        {"by", required_argument, NULL, 'b'},
        ARCHIVE_WINDOW_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    struct archive_command cmd = {
        .name = "outliers", .usage = usage, .db = db, .window_options = true};
    double threshold = OUTLIER_DEFAULT_THRESHOLD, ratio = OUTLIER_DEFAULT_RATIO;
    int c, outcome;
    while ((outcome = archive_next_option(&cmd, argc, argv, "h", options, &c)) ==
           ARCHIVE_OPTION_OWN) {
        int bad = c == 't'   ? archive_parse_number(&cmd, "--threshold", optarg, 1e-9, 1e9,
                                                    &threshold)
                  : c == 'r' ? archive_parse_number(&cmd, "--ratio", optarg, 1, 1e12, &ratio)
                             : archive_parse_by(&cmd, optarg, &cmd.by);
        if (bad < 0)
            return TALLY_EXIT_ERROR;
    }
    if (outcome != ARCHIVE_OPTION_END)
        return outcome;
    if (argc - optind != 1) {
        tally_error("archive outliers: give one task NAME");
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
    size_t capacity = FIELD_COUNT * AGGREGATE_TOP + AGGREGATE_STOPPED, unlisted;
    struct flagged *list = calloc(capacity, sizeof *list);
    if (!list) {
        tally_error("archive outliers: out of memory");
        aggregate_free(&agg);
        store_close(store);
        return TALLY_EXIT_ERROR;
    }
    size_t n = flag_high(&agg, threshold, ratio, list, capacity, &unlisted);
    for (size_t k = 0; k < agg.nstopped && n < capacity; k++)
        list[n++] = (struct flagged){agg.stopped[k], NULL, NAN, NAN, 0, OUTLIER_LIMIT};
    qsort(list, n, sizeof *list, by_z_then_limit);
    json_t *array = json_array();
    if (format == FORMAT_TABLE)
        printf("%s %s%s: %llu runs, %zu outlying (robust z > %g or above %g× the median, from the"
               " daily aggregates; or stopped by a limit)\n", cmd.by, name, cmd.window_text,
               (unsigned long long)agg.runs, n, threshold, ratio);
    for (size_t i = 0; i < n; i++) {
        const struct flagged *o = &list[i];
        struct identity who = {NULL, NULL};
        char why[256];
        struct sql_value param = sql_int(o->id);
        store_query(store, "SELECT host, set_id FROM summaries WHERE id = ?", &param, 1,
                    read_identity, &who, why, sizeof why);
        const char *host = who.host ? who.host : "?";
        struct broken broken = {"", NULL};
        if (o->reason == OUTLIER_LIMIT)
            limits_broken_by(store, o->id, &broken);
        if (format == FORMAT_JSON) {
            json_t *j = json_object();
            json_object_set_new(j, "by", json_string(cmd.by));
            json_object_set_new(j, cmd.by, json_string(name));
            json_object_set_new(j, "id", json_integer(o->id));
            json_object_set_new(j, "host", who.host ? json_string(host) : json_null());
            json_object_set_new(j, "set", who.set ? json_string(who.set) : json_null());
            json_object_set_new(j, "reason", json_string(reason_word(o->reason)));
            if (o->field) {
                json_object_set_new(j, "resource", json_string(o->field->name));
                json_object_set_new(j, "value", json_real(o->value));
                json_object_set_new(j, "unit", json_string(o->field->unit));
                json_object_set_new(j, "median", json_real(o->median));
                json_object_set_new(j, "ratio_to_median",
                                    o->median != 0 ? json_real(o->value / o->median) : json_null());
                json_object_set_new(j, "robust_z", json_real(o->robust_z));
            } else {
                json_object_set_new(j, "limits_exceeded",
                                    broken.limits ? json_incref(broken.limits) : json_null());
            }
            json_array_append_new(array, j);
        } else if (!o->field) {
            printf("%s run %lld%s%s on host %s was stopped by a limit%s%s\n", name, o->id,
                   who.set ? " in set " : "", who.set ? who.set : "", host,
                   broken.text[0] ? ": " : "", broken.text);
        } else {
            printf("%s run %lld%s%s: %s %.6g %s on host %s is ", name, o->id,
                   who.set ? " in set " : "", who.set ? who.set : "", o->field->name, o->value,
                   o->field->unit, host);
            if (o->median != 0 && o->value / o->median >= 0.1)
                printf("%.1f× the median %.6g %s", o->value / o->median, o->median, o->field->unit);
            else if (o->median != 0) /* a ratio that rounds to 0.0× says nothing */
                printf("far below the median %.6g %s", o->median, o->field->unit);
            else
                printf("%.6g %s above the median 0", o->value, o->field->unit);
            if (o->reason == OUTLIER_ROBUST_Z)
                printf(" (robust z-score %.1f; above %g is an outlier)\n", o->robust_z, threshold);
            else
                printf(" (above %g× the median; robust z-score %.1f)\n", ratio, o->robust_z);
        }
        json_decref(broken.limits);
        free(who.host);
        free(who.set);
    }
    if (format == FORMAT_TABLE && agg.stopped_count > agg.nstopped)
        printf("and %llu more runs stopped by a limit: tally archive query 'exit_type = limits'\n",
               (unsigned long long)(agg.stopped_count - agg.nstopped));
    if (format == FORMAT_TABLE && unlisted)
        printf("and about %zu more runs above the cut that the daily aggregates did not keep "
               "(more than %d a day): tally archive query finds them\n", unlisted, AGGREGATE_TOP);
    if (format == FORMAT_JSON) {
        char *text = json_dumps(array, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        puts(text);
        free(text);
    }
    store_close(store);
    json_decref(array);
    free(list);
    aggregate_free(&agg);
    return TALLY_EXIT_OK;
}
