/* Watched files and snapshot events (see rm_snapshots.h). */
#include "rmcompat/rm_snapshots.h"
#include "util/text_file.h"

#include <ctype.h>
#include <jansson.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct watch_event {
    char *label;
    bool on_create, on_delete, on_truncate, has_pattern;
    regex_t pattern;
    long long max_count; /* < 0: no limit */
    long long total, cycle;
};

struct watched_file {
    char *name;
    bool from_start_if_truncated, delete_if_found, existed;
    off_t position; /* where the next poll reads lines from */
    struct watch_event *events;
    size_t event_count;
};

struct rm_snapshots {
    struct watched_file *files;
    size_t file_count;
};

void rm_snapshots_free(struct rm_snapshots *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->file_count; i++) {
        struct watched_file *f = &s->files[i];
        for (size_t j = 0; j < f->event_count; j++) {
            free(f->events[j].label);
            if (f->events[j].has_pattern)
                regfree(&f->events[j].pattern);
        }
        free(f->events);
        free(f->name);
    }
    free(s->files);
    free(s);
}

/* KEY of OBJ as a boolean (default when absent); -1 when not a boolean. */
static int boolean_of(json_t *obj, const char *key, bool fallback, bool *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        *out = fallback;
        return 0;
    }
    if (!json_is_boolean(v))
        return -1;
    *out = json_is_true(v);
    return 0;
}

