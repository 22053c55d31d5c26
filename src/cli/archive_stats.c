/* 'tally archive stats NAME [--by FIELD]': count, mean, std, skewness,
 * kurtosis, min, percentiles, max and a histogram of every resource of a
 * task, laid out like Table 5 (src/archive/stats_table.c), as JSON, or as
 * SVG files with --plot DIR. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archive/history.h"
#include "archive/stats_table.h"
#include "cli/archive_cli.h"
#include "cli/commands.h"
#include "util/error.h"

static const char usage[] =
    "usage: tally archive stats [options] NAME\n"
    "       tally archive stats [options] --group FIELD [NAME]\n"
    "  --db PATH|URI     the archive\n"
    "  --by KEY          look NAME up as a task name or a category (default: category\n"
    "                    when some run has that category, else name); --by with another\n"
    "                    field, or without NAME, is --group\n"
    "  --group FIELD     one table per value of FIELD (name, category, set, host, tool, exit_type)\n"
    "  --plot DIR        also write the table with its histograms as DIR/<name>.svg\n"
    ARCHIVE_WINDOW_USAGE
    "  --format FORMAT   table (default) or json\n";

static json_t *number_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

static json_t *stats_json(const char *name, const char *by, const char *group, size_t rows,
                          const struct stats_column *columns, size_t ncolumns)
{
    json_t *resources = json_object();
    for (size_t c = 0; c < ncolumns; c++) {
        const struct resource_stats *s = &columns[c].stats;
        json_t *r = json_object();
        json_object_set_new(r, "mean", number_or_null(s->mean));
        json_object_set_new(r, "std", number_or_null(s->std));
        json_object_set_new(r, "skewness", number_or_null(s->skewness));
        json_object_set_new(r, "kurtosis", number_or_null(s->kurtosis));
        json_object_set_new(r, "min", number_or_null(s->min));
        json_object_set_new(r, "p50", number_or_null(s->p50));
        json_object_set_new(r, "p90", number_or_null(s->p90));
        json_object_set_new(r, "p95", number_or_null(s->p95));
        json_object_set_new(r, "p99", number_or_null(s->p99));
        json_object_set_new(r, "max", number_or_null(s->max));
        json_object_set_new(r, "unit", json_string(columns[c].field->unit));
        json_object_set_new(resources, columns[c].field->name, r);
    }
    json_t *o = json_object();
    json_object_set_new(o, "name", name ? json_string(name) : json_null());
    if (by)
        json_object_set_new(o, by, group ? json_string(group) : json_null());
    json_object_set_new(o, "count", json_integer((json_int_t)rows));
    json_object_set_new(o, "resources", resources);
    return o;
}

/* A file-name-safe copy of s. */
static void safe_name(const char *s, char *out, size_t len)
{
    size_t i = 0;
    for (; s && *s && i + 1 < len; s++)
        out[i++] = (isalnum((unsigned char)*s) || *s == '-' || *s == '.') ? *s : '_';
    out[i] = '\0';
}

/* Statistics of rows [first, last) of h into columns; returns how many
 * resources have values. */
static size_t compute_columns(const struct history *h, size_t first, size_t last,
                              struct stats_column *columns, double *scratch)
{
    size_t ncolumns = 0;
    for (size_t k = 0; k < h->nresources; k++) {
        if (h->present[k] == 0)
            continue;
        memcpy(scratch, history_column(h, k) + first, (last - first) * sizeof *scratch);
        struct stats_column *col = &columns[ncolumns];
        col->field = h->resources[k];
        if (stats_compute(scratch, last - first, &col->stats) > 0)
            ncolumns++;
    }
    return ncolumns;
}

static int write_plot(const char *plot_dir, const char *name, const char *title, size_t rows,
                      const struct stats_column *columns, size_t ncolumns)
{
    char file_base[256], path[4096];
    safe_name(name, file_base, sizeof file_base);
    snprintf(path, sizeof path, "%s/%s.svg", plot_dir, file_base);
    if (stats_table_write_svg(path, title, rows, columns, ncolumns) < 0) {
        tally_error_errno("archive stats: %s", path);
        return -1;
    }
    return 0;
}

/* One task name or category, from the per-day aggregates (aggregate.h):
 * count, mean, std, skewness, kurtosis, min and max as from the runs,
 * percentiles and histogram from the fine histogram (within 1 %). */
static int stats_from_aggregates(struct archive_command *cmd, const char *name,
                                 const char *plot_dir)
{
    struct aggregate agg;
    struct store *store;
    int status = archive_load_aggregate(cmd, name, &agg, &store);
    if (status >= 0)
        return status;
    store_close(store);
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    struct stats_column *columns = calloc(nfields, sizeof *columns);
    size_t ncolumns = 0;
    for (size_t k = 0; k < nfields && k < FIELD_COUNT && columns; k++) {
        if (agg.fields[k].count == 0 || !strcmp(fields[k].name, "start") ||
            !strcmp(fields[k].name, "end"))
            continue;
        columns[ncolumns].field = &fields[k];
        aggregate_stats(&agg.fields[k], &columns[ncolumns++].stats);
    }
    size_t rows = (size_t)agg.runs;
    char title[512];
    snprintf(title, sizeof title, "%s %s%s", cmd->by, name, cmd->window_text);
    status = columns ? TALLY_EXIT_OK : TALLY_EXIT_ERROR;
    if (cmd->format == FORMAT_JSON && columns) {
        json_t *o = stats_json(name, NULL, NULL, rows, columns, ncolumns);
        json_object_set_new(o, "by", json_string(cmd->by));
        if (strcmp(cmd->by, "name")) {
            json_object_del(o, "name");
            json_object_set_new(o, cmd->by, json_string(name));
        }
        char *text = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        puts(text);
        free(text);
        json_decref(o);
    } else if (columns) {
        stats_table_print(stdout, title, rows, columns, ncolumns, 4);
    }
    if (plot_dir && columns && write_plot(plot_dir, name, title, rows, columns, ncolumns) < 0)
        status = TALLY_EXIT_ERROR;
    free(columns);
    aggregate_free(&agg);
    return status;
}

