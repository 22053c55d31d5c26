/* Slurm accounting records (sacct --parsable2) as archive summaries.
 *
 * The input is sacct's '|'-separated output with its header line; columns
 * are found by name, in any order. Read: JobID, JobName, User, Account,
 * Partition, State, ExitCode, Elapsed, TotalCPU, ReqMem, MaxRSS, AllocCPUS
 * (or NCPUS), Timelimit, Start, End, NodeList; others are ignored. Each job
 * step (JobID with a '.') becomes one summary; a job without step lines
 * becomes one itself (its own line sums its steps, so it is not counted twice).
 * A job or step that has not ended (its own State PENDING, RUNNING,
 * SUSPENDED, RESIZING or REQUEUED) becomes none: its record is not final.
 * The input is read as it comes, in the memory of a window of jobs (see
 * struct sacct_reader), not whole.
 *
 * A summary: name = the job's name (a step: "JOBNAME.STEP"), category = the
 * partition, taskid = JobID, host = NodeList, user and account kept in the
 * document, wall_time = Elapsed, cpu_time = TotalCPU, memory = MaxRSS,
 * cores = AllocCPUS, start and end, exit_status from ExitCode, exit_type
 * from State (COMPLETED, FAILED: normal; TIMEOUT, OUT_OF_MEMORY: limits,
 * with limits_exceeded; CANCELLED: signal), and "requested": memory (ReqMem;
 * per CPU when it ends in c, as older Slurm prints it), cores, wall_time
 * (Timelimit). A step takes what it lacks (partition, requests) from its job.
 * Units: sizes with K, M, G, T, P suffixes (powers of 1024; none = bytes for
 * MaxRSS, MB for ReqMem), times as [D-][HH:]MM:SS[.mmm]. */
#ifndef TALLY_ARCHIVE_SACCT_H
#define TALLY_ARCHIVE_SACCT_H

#include <stdbool.h>
#include <stddef.h>

/* Called once per summary, with its JSON text (len bytes, not
 * NUL-terminated, valid until the call returns: a compact object, as
 * json_dumps writes it with JSON_REAL_PRECISION(17)); line is the input
 * line it came from. Return non-zero to stop. */
typedef int (*sacct_summary_fn)(void *ctx, const char *summary, size_t len, size_t line);
/* Called once per bad line, with why ("line 7: Elapsed: '1:2:3:4' is not a
 * time"); the line is skipped. */
typedef void (*sacct_error_fn)(void *ctx, const char *why);

/* A reader of sacct's lines as they come: the first non-empty line is the
 * header, each line after it a job or a step. A step is given at once,
 * with what it lacks taken from its job when the job's line came before it
 * (as sacct prints them); a job is held until SACCT_JOB_WINDOW (4,096)
 * other jobs' lines have come after it, or the end, then given when no
 * step of it came (a job whose steps came before its own line is not given
 * either). Its memory is that window's, whatever the input's length. */
struct sacct_reader;

struct sacct_reader *sacct_reader_new(sacct_summary_fn on_summary, sacct_error_fn on_error,
                                      void *ctx);
/* One line (len bytes, without its newline; a trailing CR is dropped),
 * line `number` of the input. 0; 1 when on_summary said stop; -1 and why
 * when the header has no JobID column ("line 1: no JobID column: ...") or
 * memory ran out. */
int sacct_reader_line(struct sacct_reader *r, const char *line, size_t len, size_t number,
                      char *why, size_t why_size);
/* Whether the header has come. */
bool sacct_reader_has_header(const struct sacct_reader *r);
/* The summaries given so far. */
long sacct_reader_given(const struct sacct_reader *r);
/* The lines not given because their own State had not ended (PENDING,
 * RUNNING, SUSPENDED, RESIZING, REQUEUED): imported again once they end,
 * they are given then. */
long sacct_reader_unfinished(const struct sacct_reader *r);
/* The jobs still held given; the number of summaries given in all, or -1
 * and why when no header came. */
long sacct_reader_finish(struct sacct_reader *r, char *why, size_t why_size);
void sacct_reader_free(struct sacct_reader *r);

/* The lines of text (len bytes, up to a NUL) through a reader. Returns the
 * number of summaries given, or -1 when the input has no usable header
 * (why says so). */
long sacct_parse(const char *text, size_t len, sacct_summary_fn on_summary,
                 sacct_error_fn on_error, void *ctx, char *why, size_t why_size);

/* Whether text starts with a header sacct_parse can use: 0, or -1 and why
 * (what sacct_parse would say), before anything is stored. */
int sacct_check_header(const char *text, size_t len, char *why, size_t why_size);

/* "1-02:03:04" → 93784 s; -1 when not a time. */
double sacct_seconds(const char *text);
/* "4000M" → 4000 MB; bare numbers are in `bare_unit_mb` MB. -1 when bad. */
double sacct_megabytes(const char *text, double bare_unit_mb);

#endif
