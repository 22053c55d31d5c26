/* resource_monitor's limits onto tally's (see rm_limits.h). */
#include "rmcompat/rm_limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/trim.h"

/* Names resource_monitor's man page still lists, and what they are now. */
static const struct {
    const char *old_name, *name;
} aliases[] = {
    {"resident_memory", "memory"},
    {"workdir_footprint", "disk"},
    {"workdir_number_files_dirs", "total_files"},
};

/* resource_monitor fields that tally reports but does not enforce, or does
 * not measure: skipped, as resource_monitor skips a name it does not know. */
static const char *const skipped_fields[] = {
    "start", "end", "bandwidth", "cores_avg", "machine_cpus", "machine_load",
    "context_switches", "fs_nodes", "workers",
};

static bool is_skipped(const char *name)
{
    for (size_t i = 0; i < sizeof skipped_fields / sizeof skipped_fields[0]; i++)
        if (!strcmp(name, skipped_fields[i]))
            return true;
    return false;
}

static const char *current_name(const char *name)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(name, aliases[i].old_name))
            return aliases[i].name;
    return name;
}

static void note_skipped(char *skipped, size_t len, const char *name)
{
    if (!skipped || len == 0)
        return;
    size_t used = strlen(skipped);
    snprintf(skipped + used, len - used, "%s%s", used ? " " : "", name);
}

struct rm_item_ctx {
    struct limit_set *limits;
    char *skipped;
    size_t skipped_len;
};

/* One trimmed, non-empty item (limits_each_item). */
static int parse_item(void *ctx, char *item, char *why, size_t why_size)
{
    struct rm_item_ctx *c = ctx;
    char *sep = strpbrk(item, ":=");
    if (!sep) {
        snprintf(why, why_size, "'%s' is not 'field: value'", item);
        return -1;
    }
    *sep = '\0';
    const char *name = current_name(trim_space(item));
    if (is_skipped(name)) {
        note_skipped(c->skipped, c->skipped_len, name);
        return 0;
    }
    size_t len = strlen(name) + strlen(sep + 1) + 3;
    char *canonical = malloc(len);
    if (!canonical) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    snprintf(canonical, len, "%s: %s", name, sep + 1);
    int rc = limits_parse(c->limits, canonical, why, why_size);
    free(canonical);
    return rc;
}

int rm_limits_parse(struct limit_set *limits, const char *text, char *why, size_t why_size,
                    char *skipped, size_t skipped_len)
{
    struct limit_set parsed = *limits;
    struct rm_item_ctx c = {&parsed, skipped, skipped_len};
    if (limits_each_item(text, parse_item, &c, why, why_size) < 0)
        return -1;
    *limits = parsed;
    return 0;
}