static bool label_is_valid(const char *label)
{
    if (!*label)
        return false;
    for (const char *p = label; *p; p++)
        if (!(( *p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_'))
            return false;
    return true;
}

/* POSIX extended expressions compile to automata that grow fast with
 * stacked and bounded repetitions: in glibc "^step " and 24 '+' takes
 * gigabytes, "((a{100}){100}){100}" a second and 200 MB. Refused: a pattern
 * over 1024 bytes, a repetition right after another, a bound over 255, and
 * bounds that multiply past 4096. 0, or -1 with the reason in why. */
static int pattern_bounded(const char *p, char *why, size_t why_size)
{
    size_t n = strlen(p);
    if (n > 1024) {
        snprintf(why, why_size, "%zu bytes long (at most 1024)", n);
        return -1;
    }
    bool after_repetition = false;
    unsigned long weight = 1;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\\') {
            i++;
            after_repetition = false;
            continue;
        }
        if (c == '[') { /* a bracket expression: its ']' may come first, classes hold ':]' */
            size_t k = i + 1;
            if (k < n && p[k] == '^')
                k++;
            if (k < n && p[k] == ']')
                k++;
            while (k < n && p[k] != ']') {
                if (p[k] == '[' && k + 1 < n && strchr(":.=", p[k + 1])) { /* [:alpha:] */
                    const char *close = strstr(p + k + 2, (char[]){p[k + 1], ']', '\0'});
                    k = close ? (size_t)(close - p) + 2 : n;
                } else {
                    k++;
                }
            }
            i = k;
            after_repetition = false;
            continue;
        }
        if (c != '*' && c != '+' && c != '?' && c != '{') {
            after_repetition = false;
            continue;
        }
        if (after_repetition) {
            snprintf(why, why_size, "column %zu: a repetition right after another ('%c%c')", i + 1,
                     p[i - 1], c);
            return -1;
        }
        if (c == '{') {
            char *end;
            unsigned long low = strtoul(p + i + 1, &end, 10), high = low;
            if (*end == ',' && isdigit((unsigned char)end[1])) /* {n,m}; {n,} counts as n */
                high = strtoul(end + 1, &end, 10);
            if (low > 255 || high > 255) {
                snprintf(why, why_size, "column %zu: a repetition bound over 255", i + 1);
                return -1;
            }
            weight *= high > 1 ? high : 1;
            if (weight > 4096) {
                snprintf(why, why_size,
                         "column %zu: repetition bounds multiply past 4096 (the automaton would be "
                         "too large)",
                         i + 1);
                return -1;
            }
            const char *close = strchr(p + i, '}');
            i = close ? (size_t)(close - p) : n;
        }
        after_repetition = true;
    }
    return 0;
}

static int parse_event(const char *file, size_t index, json_t *spec, struct watch_event *e, char *why,
                       size_t why_size)
{
    if (!json_is_object(spec)) {
        snprintf(why, why_size, "'%s': event %zu is not an object", file, index + 1);
        return -1;
    }
    const char *label = json_string_value(json_object_get(spec, "label"));
    if (!label || !label_is_valid(label)) {
        snprintf(why, why_size, "'%s': event %zu needs a \"label\" of letters, digits, '-' and '_'", file,
                 index + 1);
        return -1;
    }
    if (boolean_of(spec, "on-create", false, &e->on_create) < 0 ||
        boolean_of(spec, "on-delete", false, &e->on_delete) < 0 ||
        boolean_of(spec, "on-truncate", false, &e->on_truncate) < 0) {
        snprintf(why, why_size, "'%s': event '%s': on-create, on-delete and on-truncate are true or false",
                 file, label);
        return -1;
    }
    json_t *pattern = json_object_get(spec, "on-pattern");
    if (pattern && !json_is_string(pattern)) {
        snprintf(why, why_size, "'%s': event '%s': on-pattern is a string", file, label);
        return -1;
    }
    if (e->on_create + e->on_delete + e->on_truncate + (pattern != NULL) != 1) {
        snprintf(why, why_size, "'%s': event '%s': give exactly one of on-create, on-delete, on-truncate, on-pattern",
                 file, label);
        return -1;
    }
    json_t *count = json_object_get(spec, "count");
    if (count && !json_is_integer(count)) {
        snprintf(why, why_size, "'%s': event '%s': count is an integer", file, label);
        return -1;
    }
    e->max_count = count ? json_integer_value(count) : -1;
    if (pattern) {
        char bound[160];
        if (pattern_bounded(json_string_value(pattern), bound, sizeof bound) < 0) {
            snprintf(why, why_size, "'%s': event '%s': on-pattern: %s", file, label, bound);
            return -1;
        }
        int rc = regcomp(&e->pattern, json_string_value(pattern), REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char reason[128];
            regerror(rc, &e->pattern, reason, sizeof reason);
            snprintf(why, why_size, "'%s': event '%s': on-pattern: %s", file, label, reason);
            return -1;
        }
        e->has_pattern = true;
    }
    e->label = strdup(label);
    if (!e->label) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    return 0;
}

static int parse_file(const char *name, json_t *spec, struct watched_file *f, char *why, size_t why_size)
{
    bool from_start;
    if (!json_is_object(spec) || boolean_of(spec, "from-start", false, &from_start) < 0 ||
        boolean_of(spec, "from-start-if-truncated", true, &f->from_start_if_truncated) < 0 ||
        boolean_of(spec, "delete-if-found", false, &f->delete_if_found) < 0) {
        snprintf(why, why_size, "'%s': not an object with true/false from-start, from-start-if-truncated, delete-if-found",
                 name);
        return -1;
    }
    json_t *events = json_object_get(spec, "events");
    if (!json_is_array(events) || json_array_size(events) == 0) {
        snprintf(why, why_size, "'%s': needs a non-empty \"events\" list", name);
        return -1;
    }
    struct stat st;
    if (stat(name, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* /dev/zero would be read without end, a FIFO waited on */
        snprintf(why, why_size, "'%s': not a regular file (events watch a file the task writes)", name);
        return -1;
    }
    f->name = strdup(name);
    f->events = calloc(json_array_size(events), sizeof *f->events);
    if (!f->name || !f->events) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        if (parse_event(name, i, e, &f->events[i], why, why_size) < 0)
            return -1;
        f->event_count++;
    }
    f->existed = stat(name, &st) == 0;
    f->position = f->existed && !from_start ? st.st_size : 0;
    return 0;
}

struct rm_snapshots *rm_snapshots_parse(const char *text, char *why, size_t why_size)
{
    json_error_t error;
    json_t *root = json_loads(text, 0, &error);
    if (!root) {
        snprintf(why, why_size, "line %d: %s", error.line, error.text);
        return NULL;
    }
    struct rm_snapshots *s = calloc(1, sizeof *s);
    if (!s || !json_is_object(root) || json_object_size(root) == 0) {
        snprintf(why, why_size, s ? "not an object {\"FILE\": {\"events\": [...]}, ...}" : "out of memory");
        json_decref(root);
        free(s);
        return NULL;
    }
    s->files = calloc(json_object_size(root), sizeof *s->files);
    const char *name;
    json_t *spec;
    int rc = s->files ? 0 : -1;
    if (rc < 0)
        snprintf(why, why_size, "out of memory");
    json_object_foreach(root, name, spec) {
        if (rc < 0)
            break;
        rc = parse_file(name, spec, &s->files[s->file_count], why, why_size);
        s->file_count++; /* counted also when half-made: freed below */
    }
    json_decref(root);
    if (rc < 0) {
        rm_snapshots_free(s);
        return NULL;
    }
    return s;
}

static void fire(struct watch_event *e)
{
    if (e->max_count < 0 || e->total < e->max_count) {
        e->cycle++;
        e->total++;
    }
}

/* The complete lines appended since the last poll, against the patterns. */
static void read_new_lines(struct watched_file *f)
{
    char why[160];
    int fd = text_file_open(f->name, true, why, sizeof why); /* made a FIFO or a device since: skipped */
    FILE *fp = fd < 0 ? NULL : fdopen(fd, "r");
    if (!fp) {
        if (fd >= 0)
            close(fd);
        return;
    }
    if (fseeko(fp, f->position, SEEK_SET) == 0) {
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, fp)) > 0 && line[n - 1] == '\n') {
            line[n - 1] = '\0';
            f->position += n;
            for (size_t j = 0; j < f->event_count; j++)
                if (f->events[j].has_pattern && regexec(&f->events[j].pattern, line, 0, NULL, 0) == 0)
                    fire(&f->events[j]);
        }
        free(line);
    }
    fclose(fp);
}

