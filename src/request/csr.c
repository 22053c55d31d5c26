/* The counter and conditional-request registry of one agent (see csr.h):
 * two arrays kept sorted by number (binary search), the actions of counters
 * and csrs run here, event matching against each csr's objects, timers
 * scheduled from the `now` the caller passes, and the batches of events
 * evaluated inside the application. Deleting a csr from inside a callback
 * only marks it; it is freed when the outermost registry call returns, so
 * the actions being run stay valid. */
#include "request/csr.h"
#include "util/vec.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct counter {
    unsigned number;
    double value;
};

struct csr {
    unsigned number;
    enum csr_state state;
    enum event_kind event;
    struct request request;
    double period; /* timer csrs: seconds */
    double due;    /* timer csrs: next time to fire, while enabled */
};

struct csr_registry {
    struct counter *counters;
    size_t counter_count, counter_capacity;
    unsigned counter_next; /* the largest number ever used + 1 */
    struct csr *csrs;
    size_t csr_total, csr_capacity; /* csr_total counts marked-deleted ones too */
    size_t csr_live;                /* not deleted: csr_count in O(1) */
    unsigned long long csr_deletions; /* csrs ever deleted */
    size_t timers_enabled;          /* enabled timer csrs: none, no timer scan */
    bool due_known;                 /* next_due is the earliest enabled timer's due time */
    double next_due;                /* (kept so that a loop turn with no timer due is O(1)) */
    unsigned csr_next;
    unsigned layout;   /* changes whenever csrs move in the array (insert, sweep) */
    int depth;         /* registry calls in progress (callbacks may re-enter) */
};

struct csr_registry *csr_registry_new(void)
{
    struct csr_registry *registry = calloc(1, sizeof *registry);
    if (registry) {
        registry->counter_next = 1;
        registry->csr_next = 1;
    }
    return registry;
}

void csr_registry_free(struct csr_registry *registry)
{
    if (!registry)
        return;
    for (size_t i = 0; i < registry->csr_total; i++)
        request_free(&registry->csrs[i].request);
    free(registry->csrs);
    free(registry->counters);
    free(registry);
}

/* ---- sorted arrays ---- */

/* Index of the first element whose number is >= number (binary search over
 * elements of `size` bytes whose first member is the unsigned number). */
