/* The counters (c_N) and conditional requests (csr_N) of one agent, and the
 * evaluation of events against them, as a pure library: no I/O, no clock
 * (the caller passes `now`), no global state. The agent owns one registry;
 * it feeds every event occurrence it sees (process created or ended, limit
 * exceeded, probe executed, library call) to csr_event, and the timers to
 * csr_timers_run. The registry runs counter and csr actions itself and
 * hands every other action (information, manipulation) to the agent's
 * report callback, so events are evaluated where they happen and only
 * results travel. See docs/requests.md, "Evaluation". */
#ifndef TALLY_REQUEST_CSR_H
#define TALLY_REQUEST_CSR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "request/request.h"

/* At most this many counters and this many csrs live in one registry. */
#define CSR_MAX_COUNTERS 65536
#define CSR_MAX_CSRS 65536

struct csr_registry;

struct csr_registry *csr_registry_new(void);
void csr_registry_free(struct csr_registry *registry);

/* ---- counters ---- */

/* Creates counter c_N at 0. *number: 0 to take the next free number (the
 * largest ever used + 1), or the number to use (a replica of a counter made
 * on another agent). Returns 0, or -1 with why set (number taken, too many
 * counters, out of memory). */
int counter_create(struct csr_registry *registry, unsigned *number, char *why, size_t why_size);
/* -1 when there is no counter c_number. A NaN or infinite amount is
 * ignored, so that a counter always stays a finite number. */
int counter_add(struct csr_registry *registry, unsigned number, double amount);
/* Reads c_number into *value and, when reset, sets it to 0 in the same step. */
int counter_read(struct csr_registry *registry, unsigned number, bool reset, double *value);
int counter_delete(struct csr_registry *registry, unsigned number);
size_t counter_count(const struct csr_registry *registry);

/* ---- conditional requests ---- */

enum csr_state { CSR_DISABLED, CSR_ENABLED, CSR_DELETED };

/* Defines a conditional request from a checked conditional request. On
 * success the registry owns its contents (*request is emptied) and
 * *number is its csr number (the same 0-or-given rule as counters). The
 * new csr starts enabled when `enabled` is true (the seed's csrs start
 * disabled until csr_enable; `tally request --follow` wants them enabled at
 * once). Every c_ and
 * csr_ token in the actions must exist: otherwise -1 with err naming it
 * ("column 38: c_7: no such counter"), and *request is left to the caller. */
int csr_define(struct csr_registry *registry, struct request *request, bool enabled, double now,
               unsigned *number, struct request_error *err);
/* now: when the timer of a timer csr starts counting its period. */
int csr_enable(struct csr_registry *registry, unsigned number, double now);
int csr_disable(struct csr_registry *registry, unsigned number);
int csr_delete(struct csr_registry *registry, unsigned number);
/* The state of csr_number; CSR_DELETED when there is none. */
enum csr_state csr_state_of(const struct csr_registry *registry, unsigned number);
/* The request of csr_number (to list or forward it); NULL when none. */
const struct request *csr_request(const struct csr_registry *registry, unsigned number);
/* Csrs not deleted, in O(1). */
size_t csr_count(const struct csr_registry *registry);
/* How many csrs were ever deleted. */
unsigned long long csr_deletions(const struct csr_registry *registry);
/* Between these, a deleted csr's memory is kept (the registry's own calls
 * do the same while callbacks run). Deleting is amortized O(1) with or
 * without them: the deleted are removed in one pass once they outnumber
 * the live ones. */
void csr_batch_begin(struct csr_registry *registry);
void csr_batch_end(struct csr_registry *registry);

/* ---- events ---- */

enum event_kind {
    EVENT_PROC_CREATED,
    EVENT_PROC_TERMINATED,
    EVENT_LIMIT_EXCEEDED,
    EVENT_TIMER,
    EVENT_PROBE, /* thread_executes_probe */
    EVENT_LIB_CALL_STARTED,
    EVENT_LIB_CALL_ENDED,
};

/* One occurrence of an event, as the agent saw it. */
struct event_occurrence {
    enum event_kind kind;
    pid_t pid;              /* the process it happened in */
    const char *host;       /* that process's host (the agent's) */
    const char *app;        /* its application, NULL when it has none */
    const char *site;       /* the host's site, NULL when unknown */
    const pid_t *ancestors; /* EVENT_PROC_CREATED: parent, grandparent, ... */
    size_t ancestor_count;
    const char *name; /* EVENT_PROBE: probe; EVENT_LIB_CALL_*: function */
    double len;       /* $len: EVENT_LIB_CALL_*'s message length in bytes */
    double value;     /* $value: the value passed to the probe (0: none) */
};

