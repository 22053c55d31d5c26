/* The service catalogue of the request language: one table row per service
 * (its name, kind, usage and argument pattern) and request_check, which
 * holds a parsed request against the table: services exist, events stand
 * before ':' and the others after it, every argument has an accepted kind,
 * count and value (object kinds, time units, flags, signals, limits, probe
 * and function names, variables the event defines). docs/requests.md is the
 * prose form of the same table; change both together. */
#include "request/request.h"

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/limits.h"
#include "tally/segment.h"
#include "core/units.h"

#define K(kind) (1u << (kind))
#define PROCS_OR_APPS (K(OBJECT_PROC) | K(OBJECT_APP))
#define ANY_PLACE (K(OBJECT_PROC) | K(OBJECT_APP) | K(OBJECT_NODE) | K(OBJECT_SITE))

enum param_type {
    PARAM_NONE,      /* end of the parameter list */
    PARAM_OBJECTS,   /* a non-empty list of the kinds in `objects` */
    PARAM_PERIOD,    /* a positive duration: a number with a time unit (bare: seconds) */
    PARAM_FLAGS,     /* proc_get_info's flags: a non-zero subset of PROC_INFO_KNOWN */
    PARAM_SIGNAL,    /* a signal number or name */
    PARAM_LIMITS,    /* a string in --limits syntax */
    PARAM_PROBE,     /* a probe name string */
    PARAM_FUNCTION,  /* a function name string (a C identifier) */
    PARAM_AMOUNT,    /* a number or a variable the event defines */
    PARAM_BOOLEAN,   /* 0 or 1 */
    PARAM_RECORDING, /* what to record: "mpi", "probes" or "all" */
};

struct service_param {
    enum param_type type;
    unsigned objects; /* PARAM_OBJECTS: accepted object kinds, K(OBJECT_...) */
    bool optional;    /* may be omitted (only trailing parameters are) */
};

/* Variables an event defines, usable as PARAM_AMOUNT in its actions. */
enum event_variables { VARS_NONE = 0, VARS_LEN = 1, VARS_VALUE = 2 };

struct service_spec {
    enum service_id id;        /* the row's place: services[id].id == id */
    const char *name;
    enum service_kind kind;
    const char *usage;
    struct service_param params[3];
    unsigned variables;        /* events: which variables the actions may use */
    bool unconditional_only;   /* actions that make no sense once per event */
};

#define OBJECTS(kinds) {PARAM_OBJECTS, (kinds), false}
#define OPTIONAL_OBJECTS(kinds) {PARAM_OBJECTS, (kinds), true}
#define PARAM(type) {(type), 0, false}
#define OPTIONAL(type) {(type), 0, true}

