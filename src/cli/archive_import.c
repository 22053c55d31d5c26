/* 'tally archive import slurm [FILE|-]': Slurm's accounting records, as
 * sacct --parsable2 prints them (src/archive/sacct.h), from a file, standard
 * input, or by running sacct, stored as summaries (one per job step). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "archive/ingest_files.h"
#include "archive/sacct.h"
#include "cli/archive_cli.h"
#include "cli/commands.h"
#include "util/error.h"
#include "util/text_file.h"

static const char usage[] =
    "usage: tally archive import slurm [options] [FILE|-]\n"
    "       tally archive import [options] DIR\n"
    "  DIR               a Makeflow, Work Queue or TaskVine run's resource_monitor\n"
    "                    summaries: the workflow is the set (--set, default DIR's\n"
    "                    full path), a summary without taskid takes its file's name\n"
    "  --set NAME        the set (workflow) of DIR's summaries\n"
    "  --set-description FILE  e.g. the Makeflow file, stored once per set\n"
    "  FILE, -           sacct --parsable2 output with its header (else sacct is run);\n"
    "                    jobs and steps not ended yet are left for a later import\n"
    "  --db PATH|URI     the archive\n"
    "  --start TIME      running sacct: jobs from TIME (sacct -S, e.g. 2026-11-01)\n"
    "  --end TIME        running sacct: jobs up to TIME (sacct -E)\n"
    "  --all-users       running sacct: every user's jobs (sacct -a)\n"
    "  -q, --quiet       do not print the counts\n";

#define SACCT_FORMAT                                                                       \
    "JobID,JobName,User,Account,Partition,State,ExitCode,Elapsed,TotalCPU,ReqMem,MaxRSS," \
    "AllocCPUS,Timelimit,Start,End,NodeList"

/* An import of Slurm's records: its lines read as they come, each summary
 * given to the archive, in the reading thread of the ingest
 * (ingest_in_thread); the header was read before the archive was opened. */
struct import {
    const char *label;
    struct text_lines *lines;
    struct sacct_reader *reader;
    struct ingest_session *session;
    long given;       /* summaries made of the lines */
    size_t bad;       /* lines that made none */
    bool failed;      /* the input could not be read to its end (why) */
    char why[512];
};

static int take_summary(void *ctx, const char *summary, size_t len, size_t line)
{
    struct import *im = ctx;
    char label[512];
    snprintf(label, sizeof label, "%s: line %zu", im->label, line);
    ingest_document(im->session, label, summary, len);
    return im->session->database_failed; /* stop: nothing more is stored */
}

static void bad_line(void *ctx, const char *why)
{
    struct import *im = ctx;
    tally_error("archive import slurm: %s: %s", im->label, why);
    im->bad++;
}

/* Lines to the reader until it stops, the input ends, or (header_only)
 * its header has come. 0 at the end, 1 when stopped or at the header, -1
 * when a line could not be read or taken (im->why). */
static int feed_lines(struct import *im, bool header_only)
{
    char *line;
    size_t len;
    int more;
    while ((more = text_lines_next(im->lines, &line, &len)) > 0) {
        int rc = sacct_reader_line(im->reader, line, len, im->lines->number, im->why, sizeof im->why);
        if (rc != 0)
            return rc;
        if (header_only && sacct_reader_has_header(im->reader))
            return 1;
    }
    if (more < 0)
        snprintf(im->why, sizeof im->why, "%s", im->lines->why);
    return more;
}

/* The lines after the header; the jobs still held given at the end, not
 * when the input broke off (their steps may be in what was not read). */
static int read_sacct(struct ingest_session *session, void *arg)
{
    struct import *im = arg;
    im->session = session;
    im->failed = feed_lines(im, false) < 0;
    char why[512];
    im->given = im->failed ? sacct_reader_given(im->reader)
                           : sacct_reader_finish(im->reader, why, sizeof why); /* (the header came) */
    return im->failed ? -1 : 0;
}

/* "exit status 1", "killed by signal 13": how sacct ended (pclose's status). */
static void ending_text(int status, char *out, size_t size)
{
    if (status != -1 && WIFEXITED(status))
        snprintf(out, size, "exit status %d", WEXITSTATUS(status));
    else if (status != -1 && WIFSIGNALED(status))
        snprintf(out, size, "killed by signal %d", WTERMSIG(status));
    else
        snprintf(out, size, "status %d", status);
}

