/* The OMIS-style request language of seed 001 (G-PM/OCM-G), as text:
 *
 *     [event(objects, args)] : action(objects, args) [, action(...)]...
 *
 * unconditional when the event part is empty (":proc_get_info([p_1], 0x1)"),
 * conditional otherwise ("thread_executes_probe([p_1], \"nextstep\"):
 * pa_counter_read([c_1])"). This header is the syntax tree that the parser
 * (request_parse.c) produces and that the agent evaluates; it knows nothing
 * of transports or of the agent's state.
 *
 * Object tokens: site_NAME, n_HOST, app_NAME, p_PID@HOST (p_PID on the
 * local host), c_N (a counter), csr_N (a conditional request). An object
 * argument is a list "[a, b]"; a single bare token is accepted as a list of
 * one. Other arguments: "strings", numbers (decimal, 0x hex, with an
 * optional unit suffix kept as text: 500ms, 2GB), and variables ($len).
 * Positions are 1-based byte columns into the request text, so that every
 * error can name where the bad part is. */
#ifndef TALLY_REQUEST_REQUEST_H
#define TALLY_REQUEST_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum object_kind {
    OBJECT_SITE,     /* site_NAME          name */
    OBJECT_NODE,     /* n_HOST             name */
    OBJECT_APP,      /* app_NAME           name */
    OBJECT_PROC,     /* p_PID[@HOST]       pid, name = HOST or NULL (local) */
    OBJECT_COUNTER,  /* c_N                number */
    OBJECT_CSR,      /* csr_N              number */
};

struct object_token {
    enum object_kind kind;
    char *name;          /* see above; NULL where not used */
    pid_t pid;           /* OBJECT_PROC */
    unsigned number;     /* OBJECT_COUNTER, OBJECT_CSR */
    int pos;             /* column of the token's first character */
};

enum arg_kind {
    ARG_OBJECTS,   /* objects[object_count] */
    ARG_STRING,    /* text: the unquoted, unescaped string */
    ARG_NUMBER,    /* number; text: the unit suffix as written ("" when none) */
    ARG_VARIABLE,  /* text: the name without '$' ("len") */
};

struct request_arg {
    enum arg_kind kind;
    int pos;
    struct object_token *objects;
    size_t object_count;
    char *text;
    double number;
};

struct request_call {
    char *service;       /* e.g. "proc_get_info" */
    int pos;             /* column of the service name */
    struct request_arg *args;
    size_t arg_count;
};

struct request {
    bool conditional;            /* an event part was given */
    struct request_call event;   /* valid when conditional */
    struct request_call *actions;
    size_t action_count;         /* >= 1 */
};

struct request_error {
    int pos;                     /* column of the bad part (0: none) */
    char message[240];           /* one line, no trailing newline */
};

/* Bounds, so that no request can make the parser or the agent use much
 * memory: a longer request, list, argument list or action list is refused
 * with an error naming where the limit was passed. */
#define REQUEST_MAX_BYTES 65536   /* bytes of request text */
#define REQUEST_MAX_OBJECTS 4096  /* object tokens in one list */
#define REQUEST_MAX_ARGS 16       /* arguments of one call */
#define REQUEST_MAX_ACTIONS 64    /* actions after the ':' */

/* Parses text into *out. Returns 0, or -1 with *err set (out is left
 * empty, nothing to free). Checks syntax and the token forms; whether a
 * service exists and takes these arguments is request_check's job. */
int request_parse(const char *text, struct request *out, struct request_error *err);
/* As request_parse, for len bytes that need not end in NUL (as read from a
 * socket); a NUL byte inside is an error. */
int request_parse_n(const char *text, size_t len, struct request *out, struct request_error *err);
void request_free(struct request *request);

/* The canonical text of a request (":" between event and actions, lists
 * always bracketed, app_ for a_, numbers in decimal): parses back to an
 * equal request. For echoing a request and for forwarding subrequests
 * after an application token was expanded. It can be longer than the
 * text it came from (brackets, ", ", escapes), so a request near
 * REQUEST_MAX_BYTES may format to one too long to parse back. malloc'd;
 * NULL when out of memory. */
char *request_format(const struct request *request);
/* One object token as written canonically ("p_4242@n1", "app_x") into buf. */
void request_format_object(const struct object_token *object, char *buf, size_t size);