static size_t lower_bound(const void *items, size_t count, size_t size, unsigned number)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        unsigned at = *(const unsigned *)((const char *)items + mid * size);
        if (at < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct counter *find_counter(const struct csr_registry *registry, unsigned number)
{
    size_t i =
        lower_bound(registry->counters, registry->counter_count, sizeof(struct counter), number);
    return i < registry->counter_count && registry->counters[i].number == number
               ? &registry->counters[i]
               : NULL;
}

/* Index of csr_number (deleted-but-kept ones included), or csr_total. */
static size_t csr_index(const struct csr_registry *registry, unsigned number)
{
    size_t i = lower_bound(registry->csrs, registry->csr_total, sizeof(struct csr), number);
    return i < registry->csr_total && registry->csrs[i].number == number ? i : registry->csr_total;
}

static struct csr *find_csr(const struct csr_registry *registry, unsigned number)
{
    size_t i = csr_index(registry, number);
    if (i == registry->csr_total || registry->csrs[i].state == CSR_DELETED)
        return NULL;
    return &registry->csrs[i];
}

/* Resolves the 0-or-given number rule; -1 with why set when impossible. */
static int choose_number(unsigned *number, unsigned next, bool taken, const char *prefix, char *why,
                         size_t why_size)
{
    if (*number == 0) {
        if (next == 0) {
            snprintf(why, why_size, "no %s number is left", prefix);
            return -1;
        }
        *number = next;
        return 0;
    }
    if (taken) {
        snprintf(why, why_size, "%s%u already exists", prefix, *number);
        return -1;
    }
    return 0;
}

/* ---- counters ---- */

int counter_create(struct csr_registry *registry, unsigned *number, char *why, size_t why_size)
{
    if (registry->counter_count >= CSR_MAX_COUNTERS) {
        snprintf(why, why_size, "too many counters (at most %d)", CSR_MAX_COUNTERS);
        return -1;
    }
    unsigned n = *number;
    if (choose_number(&n, registry->counter_next, n && find_counter(registry, n), "c_", why,
                      why_size) < 0)
        return -1;
    size_t at = lower_bound(registry->counters, registry->counter_count, sizeof(struct counter), n);
    struct counter *c = vec_insert((void **)&registry->counters, &registry->counter_count,
                                  &registry->counter_capacity, sizeof *c, at);
    if (!c) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    c->number = n;
    if (n >= registry->counter_next)
        registry->counter_next = n + 1; /* 0 after UINT_MAX: none left */
    *number = n;
    return 0;
}

int counter_add(struct csr_registry *registry, unsigned number, double amount)
{
    struct counter *c = find_counter(registry, number);
    if (!c)
        return -1;
    if (isfinite(amount)) /* a NaN or infinite $len from a broken event must not stick */
        c->value += amount;
    return 0;
}

int counter_read(struct csr_registry *registry, unsigned number, bool reset, double *value)
{
    struct counter *c = find_counter(registry, number);
    if (!c)
        return -1;
    *value = c->value;
    if (reset)
        c->value = 0;
    return 0;
}

int counter_delete(struct csr_registry *registry, unsigned number)
{
    struct counter *c = find_counter(registry, number);
    if (!c)
        return -1;
    size_t at = c - registry->counters;
    memmove(c, c + 1, (registry->counter_count - at - 1) * sizeof *c);
    registry->counter_count--;
    return 0;
}

size_t counter_count(const struct csr_registry *registry)
{
    return registry->counter_count;
}

/* ---- csrs ---- */

static const struct {
    const char *service;
    enum event_kind kind;
} event_services[] = {
    {"proc_created", EVENT_PROC_CREATED},     {"proc_terminated", EVENT_PROC_TERMINATED},
    {"limit_exceeded", EVENT_LIMIT_EXCEEDED}, {"timer", EVENT_TIMER},
    {"thread_executes_probe", EVENT_PROBE},   {"lib_call_started", EVENT_LIB_CALL_STARTED},
    {"lib_call_ended", EVENT_LIB_CALL_ENDED},
};

static int event_kind_of(const char *service)
{
    for (size_t i = 0; i < sizeof event_services / sizeof event_services[0]; i++)
        if (!strcmp(event_services[i].service, service))
            return (int)event_services[i].kind;
    return -1;
}

__attribute__((format(printf, 3, 4))) static int fail(struct request_error *err, int pos,
                                                      const char *fmt, ...)
{
    err->pos = pos;
    int n = pos > 0 ? snprintf(err->message, sizeof err->message, "column %d: ", pos) : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + n, sizeof err->message - n, fmt, ap);
    va_end(ap);
    return -1;
}

static void sweep(struct csr_registry *registry);

/* Every c_ and csr_ token in the actions must name something that exists
 * (or, for csr_, the csr being defined). */
static int check_references(const struct csr_registry *registry, const struct request *request,
                            unsigned self, struct request_error *err)
{
    for (size_t i = 0; i < request->action_count; i++) {
        const struct request_call *action = &request->actions[i];
        for (size_t j = 0; j < action->arg_count; j++) {
            const struct request_arg *arg = &action->args[j];
            for (size_t k = 0; arg->kind == ARG_OBJECTS && k < arg->object_count; k++) {
                const struct object_token *o = &arg->objects[k];
                if (o->kind == OBJECT_COUNTER && !find_counter(registry, o->number))
                    return fail(err, o->pos, "c_%u: no such counter", o->number);
                if (o->kind == OBJECT_CSR && o->number != self && !find_csr(registry, o->number))
                    return fail(err, o->pos, "csr_%u: no such conditional request", o->number);
            }
        }
    }
    return 0;
}