/* Closes the input: sacct's exit status (read to its end first, so that
 * a reader that stopped early does not kill it with SIGPIPE), else 0 (or
 * fclose's outcome). */
static int close_input(FILE *in, bool command)
{
    if (command) {
        char drain[65536];
        while (fread(drain, 1, sizeof drain, in) > 0)
            ;
        return pclose(in);
    }
    return in != stdin ? fclose(in) : 0;
}

/* A line of sacct's output is at most this long (a NodeList of thousands
 * of nodes is well under it). */
#define SACCT_LINE_MAX ((size_t)1 << 20)

/* A workflow's run directory: every summary under it, the workflow as the
 * set, task ids from the file names where the summaries have none. */
static int import_directory(const struct archive_command *cmd, const char *dir, const char *set,
                            const char *description_path, int quiet)
{
    char *full = realpath(dir, NULL);
    if (!full) {
        tally_error_errno("archive import: %s", dir);
        return TALLY_EXIT_ERROR;
    }
    char *description = NULL;
    size_t description_len = 0;
    if (description_path) {
        char why[160];
        description = text_file_read(description_path, TEXT_FILE_SMALL, &description_len, why, sizeof why);
        if (!description) {
            tally_error("archive import: --set-description %s: %s", description_path, why);
            free(full);
            return TALLY_EXIT_ERROR;
        }
    }
    struct store *store = archive_open(cmd->db, false);
    if (!store) {
        free(full);
        free(description);
        return TALLY_EXIT_ERROR;
    }
    struct ingest_options opts = {.set = set ? set : full, .taskid_from_file = true};
    char why[512];
    if (description && ingest_set_description(store, opts.set, description, why, sizeof why) < 0) {
        tally_error("archive import: %s: %s", store->location, why);
        store_close(store);
        free(full);
        free(description);
        return TALLY_EXIT_ERROR;
    }
    struct ingest_session session;
    ingest_session_init(&session, store, &opts);
    char *paths[1] = {full};
    ingest_paths(&session, paths, 1);
    int finished = ingest_session_finish(&session);
    if (!quiet)
        printf("set %s: added %zu, already archived %zu, rejected %zu\n", opts.set, session.added,
               session.duplicates, session.rejected);
    store_close(store);
    free(full);
    free(description);
    if (finished < 0)
        return TALLY_EXIT_ERROR;
    return session.rejected ? TALLY_EXIT_FAILURE : TALLY_EXIT_OK;
}

/* FILE, or standard input for "-": NULL when it cannot be opened (said). */
static FILE *open_file(const char *path)
{
    if (!strcmp(path, "-"))
        return stdin;
    char why[160];
    int fd = text_file_open(path, false, why, sizeof why); /* a FIFO is not waited for */
    if (fd < 0) {
        tally_error("archive import slurm: %s: %s", path, why);
        return NULL;
    }
    FILE *in = fdopen(fd, "r");
    if (!in) {
        tally_error_errno("archive import slurm: %s", path);
        close(fd);
    }
    return in;
}

/* sacct run for the jobs asked for (its command line into command): its
 * output, or NULL when a time is not one or it cannot be run (said). */
static FILE *run_sacct(const char *start, const char *end, int all_users, char *command,
                       size_t command_size)
{
    const char *times[2][2] = {{"--start", start}, {"--end", end}};
    for (int t = 0; t < 2; t++) {
        const char *v = times[t][1];
        if (v && (!*v || strspn(v, "0123456789-T:") != strlen(v))) {
            tally_error("archive import slurm: %s: '%s' is not a time (YYYY-MM-DD[THH:MM:SS])",
                        times[t][0], v);
            return NULL;
        }
    }
    snprintf(command, command_size, "sacct --parsable2 --format=" SACCT_FORMAT "%s%s%s%s%s",
             all_users ? " -a" : "", start ? " -S " : "", start ? start : "", end ? " -E " : "",
             end ? end : "");
    FILE *in = popen(command, "r");
    if (!in)
        tally_error_errno("archive import slurm: sacct");
    return in;
}

/* sacct's output from in (label names it; command: the sacct run, or NULL
 * for a file), its header read before the archive is opened, into the
 * archive db. Closes in. The exit status. */
