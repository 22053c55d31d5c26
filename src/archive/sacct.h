/* Slurm accounting records (sacct --parsable2) as archive summaries.
 *
 * The input is sacct's '|'-separated output with its header line; columns
 * are found by name, in any order. Read: JobID, JobName, User, Account,
 * Partition, State, ExitCode, Elapsed, TotalCPU, ReqMem, MaxRSS, AllocCPUS
 * (or NCPUS), Timelimit, Start, End, NodeList; others are ignored. Each job
 * step (JobID with a '.') becomes one summary; a job without step lines
 * becomes one itself (its own line sums its steps, so it is not counted twice).
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

#include <stddef.h>

/* Called once per summary, with its JSON text (len bytes, not
 * NUL-terminated, valid until the call returns: a compact object, as
 * json_dumps writes it with JSON_REAL_PRECISION(17)); line is the input
 * line it came from. Return non-zero to stop. */
typedef int (*sacct_summary_fn)(void *ctx, const char *summary, size_t len, size_t line);
/* Called once per bad line, with why ("line 7: Elapsed: '1:2:3:4' is not a
 * time"); the line is skipped. */
typedef void (*sacct_error_fn)(void *ctx, const char *why);

/* Parses text (len bytes). Returns the number of summaries given, or -1
 * when the input has no usable header (why says so). */
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
