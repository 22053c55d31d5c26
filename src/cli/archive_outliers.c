/* 'tally archive outliers NAME': runs whose usage departs from their task's
 * history, by the robust rule of src/archive/outliers.h, each with its run id,
 * host, resource, value and how far out it is. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/outliers.h"
#include "cli/archive_cli.h"
#include "cli/commands.h"
#include "util/error.h"

static const char usage[] =
    "usage: tally archive outliers [options] NAME\n"
    "  --db PATH|URI     the archive\n"
    "  --by KEY          look NAME up as a task name or a category (default: category\n"
    "                    when some run has that category, else name)\n"
    "  --threshold Z     robust z-score above which a run is an outlier (default 3.5)\n"
    "  --ratio R         also a run above R times the median (default 10)\n"
    "  --format FORMAT   table (default) or json\n"
    "Runs stopped by a limit are always listed.\n";

/* The limits a run broke, from its archived document: "memory 300 MB
 * (reached 301 MB)", several joined by ", "; "" when the document has none. */
struct broken {
    char text[512];
    json_t *limits; /* {"memory": [300, "MB"], ...} */
};

static int read_broken(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct broken *b = ctx;
    if (ncols < 1 || row[0].type != SQL_TEXT)
        return 1;
    json_t *doc = json_loads(row[0].text, 0, NULL);
    json_t *limits = json_object_get(doc, "limits_exceeded");
    const char *field;
    json_t *limit;
    size_t n = 0;
    json_object_foreach(limits, field, limit) {
        json_t *used = json_object_get(doc, field);
        double lv = json_number_value(json_is_array(limit) ? json_array_get(limit, 0) : limit);
        const char *unit = json_string_value(json_array_get(limit, 1));
        double uv = json_number_value(json_is_array(used) ? json_array_get(used, 0) : used);
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
    json_decref(doc);
    return 1;
}

static void limits_broken_by(struct store *store, long long id, struct broken *b)
{
    char why[256];
    struct sql_value param = sql_int(id);
    b->text[0] = '\0';
    b->limits = NULL;
    if (store)
        store_query(store, "SELECT document FROM summaries WHERE id = ?", &param, 1, read_broken,
                    b, why, sizeof why);
}

static const char *reason_word(enum outlier_reason r)
{
    return r == OUTLIER_ROBUST_Z ? "robust_z" : r == OUTLIER_RATIO ? "ratio" : "limit";
}

int archive_outliers_main(int argc, char **argv, const char *db)
{
    static const struct option options[] = {
        ARCHIVE_COMMON_OPTIONS,
        {"threshold", required_argument, NULL, 't'},
        {"ratio", required_argument, NULL, 'r'},
        {"by", required_argument, NULL, 'b'},
        {NULL, 0, NULL, 0},
    };
    struct archive_command cmd = {.name = "outliers", .usage = usage, .db = db};
    double threshold = OUTLIER_DEFAULT_THRESHOLD, ratio = OUTLIER_DEFAULT_RATIO;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        int outcome = archive_common_option(&cmd, c, optarg, argv);
        if (outcome == ARCHIVE_OPTION_OWN) {
            int bad = c == 't'   ? archive_parse_number(&cmd, "--threshold", optarg, 1e-9, 1e9,
                                                        &threshold)
                      : c == 'r' ? archive_parse_number(&cmd, "--ratio", optarg, 1, 1e12, &ratio)
                                 : archive_parse_by(&cmd, optarg, &cmd.by);
            outcome = bad < 0 ? TALLY_EXIT_ERROR : ARCHIVE_OPTION_DONE;
        }
        if (outcome != ARCHIVE_OPTION_DONE)
            return outcome;
    }
    if (argc - optind != 1) {
        tally_error("archive outliers: give one task NAME");
        fputs(usage, stderr);
        return TALLY_EXIT_ERROR;
    }
    const char *name = argv[optind];
    enum output_format format = cmd.format;
    struct history h;
    int status = archive_load_history(&cmd, name, NULL, true, &h);
    if (status >= 0)
        return status;
    struct outlier *list = NULL;
    long n = find_outliers(&h, threshold, ratio, &list);
    if (n < 0) {
        tally_error("archive outliers: out of memory");
        history_free(&h);
        return TALLY_EXIT_ERROR;
    }
    struct store *store = NULL;
    for (long i = 0; i < n && !store; i++)
        if (list[i].reason == OUTLIER_LIMIT)
            store = archive_open(cmd.db, true);
    json_t *array = json_array();
    if (format == FORMAT_TABLE)
        printf("%s %s: %zu runs, %ld outlying (robust z > %g, above %g× the median, or stopped by "
               "a limit)\n", cmd.by, name, h.rows, n, threshold, ratio);
    for (long i = 0; i < n; i++) {
        const struct outlier *o = &list[i];
        const struct summary_field *f = o->reason == OUTLIER_LIMIT ? NULL : h.resources[o->resource];
        const char *host = h.hosts[o->row] ? h.hosts[o->row] : "?";
        struct broken broken = {"", NULL};
        if (o->reason == OUTLIER_LIMIT)
            limits_broken_by(store, h.ids[o->row], &broken);
        if (format == FORMAT_JSON) {
            json_t *j = json_object();
            json_object_set_new(j, "by", json_string(cmd.by));
            json_object_set_new(j, cmd.by, json_string(name));
            json_object_set_new(j, "id", json_integer(h.ids[o->row]));
            json_object_set_new(j, "host", h.hosts[o->row] ? json_string(host) : json_null());
            json_object_set_new(j, "set", h.sets[o->row] ? json_string(h.sets[o->row]) : json_null());
            json_object_set_new(j, "reason", json_string(reason_word(o->reason)));
            if (f) {
                json_object_set_new(j, "resource", json_string(f->name));
                json_object_set_new(j, "value", json_real(o->value));
                json_object_set_new(j, "unit", json_string(f->unit));
                json_object_set_new(j, "median", json_real(o->median));
                json_object_set_new(j, "ratio_to_median",
                                    o->median != 0 ? json_real(o->value / o->median) : json_null());
                json_object_set_new(j, "robust_z", json_real(o->robust_z));
            } else {
                json_object_set_new(j, "limits_exceeded",
                                    broken.limits ? json_incref(broken.limits) : json_null());
            }
            json_array_append_new(array, j);
            json_decref(broken.limits);
            continue;
        }
        printf("%s run %lld%s%s", name, h.ids[o->row], h.sets[o->row] ? " in set " : "",
               h.sets[o->row] ? h.sets[o->row] : "");
        if (!f) {
            printf(" on host %s was stopped by a limit%s%s\n", host, broken.text[0] ? ": " : "",
                   broken.text);
            json_decref(broken.limits);
            continue;
        }
        printf(": %s %.6g %s on host %s is ", f->name, o->value, f->unit, host);
        if (o->median != 0)
            printf("%.1f× the median %.6g %s", o->value / o->median, o->median, f->unit);
        else
            printf("%.6g %s above the median 0", o->value, f->unit);
        if (o->reason == OUTLIER_ROBUST_Z)
            printf(" (robust z = %.1f)\n", o->robust_z);
        else
            printf(" (above %g× the median; robust z = %.1f)\n", ratio, o->robust_z);
    }
    if (format == FORMAT_JSON) {
        char *text = json_dumps(array, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        puts(text);
        free(text);
    }
    store_close(store);
    json_decref(array);
    free(list);
    history_free(&h);
    return TALLY_EXIT_OK;
}
