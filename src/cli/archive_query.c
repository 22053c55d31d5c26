/* 'tally archive query EXPR': the summaries matching a condition (grammar in
 * src/archive/query.h), as a table, CSV, or a JSON array of summaries. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "archive/document_pack.h"
#include "archive/query.h"
#include "cli/archive_cli.h"
#include "cli/commands.h"
#include "core/fields.h"
#include "util/error.h"

static const char usage[] =
    "usage: tally archive query [options] 'EXPR'\n"
    "  e.g. 'category = rmapper and memory > 500 MB and wall_time < 1 h'\n"
    "  --db PATH|URI       the archive\n"
    "  --format FORMAT     table (default), csv, or json (an array of summaries)\n"
    "  --since TIME        only tasks started at or after TIME (2026-11-01[T12:00:00], UTC)\n"
    "  --until TIME        only tasks started before TIME\n"
    "  --limit N           at most N summaries\n";

/* Columns of the identity part of a row, before the numeric fields. */
static const char *const identity_columns[] = {"id", "name", "category", "set_id", "host", "tool",
                                               "level", "exit_status", "exit_type"};
#define NIDENTITY (sizeof identity_columns / sizeof identity_columns[0])

struct printer {
    enum output_format format;
    size_t nfields;
    const struct summary_field *fields;
    size_t rows;
};

static void print_value(const struct sql_value *v)
{
    if (v->type == SQL_TEXT)
        fputs(v->text, stdout);
    else if (v->type == SQL_INT)
        printf("%lld", v->integer);
    else if (v->type == SQL_REAL)
        printf("%.10g", v->real);
}

static void print_start_time(const struct sql_value *v)
{
    if (v->type == SQL_NULL) {
        printf("%-20s", "-");
        return;
    }
    time_t t = (time_t)v->real;
    struct tm tm;
    gmtime_r(&t, &tm);
    char buf[32];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    printf("%-20s", buf);
}

/* The table shows the identity and the most asked-for resources. */
static const char *const table_fields[] = {"wall_time", "cpu_time", "memory", "disk"};

static int field_index(const struct printer *pr, const char *name)
{
    for (size_t i = 0; i < pr->nfields; i++)
        if (!strcmp(pr->fields[i].name, name))
            return (int)i;
    return -1;
}

static int print_row(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct printer *pr = ctx;
    const struct sql_value *field_values = row + NIDENTITY;
    if (pr->format == FORMAT_JSON) {
        json_t *doc = ncols == NIDENTITY + pr->nfields + DOCUMENT_SELECT_COLUMNS
                          ? document_from_row(field_values, field_values + pr->nfields)
                          : NULL;
        if (!json_is_object(doc)) {
            json_decref(doc);
            doc = json_object();
        }
        json_object_set_new(doc, "archive_id", json_integer(row[0].integer));
        for (size_t c = 1; c <= 4; c++)
            if (row[c].type == SQL_TEXT)
                json_object_set_new(doc, c == 3 ? "set" : identity_columns[c],
                                    json_string(row[c].text));
        char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(16)); /* the writers' digits */
        printf("%s%s", pr->rows ? ",\n " : "", text);
        free(text);
        json_decref(doc);
    } else if (pr->format == FORMAT_CSV) {
        for (size_t c = 0; c < NIDENTITY + pr->nfields && c < ncols; c++) {
            if (c)
                putchar(',');
            if (row[c].type == SQL_TEXT)
                archive_print_csv_text(row[c].text);
            else
                print_value(&row[c]);
        }
        putchar('\n');
    } else {
        printf("%-8lld %-16s %-12s %-8s %-12s ", row[0].integer,
               row[1].type == SQL_TEXT ? row[1].text : "-",
               row[2].type == SQL_TEXT ? row[2].text : "-",
               row[4].type == SQL_TEXT ? row[4].text : "-",
               row[3].type == SQL_TEXT ? row[3].text : "-");
        print_start_time(&field_values[field_index(pr, "start")]);
        for (size_t k = 0; k < sizeof table_fields / sizeof table_fields[0]; k++) {
            const struct sql_value *v = &field_values[field_index(pr, table_fields[k])];
            if (v->type == SQL_NULL)
                printf(" %12s", "-");
            else
                printf(" %12.6g", v->real);
        }
        if (row[7].type == SQL_NULL)
            printf(" %5s\n", "-");
        else
            printf(" %5lld\n", row[7].integer);
    }
    pr->rows++;
    return 0;
}