int csr_define(struct csr_registry *registry, struct request *request, bool enabled, double now,
               unsigned *number, struct request_error *err)
{
    memset(err, 0, sizeof *err);
    int kind = request->conditional ? event_kind_of(request->event.service) : -1;
    if (kind < 0 || request->action_count == 0)
        return fail(err, 0, "not a conditional request");
    if (csr_count(registry) >= CSR_MAX_CSRS)
        return fail(err, 0, "too many conditional requests (at most %d)", CSR_MAX_CSRS);
    unsigned n = *number;
    char why[128];
    size_t old = n ? csr_index(registry, n) : registry->csr_total;
    if (old != registry->csr_total && registry->csrs[old].state == CSR_DELETED &&
        registry->depth == 0) { /* a replica's number, deleted but still marked */
        sweep(registry);
        old = csr_index(registry, n);
    }
    if (choose_number(&n, registry->csr_next, old != registry->csr_total,
                      "csr_", why, sizeof why) < 0)
        return fail(err, 0, "%s", why);
    if (check_references(registry, request, n, err) < 0)
        return -1;
    double period = 0;
    if (kind == EVENT_TIMER) {
        period = request_timer_period(&request->event);
        if (!(period > 0))
            return fail(err, request->event.pos, "timer: not a valid period");
    }
    size_t at = lower_bound(registry->csrs, registry->csr_total, sizeof(struct csr), n);
    struct csr *c = vec_insert((void **)&registry->csrs, &registry->csr_total,
                              &registry->csr_capacity, sizeof *c, at);
    if (!c)
        return fail(err, 0, "out of memory");
    registry->layout++;
    c->number = n;
    c->event = (enum event_kind)kind;
    c->request = *request;
    memset(request, 0, sizeof *request);
    c->period = period;
    c->state = enabled ? CSR_ENABLED : CSR_DISABLED;
    c->due = now + period;
    registry->due_known = false;
    registry->csr_live++;
    registry->timers_enabled += enabled && kind == EVENT_TIMER;
    if (n >= registry->csr_next)
        registry->csr_next = n + 1;
    *number = n;
    return 0;
}

int csr_enable(struct csr_registry *registry, unsigned number, double now)
{
    struct csr *c = find_csr(registry, number);
    if (!c)
        return -1;
    if (c->state != CSR_ENABLED) {
        c->due = now + c->period;
        registry->due_known = false;
        registry->timers_enabled += c->event == EVENT_TIMER;
    }
    c->state = CSR_ENABLED;
    return 0;
}

int csr_disable(struct csr_registry *registry, unsigned number)
{
    struct csr *c = find_csr(registry, number);
    if (!c)
        return -1;
    registry->timers_enabled -= c->state == CSR_ENABLED && c->event == EVENT_TIMER;
    registry->due_known = false;
    c->state = CSR_DISABLED;
    return 0;
}

/* A deleted csr is only marked (state CSR_DELETED, skipped by every scan
 * and lookup) and stays in the array until the marked ones outnumber the
 * live ones: then one pass removes them all. Deleting n csrs one at a time
 * is O(n) in all, not O(n^2) (it was a pass per deletion: 16,384 deletions
 * took 17 s). Never while a registry call is in progress: the actions of a
 * deleted csr may be running. */
static void sweep(struct csr_registry *registry)
{
    size_t kept = 0;
    for (size_t i = 0; i < registry->csr_total; i++) {
        if (registry->csrs[i].state == CSR_DELETED)
            request_free(&registry->csrs[i].request);
        else
            registry->csrs[kept++] = registry->csrs[i];
    }
    registry->csr_total = kept;
    registry->layout++;
}

static void sweep_when_due(struct csr_registry *registry)
{
    if (registry->depth == 0 && registry->csr_total - registry->csr_live > registry->csr_live)
        sweep(registry);
}

int csr_delete(struct csr_registry *registry, unsigned number)
{
    struct csr *c = find_csr(registry, number);
    if (!c)
        return -1;
    registry->timers_enabled -= c->state == CSR_ENABLED && c->event == EVENT_TIMER;
    registry->due_known = false;
    c->state = CSR_DELETED;
    registry->csr_live--;
    registry->csr_deletions++;
    sweep_when_due(registry);
    return 0;
}

enum csr_state csr_state_of(const struct csr_registry *registry, unsigned number)
{
    const struct csr *c = find_csr(registry, number);
    return c ? c->state : CSR_DELETED;
}

const struct request *csr_request(const struct csr_registry *registry, unsigned number)
{
    const struct csr *c = find_csr(registry, number);
    return c ? &c->request : NULL;
}

size_t csr_count(const struct csr_registry *registry)
{
    return registry->csr_live;
}

unsigned long long csr_deletions(const struct csr_registry *registry)
{
    return registry->csr_deletions;
}

static void enter(struct csr_registry *registry)
{
    registry->depth++;
}

static void leave(struct csr_registry *registry)
{
    registry->depth--;
    sweep_when_due(registry);
}

void csr_batch_begin(struct csr_registry *registry)
{
    enter(registry);
}

void csr_batch_end(struct csr_registry *registry)
{
    leave(registry);
}

/* ---- running actions ---- */

struct run {
    struct csr_registry *registry;
    unsigned csr; /* 0: an unconditional request */
    const struct event_occurrence *event;
    double now;
    csr_report_fn report;
    void *context;
    int errors;
};