/* What a service is, for the checks and for dispatch. */
enum service_kind {
    SERVICE_INFORMATION,   /* site_get_info, node_get_info, app_get_list, ... */
    SERVICE_MANIPULATION,  /* thread_stop, thread_continue, proc_kill, proc_set_limits */
    SERVICE_EVENT,         /* proc_created, timer, thread_executes_probe, ... */
    SERVICE_ACTION,        /* pa_counter_*, csr_*: only as actions */
};

/* Every service of the catalogue, in its order: what the agent and the csr
 * registry dispatch on (a table indexed by id), never the name. */
enum service_id {
    SERVICE_SITE_GET_INFO,
    SERVICE_NODE_GET_INFO,
    SERVICE_APP_GET_LIST,
    SERVICE_APP_GET_PROCLIST,
    SERVICE_PROC_GET_INFO,
    SERVICE_THREAD_STOP,
    SERVICE_THREAD_CONTINUE,
    SERVICE_PROC_KILL,
    SERVICE_PROC_SET_LIMITS,
    SERVICE_PROC_RECORD_START,
    SERVICE_PROC_RECORD_STOP,
    SERVICE_PROC_CREATED,
    SERVICE_PROC_TERMINATED,
    SERVICE_LIMIT_EXCEEDED,
    SERVICE_TIMER,
    SERVICE_THREAD_EXECUTES_PROBE,
    SERVICE_LIB_CALL_STARTED,
    SERVICE_LIB_CALL_ENDED,
    SERVICE_PA_COUNTER_CREATE,
    SERVICE_PA_COUNTER_INCREMENT,
    SERVICE_PA_COUNTER_READ,
    SERVICE_PA_COUNTER_DELETE,
    SERVICE_CSR_ENABLE,
    SERVICE_CSR_DISABLE,
    SERVICE_CSR_DELETE,
    SERVICE_ID_COUNT
};

/* Checks that every service exists, stands where it may (events only
 * before ':', the others only after it) and gets arguments of the right
 * kinds and count. Returns 0, or -1 with *err naming the position. */
int request_check(const struct request *request, struct request_error *err);
/* The id of a known service; -1 for an unknown name. */
int service_id_of(const char *service);
/* The kind of a known service; -1 for an unknown name. */
int service_kind_of(const char *service);
/* How a service is called, e.g. "proc_get_info(p_|app_|n_|site_ objects
 * [, FLAGS])"; NULL for an unknown name. */
const char *service_usage(const char *service);

/* proc_get_info's FLAGS: which groups of fields to return (values in the
 * summary's units, see docs/requests.md). Omitted: PROC_INFO_ALL. */
enum proc_info_flag {
    PROC_INFO_STATE = 0x1,   /* pid, ppid, host, app, command, state, start, wall_time */
    PROC_INFO_CPU = 0x2,     /* cpu_time, cores, context_switches */
    PROC_INFO_MEMORY = 0x4,  /* memory, virtual_memory, swap_memory, page faults */
    PROC_INFO_IO = 0x8,      /* bytes_read, bytes_written, storage_bytes_read/written */
    PROC_INFO_NETWORK = 0x10, /* bytes_received, bytes_sent */
    PROC_INFO_FILES = 0x20,  /* total_files, disk */
    PROC_INFO_ALL = 0x3f,
    PROC_INFO_SERIES = 0x40, /* the agent's kept series of the process (not in ALL) */
    PROC_INFO_PROBES = 0x80, /* its libtally-probe counters, rank, MPI sends (not in ALL) */
    PROC_INFO_CONTRACT = 0x100, /* its contract violation levels, from tally contract watch (not in ALL) */
    PROC_INFO_FILE_IO = 0x200, /* its level-3 per-file I/O, from libtally-io (not in ALL) */
    PROC_INFO_KNOWN = 0x3ff, /* every flag above: request_check refuses others */
};

/* Helpers for the evaluator, valid on a call that passed request_check. */
/* The period of timer(PERIOD) in seconds. */
double request_timer_period(const struct request_call *timer);
/* A PERIOD argument in seconds; -1 when arg is NULL or not a period. */
double request_period(const struct request_arg *arg);
/* The signal of proc_kill's optional SIGNAL argument (number or name such
 * as "KILL" or "SIGKILL"); SIGTERM when arg is NULL; -1 when unknown. */
int request_signal(const struct request_arg *arg);
/* proc_get_info's flags (PROC_INFO_ALL when omitted). */
unsigned request_info_flags(const struct request_call *proc_get_info);
/* proc_record_start/stop's kinds as TALLY_ON_* bits (include/tally/segment.h):
 * "mpi", "probes", "all" (also when arg is NULL); 0 when unknown. */
unsigned request_recording_kinds(const struct request_arg *arg);

#endif