static const struct service_spec services[] = {
    /* information */
    {SERVICE_SITE_GET_INFO, "site_get_info", SERVICE_INFORMATION, "site_get_info(site_ objects)",
     {OBJECTS(K(OBJECT_SITE))}, 0, false},
    {SERVICE_NODE_GET_INFO, "node_get_info", SERVICE_INFORMATION, "node_get_info(n_|site_ objects)",
     {OBJECTS(K(OBJECT_NODE) | K(OBJECT_SITE))}, 0, false},
    {SERVICE_APP_GET_LIST, "app_get_list", SERVICE_INFORMATION, "app_get_list([n_|site_ objects])",
     {OPTIONAL_OBJECTS(K(OBJECT_NODE) | K(OBJECT_SITE))}, 0, false},
    {SERVICE_APP_GET_PROCLIST, "app_get_proclist", SERVICE_INFORMATION, "app_get_proclist(app_ objects)",
     {OBJECTS(K(OBJECT_APP))}, 0, false},
    {SERVICE_PROC_GET_INFO, "proc_get_info", SERVICE_INFORMATION, "proc_get_info(p_|app_|n_|site_ objects [, FLAGS])",
     {OBJECTS(ANY_PLACE), OPTIONAL(PARAM_FLAGS)}, 0, false},
    /* manipulation */
    {SERVICE_THREAD_STOP, "thread_stop", SERVICE_MANIPULATION, "thread_stop(p_|app_ objects)",
     {OBJECTS(PROCS_OR_APPS)}, 0, false},
    {SERVICE_THREAD_CONTINUE, "thread_continue", SERVICE_MANIPULATION, "thread_continue(p_|app_ objects)",
     {OBJECTS(PROCS_OR_APPS)}, 0, false},
    {SERVICE_PROC_KILL, "proc_kill", SERVICE_MANIPULATION, "proc_kill(p_|app_ objects [, SIGNAL])",
     {OBJECTS(PROCS_OR_APPS), OPTIONAL(PARAM_SIGNAL)}, 0, false},
    {SERVICE_PROC_SET_LIMITS, "proc_set_limits", SERVICE_MANIPULATION, "proc_set_limits(p_|app_ objects, \"LIMITS\")",
     {OBJECTS(PROCS_OR_APPS), PARAM(PARAM_LIMITS)}, 0, false},
    {SERVICE_PROC_RECORD_START, "proc_record_start", SERVICE_MANIPULATION,
     "proc_record_start(p_|app_ objects [, \"mpi\"|\"probes\"|\"all\" [, DURATION]])",
     {OBJECTS(PROCS_OR_APPS), OPTIONAL(PARAM_RECORDING), OPTIONAL(PARAM_PERIOD)}, 0, false},
    {SERVICE_PROC_RECORD_STOP, "proc_record_stop", SERVICE_MANIPULATION,
     "proc_record_stop(p_|app_ objects [, \"mpi\"|\"probes\"|\"all\"])",
     {OBJECTS(PROCS_OR_APPS), OPTIONAL(PARAM_RECORDING)}, 0, false},
    /* events */
    {SERVICE_PROC_CREATED, "proc_created", SERVICE_EVENT, "proc_created(p_|app_|n_|site_ objects)",
     {OBJECTS(ANY_PLACE)}, 0, false},
    {SERVICE_PROC_TERMINATED, "proc_terminated", SERVICE_EVENT, "proc_terminated(p_|app_|n_|site_ objects)",
     {OBJECTS(ANY_PLACE)}, 0, false},
    {SERVICE_LIMIT_EXCEEDED, "limit_exceeded", SERVICE_EVENT, "limit_exceeded(p_|app_|n_|site_ objects)",
     {OBJECTS(ANY_PLACE)}, 0, false},
    {SERVICE_TIMER, "timer", SERVICE_EVENT, "timer(PERIOD)",
     {PARAM(PARAM_PERIOD)}, 0, false},
    {SERVICE_THREAD_EXECUTES_PROBE, "thread_executes_probe", SERVICE_EVENT,
     "thread_executes_probe(p_|app_|n_|site_ objects, \"PROBE\")",
     {OBJECTS(ANY_PLACE), PARAM(PARAM_PROBE)}, VARS_VALUE, false},
    {SERVICE_LIB_CALL_STARTED, "lib_call_started", SERVICE_EVENT, "lib_call_started(p_|app_|n_|site_ objects, \"FUNCTION\")",
     {OBJECTS(ANY_PLACE), PARAM(PARAM_FUNCTION)}, VARS_LEN, false},
    {SERVICE_LIB_CALL_ENDED, "lib_call_ended", SERVICE_EVENT, "lib_call_ended(p_|app_|n_|site_ objects, \"FUNCTION\")",
     {OBJECTS(ANY_PLACE), PARAM(PARAM_FUNCTION)}, VARS_LEN, false},
    /* actions on counters and conditional requests */
    {SERVICE_PA_COUNTER_CREATE, "pa_counter_create", SERVICE_ACTION, "pa_counter_create()",
     {{PARAM_NONE, 0, false}}, 0, true},
    {SERVICE_PA_COUNTER_INCREMENT, "pa_counter_increment", SERVICE_ACTION,
     "pa_counter_increment(c_ objects [, AMOUNT|$variable])",
     {OBJECTS(K(OBJECT_COUNTER)), OPTIONAL(PARAM_AMOUNT)}, 0, false},
    {SERVICE_PA_COUNTER_READ, "pa_counter_read", SERVICE_ACTION, "pa_counter_read(c_ objects [, RESET])",
     {OBJECTS(K(OBJECT_COUNTER)), OPTIONAL(PARAM_BOOLEAN)}, 0, false},
    {SERVICE_PA_COUNTER_DELETE, "pa_counter_delete", SERVICE_ACTION, "pa_counter_delete(c_ objects)",
     {OBJECTS(K(OBJECT_COUNTER))}, 0, false},
    {SERVICE_CSR_ENABLE, "csr_enable", SERVICE_ACTION, "csr_enable(csr_ objects)",
     {OBJECTS(K(OBJECT_CSR))}, 0, false},
    {SERVICE_CSR_DISABLE, "csr_disable", SERVICE_ACTION, "csr_disable(csr_ objects)",
     {OBJECTS(K(OBJECT_CSR))}, 0, false},
    {SERVICE_CSR_DELETE, "csr_delete", SERVICE_ACTION, "csr_delete(csr_ objects)",
     {OBJECTS(K(OBJECT_CSR))}, 0, false},
};