/* What running one action produced; handed to the agent's callback. */
enum csr_report_kind {
    CSR_REPORT_DISPATCH,        /* an information or manipulation action: the agent runs it */
    CSR_REPORT_COUNTER_VALUE,   /* a counter after create, read, or an unconditional increment */
    CSR_REPORT_COUNTER_DELETED, /* value: its last value */
    CSR_REPORT_CSR_STATE,       /* a csr after csr_enable/disable/delete */
    CSR_REPORT_ERROR,           /* error: one line naming the token */
};

struct csr_report {
    enum csr_report_kind kind;
    unsigned csr;                         /* the csr that fired; 0 for csr_run */
    const struct event_occurrence *event; /* what fired it; NULL for csr_run */
    const struct request_call *action;    /* the action this is about */
    unsigned object;                      /* the counter or csr number */
    double value;                         /* COUNTER_VALUE, COUNTER_DELETED */
    enum csr_state state;                 /* CSR_STATE */
    const char *error;                    /* ERROR */
};

/* The callback may call back into the registry (define, enable, delete...);
 * a csr deleted meanwhile is kept alive until the outermost call returns. */
typedef void (*csr_report_fn)(void *context, const struct csr_report *report);

/* Runs the actions of a checked unconditional request: counter and csr
 * actions here, the others through report. Returns how many errors were
 * reported. */
int csr_run(struct csr_registry *registry, const struct request *request, double now,
            csr_report_fn report, void *context);

/* Fires every enabled csr whose event matches the occurrence: same event,
 * the occurrence inside the event's objects (p_PID[@HOST]: that process,
 * and for proc_created any descendant of it; app_: a process of the
 * application; n_: on that host; site_: on that site) and the same probe
 * or function name. Runs their actions in definition order (csr numbers
 * ascending, then action order); csrs that its callbacks define wait for
 * the next occurrence. A counter action on a counter that no
 * longer exists reports an error and disables its csr, so that a fast
 * event cannot flood the tool with errors. Returns how many csrs fired. */
int csr_event(struct csr_registry *registry, const struct event_occurrence *event, double now,
              csr_report_fn report, void *context);

/* Fires every enabled timer csr that is due at `now` (once, even when
 * several periods were missed) and schedules its next time. Returns how
 * many fired. */
int csr_timers_run(struct csr_registry *registry, double now, csr_report_fn report, void *context);
/* The earliest time an enabled timer csr is due; false when there is none.
 * Kept between changes of the timers: O(1) but after a definition, enable,
 * disable, delete or firing (then one pass). csr_timers_run returns at once
 * before that time. */
bool csr_next_timer(struct csr_registry *registry, double *due);

/* ---- evaluation inside the application ---- */

/* An enabled csr on thread_executes_probe or lib_call_* whose actions are
 * all pa_counter_increment: the application can evaluate it itself through
 * the probe library's shared memory, keeping per csr and process the
 * number of occurrences and the sums of $len and $value; the agent folds
 * them in with csr_apply_batch instead of receiving each event. */
struct csr_pushdown {
    unsigned csr;
    enum event_kind event;
    const char *name;                /* probe or function name */
    const struct request_arg *scope; /* the event's object list */
};

/* Every enabled csr on thread_executes_probe or lib_call_* (pushed down or
 * not), as csr_pushdowns lists them: what an agent must watch for. */
size_t csr_instrumented(const struct csr_registry *registry, struct csr_pushdown *out, size_t max);
/* Is the occurrence inside the object list (the event's first argument)? */
bool csr_scope_matches(const struct request_arg *scope, const struct event_occurrence *event);
/* Fills out[0..max) and returns how many csrs qualify (which may be more
 * than max). Pointers stay valid until the csr is deleted. */
size_t csr_pushdowns(const struct csr_registry *registry, struct csr_pushdown *out, size_t max);
/* Applies `count` occurrences of csr_number's event at once, whose $len
 * and $value add up to len_sum and value_sum: each increment adds
 * count * AMOUNT, len_sum or value_sum (exact, since increments are
 * linear). -1 when the csr does not exist or cannot be pushed down; a
 * disabled csr accepts the batch (its occurrences came before it was
 * disabled). */
int csr_apply_batch(struct csr_registry *registry, unsigned number, double count, double len_sum,
                    double value_sum, csr_report_fn report, void *context);

#endif
