/* The Paje reader: maps the file, tokenizes it by hand (no per-line malloc),
 * interns names, and turns variable events into capacity and per-category
 * usage signals (see varmap.c for which variable is what).
 *
 * Understands %EventDef blocks with any field order and extra fields, all
 * standard events (container, variable, state, event and link types, entity
 * values, containers, variables set/add/sub, states set/push/pop/reset, new
 * events, start/end links), quoted strings and '#' comments. States and point
 * events are validated and counted; links become topology edges; a variable
 * "active.<category>" that is no resource's, or a state type of that name,
 * is the activity of that category's server (trace_activity). Any error
 * stops the read with "FILE:LINE: why". */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/hierarchy.h"
#include "trace/trace.h"
#include "trace/varmap.h"
#include "util/hashmap.h"
#include "util/text_file.h"
#include "util/vec.h"

enum paje_event {
    EV_DEF_CONTAINER_TYPE, EV_DEF_VARIABLE_TYPE, EV_DEF_STATE_TYPE, EV_DEF_EVENT_TYPE,
    EV_DEF_LINK_TYPE, EV_DEF_ENTITY_VALUE, EV_CREATE_CONTAINER, EV_DESTROY_CONTAINER,
    EV_SET_VARIABLE, EV_ADD_VARIABLE, EV_SUB_VARIABLE, EV_SET_STATE, EV_PUSH_STATE,
    EV_POP_STATE, EV_RESET_STATE, EV_NEW_EVENT, EV_START_LINK, EV_END_LINK, EV_KINDS
};

static const char *const event_names[EV_KINDS] = {
    "PajeDefineContainerType", "PajeDefineVariableType", "PajeDefineStateType",
    "PajeDefineEventType", "PajeDefineLinkType", "PajeDefineEntityValue",
    "PajeCreateContainer", "PajeDestroyContainer", "PajeSetVariable", "PajeAddVariable",
    "PajeSubVariable", "PajeSetState", "PajePushState", "PajePopState", "PajeResetState",
    "PajeNewEvent", "PajeStartLink", "PajeEndLink",
};

enum paje_field {
    F_TIME, F_ALIAS, F_TYPE, F_CONTAINER, F_NAME, F_VALUE, F_START_CONTAINER_TYPE,
    F_END_CONTAINER_TYPE, F_START_CONTAINER, F_END_CONTAINER, F_KEY, F_COLOR, F_FIELDS
};

static const char *const field_names[F_FIELDS] = {
    "Time", "Alias", "Type", "Container", "Name", "Value", "StartContainerType",
    "EndContainerType", "StartContainer", "EndContainer", "Key", "Color",
};

/* Fields each event needs (bit per enum paje_field). */
#define B(f) (1u << (f))
static const unsigned required_fields[EV_KINDS] = {
    [EV_DEF_CONTAINER_TYPE] = B(F_NAME) | B(F_TYPE),
    [EV_DEF_VARIABLE_TYPE] = B(F_NAME) | B(F_TYPE),
    [EV_DEF_STATE_TYPE] = B(F_NAME) | B(F_TYPE),
    [EV_DEF_EVENT_TYPE] = B(F_NAME) | B(F_TYPE),
    [EV_DEF_LINK_TYPE] = B(F_NAME) | B(F_TYPE) | B(F_START_CONTAINER_TYPE) | B(F_END_CONTAINER_TYPE),
    [EV_DEF_ENTITY_VALUE] = B(F_NAME) | B(F_TYPE),
    [EV_CREATE_CONTAINER] = B(F_TIME) | B(F_NAME) | B(F_TYPE) | B(F_CONTAINER),
    [EV_DESTROY_CONTAINER] = B(F_TIME) | B(F_NAME) | B(F_TYPE),
    [EV_SET_VARIABLE] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [EV_ADD_VARIABLE] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [EV_SUB_VARIABLE] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [EV_SET_STATE] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [EV_PUSH_STATE] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [EV_POP_STATE] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER),
    [EV_RESET_STATE] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER),
    [EV_NEW_EVENT] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [EV_START_LINK] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE) | B(F_START_CONTAINER) | B(F_KEY),
    [EV_END_LINK] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE) | B(F_END_CONTAINER) | B(F_KEY),
};

#define MAX_FIELDS 32
#define MAX_EVENT_ID 65535

