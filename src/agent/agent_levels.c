/* The agent's kept contract levels (agent_levels.h): a flat list, replaced
 * per application. Bounded: at most LEVELS_MAX levels in all, names at most
 * LEVEL_NAME_MAX bytes, so no client can make the agent grow without end. */
#include "agent/agent_levels.h"

#include <math.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "agent/metrics_label.h"
#include "util/vec.h"
#include "util/pid_text.h"

#define LEVELS_MAX 100000
#define LEVEL_NAME_MAX 128

struct kept_level {
    char *app, *process, *host, *space, *dimension;
    double level;
    double threshold, time;     /* of the message; NAN when not said */
    pid_t pid;                  /* 0 when not said */
};

struct agent_levels {
    struct kept_level *v;
    size_t n, cap;
};

static void level_free(struct kept_level *l)
{
    free(l->app);
    free(l->process);
    free(l->host);
    free(l->space);
    free(l->dimension);
}

static const char *name_in(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s && *s && strlen(s) <= LEVEL_NAME_MAX ? s : NULL;
}

static double number_or_nan(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) && isfinite(json_number_value(v)) ? json_number_value(v) : NAN;
}

long agent_levels_apply(struct agent_levels **levels, const json_t *message, const char *only_host,
                        char *why, size_t why_size)
{
    const char *app = name_in(message, "app");
    const json_t *list = json_object_get(message, "levels");
    if (!app || !json_is_array(list)) {
        snprintf(why, why_size, "levels: needs \"app\" (a name of 1 to %d bytes) and \"levels\" (a list)",
                 LEVEL_NAME_MAX);
        return -1;
    }
    size_t count = json_array_size(list);
    for (size_t i = 0; i < count; i++) { /* all checked before anything changes */
        const json_t *l = json_array_get(list, i);
        double v = json_number_value(json_object_get(l, "level"));
        const json_t *pid = json_object_get(l, "pid");
        if (!name_in(l, "process") || !name_in(l, "host") || !name_in(l, "space") ||
            !name_in(l, "dimension") || !json_is_number(json_object_get(l, "level")) || !isfinite(v) ||
            (pid && (!json_is_integer(pid) || !pid_in_range(json_integer_value(pid), PID_KERNEL_LIMIT)))) {
            snprintf(why, why_size,
                     "levels: entry %zu needs \"process\", \"host\", \"space\", \"dimension\" "
                     "(names of 1 to %d bytes), \"level\" (a number) and, if any, \"pid\" (a pid)",
                     i + 1, LEVEL_NAME_MAX);
            return -1;
        }
    }
    double threshold = number_or_nan(message, "threshold"), time = number_or_nan(message, "time");
    struct agent_levels *k = *levels;
    if (!k && !(k = *levels = calloc(1, sizeof *k))) {
        snprintf(why, why_size, "levels: out of memory");
        return -1;
    }
    for (size_t i = 0; i < k->n;) { /* the application's previous levels */
        if (strcmp(k->v[i].app, app)) {
            i++;
            continue;
        }
        level_free(&k->v[i]);
        k->v[i] = k->v[--k->n];
    }
    if (k->n + count > LEVELS_MAX) {
        snprintf(why, why_size, "levels: more than %d levels kept in all", LEVELS_MAX);
        return -1;
    }
    if (VEC_RESERVE(k->v, k->cap, k->n + count) < 0) {
        snprintf(why, why_size, "levels: out of memory");
        return -1;
    }
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        const json_t *l = json_array_get(list, i);
        if (only_host && strcmp(name_in(l, "host"), only_host))
            continue; /* another host's process: its own agent keeps it */
        struct kept_level kl = {
            .app = strdup(app), .process = strdup(name_in(l, "process")),
            .host = strdup(name_in(l, "host")), .space = strdup(name_in(l, "space")),
            .dimension = strdup(name_in(l, "dimension")),
            .level = json_number_value(json_object_get(l, "level")),
            .threshold = threshold, .time = time,
            .pid = (pid_t)json_integer_value(json_object_get(l, "pid")),
        };
        if (!kl.app || !kl.process || !kl.host || !kl.space || !kl.dimension) {
            level_free(&kl);
            snprintf(why, why_size, "levels: out of memory");
            return -1;
        }
        k->v[k->n++] = kl;
        kept++;
    }
    return (long)kept;
}

json_t *agent_levels_of_process(const struct agent_levels *levels, pid_t pid)
{
    json_t *out = NULL, *list = NULL;
    const struct kept_level *overall = NULL, *worst = NULL;
    for (size_t i = 0; levels && pid > 0 && i < levels->n; i++) {
        const struct kept_level *l = &levels->v[i];
        if (l->pid != pid)
            continue;
        if (!out) {
            list = json_array();
            out = json_pack("{s:s, s:s}", "app", l->app, "process", l->process);
            if (!isnan(l->threshold))
                json_object_set_new(out, "threshold", json_real(l->threshold));
            if (!isnan(l->time))
                json_object_set_new(out, "time", json_real(l->time));
        }
        json_array_append_new(list, json_pack("{s:s, s:s, s:f}", "space", l->space, "dimension",
                                              l->dimension, "level", l->level));
        const struct kept_level **best = strcmp(l->dimension, "overall") ? &worst : &overall;
        if (!*best || l->level > (*best)->level)
            *best = l;
    }
    if (!out)
        return NULL;
    /* a watch always sends the overall; without one, the worst dimension is it */
    json_object_set_new(out, "overall", json_real((overall ? overall : worst)->level));
    if (worst)
        json_object_set_new(out, "worst", json_pack("{s:s, s:s, s:f}", "space", worst->space,
                                                    "dimension", worst->dimension, "level",
                                                    worst->level));
    json_object_set_new(out, "levels", list);
    return out;
}

void agent_levels_write(const struct agent_levels *levels, const char *user, FILE *out)
{
    fprintf(out, "# TYPE tally_contract_violation gauge\n"
                 "# HELP tally_contract_violation contract violation level (0 none .. 1 total) of a "
                 "process in a dimension, latest period (tally contract watch)\n");
    for (size_t i = 0; levels && i < levels->n; i++) {
        const struct kept_level *l = &levels->v[i];
        fprintf(out, "tally_contract_violation{");
        metrics_label(out, "app", l->app, false);
        metrics_label(out, "process", l->process, true);
        metrics_label(out, "host", l->host, true);
        metrics_label(out, "space", l->space, true);
        metrics_label(out, "dimension", l->dimension, true);
        metrics_label(out, "user", user, true);
        fprintf(out, "} %.17g\n", l->level);
    }
}

void agent_levels_free(struct agent_levels *levels)
{
    if (!levels)
        return;
    for (size_t i = 0; i < levels->n; i++)
        level_free(&levels->v[i]);
    free(levels->v);
    free(levels);
}
