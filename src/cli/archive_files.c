/* 'tally archive files': the archived level-3 runs whose files, chosen by
 * globs, moved more than given amounts (src/archive/file_query.h), e.g. the
 * tasks that read more than 1 GB from *.bam files; as a table, CSV, or JSON
 * with the matching files of each run. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/file_query.h"
#include "archive/query.h"
#include "cli/archive_cli.h"
#include "cli/commands.h"
#include "util/error.h"

static const char usage[] =
    "usage: tally archive files [options] ['EXPR']\n"
    "  level-3 runs whose matching files moved more than given amounts, e.g.\n"
    "  tally archive files --glob '*.bam' --read-more-than 1GB\n"
    "  --glob PATTERN          files whose base name (a PATTERN without '/') or whole\n"
    "                          path matches (fnmatch: * ? [...]); repeat for any of\n"
    "                          several (at most 16); none: every file kept by name\n"
    "  --read-more-than SIZE   the matching files read more than SIZE together\n"
    "                          (1GB, 500MiB; a bare number is MB; powers of 1024)\n"
    "  --written-more-than SIZE  the matching files written more than SIZE together\n"
    "  --db PATH|URI           the archive\n"
    "  --format FORMAT         table (default), csv, or json (each run with its files)\n"
    "  EXPR                    only runs whose summaries match it (as 'archive query')\n"
    "Each run keeps its 100 files that moved the most bytes by name and one\n"
    "'unlisted' row for the others: a matching file may hide there.\n";

struct printer {
    enum output_format format;
    size_t rows;
};

static void print_count(long long v, const char *fmt)
{
    if (v < 0)
        printf(fmt, "-");
    else {
        char text[32];
        snprintf(text, sizeof text, "%lld", v);
        printf(fmt, text);
    }
}

static json_t *count_json(long long v) { return v < 0 ? json_null() : json_integer(v); }

static json_t *row_json(const struct file_row *r, bool with_path)
{
    json_t *o = json_object();
    if (with_path)
        json_object_set_new(o, "path", json_string(r->path));
    else
        json_object_set_new(o, "files", json_integer(r->files));
    json_object_set_new(o, "bytes_read", json_integer(r->bytes_read));
    json_object_set_new(o, "bytes_written", json_integer(r->bytes_written));
    json_object_set_new(o, "opens", count_json(r->opens));
    json_object_set_new(o, "reads", count_json(r->reads));
    json_object_set_new(o, "writes", count_json(r->writes));
    return o;
}

static int print_run(void *ctx, const struct file_run *run)
{
    struct printer *pr = ctx;
    if (pr->format == FORMAT_JSON) {
        json_t *o = json_pack("{s:I, s:s?, s:s?, s:s?}", "archive_id", (json_int_t)run->id, "name",
                              run->name, "category", run->category, "taskid", run->taskid);
        json_t *sum = row_json(&run->sum, false);
        json_object_update(o, sum);
        json_decref(sum);
        json_t *files = json_array();
        for (size_t i = 0; i < run->nfiles; i++)
            json_array_append_new(files, row_json(&run->files[i], true));
        json_object_set_new(o, "matching_files", files);
        json_object_set_new(o, "unlisted", run->unlisted.files ? row_json(&run->unlisted, false)
                                                                : json_null());
        char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
        printf("%s%s", pr->rows ? ",\n " : "", text ? text : "{}");
        free(text);
        json_decref(o);
    } else if (pr->format == FORMAT_CSV) {
        printf("%lld,", run->id);
        archive_print_csv_text(run->name);
        putchar(',');
        archive_print_csv_text(run->category);
        putchar(',');
        archive_print_csv_text(run->taskid);
        printf(",%lld,%lld,%lld,", run->sum.files, run->sum.bytes_read, run->sum.bytes_written);
        print_count(run->sum.opens, "%s,");
        print_count(run->sum.reads, "%s,");
        print_count(run->sum.writes, "%s,");
        printf("%lld\n", run->unlisted.files);
    } else {
        printf("%-8lld %-16s %-12s %6lld %15lld %15lld ", run->id, run->name ? run->name : "-",
               run->taskid ? run->taskid : "-", run->sum.files, run->sum.bytes_read,
               run->sum.bytes_written);
        print_count(run->sum.opens, "%8s ");
        print_count(run->sum.reads, "%10s ");
        print_count(run->sum.writes, "%10s ");
        printf("%8lld\n", run->unlisted.files);
    }
    pr->rows++;
    return 0;
}

static void print_header(const struct printer *pr)
{
    if (pr->format == FORMAT_JSON)
        putchar('[');
    else if (pr->format == FORMAT_CSV)
        puts("id,name,category,taskid,files,bytes_read,bytes_written,opens,reads,writes,unlisted");
    else
        printf("%-8s %-16s %-12s %6s %15s %15s %8s %10s %10s %8s\n", "id", "name", "taskid", "files",
               "bytes_read", "bytes_written", "opens", "reads", "writes", "unlisted");
}

static int parse_size(const char *option, const char *text, long long *bytes, bool *set)
{
    char why[256];
    if (file_filter_parse_size(text, bytes, why, sizeof why) < 0) {
        tally_error("archive files: %s: %s", option, why);
        return -1;
    }
    *set = true;
    return 0;
}

int archive_files_main(int argc, char **argv, const char *db)
{
    static const struct option options[] = {
        ARCHIVE_COMMON_OPTIONS,
        {"glob", required_argument, NULL, 'g'},
        {"read-more-than", required_argument, NULL, 'r'},
        {"written-more-than", required_argument, NULL, 'w'},
        {NULL, 0, NULL, 0},
    };
    struct archive_command cmd = {.name = "files", .usage = usage, .db = db, .csv_allowed = true};
    struct file_filter filter;
    memset(&filter, 0, sizeof filter);
    char why[512];
    int c, outcome;
    while ((outcome = archive_next_option(&cmd, argc, argv, "h", options, &c)) ==
           ARCHIVE_OPTION_OWN) {
        if (c == 'g' && file_filter_add_glob(&filter, optarg, why, sizeof why) < 0) {
            tally_error("archive files: --glob '%s': %s", optarg, why);
            return TALLY_EXIT_ERROR;
        }
        if ((c == 'r' && parse_size("--read-more-than", optarg, &filter.read_more_than,
                                    &filter.has_read) < 0) ||
            (c == 'w' && parse_size("--written-more-than", optarg, &filter.written_more_than,
                                    &filter.has_written) < 0))
            return TALLY_EXIT_ERROR;
    }
    if (outcome != ARCHIVE_OPTION_END)
        return outcome;
    if (argc - optind > 1) {
        tally_error("archive files: give the expression as one argument (quote it)");
        return TALLY_EXIT_ERROR;
    }
    struct compiled_query q;
    bool with_where = optind < argc;
    if (with_where && query_compile(argv[optind], &q, why, sizeof why) < 0) {
        tally_error("archive files: query: %s", why);
        return TALLY_EXIT_ERROR;
    }
    struct store *store = archive_open(cmd.db, true);
    if (!store) {
        if (with_where)
            compiled_query_free(&q);
        return TALLY_EXIT_ERROR;
    }
    struct printer pr = {cmd.format, 0};
    print_header(&pr);
    int rc = file_query(store, &filter, with_where ? &q : NULL, print_run, &pr, why, sizeof why);
    if (pr.format == FORMAT_JSON)
        puts("]");
    if (rc < 0)
        tally_error("archive files: %s: %s", store->location, why);
    if (with_where)
        compiled_query_free(&q);
    store_close(store);
    return rc < 0 ? TALLY_EXIT_ERROR : TALLY_EXIT_OK;
}