struct event_def {
    int kind;                  /* enum paje_event, -1 = undefined id */
    int n_fields;
    signed char pos[F_FIELDS]; /* position of each known field, -1 absent */
};

enum type_class { T_CONTAINER, T_VARIABLE, T_STATE, T_EVENT, T_LINK };

struct paje_type {
    enum type_class cls;
    int trace_type;            /* T_CONTAINER: index into trace.types */
    struct var_class var;      /* T_VARIABLE */
    int category;              /* T_VARIABLE usage: index into trace.categories */
    const char *activity;      /* T_VARIABLE "active.<category>": the category (interned), else NULL */
};

/* One (container, variable type) pair seen in the trace. */
struct var_slot {
    double value;
    int resource;              /* -1 when the variable is ignored */
    enum var_role role;
    int category;
    int activity;              /* index into trace.activities, -1 when not one */
    int tail;                  /* index into reader.tails of the signal it feeds */
    unsigned depth;            /* an activity state: how many states are stacked */
};

/* The last breakpoint of one signal, kept beside the slots so that appending
 * does not read the signal's (cache-cold) arrays: with thousands of signals
 * filled in random order, that read was the reader's main cost. */
struct signal_tail {
    double t, v;
    bool any;
};

struct token {
    const char *s;
    size_t len;
};

struct reader {
    const char *path;
    const char *p, *end;
    size_t line;
    char *why;
    size_t why_size;
    struct trace *t;
    const struct trace_read_options *opts;
    struct event_def *defs;    /* [MAX_EVENT_ID + 1] */
    struct paje_type *types;
    size_t n_types, cap_types;
    /* the maps' keys are interned names or pair() ids; their values ints */
    struct hashmap type_by_name;       /* name/alias -> paje type */
    struct hashmap container_by_name;  /* name/alias -> container */
    struct hashmap slot_of;            /* (container, paje type) -> var slot */
    struct var_slot *slots;
    size_t n_slots, cap_slots;
    struct signal_tail *tails;
    size_t n_tails, cap_tails;
    struct hashmap tail_of;            /* (resource, category + 1 | 0 = capacity) -> tail */
    double *cap_base, *cap_mult;     /* per resource: current capacity factors */
    size_t cap_res;
    struct hashmap link_start, link_end;  /* (link type, key number) -> container */
    struct hashmap link_keys;          /* link key -> key number */
    struct hashmap edges_seen;         /* (container a < b) -> 1 */
    const char **own_kinds;          /* kinds K with a "K.capacity" variable */
    size_t n_own_kinds, cap_own_kinds;
    struct token tok[MAX_FIELDS];
};