static void report(struct run *run, const struct request_call *action, enum csr_report_kind kind,
                   unsigned object, double value, enum csr_state state, const char *error)
{
    struct csr_report r = {.kind = kind,
                           .csr = run->csr,
                           .event = run->event,
                           .action = action,
                           .object = object,
                           .value = value,
                           .state = state,
                           .error = error};
    if (run->report)
        run->report(run->context, &r);
}

/* Reports an error; inside a firing also disables the csr that fired. */
__attribute__((format(printf, 3, 4))) static void
action_error(struct run *run, const struct request_call *action, const char *fmt, ...)
{
    char message[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    run->errors++;
    report(run, action, CSR_REPORT_ERROR, 0, 0, CSR_DISABLED, message);
    if (run->csr && csr_state_of(run->registry, run->csr) == CSR_ENABLED) {
        csr_disable(run->registry, run->csr);
        report(run, action, CSR_REPORT_CSR_STATE, run->csr, 0, CSR_DISABLED, NULL);
    }
}

/* AMOUNT of pa_counter_increment for this occurrence (1 when omitted). */
static double increment_amount(const struct request_call *action,
                               const struct event_occurrence *event)
{
    if (action->arg_count < 2)
        return 1;
    const struct request_arg *arg = &action->args[1];
    if (arg->kind == ARG_NUMBER)
        return arg->number;
    if (!event)
        return 0; /* request_check refuses variables without an event */
    return !strcmp(arg->text, "len") ? event->len : event->value;
}

static void run_counter_action(struct run *run, const struct request_call *action)
{
    struct csr_registry *registry = run->registry;
    const char *service = action->service;
    int id = service_id_of(service);
    if (id == SERVICE_PA_COUNTER_CREATE) {
        unsigned number = 0;
        char why[128];
        if (counter_create(registry, &number, why, sizeof why) < 0)
            action_error(run, action, "pa_counter_create: %s", why);
        else
            report(run, action, CSR_REPORT_COUNTER_VALUE, number, 0, CSR_ENABLED, NULL);
        return;
    }
    const struct request_arg *list = &action->args[0];
    bool reset = action->arg_count > 1 && action->args[1].number == 1;
    for (size_t i = 0; i < list->object_count; i++) {
        unsigned number = list->objects[i].number;
        double value;
        if (!find_counter(registry, number)) {
            action_error(run, action, "c_%u: no such counter", number);
            continue;
        }
        if (id == SERVICE_PA_COUNTER_INCREMENT) {
            counter_add(registry, number, increment_amount(action, run->event));
            if (!run->event) /* one reply per unconditional increment, none per event */
                report(run, action, CSR_REPORT_COUNTER_VALUE, number,
                       find_counter(registry, number)->value, CSR_ENABLED, NULL);
        } else if (id == SERVICE_PA_COUNTER_READ) {
            counter_read(registry, number, reset, &value);
            report(run, action, CSR_REPORT_COUNTER_VALUE, number, value, CSR_ENABLED, NULL);
        } else { /* pa_counter_delete */
            counter_read(registry, number, false, &value);
            counter_delete(registry, number);
            report(run, action, CSR_REPORT_COUNTER_DELETED, number, value, CSR_DELETED, NULL);
        }
    }
}

static void run_csr_action(struct run *run, const struct request_call *action)
{
    const struct request_arg *list = &action->args[0];
    for (size_t i = 0; i < list->object_count; i++) {
        unsigned number = list->objects[i].number;
        int rc;
        enum csr_state state;
        int id = service_id_of(action->service);
        if (id == SERVICE_CSR_ENABLE) {
            rc = csr_enable(run->registry, number, run->now);
            state = CSR_ENABLED;
        } else if (id == SERVICE_CSR_DISABLE) {
            rc = csr_disable(run->registry, number);
            state = CSR_DISABLED;
        } else {
            rc = csr_delete(run->registry, number);
            state = CSR_DELETED;
        }
        if (rc < 0)
            action_error(run, action, "csr_%u: no such conditional request", number);
        else
            report(run, action, CSR_REPORT_CSR_STATE, number, 0, state, NULL);
    }
}

static void run_actions(struct run *run, const struct request_call *actions, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const struct request_call *action = &actions[i];
        if (!strncmp(action->service, "pa_counter_", 11))
            run_counter_action(run, action);
        else if (!strncmp(action->service, "csr_", 4))
            run_csr_action(run, action);
        else
            report(run, action, CSR_REPORT_DISPATCH, 0, 0, CSR_ENABLED, NULL);
    }
}