int archive_stats_main(int argc, char **argv, const char *db)
{
    static const struct option options[] = {
        ARCHIVE_COMMON_OPTIONS,
        {"by", required_argument, NULL, 'b'},
        {"group", required_argument, NULL, 'g'},
        {"plot", required_argument, NULL, 'p'},
        ARCHIVE_WINDOW_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    struct archive_command cmd = {
        .name = "stats", .usage = usage, .db = db, .window_options = true};
    const char *by = NULL, *plot_dir = NULL;
    int c, outcome;
    while ((outcome = archive_next_option(&cmd, argc, argv, "h", options, &c)) ==
           ARCHIVE_OPTION_OWN) {
        if (c == 'b' || c == 'g')
            by = optarg;
        if (c == 'b' && (!strcmp(optarg, "name") || !strcmp(optarg, "category")))
            cmd.by = optarg; /* how NAME is looked up, when there is a NAME */
        else if (c == 'b' || c == 'g')
            cmd.by = NULL;
        else
            plot_dir = optarg;
    }
    if (outcome != ARCHIVE_OPTION_END)
        return outcome;
    enum output_format format = cmd.format;
    const char *name = optind < argc ? argv[optind] : NULL;
    if (name && cmd.by && by == cmd.by)
        by = NULL; /* --by name|category with a NAME: a lookup, not a grouping */
    else
        cmd.by = NULL;
    if ((!name && !by) || argc - optind > 1) {
        tally_error("archive stats: give one task NAME, or --group FIELD");
        fputs(usage, stderr);
        return TALLY_EXIT_ERROR;
    }
    const char *group_column = NULL;
    if (by && !(group_column = history_group_column(by))) {
        tally_error("archive stats: --group: cannot group by '%s' (name, category, set, host, tool, "
                    "exit_type)", by);
        return TALLY_EXIT_ERROR;
    }
    if (plot_dir && mkdir(plot_dir, 0777) < 0 && errno != EEXIST) {
        tally_error_errno("archive stats: --plot %s", plot_dir);
        return TALLY_EXIT_ERROR;
    }
    if (!by)
        return stats_from_aggregates(&cmd, name, plot_dir);
    if (cmd.windowed) {
        tally_error("archive stats: --since, --from and --to work without --group");
        return TALLY_EXIT_ERROR;
    }
    struct history h;
    int status = archive_load_history(&cmd, name, group_column, false, &h);
    if (status >= 0)
        return status;
    struct stats_column *columns = calloc(h.nresources, sizeof *columns);
    double *scratch = malloc(h.rows * sizeof *scratch);
    json_t *groups = json_array(), *single = NULL;
    status = TALLY_EXIT_OK;
    for (size_t first = 0; first < h.rows;) {
        size_t last = first + 1;
        while (last < h.rows && by &&
               ((h.groups[first] == NULL && h.groups[last] == NULL) ||
                (h.groups[first] && h.groups[last] && !strcmp(h.groups[first], h.groups[last]))))
            last++;
        if (!by)
            last = h.rows;
        const char *group = by ? h.groups[first] : NULL;
        size_t ncolumns = compute_columns(&h, first, last, columns, scratch);
        char title[512];
        if (by)
            snprintf(title, sizeof title, "%s%s%s%s%s = %s", name ? cmd.by : "", name ? " " : "",
                     name ? name : "", name ? ", " : "", by, group ? group : "(none)");
        else
            snprintf(title, sizeof title, "%s %s", cmd.by, name);
        if (format == FORMAT_JSON) {
            json_t *o = stats_json(by && !strcmp(by, "name") ? group : name,
                                   by && strcmp(by, "name") ? by : NULL, group, last - first,
                                   columns, ncolumns);
            if (name && cmd.by) { /* which lookup answered */
                json_object_set_new(o, "by", json_string(cmd.by));
                if (!by && strcmp(cmd.by, "name")) {
                    json_object_del(o, "name");
                    json_object_set_new(o, cmd.by, json_string(name));
                }
            }
            if (by)
                json_array_append_new(groups, o);
            else
                single = o;
        } else {
            stats_table_print(stdout, title, last - first, columns, ncolumns, 4);
            if (last < h.rows)
                putchar('\n');
        }
        if (plot_dir) {
            char file_base[256], group_part[256] = "", path[4096];
            safe_name(name ? name : "all", file_base, sizeof file_base);
            if (by) {
                char g[200];
                safe_name(group ? group : "none", g, sizeof g);
                snprintf(group_part, sizeof group_part, "-%s-%s", by, g);
            }
            snprintf(path, sizeof path, "%s/%s%s.svg", plot_dir, file_base, group_part);
            if (stats_table_write_svg(path, title, last - first, columns, ncolumns) < 0) {
                tally_error_errno("archive stats: %s", path);
                status = TALLY_EXIT_ERROR;
            }
        }
        first = last;
    }
    if (format == FORMAT_JSON) {
        json_t *doc = single;
        if (by) {
            doc = json_object();
            json_object_set_new(doc, "by", json_string(by));
            json_object_set_new(doc, "groups", json_incref(groups));
        }
        char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        puts(text);
        free(text);
        json_decref(doc);
    }
    json_decref(groups);
    free(columns);
    free(scratch);
    history_free(&h);
    return status;
}