#define SERVICE_COUNT (sizeof services / sizeof services[0])
_Static_assert(SERVICE_COUNT == SERVICE_ID_COUNT, "one catalogue row per service id");
#define TIMER_MIN_SECONDS 0.01
#define TIMER_MAX_SECONDS (366 * 86400.0)
#define AMOUNT_MAX 9007199254740992.0 /* 2^53: every integer up to it is exact */
#define NAME_MAX_BYTES 255

static const struct service_spec *find_service(const char *name)
{
    for (size_t i = 0; i < SERVICE_COUNT; i++)
        if (!strcmp(services[i].name, name))
            return &services[i];
    return NULL;
}

int service_id_of(const char *service)
{
    const struct service_spec *spec = find_service(service);
    return spec ? (int)spec->id : -1;
}

int service_kind_of(const char *service)
{
    const struct service_spec *spec = service ? find_service(service) : NULL;
    return spec ? (int)spec->kind : -1;
}

const char *service_usage(const char *service)
{
    const struct service_spec *spec = service ? find_service(service) : NULL;
    return spec ? spec->usage : NULL;
}

__attribute__((format(printf, 3, 4))) static int fail(struct request_error *err, int pos,
                                                      const char *fmt, ...)
{
    err->pos = pos;
    int n = snprintf(err->message, sizeof err->message, "column %d: ", pos);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + n, sizeof err->message - n, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *kind_prefix(enum object_kind kind)
{
    static const char *const prefix[] = {[OBJECT_SITE] = "site_", [OBJECT_NODE] = "n_",
                                         [OBJECT_APP] = "app_",   [OBJECT_PROC] = "p_",
                                         [OBJECT_COUNTER] = "c_", [OBJECT_CSR] = "csr_"};
    return prefix[kind];
}

static const char *arg_kind_name(enum arg_kind kind)
{
    switch (kind) {
    case ARG_OBJECTS: return "an object list";
    case ARG_STRING: return "a string";
    case ARG_NUMBER: return "a number";
    case ARG_VARIABLE: return "a variable";
    }
    return "?";
}

static const char *param_name(enum param_type type)
{
    switch (type) {
    case PARAM_NONE: return "nothing";
    case PARAM_OBJECTS: return "an object list";
    case PARAM_PERIOD: return "a period (500ms, 1s, 2min)";
    case PARAM_FLAGS: return "flags (a number such as 0x3)";
    case PARAM_SIGNAL: return "a signal (number or name such as \"KILL\")";
    case PARAM_LIMITS: return "a limits string (\"memory: 2 GB, wall_time: 10 min\")";
    case PARAM_PROBE: return "a probe name string";
    case PARAM_FUNCTION: return "a function name string (\"MPI_Send\")";
    case PARAM_AMOUNT: return "an amount (a number or $variable)";
    case PARAM_BOOLEAN: return "0 or 1";
    case PARAM_RECORDING: return "\"mpi\", \"probes\" or \"all\"";
    }
    return "?";
}

static bool is_integer(double value)
{
    return floor(value) == value;
}

static int require_no_unit(const struct request_arg *arg, const char *service, int index,
                           struct request_error *err)
{
    if (arg->text && arg->text[0])
        return fail(err, arg->pos, "%s: argument %d takes no unit, found '%s'", service, index,
                    arg->text);
    return 0;
}

static int check_objects(const struct service_param *param, const struct request_arg *arg,
                         const char *service, int index, struct request_error *err)
{
    if (arg->object_count == 0)
        return fail(err, arg->pos, "%s: argument %d is an empty object list", service, index);
    for (size_t i = 0; i < arg->object_count; i++) {
        const struct object_token *o = &arg->objects[i];
        if (param->objects & K(o->kind))
            continue;
        char accepted[64] = "", token[80];
        for (int kind = OBJECT_SITE; kind <= OBJECT_CSR; kind++)
            if (param->objects & K(kind))
                snprintf(accepted + strlen(accepted), sizeof accepted - strlen(accepted), "%s%s",
                         accepted[0] ? ", " : "", kind_prefix(kind));
        request_format_object(o, token, sizeof token);
        return fail(err, o->pos, "%s: argument %d takes %s tokens, found '%.40s'", service, index,
                    accepted, token);
    }
    return 0;
}

static const struct {
    const char *name;
    int number;
} signal_names[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"ABRT", SIGABRT}, {"KILL", SIGKILL},
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"ALRM", SIGALRM}, {"TERM", SIGTERM}, {"CONT", SIGCONT},
    {"STOP", SIGSTOP}, {"TSTP", SIGTSTP}, {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},
};

