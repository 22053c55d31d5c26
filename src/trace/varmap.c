/* Mapping variable names to resources: SimGrid's names by default (host
 * capacity speed x core_count, usage p<cat>; link capacity bandwidth, usage
 * b<cat>), tally's own "K.capacity" / "K.<cat>" names always, and --map rules
 * ("capacity=power,usage-prefix=u") in place of the SimGrid defaults. */
#include <stdio.h>
#include <string.h>

#include "trace/varmap.h"

static const struct trace_map_rule simgrid_rules[] = {
    {"cpu", "speed", "core_count", "p"},
    {"cpu", "power", "core_count", "p"},
    {"bandwidth", "bandwidth", "", "b"},
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static void copy(char *dst, size_t size, const char *src, size_t len)
{
    if (len >= size)
        len = size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

void varmap_classify(const struct trace_read_options *opts, const char *name,
                     const char *const *own_kinds, size_t n_own_kinds, struct var_class *out)
{
    memset(out, 0, sizeof *out);
    out->role = VAR_IGNORED;
    /* tally's own convention first: K.capacity, K.<cat> */
    const char *dot = strchr(name, '.');
    if (dot && dot > name) {
        size_t klen = (size_t)(dot - name);
        if (!strcmp(dot + 1, "capacity") || !strcmp(dot + 1, "peak-capacity")) {
            out->role = VAR_CAPACITY;
            out->inferred = dot[1] == 'p';
            copy(out->kind, sizeof out->kind, name, klen);
            return;
        }
        for (size_t i = 0; i < n_own_kinds; i++)
            if (strlen(own_kinds[i]) == klen && !strncmp(own_kinds[i], name, klen) && dot[1]) {
                out->role = VAR_USAGE;
                copy(out->kind, sizeof out->kind, name, klen);
                copy(out->category, sizeof out->category, dot + 1, strlen(dot + 1));
                return;
            }
    }
    bool defaults = !opts || opts->n_rules == 0;
    const struct trace_map_rule *rules = defaults ? simgrid_rules : opts->rules;
    size_t n = defaults ? sizeof simgrid_rules / sizeof simgrid_rules[0] : opts->n_rules;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(name, rules[i].capacity)) {
            out->role = VAR_CAPACITY;
            copy(out->kind, sizeof out->kind, rules[i].kind, strlen(rules[i].kind));
            return;
        }
        if (rules[i].multiplier[0] && !strcmp(name, rules[i].multiplier)) {
            out->role = VAR_MULTIPLIER;
            copy(out->kind, sizeof out->kind, rules[i].kind, strlen(rules[i].kind));
            return;
        }
    }
    /* SimGrid's uncategorized totals and link latency are not categories */
    if (defaults && (!strcmp(name, "latency") || ends_with(name, "_used")))
        return;
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        size_t plen = strlen(rules[i].usage_prefix);
        if (plen && plen > best && !strncmp(name, rules[i].usage_prefix, plen) && name[plen]) {
            best = plen;
            out->role = VAR_USAGE;
            copy(out->kind, sizeof out->kind, rules[i].kind, strlen(rules[i].kind));
            copy(out->category, sizeof out->category, name + plen, strlen(name + plen));
        }
    }
}

int trace_map_parse(struct trace_read_options *opts, const char *text, char *why, size_t why_size)
{
    if (opts->n_rules >= TRACE_MAX_MAP_RULES) {
        snprintf(why, why_size, "--map: at most %d rules", TRACE_MAX_MAP_RULES);
        return -1;
    }
    struct trace_map_rule rule;
    memset(&rule, 0, sizeof rule);
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq) {
            snprintf(why, why_size, "--map '%s': '%.*s' is not KEY=VALUE", text, (int)len, p);
            return -1;
        }
        size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
        char *dst = NULL;
        if (klen == 8 && !strncmp(p, "capacity", 8))
            dst = rule.capacity;
        else if ((klen == 12 && !strncmp(p, "usage-prefix", 12)))
            dst = rule.usage_prefix;
        else if (klen == 10 && !strncmp(p, "multiplier", 10))
            dst = rule.multiplier;
        else if (klen == 4 && !strncmp(p, "kind", 4))
            dst = rule.kind;
        if (!dst) {
            snprintf(why, why_size,
                     "--map '%s': unknown key '%.*s' (capacity, usage-prefix, multiplier, kind)",
                     text, (int)klen, p);
            return -1;
        }
        if (vlen == 0 || vlen >= 64) {
            snprintf(why, why_size, "--map '%s': empty or too long value for '%.*s'", text,
                     (int)klen, p);
            return -1;
        }
        copy(dst, 64, eq + 1, vlen);
        p = end ? end + 1 : p + len;
    }
    if (!rule.capacity[0] || !rule.usage_prefix[0]) {
        snprintf(why, why_size, "--map '%s': capacity= and usage-prefix= are required", text);
        return -1;
    }
    if (!rule.kind[0])
        copy(rule.kind, sizeof rule.kind, rule.capacity, strlen(rule.capacity));
    opts->rules[opts->n_rules++] = rule;
    return 0;
}