static void print_header(const struct printer *pr)
{
    if (pr->format == FORMAT_JSON) {
        putchar('[');
    } else if (pr->format == FORMAT_CSV) {
        for (size_t c = 0; c < NIDENTITY; c++)
            printf("%s%s", c ? "," : "", c == 3 ? "set" : identity_columns[c]);
        for (size_t i = 0; i < pr->nfields; i++)
            printf(",%s", pr->fields[i].name);
        putchar('\n');
    } else {
        printf("%-8s %-16s %-12s %-8s %-12s %-20s", "id", "name", "category", "host", "set",
               "start");
        for (size_t k = 0; k < sizeof table_fields / sizeof table_fields[0]; k++) {
            const struct summary_field *f = summary_field_find(table_fields[k]);
            char heading[32];
            snprintf(heading, sizeof heading, "%s(%s)", f->name, f->unit);
            printf(" %12s", heading);
        }
        printf(" %5s\n", "exit");
    }
}

int archive_query_main(int argc, char **argv, const char *db)
{
    static const struct option options[] = {
        ARCHIVE_COMMON_OPTIONS,
        {"since", required_argument, NULL, 'S'},
        {"until", required_argument, NULL, 'U'},
        {"limit", required_argument, NULL, 'l'},
        {NULL, 0, NULL, 0},
    };
    struct archive_command cmd = {.name = "query", .usage = usage, .db = db, .csv_allowed = true};
    struct printer pr = {.format = FORMAT_TABLE};
    const char *since = NULL, *until = NULL;
    double limit = -1;
    int c, outcome;
    while ((outcome = archive_next_option(&cmd, argc, argv, "h", options, &c)) ==
           ARCHIVE_OPTION_OWN) {
        if (c == 'S')
            since = optarg;
        else if (c == 'U')
            until = optarg;
        else if (archive_parse_number(&cmd, "--limit", optarg, 0, 1e15, &limit) < 0)
            return TALLY_EXIT_ERROR;
    }
    if (outcome != ARCHIVE_OPTION_END)
        return outcome;
    pr.format = cmd.format;
    db = cmd.db;
    if (argc - optind > 1) {
        tally_error("archive query: give the expression as one argument (quote it)");
        return TALLY_EXIT_ERROR;
    }
    const char *expression = optind < argc ? argv[optind] : "";
    struct compiled_query q;
    char why[512];
    if (query_compile(expression, &q, why, sizeof why) < 0) {
        tally_error("query: %s", why);
        return TALLY_EXIT_ERROR;
    }
    double t;
    if (since && (query_parse_time(since, &t) < 0 || query_add_condition(&q, "start", ">=", t) < 0)) {
        tally_error("archive query: --since: '%s' is not a time (YYYY-MM-DD[THH:MM:SS])", since);
        compiled_query_free(&q);
        return TALLY_EXIT_ERROR;
    }
    if (until && (query_parse_time(until, &t) < 0 || query_add_condition(&q, "start", "<", t) < 0)) {
        tally_error("archive query: --until: '%s' is not a time (YYYY-MM-DD[THH:MM:SS])", until);
        compiled_query_free(&q);
        return TALLY_EXIT_ERROR;
    }
    struct store *store = archive_open(db, true);
    if (!store) {
        compiled_query_free(&q);
        return TALLY_EXIT_ERROR;
    }
    pr.fields = summary_fields(&pr.nfields);
    char *sql = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&sql, &len);
    fputs("SELECT ", out);
    for (size_t i = 0; i < NIDENTITY; i++)
        fprintf(out, "%s, ", identity_columns[i]);
    for (size_t i = 0; i < pr.nfields; i++)
        fprintf(out, "\"%s\", ", pr.fields[i].name);
    document_select_columns(out, true); /* the document, packed against the columns */
    fprintf(out, " FROM summaries WHERE %s ORDER BY id", q.where);
    if (limit >= 0)
        fprintf(out, " LIMIT %lld", (long long)limit); /* a validated number, not user text */
    fclose(out);
    print_header(&pr);
    int status = store_query(store, sql, q.params, q.nparams, print_row, &pr, why, sizeof why);
    if (pr.format == FORMAT_JSON)
        puts("]");
    free(sql);
    compiled_query_free(&q);
    if (status < 0)
        tally_error("archive query: %s: %s", store->location, why);
    store_close(store);
    return status < 0 ? TALLY_EXIT_ERROR : TALLY_EXIT_OK;
}