int request_signal(const struct request_arg *arg)
{
    if (!arg)
        return SIGTERM;
    if (arg->kind == ARG_NUMBER) {
        if (!is_integer(arg->number) || arg->number < 1 || arg->number > SIGRTMAX ||
            (arg->text && arg->text[0]))
            return -1;
        return (int)arg->number;
    }
    if (arg->kind != ARG_STRING)
        return -1;
    const char *name = arg->text;
    if (!strncasecmp(name, "SIG", 3))
        name += 3;
    for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
        if (!strcasecmp(signal_names[i].name, name))
            return signal_names[i].number;
    return -1;
}

/* Seconds of a PERIOD argument; -1 with why set when it is not one. */
static double period_seconds(const struct request_arg *arg, char *why, size_t why_size)
{
    char text[96];
    snprintf(text, sizeof text, "%.17g %s", arg->number, arg->text ? arg->text : "");
    double seconds;
    if (arg->number < 0) {
        snprintf(why, why_size, "a period cannot be negative");
        return -1;
    }
    if (units_parse(text, DIM_TIME, NULL, &seconds, why, why_size) < 0)
        return -1;
    return seconds;
}

double request_period(const struct request_arg *arg)
{
    char why[128];
    if (!arg || arg->kind != ARG_NUMBER)
        return -1;
    return period_seconds(arg, why, sizeof why);
}

double request_timer_period(const struct request_call *timer)
{
    return timer && timer->arg_count >= 1 ? request_period(&timer->args[0]) : -1;
}

unsigned request_info_flags(const struct request_call *call)
{
    if (!call || call->arg_count < 2 || call->args[1].kind != ARG_NUMBER)
        return PROC_INFO_ALL;
    return (unsigned)call->args[1].number;
}

unsigned request_recording_kinds(const struct request_arg *arg)
{
    if (!arg)
        return TALLY_ON_ANY;
    if (arg->kind != ARG_STRING)
        return 0;
    return !strcmp(arg->text, "mpi")      ? TALLY_ON_MPI
           : !strcmp(arg->text, "probes") ? TALLY_ON_PROBES
           : !strcmp(arg->text, "all")    ? TALLY_ON_ANY
                                          : 0;
}

