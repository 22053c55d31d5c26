/* 'tally view --files PREFIX.files.json -o PAGE.html': the per-file I/O page
 * of a level-3 run (src/view/files_page.c draws it; this file parses the
 * command line and reads the report). Reached from cmd_view when --files is
 * among its arguments. See man/tally-view.1 and docs/io.md. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/text_file.h"
#include "view/files_page.h"

static const char usage_text[] =
    "usage: tally view --files PREFIX.files.json -o FILE.html [--title TEXT]\n"
    "\n"
    "Writes one self-contained page of the per-file I/O that 'tally run --level 3 -o PREFIX'\n"
    "recorded: every file in a table sortable by any column (bytes moved first), the read\n"
    "and write access-size histograms in Darshan's ten buckets for the whole task or for the\n"
    "file chosen in the table, the processes the helper did not reach, and the note when\n"
    "records went past the helper's bound.\n"
    "  --files REPORT   the PREFIX.files.json of a level-3 run\n"
    "  -o, --output F   the page to write (replaced whole, or left untouched on an error)\n"
    "  --title TEXT     caption (default: the report's file name)\n"
    "  -h, --help       this help\n"
    "\n"
    "Exit status: 0 on success; 125 on bad usage or an unreadable or foreign report.\n";

enum { OPT_FILES = 256, OPT_TITLE };

bool view_files_requested(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--files") || !strncmp(argv[i], "--files=", 8))
            return true;
    return false;
}

struct page {
    const json_t *report;
    const char *title;
};

static int write_page(void *ctx, FILE *out)
{
    const struct page *p = ctx;
    return files_page_write(p->report, p->title, out);
}

int cmd_view_files(int argc, char **argv)
{
    static const struct option options[] = {
        {"files", required_argument, 0, OPT_FILES}, {"output", required_argument, 0, 'o'},
        {"title", required_argument, 0, OPT_TITLE}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *report_path = NULL, *output = NULL, *title = NULL;
    opterr = 0;
    optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
        switch (opt) {
        case OPT_FILES: report_path = optarg; break;
        case 'o': output = optarg; break;
        case OPT_TITLE: title = optarg; break;
        case 'h': fputs(usage_text, stdout); return TALLY_EXIT_OK;
        default:
            tally_error("view: --files: %s: unknown option or missing value (see 'tally view --help')",
                        argv[optind - 1]);
            return TALLY_EXIT_ERROR;
        }
    }
    if (optind < argc) {
        tally_error("view: --files: %s: unexpected argument (the report is given with --files)",
                    argv[optind]);
        return TALLY_EXIT_ERROR;
    }
    if (!output) {
        tally_error("view: --files: nothing to do: give -o FILE.html");
        return TALLY_EXIT_ERROR;
    }
    char why[256];
    size_t len;
    char *text = text_file_read(report_path, TEXT_FILE_LARGE, &len, why, sizeof why);
    if (!text) {
        tally_error("view: --files %s: %s", report_path, why);
        return TALLY_EXIT_ERROR;
    }
    json_error_t jerr;
    json_t *report = json_loadb(text, len, 0, &jerr);
    free(text);
    if (!report) {
        if (jerr.line <= 0)
            tally_error("view: --files %s: %s", report_path, jerr.text);
        else
            tally_error("view: --files %s: line %d, column %d: %s", report_path, jerr.line,
                        jerr.column, jerr.text);
        return TALLY_EXIT_ERROR;
    }
    int rc = files_page_check(report, why, sizeof why);
    if (rc < 0)
        tally_error("view: --files %s: %s", report_path, why);
    if (rc == 0) {
        const char *slash = strrchr(report_path, '/');
        struct page page = {report, title ? title : slash ? slash + 1 : report_path};
        rc = atomic_write_with(output, write_page, &page);
        if (rc < 0)
            tally_error_errno("view: %s", output);
    }
    json_decref(report);
    return rc < 0 ? TALLY_EXIT_ERROR : TALLY_EXIT_OK;
}