static int import_sacct(FILE *in, const char *label, const char *command, const char *db, int quiet)
{
    struct text_lines lines;
    text_lines_attach(&lines, in, SIZE_MAX, SACCT_LINE_MAX);
    struct import im = {.label = label, .lines = &lines};
    im.reader = sacct_reader_new(take_summary, bad_line, &im);
    int header = im.reader ? feed_lines(&im, true) : -1;
    if (!im.reader)
        snprintf(im.why, sizeof im.why, "out of memory");
    else if (header == 0)
        sacct_reader_finish(im.reader, im.why, sizeof im.why); /* no header: why says so */
    struct store *store = header == 1 ? archive_open(db, false) : NULL;
    int status = TALLY_EXIT_ERROR, finished = 0;
    struct ingest_session session;
    if (store) {
        struct ingest_options opts = {0};
        ingest_session_init(&session, store, &opts);
        ingest_in_thread(&session, read_sacct, &im);
        finished = ingest_session_finish(&session);
    }
    int closed = close_input(in, command != NULL);
    char ending[64];
    ending_text(closed, ending, sizeof ending);
    if (header != 1 && command && closed != 0)
        tally_error("archive import slurm: '%s' failed (%s)", command, ending);
    else if (header != 1)
        tally_error("archive import slurm: %s: %s", label, im.why);
    else if (store && im.failed)
        tally_error("archive import slurm: %s: %s (the %ld steps before it were stored)", label,
                    im.why, im.given);
    else if (store && command && closed != 0)
        tally_error("archive import slurm: '%s' failed (%s); the %ld steps it gave were stored",
                    command, ending, im.given);
    if (store) {
        long unfinished = sacct_reader_unfinished(im.reader);
        if (!quiet) {
            printf("steps %ld, added %zu, already archived %zu, rejected %zu", im.given,
                   session.added, session.duplicates, session.rejected + im.bad);
            if (unfinished)
                printf(", not ended %ld (not stored: import them again once they end)", unfinished);
            putchar('\n');
        }
        store_close(store);
        if (finished >= 0 && !im.failed && !(command && closed != 0))
            status = session.rejected || im.bad ? TALLY_EXIT_FAILURE : TALLY_EXIT_OK;
    }
    text_lines_close(&lines);
    sacct_reader_free(im.reader);
    return status;
}

int archive_import_main(int argc, char **argv, const char *db)
{
    static const struct option options[] = {
        ARCHIVE_COMMON_OPTIONS,
        {"start", required_argument, NULL, 's'},
        {"end", required_argument, NULL, 'e'},
        {"all-users", no_argument, NULL, 'a'},
        {"set", required_argument, NULL, 'S'},
        {"set-description", required_argument, NULL, 'D'},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    struct archive_command cmd = {.name = "import", .usage = usage, .db = db};
    const char *start = NULL, *end = NULL, *set = NULL, *description = NULL;
    int all_users = 0, quiet = 0, c, outcome;
    while ((outcome = archive_next_option(&cmd, argc, argv, "qh", options, &c)) ==
           ARCHIVE_OPTION_OWN) {
        if (c == 's')
            start = optarg;
        else if (c == 'e')
            end = optarg;
        else if (c == 'a')
            all_users = 1;
        else if (c == 'S')
            set = optarg;
        else if (c == 'D')
            description = optarg;
        else
            quiet = 1;
    }
    if (outcome != ARCHIVE_OPTION_END)
        return outcome;
    if (argc - optind == 1 && strcmp(argv[optind], "slurm"))
        return import_directory(&cmd, argv[optind], set, description, quiet);
    if (optind >= argc || strcmp(argv[optind], "slurm") || argc - optind > 2) {
        tally_error("archive import: give 'slurm' [FILE], or a run directory");
        fputs(usage, stderr);
        return TALLY_EXIT_ERROR;
    }
    const char *path = optind + 1 < argc ? argv[optind + 1] : NULL;
    if (path && (start || end || all_users)) {
        tally_error("archive import slurm: --start, --end and --all-users choose what sacct is run "
                    "for; %s is read as it is", path);
        return TALLY_EXIT_ERROR;
    }
    char command[512] = "";
    FILE *in = path ? open_file(path) : run_sacct(start, end, all_users, command, sizeof command);
    return in ? import_sacct(in, path ? path : "sacct", path ? NULL : command, cmd.db, quiet)
              : TALLY_EXIT_ERROR;
}