int rm_snapshots_poll(struct rm_snapshots *s, char *labels, size_t labels_len)
{
    int fired = 0;
    size_t used = 0;
    if (labels_len)
        labels[0] = '\0';
    for (size_t i = 0; i < s->file_count; i++) {
        struct watched_file *f = &s->files[i];
        for (size_t j = 0; j < f->event_count; j++)
            f->events[j].cycle = 0;
        struct stat st;
        bool exists = stat(f->name, &st) == 0;
        bool created = exists && !f->existed, deleted = !exists && f->existed;
        bool shrank = exists && !created && st.st_size < f->position;
        if (created || deleted)
            f->position = 0;
        if (shrank)
            f->position = f->from_start_if_truncated ? 0 : st.st_size;
        for (size_t j = 0; j < f->event_count; j++) {
            struct watch_event *e = &f->events[j];
            if ((e->on_create && created) || (e->on_delete && deleted) || (e->on_truncate && shrank))
                fire(e);
        }
        if (exists)
            read_new_lines(f);
        f->existed = exists;
        if (exists && f->delete_if_found && unlink(f->name) == 0) {
            f->existed = false;
            f->position = 0;
        }
        for (size_t j = 0; j < f->event_count; j++) {
            struct watch_event *e = &f->events[j];
            if (!e->cycle)
                continue;
            fired++;
            if (used < labels_len) {
                int w = snprintf(labels + used, labels_len - used, "%s%s(%lld)", used ? "," : "", e->label,
                                 e->cycle);
                used += w > 0 ? (size_t)w : 0;
            }
        }
    }
    return fired;
}
