/* 'tally trace diff A B': what changed between two traces of the same
 * workflow or application, ranked and said in words (trace/diff.h), with
 * --html a page showing them side by side (view/diff_html.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/trace_common.h"
#include "trace/diff.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "view/diff_html.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tally trace diff A B [--phase S] [--top N] [--format text|json] [--html OUT.html]\n"
            "                        [--map RULE]... [--hierarchy FILE]\n"
            "Compares two traces aligned by their starts: per resource (container and kind),\n"
            "category and phase of S seconds (default: a tenth of the longer trace), the\n"
            "changes ranked by capacity-seconds (resource-seconds over the resource's capacity)\n"
            "and said in words. --top N shows the N largest (default 10; 0: all).\n");
}

struct diff_args {
    double phase;
    long top;
    const char *format, *html;
};

static int diff_option(void *ctx, int opt, const char *arg)
{
    struct diff_args *a = ctx;
    char *end;
    switch (opt) {
    case 'p':
        if (trace_parse_seconds("--phase", arg, &a->phase) < 0)
            return TALLY_EXIT_ERROR;
        if (!(a->phase > 0)) {
            tally_error("trace diff: --phase '%s': must be positive", arg);
            return TALLY_EXIT_ERROR;
        }
        return TRACE_OPTIONS_CONTINUE;
    case 'n':
        a->top = strtol(arg, &end, 10);
        if (*end || end == arg || a->top < 0) {
            tally_error("trace diff: --top '%s': expected a count (0: all)", arg);
            return TALLY_EXIT_ERROR;
        }
        return TRACE_OPTIONS_CONTINUE;
    case 'F': a->format = arg; return TRACE_OPTIONS_CONTINUE;
    case 'H': a->html = arg; return TRACE_OPTIONS_CONTINUE;
    default: usage(stderr); return TALLY_EXIT_ERROR;
    }
}

struct diff_page {
    const struct trace_diff *d;
    const char *a, *b;
};

static int write_diff_page(void *ctx, FILE *out)
{
    const struct diff_page *p = ctx;
    return diff_html_write(p->d, p->a, p->b, out);
}

static int write_html(const struct trace_diff *d, const char *a, const char *b, const char *path)
{
    struct diff_page page = {d, a, b};
    if (atomic_write_with(path, write_diff_page, &page) < 0) {
        tally_error_errno("trace diff: %s", path);
        return -1;
    }
    return 0;
}

int trace_cmd_diff(int argc, char **argv)
{
    static const struct option options[] = {
        {"phase", required_argument, NULL, 'p'},
        {"top", required_argument, NULL, 'n'},
        {"format", required_argument, NULL, 'F'},
        {"html", required_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    struct trace_read_options ropts = {0};
    struct diff_args args = {.top = 10, .format = "text"};
    int parsed = trace_parse_options(argc, argv, "h", options, usage, &ropts, diff_option, &args);
    if (parsed != TRACE_OPTIONS_CONTINUE)
        return parsed;
    if (strcmp(args.format, "text") && strcmp(args.format, "json")) {
        tally_error("trace diff: --format '%s': expected text or json", args.format);
        return TALLY_EXIT_ERROR;
    }
    if (optind != argc - 2) {
        tally_error("trace diff: expected two TRACE files, A and B");
        usage(stderr);
        return TALLY_EXIT_ERROR;
    }
    struct trace a, b;
    if (trace_load(argv[optind], &ropts, &a) < 0)
        return TALLY_EXIT_ERROR;
    if (trace_load(argv[optind + 1], &ropts, &b) < 0) {
        trace_free(&a);
        return TALLY_EXIT_ERROR;
    }
    int status = TALLY_EXIT_ERROR;
    struct trace_diff d;
    char why[512];
    if (trace_diff(&a, &b, args.phase, 0.01, &d, why, sizeof why) < 0) {
        tally_error("trace diff: %s", why);
        goto out;
    }
    size_t shown = args.top && (size_t)args.top < d.n_changes ? (size_t)args.top : d.n_changes;
    if (!strcmp(args.format, "json")) {
        json_t *j = trace_diff_to_json(&d);
        char *text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        puts(text ? text : "{}");
        free(text);
        json_decref(j);
    } else {
        printf("# A %s: %.6g s%s%s; B %s: %.6g s%s%s; aligned by their starts, phases of %.6g s\n",
               argv[optind], d.span_a, d.start_a[0] ? " from " : "", d.start_a, argv[optind + 1],
               d.span_b, d.start_b[0] ? " from " : "", d.start_b, d.phase);
        for (size_t i = 0; i < shown; i++)
            printf("%zu. %s\n", i + 1, d.changes[i].text);
        if (shown < d.n_changes)
            printf("(%zu smaller changes: --top 0 shows all)\n", d.n_changes - shown);
        if (!d.n_changes)
            printf("no change of 1 %% of a capacity-second or more\n");
    }
    status = TALLY_EXIT_OK;
    if (args.html && write_html(&d, argv[optind], argv[optind + 1], args.html) < 0)
        status = TALLY_EXIT_ERROR;
    trace_diff_free(&d);
out:
    trace_free(&a);
    trace_free(&b);
    return status;
}
