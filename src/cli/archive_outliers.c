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
    "  --threshold Z     robust z-score above which a run is an outlier (default 3.5)\n"
    "  --format FORMAT   table (default) or json\n";

int archive_outliers_main(int argc, char **argv, const char *db)
{
    static const struct option options[] = {
        ARCHIVE_COMMON_OPTIONS,
        {"threshold", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    struct archive_command cmd = {.name = "outliers", .usage = usage, .db = db};
    double threshold = OUTLIER_DEFAULT_THRESHOLD;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        int outcome = archive_common_option(&cmd, c, optarg, argv);
        if (outcome == ARCHIVE_OPTION_OWN) /* --threshold */
            outcome = archive_parse_number(&cmd, "--threshold", optarg, 1e-9, 1e9, &threshold) < 0
                          ? TALLY_EXIT_ERROR
                          : ARCHIVE_OPTION_DONE;
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
    long n = find_outliers(&h, threshold, &list);
    if (n < 0) {
        tally_error("archive outliers: out of memory");
        history_free(&h);
        return TALLY_EXIT_ERROR;
    }
    json_t *array = json_array();
    if (format == FORMAT_TABLE)
        printf("%s: %zu runs, %ld outlying values (robust z > %g)\n", name, h.rows, n, threshold);
    for (long i = 0; i < n; i++) {
        const struct outlier *o = &list[i];
        const struct summary_field *f = h.resources[o->resource];
        const char *host = h.hosts[o->row] ? h.hosts[o->row] : "?";
        if (format == FORMAT_JSON) {
            json_t *j = json_object();
            json_object_set_new(j, "name", json_string(name));
            json_object_set_new(j, "id", json_integer(h.ids[o->row]));
            json_object_set_new(j, "host", h.hosts[o->row] ? json_string(host) : json_null());
            json_object_set_new(j, "set", h.sets[o->row] ? json_string(h.sets[o->row]) : json_null());
            json_object_set_new(j, "resource", json_string(f->name));
            json_object_set_new(j, "value", json_real(o->value));
            json_object_set_new(j, "unit", json_string(f->unit));
            json_object_set_new(j, "median", json_real(o->median));
            json_object_set_new(j, "ratio_to_median",
                                o->median != 0 ? json_real(o->value / o->median) : json_null());
            json_object_set_new(j, "robust_z", json_real(o->robust_z));
            json_array_append_new(array, j);
            continue;
        }
        printf("%s run %lld%s%s: %s %.6g %s on host %s is ", name, h.ids[o->row],
               h.sets[o->row] ? " in set " : "", h.sets[o->row] ? h.sets[o->row] : "", f->name,
               o->value, f->unit, host);
        /* a ratio that rounds to 0.0× says nothing */
        double ratio = o->median != 0 ? o->value / o->median : 0;
        if (o->median != 0 && ratio >= 0.1)
            printf("%.1f× the median %.6g %s", ratio, o->median, f->unit);
        else if (o->median != 0)
            printf("far below the median %.6g %s", o->median, f->unit);
        else
            printf("%.6g %s above the median 0", o->value, f->unit);
        printf(" (robust z-score %.1f; above %g is an outlier)\n", o->robust_z, threshold);
    }
    if (format == FORMAT_JSON) {
        char *text = json_dumps(array, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        puts(text);
        free(text);
    }
    json_decref(array);
    free(list);
    history_free(&h);
    return TALLY_EXIT_OK;
}