__attribute__((format(printf, 2, 3))) static int fail(struct reader *r, const char *fmt, ...)
{
    int n = snprintf(r->why, r->why_size, "%s:%zu: ", r->path, r->line);
    if (n < 0 || (size_t)n >= r->why_size)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why + n, r->why_size - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Parses a number token; fast path for plain decimals, strtod otherwise. */
static int parse_number(struct reader *r, struct token tk, double *out)
{
    static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *s = tk.s, *e = tk.s + tk.len;
    bool neg = false;
    if (s < e && (*s == '-' || *s == '+'))
        neg = *s++ == '-';
    uint64_t mant = 0;
    int digits = 0, frac = 0, zeros = 0; /* zeros: trailing fraction zeros not yet applied */
    const char *q = s;
    for (; q < e && *q >= '0' && *q <= '9'; q++) {
        mant = mant * 10 + (uint64_t)(*q - '0');
        digits += mant != 0;
    }
    if (q < e && *q == '.') {
        for (q++; q < e && *q >= '0' && *q <= '9'; q++) {
            if (*q == '0') {
                zeros++;
                continue;
            }
            for (; zeros > 0; zeros--, frac++)
                mant *= 10, digits += mant != 0;
            mant = mant * 10 + (uint64_t)(*q - '0');
            digits += mant != 0;
            frac++;
        }
    }
    if (q == e && q > s && q[-1] != '.' && digits <= 15 && frac <= 22 && (q - s) > (s < e && *s == '.')) {
        double v = (double)mant / pow10[frac];
        *out = neg ? -v : v;
        return 0;
    }
    char buf[128];
    if (tk.len == 0 || tk.len >= sizeof buf)
        return fail(r, "bad number '%.*s'", (int)(tk.len > 40 ? 40 : tk.len), tk.s);
    memcpy(buf, tk.s, tk.len);
    buf[tk.len] = '\0';
    char *stop;
    errno = 0;
    double v = strtod(buf, &stop);
    if (*stop || stop == buf || !isfinite(v))
        return fail(r, "bad number '%s'", buf);
    *out = v;
    return 0;
}

/* The int a map holds in slot s, or -1 for no slot. */
static int value_of(const struct hashmap_slot *s)
{
    return s ? (int)(intptr_t)s->value : -1;
}

/* The id of a pair of indexes. */
static uint64_t pair(uint32_t a, uint32_t b)
{
    return (uint64_t)a << 32 | b;
}

static int lookup(struct reader *r, struct hashmap *map, struct token tk, const char *what)
{
    int id = value_of(hashmap_find(map, tk.s, tk.len));
    if (id < 0)
        return fail(r, "unknown %s '%.*s'", what, (int)(tk.len > 60 ? 60 : tk.len), tk.s), -2;
    return id;
}

static int lookup_type(struct reader *r, struct token tk, enum type_class cls, const char *what)
{
    int id = lookup(r, &r->type_by_name, tk, what);
    if (id < 0)
        return id;
    if (r->types[id].cls != cls)
        return fail(r, "'%.*s' is not a %s", (int)(tk.len > 60 ? 60 : tk.len), tk.s, what), -2;
    return id;
}

static int name_it(struct reader *r, struct hashmap *map, struct token tk, int id)
{
    const char *s = trace_intern(r->t, tk.s, tk.len);
    if (!s || hashmap_put_kept(map, s, tk.len, (void *)(intptr_t)id) < 0)
        return fail(r, "out of memory");
    return 0;
}

static struct token field(struct reader *r, const struct event_def *d, enum paje_field f)
{
    static const struct token none = {"", 0};
    return d->pos[f] >= 0 ? r->tok[(int)d->pos[f]] : none;
}

static int event_time(struct reader *r, const struct event_def *d, double *time)
{
    if (parse_number(r, field(r, d, F_TIME), time) < 0)
        return -1;
    if (*time < r->t->start)
        r->t->start = *time;
    if (*time > r->t->end)
        r->t->end = *time;
    return 0;
}

/* --- header: %EventDef NAME ID / % Field type / %EndEventDef --- */

static struct token next_word(const char **p, const char *end)
{
    while (*p < end && is_blank(**p))
        (*p)++;
    struct token tk = {*p, 0};
    while (*p < end && !is_blank(**p) && **p != '\n')
        (*p)++;
    tk.len = (size_t)(*p - tk.s);
    return tk;
}

static bool token_is(struct token tk, const char *s)
{
    return tk.len == strlen(s) && !memcmp(tk.s, s, tk.len);
}

static int header_line(struct reader *r, const char *p, const char *end, struct event_def **open)
{
    p++; /* '%' */
    struct token w = next_word(&p, end);
    if (token_is(w, "EventDef")) {
        if (*open)
            return fail(r, "%%EventDef inside another %%EventDef");
        struct token name = next_word(&p, end), id = next_word(&p, end);
        int kind = -1;
        for (int k = 0; k < EV_KINDS; k++)
            if (token_is(name, event_names[k]))
                kind = k;
        if (kind < 0)
            return fail(r, "unknown event definition '%.*s'", (int)(name.len > 60 ? 60 : name.len),
                        name.s);
        double v;
        if (!id.len || parse_number(r, id, &v) < 0 || v != floor(v) || v < 0 || v > MAX_EVENT_ID)
            return fail(r, "bad event id '%.*s' (0..%d)", (int)(id.len > 20 ? 20 : id.len), id.s,
                        MAX_EVENT_ID);
        struct event_def *d = &r->defs[(int)v];
        d->kind = kind;
        d->n_fields = 0;
        memset(d->pos, -1, sizeof d->pos);
        *open = d;
        return 0;
    }
    if (token_is(w, "EndEventDef")) {
        struct event_def *d = *open;
        if (!d)
            return fail(r, "%%EndEventDef without %%EventDef");
        for (int f = 0; f < F_FIELDS; f++)
            if ((required_fields[d->kind] & B(f)) && d->pos[f] < 0) {
                int kind = d->kind;
                d->kind = -1;
                return fail(r, "%s definition lacks field %s", event_names[kind], field_names[f]);
            }
        *open = NULL;
        return 0;
    }
    if (!*open) {
        if (w.len == 0)
            return 0; /* a lone '%' */
        return fail(r, "'%%%.*s' outside an %%EventDef block", (int)(w.len > 40 ? 40 : w.len), w.s);
    }
    struct token type = next_word(&p, end);
    static const char *const field_types[] = {"date", "int", "double", "hex", "string", "color"};
    bool type_ok = false;
    for (size_t i = 0; i < sizeof field_types / sizeof field_types[0]; i++)
        type_ok |= token_is(type, field_types[i]);
    if (!w.len || !type_ok)
        return fail(r, "bad field definition '%.*s %.*s'", (int)(w.len > 40 ? 40 : w.len), w.s,
                    (int)(type.len > 20 ? 20 : type.len), type.s);
    struct event_def *d = *open;
    if (d->n_fields >= MAX_FIELDS)
        return fail(r, "more than %d fields in an event definition", MAX_FIELDS);
    for (int f = 0; f < F_FIELDS; f++)
        if (token_is(w, field_names[f]))
            d->pos[f] = (signed char)d->n_fields;
    d->n_fields++;
    return 0;
}

/* --- definitions --- */

static int new_paje_type(struct reader *r, enum type_class cls, struct token name,
                         struct token alias)
{
    if (!VEC_PUSH(r->types, r->n_types, r->cap_types))
        return fail(r, "out of memory");
    int id = (int)r->n_types - 1;
    r->types[id].cls = cls;
    r->types[id].trace_type = -1;
    r->types[id].category = -1;
    if (name_it(r, &r->type_by_name, name, id) < 0)
        return -1;
    if (alias.len && name_it(r, &r->type_by_name, alias, id) < 0)
        return -1;
    return id;
}

/* A variable or state type named "active.<category>" is the activity of
 * that category's server. */
static int activity_type(struct reader *r, struct paje_type *pt, const char *name)
{
    if (strncmp(name, "active.", 7) || !name[7])
        return 0;
    pt->activity = trace_intern(r->t, name + 7, strlen(name + 7));
    return pt->activity ? 0 : fail(r, "out of memory");
}

static int define_type(struct reader *r, const struct event_def *d, int kind)
{
    struct token name = field(r, d, F_NAME), alias = field(r, d, F_ALIAS);
    if (kind == EV_DEF_ENTITY_VALUE) /* values of a state/event/link type */
        return lookup(r, &r->type_by_name, field(r, d, F_TYPE), "type") < 0 ? -1 : 0;
    int parent = lookup_type(r, field(r, d, F_TYPE), T_CONTAINER, "container type");
    if (parent < 0)
        return -1;
    if (kind == EV_DEF_LINK_TYPE) {
        if (lookup_type(r, field(r, d, F_START_CONTAINER_TYPE), T_CONTAINER, "container type") < 0 ||
            lookup_type(r, field(r, d, F_END_CONTAINER_TYPE), T_CONTAINER, "container type") < 0)
            return -1;
    }
    enum type_class cls = kind == EV_DEF_CONTAINER_TYPE ? T_CONTAINER
                          : kind == EV_DEF_VARIABLE_TYPE ? T_VARIABLE
                          : kind == EV_DEF_STATE_TYPE    ? T_STATE
                          : kind == EV_DEF_EVENT_TYPE    ? T_EVENT
                                                         : T_LINK;
    int id = new_paje_type(r, cls, name, alias);
    if (id < 0)
        return -1;
    struct paje_type *pt = &r->types[id];
    if (cls == T_CONTAINER) {
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s", (int)(name.len > 255 ? 255 : name.len), name.s);
        pt->trace_type = trace_add_type(r->t, buf, r->types[parent].trace_type);
        if (pt->trace_type < 0)
            return fail(r, "out of memory");
    } else if (cls == T_VARIABLE) {
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s", (int)(name.len > 255 ? 255 : name.len), name.s);
        varmap_classify(r->opts, buf, r->own_kinds, r->n_own_kinds, &pt->var);
        const char *dot = strchr(buf, '.');
        if (pt->var.role == VAR_CAPACITY && dot &&
            (!strcmp(dot + 1, "capacity") || !strcmp(dot + 1, "peak-capacity"))) {
            const char **kind = VEC_PUSH(r->own_kinds, r->n_own_kinds, r->cap_own_kinds);
            if (!kind)
                return fail(r, "out of memory");
            *kind = trace_intern(r->t, pt->var.kind, strlen(pt->var.kind));
        }
        if (pt->var.role == VAR_USAGE) {
            pt->category = trace_add_category(r->t, pt->var.category);
            if (pt->category < 0)
                return fail(r, "out of memory");
        }
        if (pt->var.role == VAR_IGNORED && activity_type(r, pt, buf) < 0)
            return -1;
    } else if (cls == T_STATE) {
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s", (int)(name.len > 255 ? 255 : name.len), name.s);
        if (activity_type(r, pt, buf) < 0)
            return -1;
    }
    return 0;
}

static int create_container(struct reader *r, const struct event_def *d)
{
    double time;
    if (event_time(r, d, &time) < 0)
        return -1;
    int type = lookup_type(r, field(r, d, F_TYPE), T_CONTAINER, "container type");
    int parent = type < 0 ? -1 : lookup(r, &r->container_by_name, field(r, d, F_CONTAINER), "container");
    if (type < 0 || parent < 0)
        return -1;
    struct token name = field(r, d, F_NAME), alias = field(r, d, F_ALIAS);
    char nbuf[256], abuf[256];
    snprintf(nbuf, sizeof nbuf, "%.*s", (int)(name.len > 255 ? 255 : name.len), name.s);
    snprintf(abuf, sizeof abuf, "%.*s", (int)(alias.len > 255 ? 255 : alias.len), alias.s);
    int id = trace_add_container(r->t, nbuf, alias.len ? abuf : NULL, r->types[type].trace_type,
                                 parent, time);
    if (id < 0)
        return fail(r, "out of memory");
    if (name_it(r, &r->container_by_name, name, id) < 0)
        return -1;
    if (alias.len && name_it(r, &r->container_by_name, alias, id) < 0)
        return -1;
    return 0;
}

static int destroy_container(struct reader *r, const struct event_def *d)
{
    double time;
    if (event_time(r, d, &time) < 0)
        return -1;
    int c = lookup(r, &r->container_by_name, field(r, d, F_NAME), "container");
    if (c < 0 || lookup_type(r, field(r, d, F_TYPE), T_CONTAINER, "container type") < 0)
        return -1;
    r->t->containers[c].end = time;
    return 0;
}

/* --- variables --- */

/* Appends (time, value), overwriting a breakpoint at the same time and
 * skipping a repeated value. */
static int signal_set(struct reader *r, struct trace_signal *s, int tail, double time, double value)
{
    struct signal_tail *last = &r->tails[tail];
    if (last->any) {
        if (time < last->t)
            return fail(r, "time %.9g goes back before %.9g on this variable", time, last->t);
        if (time == last->t) {
            s->v[s->n - 1] = value;
            last->v = value;
            return 0;
        }
        if (last->v == value)
            return 0;
    }
    if (trace_signal_push(s, time, value) < 0)
        return fail(r, "out of memory");
    *last = (struct signal_tail){time, value, true};
    return 0;
}

static int new_tail(struct reader *r)
{
    struct signal_tail *t = VEC_PUSH(r->tails, r->n_tails, r->cap_tails);
    if (!t)
        return -1;
    *t = (struct signal_tail){0, 0, false};
    return (int)r->n_tails - 1;
}

static int tail_for(struct reader *r, int resource, int category)
{
    uint64_t key = pair((uint32_t)resource, (uint32_t)(category + 1));
    int id = value_of(hashmap_find_id(&r->tail_of, key));
    if (id >= 0)
        return id;
    id = new_tail(r);
    return id < 0 || hashmap_put_id(&r->tail_of, key, (void *)(intptr_t)id) < 0 ? -1 : id;
}

static int new_slot(struct reader *r, int container, int ptype)
{
    if (!VEC_PUSH(r->slots, r->n_slots, r->cap_slots))
        return fail(r, "out of memory"), -2;
    int id = (int)r->n_slots - 1;
    struct var_slot *s = &r->slots[id];
    const struct paje_type *pt = &r->types[ptype];
    s->value = 0;
    s->role = pt->var.role;
    s->category = pt->category;
    s->resource = -1;
    s->activity = -1;
    s->depth = 0;
    if (pt->activity) {
        /* one signal per (container, category): its own tail */
        s->activity = trace_activity_for(r->t, container, pt->activity);
        if (s->activity < 0 || (s->tail = new_tail(r)) < 0)
            return fail(r, "out of memory"), -2;
    }
    if (s->role != VAR_IGNORED) {
        s->resource = trace_resource_for(r->t, container, pt->var.kind);
        if (s->resource < 0)
            return fail(r, "out of memory"), -2;
        if (s->role == VAR_CAPACITY && pt->var.inferred)
            r->t->resources[s->resource].capacity_inferred = true;
        s->tail = tail_for(r, s->resource, s->role == VAR_USAGE ? s->category : -1);
        if (s->tail < 0)
            return fail(r, "out of memory"), -2;
        size_t n = r->t->n_resources;
        if (n > r->cap_res) {
            size_t old = r->cap_res;
            if (vec_reserve_parallel(&r->cap_res, n, VEC_ARRAY(r->cap_base), VEC_ARRAY(r->cap_mult), NULL) < 0)
                return fail(r, "out of memory"), -2;
            for (size_t i = old; i < r->cap_res; i++) {
                r->cap_base[i] = 0;
                r->cap_mult[i] = 1;
            }
        }
    }
    if (hashmap_put_id(&r->slot_of, pair((uint32_t)container, (uint32_t)ptype), (void *)(intptr_t)id) < 0)
        return fail(r, "out of memory"), -2;
    return id;
}

static int variable_event(struct reader *r, const struct event_def *d, int kind)
{
    double time, value;
    if (event_time(r, d, &time) < 0)
        return -1;
    int ptype = lookup_type(r, field(r, d, F_TYPE), T_VARIABLE, "variable type");
    if (ptype < 0)
        return -1;
    int c = lookup(r, &r->container_by_name, field(r, d, F_CONTAINER), "container");
    if (c < 0 || parse_number(r, field(r, d, F_VALUE), &value) < 0)
        return -1;
    int id = value_of(hashmap_find_id(&r->slot_of, pair((uint32_t)c, (uint32_t)ptype)));
    if (id < 0 && (id = new_slot(r, c, ptype)) < 0)
        return -1;
    struct var_slot *s = &r->slots[id];
    s->value = kind == EV_SET_VARIABLE ? value : kind == EV_ADD_VARIABLE ? s->value + value
                                                                         : s->value - value;
    if (s->activity >= 0)
        return signal_set(r, &r->t->activities[s->activity].active, s->tail, time, s->value);
    if (s->resource < 0)
        return 0;
    struct trace_resource *res = &r->t->resources[s->resource];
    switch (s->role) {
    case VAR_USAGE:
        return signal_set(r, &res->usage[s->category], s->tail, time, s->value);
    case VAR_CAPACITY:
        r->cap_base[s->resource] = s->value;
        break;
    case VAR_MULTIPLIER:
        r->cap_mult[s->resource] = s->value;
        break;
    case VAR_IGNORED:
        return 0;
    }
    return signal_set(r, &res->capacity, s->tail, time,
                      r->cap_base[s->resource] * r->cap_mult[s->resource]);
}

/* --- states, events, links --- */

/* A state of an activity type: active while the container is in one (set
 * or pushed), idle once popped to none or reset. */
static int activity_state(struct reader *r, int kind, int container, int ptype, double time)
{
    int id = value_of(hashmap_find_id(&r->slot_of, pair((uint32_t)container, (uint32_t)ptype)));
    if (id < 0 && (id = new_slot(r, container, ptype)) < 0)
        return -1;
    struct var_slot *s = &r->slots[id];
    if (kind == EV_SET_STATE)
        s->depth = s->depth ? s->depth : 1;
    else if (kind == EV_PUSH_STATE)
        s->depth++;
    else if (kind == EV_POP_STATE)
        s->depth -= s->depth > 0;
    else
        s->depth = 0;
    return signal_set(r, &r->t->activities[s->activity].active, s->tail, time, s->depth > 0);
}

static int state_or_event(struct reader *r, const struct event_def *d, enum type_class cls)
{
    double time;
    if (event_time(r, d, &time) < 0)
        return -1;
    int ptype = lookup_type(r, field(r, d, F_TYPE), cls, cls == T_STATE ? "state type" : "event type");
    int c = ptype < 0 ? -1 : lookup(r, &r->container_by_name, field(r, d, F_CONTAINER), "container");
    if (ptype < 0 || c < 0)
        return -1;
    if (cls == T_EVENT) {
        r->t->n_point_events++;
        return 0;
    }
    r->t->n_states++;
    return r->types[ptype].activity ? activity_state(r, d->kind, c, ptype, time) : 0;
}

static int link_event(struct reader *r, const struct event_def *d, bool start)
{
    double time;
    if (event_time(r, d, &time) < 0)
        return -1;
    int ltype = lookup_type(r, field(r, d, F_TYPE), T_LINK, "link type");
    if (ltype < 0 || lookup(r, &r->container_by_name, field(r, d, F_CONTAINER), "container") < 0)
        return -1;
    int end_c = lookup(r, &r->container_by_name,
                       field(r, d, start ? F_START_CONTAINER : F_END_CONTAINER), "container");
    if (end_c < 0)
        return -1;
    /* a start and an end match by (link type, key) */
    struct token key = field(r, d, F_KEY);
    int key_id = value_of(hashmap_find(&r->link_keys, key.s, key.len));
    if (key_id < 0) {
        const char *k = trace_intern(r->t, key.s, key.len);
        key_id = (int)r->link_keys.count;
        if (!k || hashmap_put_kept(&r->link_keys, k, key.len, (void *)(intptr_t)key_id) < 0)
            return fail(r, "out of memory");
    }
    uint64_t slot = pair((uint32_t)ltype, (uint32_t)key_id);
    struct hashmap *mine = start ? &r->link_start : &r->link_end;
    struct hashmap *other = start ? &r->link_end : &r->link_start;
    int peer = value_of(hashmap_find_id(other, slot));
    if (peer >= 0) {
        hashmap_put_id(other, slot, (void *)(intptr_t)-1);
        r->t->n_links++;
        int a = peer < end_c ? peer : end_c, b = peer < end_c ? end_c : peer;
        uint64_t edge = pair((uint32_t)a, (uint32_t)b);
        if (a != b && value_of(hashmap_find_id(&r->edges_seen, edge)) < 0) {
            if (hashmap_put_id(&r->edges_seen, edge, (void *)(intptr_t)1) < 0)
                return fail(r, "out of memory");
            trace_add_edge(r->t, a, b);
        }
    } else if (hashmap_put_id(mine, slot, (void *)(intptr_t)end_c) < 0) {
        return fail(r, "out of memory");
    }
    return 0;
}

/* --- lines --- */

static int event_line(struct reader *r, const char *p, const char *end)
{
    uint64_t id = 0;
    const char *start = p;
    while (p < end && *p >= '0' && *p <= '9' && id <= MAX_EVENT_ID)
        id = id * 10 + (uint64_t)(*p++ - '0');
    if (p == start || (p < end && !is_blank(*p) && *p != '\n'))
        return fail(r, "expected an event id, got '%.*s'", (int)(end - start > 20 ? 20 : end - start),
                    start);
    if (id > MAX_EVENT_ID || r->defs[id].kind < 0)
        return fail(r, "unknown event id %.*s", (int)(p - start > 20 ? 20 : p - start), start);
    const struct event_def *d = &r->defs[id];
    for (int i = 0; i < d->n_fields; i++) {
        while (p < end && is_blank(*p))
            p++;
        if (p == end || *p == '\n')
            return fail(r, "%s: %d fields, expected %d", event_names[d->kind], i, d->n_fields);
        if (*p == '"') {
            const char *q = ++p;
            while (q < end && *q != '"' && *q != '\n')
                q++;
            if (q == end || *q != '"')
                return fail(r, "unterminated quoted string");
            r->tok[i] = (struct token){p, (size_t)(q - p)};
            p = q + 1;
        } else {
            const char *q = p;
            while (q < end && !is_blank(*q) && *q != '\n')
                q++;
            r->tok[i] = (struct token){p, (size_t)(q - p)};
            p = q;
        }
    }
    while (p < end && is_blank(*p))
        p++;
    if (p < end && *p != '\n')
        return fail(r, "%s: more than the %d fields defined", event_names[d->kind], d->n_fields);
    r->t->n_events++;
    switch (d->kind) {
    case EV_DEF_CONTAINER_TYPE:
    case EV_DEF_VARIABLE_TYPE:
    case EV_DEF_STATE_TYPE:
    case EV_DEF_EVENT_TYPE:
    case EV_DEF_LINK_TYPE:
    case EV_DEF_ENTITY_VALUE:
        return define_type(r, d, d->kind);
    case EV_CREATE_CONTAINER:
        return create_container(r, d);
    case EV_DESTROY_CONTAINER:
        return destroy_container(r, d);
    case EV_SET_VARIABLE:
    case EV_ADD_VARIABLE:
    case EV_SUB_VARIABLE:
        return variable_event(r, d, d->kind);
    case EV_SET_STATE:
    case EV_PUSH_STATE:
    case EV_POP_STATE:
    case EV_RESET_STATE:
        return state_or_event(r, d, T_STATE);
    case EV_NEW_EVENT:
        return state_or_event(r, d, T_EVENT);
    case EV_START_LINK:
        return link_event(r, d, true);
    case EV_END_LINK:
        return link_event(r, d, false);
    }
    return fail(r, "internal: event kind %d", d->kind);
}

static int parse(struct reader *r)
{
    struct event_def *open = NULL;
    const char *p = r->p, *end = r->end;
    while (p < end) {
        r->line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = eol ? eol : end;
        const char *q = p;
        while (q < line_end && is_blank(*q))
            q++;
        if (q < line_end && *q != '#') {
            if (memchr(q, '\0', (size_t)(line_end - q)))
                return fail(r, "NUL byte in the line");
            int rc = *q == '%' ? header_line(r, q, line_end, &open) : event_line(r, q, line_end);
            if (rc < 0)
                return -1;
        }
        p = eol ? eol + 1 : end;
    }
    if (open)
        return fail(r, "%%EventDef block not closed by %%EndEventDef");
    return 0;
}

static int setup_root(struct reader *r)
{
    struct trace *t = r->t;
    int root_type = trace_add_type(t, "root", -1);
    int root = trace_add_container(t, "root", "0", root_type, -1, 0);
    if (root_type < 0 || root < 0)
        return fail(r, "out of memory");
    int pt = new_paje_type(r, T_CONTAINER, (struct token){"0", 1}, (struct token){"", 0});
    if (pt < 0)
        return -1;
    r->types[pt].trace_type = root_type;
    return name_it(r, &r->container_by_name, (struct token){"0", 1}, root);
}

static void reader_free(struct reader *r)
{
    free(r->defs);
    free(r->types);
    hashmap_free(&r->type_by_name);
    hashmap_free(&r->container_by_name);
    hashmap_free(&r->slot_of);
    hashmap_free(&r->link_start);
    hashmap_free(&r->link_end);
    hashmap_free(&r->link_keys);
    hashmap_free(&r->edges_seen);
    free(r->slots);
    free(r->tails);
    hashmap_free(&r->tail_of);
    free(r->cap_base);
    free(r->cap_mult);
    free(r->own_kinds);
}

int trace_read_file(const char *path, const struct trace_read_options *opts, struct trace *out,
                    char *why, size_t why_size)
{
    trace_init(out);
    struct reader r = {.path = path, .why = why, .why_size = why_size, .t = out, .opts = opts};
    char detail[160];
    int fd = text_file_open(path, true, detail, sizeof detail); /* never waits on a FIFO */
    if (fd < 0) {
        snprintf(why, why_size, "%s: %s", path, detail);
        trace_free(out);
        return -1;
    }
    struct stat st;
    void *map = NULL;
    size_t size = 0;
    int rc = -1;
    if (fstat(fd, &st) < 0) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        goto done;
    }
    size = (size_t)st.st_size;
    if (size > 0) {
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            map = NULL;
            snprintf(why, why_size, "%s: %s", path, strerror(errno));
            goto done;
        }
        madvise(map, size, MADV_SEQUENTIAL);
    }
    r.defs = malloc((MAX_EVENT_ID + 1) * sizeof *r.defs);
    if (!r.defs || !out->strings) {
        snprintf(why, why_size, "%s: out of memory", path);
        goto done;
    }
    for (int i = 0; i <= MAX_EVENT_ID; i++)
        r.defs[i].kind = -1;
    r.p = map;
    r.end = map ? (const char *)map + size : NULL; /* an empty file maps nothing */
    if (setup_root(&r) < 0 || parse(&r) < 0)
        goto done;
    if (out->n_events == 0) {
        r.line = 0;
        snprintf(why, why_size, "%s: no Paje event in the file", path);
        goto done;
    }
    if (opts && opts->hierarchy_file && trace_apply_hierarchy(out, opts->hierarchy_file, why, why_size) < 0)
        goto done;
    if (trace_finish(out) < 0) {
        snprintf(why, why_size, "%s: out of memory", path);
        goto done;
    }
    rc = 0;
done:
    if (map)
        munmap(map, size);
    close(fd);
    reader_free(&r);
    if (rc < 0)
        trace_free(out);
    return rc;
}
