/* The summary's counters objects (perf_summary.h), from the values each
 * process read into its segment, and the status of the events it could not
 * open, told from perf_event_open's errno. */
#include "instrument/perf_summary.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const event_names[TALLY_PERF_EVENT_COUNT] = {
    [TALLY_PERF_INSTRUCTIONS] = "instructions",
    [TALLY_PERF_CYCLES] = "cycles",
    [TALLY_PERF_TASK_CLOCK] = "task_clock",
    [TALLY_PERF_PAGE_FAULTS] = "page_faults",
    [TALLY_PERF_CONTEXT_SWITCHES] = "context_switches",
};

static json_t *values_json(const uint64_t v[TALLY_PERF_EVENT_COUNT], uint32_t opened)
{
    json_t *o = json_object();
    for (int e = 0; e < TALLY_PERF_EVENT_COUNT; e++) {
        if (!(opened & (1u << e)))
            continue;
        if (e == TALLY_PERF_TASK_CLOCK)
            json_object_set_new(o, event_names[e], json_pack("[f, s]", (double)v[e] * 1e-9, "s"));
        else
            json_object_set_new(o, event_names[e], json_integer((json_int_t)v[e]));
    }
    uint32_t both = (1u << TALLY_PERF_INSTRUCTIONS) | (1u << TALLY_PERF_CYCLES);
    if ((opened & both) == both && v[TALLY_PERF_CYCLES])
        json_object_set_new(o, "instructions_per_cycle",
                            json_real((double)v[TALLY_PERF_INSTRUCTIONS] / (double)v[TALLY_PERF_CYCLES]));
    return o;
}

json_t *perf_rank_json(const struct tally_seg_perf *p)
{
    if (!p->opened || (!p->window_read && !p->run_read))
        return NULL;
    json_t *o = json_object();
    if (p->window_read)
        json_object_set_new(o, "window", values_json(p->window, p->opened));
    if (p->run_read)
        json_object_set_new(o, "run", values_json(p->run, p->opened));
    return o;
}

/* What perf_event_open's errno ERR says about the events of WHAT. */
static void status_text(int err, const char *what, char *out, size_t len)
{
    if (!err)
        snprintf(out, len, "counted");
    else if (err == ENOENT || err == ENODEV || err == EOPNOTSUPP)
        snprintf(out, len, "absent: no %s on this machine (perf_event_open: %s)", what, strerror(err));
    else if (err == EACCES || err == EPERM)
        snprintf(out, len, "refused: perf_event_paranoid forbids them without CAP_PERFMON (perf_event_open: %s)",
                 strerror(err));
    else
        snprintf(out, len, "unavailable (perf_event_open: %s)", strerror(err));
}

json_t *perf_summary_json(const struct segment_set *set)
{
    if (!set->count)
        return NULL;
    const struct tally_seg_perf *first = &set->items[0]->d.perf;
    uint64_t window[TALLY_PERF_EVENT_COUNT] = {0}, run[TALLY_PERF_EVENT_COUNT] = {0};
    uint32_t window_opened = ~0u, run_opened = ~0u;
    size_t windows = 0, runs = 0;
    for (size_t i = 0; i < set->count; i++) {
        const struct tally_seg_perf *p = &set->items[i]->d.perf;
        for (int e = 0; e < TALLY_PERF_EVENT_COUNT; e++) {
            window[e] += p->window_read ? p->window[e] : 0;
            run[e] += p->run_read ? p->run[e] : 0;
        }
        if (p->window_read) {
            window_opened &= p->opened; /* a sum only of what every rank counted */
            windows++;
        }
        if (p->run_read) {
            run_opened &= p->opened;
            runs++;
        }
    }
    char text[256];
    json_t *o = json_object();
    status_text(first->hardware_errno, "hardware PMU", text, sizeof text);
    json_object_set_new(o, "hardware", json_string(text));
    status_text(first->software_errno, "software events", text, sizeof text);
    json_object_set_new(o, "software", json_string(text));
    json_object_set_new(o, "kernel", json_string(first->user_only ? "excluded: perf_event_paranoid allows user "
                                                                    "mode only (counts are user-mode)"
                                                                  : "counted"));
    json_object_set_new(o, "flops", json_string("not counted: no portable FLOP event; count them with "
                                                "tally_counter_add (probes)"));
    if (windows)
        json_object_set_new(o, "window", values_json(window, window_opened));
    if (runs)
        json_object_set_new(o, "run", values_json(run, run_opened));
    return o;
}

bool perf_summary_note(const json_t *counters, char *line, size_t len)
{
    const char *hardware = json_string_value(json_object_get(counters, "hardware"));
    if (!hardware || !strcmp(hardware, "counted"))
        return false;
    const char *software = json_string_value(json_object_get(counters, "software"));
    bool counting = software && !strcmp(software, "counted");
    if (counting)
        snprintf(line, len, "hardware counters %s; counting task-clock, page faults and context switches only",
                 hardware);
    else
        snprintf(line, len, "hardware counters %s; software counters %s: no counters", hardware,
                 software ? software : "missing");
    return true;
}