int csr_run(struct csr_registry *registry, const struct request *request, double now,
            csr_report_fn report_fn, void *context)
{
    struct run run = {registry, 0, NULL, now, report_fn, context, 0};
    enter(registry);
    run_actions(&run, request->actions, request->action_count);
    leave(registry);
    return run.errors;
}

/* ---- events ---- */

static bool same(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

static bool object_matches(const struct object_token *o, const struct event_occurrence *event)
{
    switch (o->kind) {
    case OBJECT_PROC:
        if (o->name && !same(o->name, event->host))
            return false;
        if (o->pid == event->pid)
            return true;
        if (event->kind == EVENT_PROC_CREATED)
            for (size_t i = 0; i < event->ancestor_count; i++)
                if (event->ancestors[i] == o->pid)
                    return true;
        return false;
    case OBJECT_APP: return same(o->name, event->app);
    case OBJECT_NODE: return same(o->name, event->host);
    case OBJECT_SITE: return same(o->name, event->site);
    case OBJECT_COUNTER:
    case OBJECT_CSR: return false;
    }
    return false;
}

static bool csr_matches(const struct csr *c, const struct event_occurrence *event)
{
    if (c->event != event->kind)
        return false;
    const struct request_call *call = &c->request.event;
    if (call->arg_count >= 2 && call->args[1].kind == ARG_STRING &&
        !same(call->args[1].text, event->name))
        return false;
    const struct request_arg *scope = &call->args[0];
    for (size_t i = 0; i < scope->object_count; i++)
        if (object_matches(&scope->objects[i], event))
            return true;
    return false;
}

/* Index of the first csr numbered above `after`, or csr_total: i + 1 when
 * the array did not move since i was `after`'s index (the common case),
 * else a binary search. */
static size_t csr_next_index(const struct csr_registry *registry, size_t i, unsigned after,
                             unsigned layout)
{
    if (layout == registry->layout)
        return i + 1;
    if (after == UINT_MAX)
        return registry->csr_total;
    return lower_bound(registry->csrs, registry->csr_total, sizeof(struct csr), after + 1);
}

/* Index of the first csr numbered above `after`, or csr_total. */
static size_t csr_after(const struct csr_registry *registry, unsigned after)
{
    if (after == UINT_MAX)
        return registry->csr_total;
    return lower_bound(registry->csrs, registry->csr_total, sizeof(struct csr), after + 1);
}

/* Runs the actions of the csr at index i for the occurrence. */
static void fire(struct csr_registry *registry, size_t i, const struct event_occurrence *event,
                 double now, csr_report_fn report_fn, void *context)
{
    struct csr *c = &registry->csrs[i];
    /* the actions array stays put while callbacks run: a csr deleted
     * meanwhile is only freed when the outermost call leaves */
    const struct request_call *actions = c->request.actions;
    size_t count = c->request.action_count;
    struct run run = {registry, c->number, event, now, report_fn, context, 0};
    run_actions(&run, actions, count);
}

int csr_event(struct csr_registry *registry, const struct event_occurrence *event, double now,
              csr_report_fn report_fn, void *context)
{
    if (event->kind == EVENT_TIMER)
        return 0; /* timers are csr_timers_run's */
    int fired = 0;
    unsigned defined_before =
        registry->csr_next; /* csrs defined by callbacks wait for the next one */
    enter(registry);
    for (size_t i = csr_after(registry, 0); i < registry->csr_total;) {
        unsigned number = registry->csrs[i].number, layout = registry->layout;
        if (number >= defined_before && defined_before != 0)
            break;
        if (registry->csrs[i].state == CSR_ENABLED && csr_matches(&registry->csrs[i], event)) {
            fire(registry, i, event, now, report_fn, context);
            fired++;
        }
        i = csr_next_index(registry, i, number, layout); /* callbacks may have added csrs */
    }
    leave(registry);
    return fired;
}

int csr_timers_run(struct csr_registry *registry, double now, csr_report_fn report_fn,
                   void *context)
{
    int fired = 0;
    struct event_occurrence tick = {.kind = EVENT_TIMER};
    if (registry->timers_enabled == 0 || (registry->due_known && now < registry->next_due))
        return 0;
    enter(registry);
    for (size_t i = csr_after(registry, 0); i < registry->csr_total;) {
        struct csr *c = &registry->csrs[i];
        unsigned number = c->number, layout = registry->layout;
        if (c->state == CSR_ENABLED && c->event == EVENT_TIMER && c->due <= now) {
            /* next time: the first period boundary after now; missed ones are skipped */
            c->due += (floor((now - c->due) / c->period) + 1) * c->period;
            if (c->due <= now)
                c->due = now + c->period; /* rounding at huge magnitudes */
            fire(registry, i, &tick, now, report_fn, context);
            fired++;
        }
        i = csr_next_index(registry, i, number, layout);
    }
    if (fired)
        registry->due_known = false; /* their due times moved */
    leave(registry);
    return fired;
}

bool csr_next_timer(struct csr_registry *registry, double *due)
{
    if (registry->timers_enabled == 0)
        return false;
    if (!registry->due_known) { /* once after each change, not at every loop turn */
        bool any = false;
        for (size_t i = 0; i < registry->csr_total; i++) {
            const struct csr *c = &registry->csrs[i];
            if (c->state != CSR_ENABLED || c->event != EVENT_TIMER)
                continue;
            if (!any || c->due < registry->next_due)
                registry->next_due = c->due;
            any = true;
        }
        if (!any)
            return false;
        registry->due_known = true;
    }
    *due = registry->next_due;
    return true;
}

/* ---- evaluation inside the application ---- */

static bool pushable(const struct csr *c)
{
    if (c->state == CSR_DELETED ||
        !(c->event == EVENT_PROBE || c->event == EVENT_LIB_CALL_STARTED ||
          c->event == EVENT_LIB_CALL_ENDED))
        return false;
    for (size_t i = 0; i < c->request.action_count; i++)
        if (service_id_of(c->request.actions[i].service) != SERVICE_PA_COUNTER_INCREMENT)
            return false;
    return true;
}

bool csr_scope_matches(const struct request_arg *scope, const struct event_occurrence *event)
{
    for (size_t i = 0; scope && i < scope->object_count; i++)
        if (object_matches(&scope->objects[i], event))
            return true;
    return false;
}

/* The enabled csrs KEEP chooses, as pushdowns, into out[0..max); how many
 * there are (which may be more than max). */
static size_t list_pushdowns(const struct csr_registry *registry, bool (*keep)(const struct csr *),
                             struct csr_pushdown *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < registry->csr_total; i++) {
        const struct csr *c = &registry->csrs[i];
        if (c->state != CSR_ENABLED || !keep(c))
            continue;
        if (n < max)
            out[n] = (struct csr_pushdown){c->number, c->event, c->request.event.args[1].text,
                                           &c->request.event.args[0]};
        n++;
    }
    return n;
}

