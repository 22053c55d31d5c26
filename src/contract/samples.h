/* Contract samples: the one input of contracts, whatever measured it. A
 * sample is what one process (rank or worker id, on a host) did during one
 * period: a value per contract metric (metrics.h), NAN when not measured.
 *
 * On disk, samples are JSON lines (docs/contracts.md), one object per
 * process and period, in either of two forms:
 *   {"process":"3","host":"n3","t":1700000012.0,"period":1.0,
 *    "metrics":{"flops_per_job":1e6,"flops_per_s":2.4e8,...}}
 *   {"process":"3","host":"n3","t":1700000012.0,
 *    "counters":{"flops":..,"jobs":..,"messages":..,"bytes":..,
 *                "io_bytes":..,"io_ops":..,"instructions":..,"cpu_seconds":..}}
 * "counters" are cumulative (what probe counters hold); the metrics of a
 * period are derived from the difference between one line and the previous
 * line of the same process (samples_derive). The first line of a process
 * is its reference and yields no sample.
 *
 * Sources (samples_load picks one; switching source is this one function):
 *   - a JSON-lines file as above (the stand-in master/worker fixture writes
 *     it; libtally-probe counters will be turned into the counters form);
 *   - a 'tally run --time-series -o PREFIX' output (PREFIX or
 *     PREFIX.summary): cpu_share and io_bytes_per_s per series interval,
 *     process = the prefix's base name, host from the summary. */
#ifndef TALLY_CONTRACT_SAMPLES_H
#define TALLY_CONTRACT_SAMPLES_H

#include <stddef.h>
#include <stdio.h>

#include "contract/metrics.h"

#define SAMPLE_NAME_MAX 64

struct contract_sample {
    char process[SAMPLE_NAME_MAX];
    char host[SAMPLE_NAME_MAX];
    double time;   /* end of the period, epoch seconds */
    double period; /* its length, seconds */
    double value[CONTRACT_N_METRICS];
    double runnable_per_core; /* the host's runnable tasks per core during the period
                                 (NAN: not measured); "runnable_per_core" in the
                                 metrics form, written by 'contract watch' */
};

struct sample_set {
    struct contract_sample *v;
    size_t n, cap;
};

/* Cumulative counters of one process at one time (the "counters" form). */
enum sample_counter {
    COUNTER_FLOPS, COUNTER_JOBS, COUNTER_MESSAGES, COUNTER_BYTES, COUNTER_IO_BYTES,
    COUNTER_IO_OPS, COUNTER_INSTRUCTIONS, COUNTER_CPU_SECONDS, SAMPLE_N_COUNTERS
};
const char *counter_name(enum sample_counter c);

/* Metrics of the period between two counter snapshots (NAN where a counter
 * is missing or a ratio's denominator did not move). dt > 0. */
void samples_derive(const double *before, const double *after, double dt, double *value);

void sample_init(struct contract_sample *s);
int sample_set_push(struct sample_set *set, const struct contract_sample *s);
void sample_set_free(struct sample_set *set);
/* Sorts by time, then process name (stable input for check and build). */
void sample_set_sort(struct sample_set *set);

/* Reads JSON lines from f (name for messages). Returns -1 with
 * "NAME:LINE: why" in err. */
int samples_read_jsonl(FILE *f, const char *name, struct sample_set *set, char *why, size_t why_size);
/* Reads a tally run output (PREFIX.summary + PREFIX.series). */
int samples_read_run(const char *prefix, struct sample_set *set, char *why, size_t why_size);
/* Either, by what PATH is: PATH.summary or PATH ending in .summary → run,
 * "-" → standard input, anything else → JSON lines. */
int samples_load(const char *path, struct sample_set *set, char *why, size_t why_size);

/* The counter a name stands for ("iterations" is jobs), -1 for none. */
int sample_counter_by_name(const char *name);

/* Cumulative snapshots arriving one at a time (tally contract watch): each
 * process's previous snapshot, so that the next one yields the period's
 * sample by samples_derive, exactly as the "counters" form of a file does.
 * counter[SAMPLE_N_COUNTERS], NAN where not measured. A process's first
 * snapshot is its reference and pushes nothing. -1 with err when t does not
 * increase for the process, or out of memory. */
struct counter_history;
struct counter_history *counter_history_new(void);
int counter_history_add(struct counter_history *h, const char *process, const char *host, double t,
                        const double *counter, struct sample_set *set, char *why, size_t why_size);
void counter_history_free(struct counter_history *h);

/* Writes one sample as a JSON line in the "metrics" form. */
void samples_write_jsonl(FILE *f, const struct contract_sample *s);

#endif
