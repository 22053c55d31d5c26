/* The rows of tally top (see top_rows.h). */
#include "view/top_rows.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report/summary_read.h"

static const struct top_previous *find_previous(const struct top_previous *p, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(p[i].key, key))
            return &p[i];
    return NULL;
}

static double rate(double now, double before, double dt)
{
    return isnan(now) || isnan(before) || dt <= 0 || now < before ? NAN : (now - before) / dt;
}

/* proc_get_info 0x80's "recording" as REC shows it: the kinds joined by
 * '+' or "off", with '*' while the process has not taken the last switch;
 * "" for a process that is not instrumented. */
static void recording_text(json_t *recording, char *out, size_t len)
{
    out[0] = '\0';
    if (!json_is_object(recording))
        return;
    size_t used = 0, i;
    json_t *kind;
    json_array_foreach(json_object_get(recording, "on"), i, kind)
        if (json_is_string(kind) && used < len)
            used += (size_t)snprintf(out + used, len - used, "%s%s", i ? "+" : "", json_string_value(kind));
    if (!used)
        used = (size_t)snprintf(out, len, "off");
    if (used < len && json_integer_value(json_object_get(recording, "ack")) !=
                          json_integer_value(json_object_get(recording, "request")))
        snprintf(out + used, len - used, "*");
}

/* A process's own CPU as a % of one core: over the interval since the
 * previous refresh; for a process born since then (its whole life inside
 * the interval), over its life; NaN otherwise (first refresh). */
static double own_cpu_percent(const struct top_previous *p, const struct top_previous *b, double wall_time,
                              double last_t)
{
    double own = p->cpu - (isnan(p->children_cpu) ? 0 : p->children_cpu);
    if (b)
        return 100 * rate(own, b->cpu - (isnan(b->children_cpu) ? 0 : b->children_cpu), p->t - b->t);
    double dt = p->t - last_t;
    if (!isnan(last_t) && wall_time > 0 && wall_time <= dt * 1.25 + 0.05)
        return 100 * rate(own, 0, wall_time);
    return NAN;
}

/* The CPU of the children of now[i] that ended since the previous refresh
 * beyond what their own rows showed: the growth of its reaped children's
 * time less the CPU its vanished children had at their last row. */
static double ended_percent(const struct top_previous *now, size_t n, size_t i, const struct top_previous *old,
                            size_t old_n, const struct top_previous *b)
{
    const struct top_previous *p = &now[i];
    if (!b || isnan(p->children_cpu) || isnan(b->children_cpu) || p->t <= b->t)
        return NAN;
    double grown = p->children_cpu - b->children_cpu, shown = 0;
    for (size_t k = 0; k < old_n; k++) {
        const struct top_previous *o = &old[k];
        if (o->ppid != p->pid || strcmp(o->node, p->node))
            continue;
        bool alive = false;
        for (size_t j = 0; j < n && !alive; j++)
            alive = now[j].pid == o->pid && !strcmp(now[j].node, o->node);
        if (!alive && !isnan(o->cpu))
            shown += o->cpu;
    }
    return grown > shown ? 100 * (grown - shown) / (p->t - b->t) : 0;
}

size_t top_rows_build(json_t *lines, double t, const struct top_previous *old, size_t old_n,
                         struct top_row *rows, struct top_previous *now)
{
    return top_rows_build_since(lines, t, NAN, old, old_n, rows, now);
}

size_t top_rows_build_since(json_t *lines, double t, double last_t, const struct top_previous *old,
                            size_t old_n, struct top_row *rows, struct top_previous *now)
{
    size_t n = 0, i;
    json_t *line;
    json_array_foreach(lines, i, line) {
        json_t *r = json_object_get(line, "result");
        const char *object = json_string_value(json_object_get(line, "object"));
        struct top_previous *p = &now[n];
        const char *node = json_string_value(json_object_get(line, "node"));
        snprintf(p->key, sizeof p->key, "%s", object ? object : "");
        snprintf(p->node, sizeof p->node, "%s", node ? node : "");
        p->t = t;
        p->pid = (pid_t)summary_number(r, "pid", NAN);
        p->ppid = (pid_t)summary_number(r, "ppid", NAN);
        p->cpu = summary_number(r, "cpu_time", NAN);
        p->children_cpu = summary_number(r, "children_cpu_time", NAN);
        p->read = summary_number(r, "bytes_read", NAN) * 1048576.0;
        p->written = summary_number(r, "bytes_written", NAN) * 1048576.0;
        p->received = summary_number(r, "bytes_received", NAN);
        p->sent = summary_number(r, "bytes_sent", NAN);
        const struct top_previous *b = find_previous(old, old_n, p->key);
        double dt = b ? t - b->t : 0;
        const char *state = json_string_value(json_object_get(r, "state"));
        json_t *contract = json_object_get(r, "contract"); /* proc_get_info 0x100 */
        json_t *worst = json_object_get(contract, "worst");
        json_t *recording = json_object_get(json_object_get(r, "probes"), "recording"); /* 0x80 */
        rows[n] = (struct top_row){
            .host = json_string_value(json_object_get(line, "node")),
            .pid = (pid_t)summary_number(r, "pid", NAN),
            .state = state && *state ? state[0] : '?',
            .cpu_percent = own_cpu_percent(p, b, summary_number(r, "wall_time", NAN), last_t),
            .memory_mb = summary_number(r, "memory", NAN),
            .read_bytes_per_s = b ? rate(p->read, b->read, dt) : NAN,
            .write_bytes_per_s = b ? rate(p->written, b->written, dt) : NAN,
            .recv_bytes_per_s = b ? rate(p->received, b->received, dt) : NAN,
            .sent_bytes_per_s = b ? rate(p->sent, b->sent, dt) : NAN,
            .command = json_string_value(json_object_get(r, "command")),
            .has_contract = json_is_number(json_object_get(contract, "overall")),
            .contract_level = json_number_value(json_object_get(contract, "overall")),
            .contract_threshold = summary_number(contract, "threshold", NAN),
            .contract_space = json_string_value(json_object_get(worst, "space")),
            .contract_dimension = json_string_value(json_object_get(worst, "dimension")),
        };
        recording_text(recording, rows[n].recording, sizeof rows[n].recording);
        n++;
    }
    for (size_t k = 0; k < n; k++)
        rows[k].ended_percent = ended_percent(now, n, k, old, old_n, find_previous(old, old_n, now[k].key));
    return n;
}