static bool is_c_identifier(const char *s)
{
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

static const char *variable_event(unsigned variable)
{
    return variable == VARS_LEN ? "lib_call_started and lib_call_ended"
                                : "thread_executes_probe";
}

/* Checks one argument against its parameter. event: the request's event
 * spec (NULL when unconditional), for the variables it defines. */
static int check_arg(const struct service_param *param, const struct request_arg *arg,
                     const char *service, int index, const struct service_spec *event,
                     struct request_error *err)
{
    enum arg_kind want;
    switch (param->type) {
    case PARAM_OBJECTS: want = ARG_OBJECTS; break;
    case PARAM_LIMITS:
    case PARAM_PROBE:
    case PARAM_FUNCTION:
    case PARAM_RECORDING: want = ARG_STRING; break;
    case PARAM_SIGNAL: want = arg->kind == ARG_STRING ? ARG_STRING : ARG_NUMBER; break;
    case PARAM_AMOUNT: want = arg->kind == ARG_VARIABLE ? ARG_VARIABLE : ARG_NUMBER; break;
    default: want = ARG_NUMBER; break;
    }
    if (arg->kind != want)
        return fail(err, arg->pos, "%s: argument %d must be %s, found %s", service, index,
                    param_name(param->type), arg_kind_name(arg->kind));

    char why[160];
    switch (param->type) {
    case PARAM_NONE:
        return -1;
    case PARAM_OBJECTS:
        return check_objects(param, arg, service, index, err);
    case PARAM_PERIOD: {
        double seconds = period_seconds(arg, why, sizeof why);
        if (seconds < 0)
            return fail(err, arg->pos, "%s: argument %d is not a period: %s", service, index, why);
        if (seconds < TIMER_MIN_SECONDS)
            return fail(err, arg->pos, "%s: a period of %g s is shorter than the %g s allowed",
                        service, seconds, TIMER_MIN_SECONDS);
        if (!(seconds <= TIMER_MAX_SECONDS)) /* also NaN and inf: 1e308d */
            return fail(err, arg->pos, "%s: a period of %g s is longer than a year", service,
                        seconds);
        return 0;
    }
    case PARAM_FLAGS:
        if (require_no_unit(arg, service, index, err) < 0)
            return -1;
        if (!is_integer(arg->number) || arg->number < 1 ||
            arg->number > PROC_INFO_KNOWN) /* every bit up to 0x200 is a flag */
            return fail(err, arg->pos, "%s: flags must be a non-zero combination of 0x1 to 0x%x",
                        service, PROC_INFO_FILE_IO);
        return 0;
    case PARAM_SIGNAL:
        if (request_signal(arg) < 0) {
            if (arg->kind == ARG_STRING)
                return fail(err, arg->pos, "%s: unknown signal \"%.40s\"", service, arg->text);
            return fail(err, arg->pos, "%s: a signal number is a whole number from 1 to %d",
                        service, SIGRTMAX);
        }
        return 0;
    case PARAM_LIMITS: {
        struct limit_set limits;
        limits_clear(&limits);
        if (limits_parse(&limits, arg->text, why, sizeof why) < 0)
            return fail(err, arg->pos, "%s: %s", service, why);
        if (!limits_any(&limits))
            return fail(err, arg->pos, "%s: the limits string sets no limit", service);
        return 0;
    }
    case PARAM_PROBE:
        if (!arg->text[0] || strlen(arg->text) > NAME_MAX_BYTES)
            return fail(err, arg->pos, "%s: a probe name has 1 to %d bytes", service,
                        NAME_MAX_BYTES);
        return 0;
    case PARAM_FUNCTION:
        if (!is_c_identifier(arg->text) || strlen(arg->text) > NAME_MAX_BYTES)
            return fail(err, arg->pos, "%s: \"%.40s\" is not a function name", service, arg->text);
        return 0;
    case PARAM_AMOUNT:
        if (arg->kind == ARG_VARIABLE) {
            unsigned variable = !strcmp(arg->text, "len") ? VARS_LEN
                                : !strcmp(arg->text, "value") ? VARS_VALUE
                                                               : 0;
            if (!variable)
                return fail(err, arg->pos, "%s: unknown variable $%.40s (known: $len, $value)",
                            service, arg->text);
            if (!event || !(event->variables & variable))
                return fail(err, arg->pos, "%s: $%s is only defined in requests on %s events",
                            service, arg->text, variable_event(variable));
            return 0;
        }
        if (require_no_unit(arg, service, index, err) < 0)
            return -1;
        if (fabs(arg->number) > AMOUNT_MAX) /* counters stay finite, printable as JSON */
            return fail(err, arg->pos, "%s: an amount is at most 2^53 in size", service);
        return 0;
    case PARAM_BOOLEAN:
        if (require_no_unit(arg, service, index, err) < 0)
            return -1;
        if (arg->number != 0 && arg->number != 1)
            return fail(err, arg->pos, "%s: argument %d must be 0 or 1", service, index);
        return 0;
    case PARAM_RECORDING:
        if (!request_recording_kinds(arg))
            return fail(err, arg->pos, "%s: \"%.40s\" is not what can be recorded (\"mpi\", \"probes\" "
                        "or \"all\")", service, arg->text);
        return 0;
    }
    return -1;
}

static int check_call(const struct request_call *call, bool is_event, const struct request *request,
                      const struct service_spec *event, struct request_error *err)
{
    const struct service_spec *spec = find_service(call->service);
    if (!spec) {
        if (!strncmp(call->service, "gpm_", 4) && find_service(call->service + 4))
            return fail(err, call->pos, "unknown service '%.60s' (G-PM's name for %s)",
                        call->service, call->service + 4);
        return fail(err, call->pos, "unknown service '%.60s'", call->service);
    }
    if (is_event && spec->kind != SERVICE_EVENT)
        return fail(err, call->pos, "%s is not an event, so it cannot stand before ':'",
                    spec->name);
    if (!is_event && spec->kind == SERVICE_EVENT)
        return fail(err, call->pos, "%s is an event: it can only stand before ':'", spec->name);
    if (!is_event && spec->unconditional_only && request->conditional)
        return fail(err, call->pos, "%s can only be used in an unconditional request", spec->name);

    size_t required = 0, allowed = 0;
    while (allowed < 3 && spec->params[allowed].type != PARAM_NONE) {
        if (!spec->params[allowed].optional)
            required = allowed + 1;
        allowed++;
    }
    if (call->arg_count > allowed) {
        const struct request_arg *extra = &call->args[allowed];
        return fail(err, extra->pos, "%s takes %s%zu argument%s: %s", spec->name,
                    required == allowed ? "" : "at most ", allowed, allowed == 1 ? "" : "s",
                    spec->usage);
    }
    if (call->arg_count < required)
        return fail(err, call->pos, "%s needs %s%zu argument%s: %s", spec->name,
                    required == allowed ? "" : "at least ", required, required == 1 ? "" : "s",
                    spec->usage);
    for (size_t i = 0; i < call->arg_count; i++)
        if (check_arg(&spec->params[i], &call->args[i], spec->name, (int)i + 1, event, err) < 0)
            return -1;
    return 0;
}

int request_check(const struct request *request, struct request_error *err)
{
    memset(err, 0, sizeof *err);
    const struct service_spec *event = NULL;
    if (request->conditional) {
        if (check_call(&request->event, true, request, NULL, err) < 0)
            return -1;
        event = find_service(request->event.service);
    }
    if (request->action_count == 0)
        return fail(err, 1, "a request needs at least one action after ':'");
    for (size_t i = 0; i < request->action_count; i++)
        if (check_call(&request->actions[i], false, request, event, err) < 0)
            return -1;
    return 0;
}