/* On thread_executes_probe or lib_call_*, with the probe's or function's name. */
static bool instrumented(const struct csr *c)
{
    return (c->event == EVENT_PROBE || c->event == EVENT_LIB_CALL_STARTED ||
            c->event == EVENT_LIB_CALL_ENDED) &&
           c->request.event.arg_count >= 2 && c->request.event.args[1].kind == ARG_STRING;
}

size_t csr_instrumented(const struct csr_registry *registry, struct csr_pushdown *out, size_t max)
{
    return list_pushdowns(registry, instrumented, out, max);
}

size_t csr_pushdowns(const struct csr_registry *registry, struct csr_pushdown *out, size_t max)
{
    return list_pushdowns(registry, pushable, out, max);
}

int csr_apply_batch(struct csr_registry *registry, unsigned number, double count, double len_sum,
                    double value_sum, csr_report_fn report_fn, void *context)
{
    struct csr *c = find_csr(registry, number);
    if (!c || !pushable(c))
        return -1;
    enter(registry);
    struct run run = {registry, number, NULL, 0, report_fn, context, 0};
    const struct request_call *actions = c->request.actions;
    size_t action_count = c->request.action_count;
    for (size_t i = 0; i < action_count; i++) {
        const struct request_call *action = &actions[i];
        double amount = count;
        if (action->arg_count > 1) {
            const struct request_arg *arg = &action->args[1];
            amount = arg->kind == ARG_NUMBER     ? count * arg->number
                     : !strcmp(arg->text, "len") ? len_sum
                                                 : value_sum;
        }
        const struct request_arg *list = &action->args[0];
        for (size_t j = 0; j < list->object_count; j++)
            if (counter_add(registry, list->objects[j].number, amount) < 0)
                action_error(&run, action, "c_%u: no such counter", list->objects[j].number);
    }
    leave(registry);
    return 0;
}
