/* Limit strings and files (see limits.h). */
#include "monitor/limits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text_file.h"
#include "util/trim.h"
#include "util/units.h"

void limits_clear(struct limit_set *limits)
{
    memset(limits, 0, sizeof *limits);
}

bool limits_any(const struct limit_set *limits)
{
    for (int i = 0; i < FIELD_COUNT; i++)
        if (limits->set[i])
            return true;
    return false;
}

/* One "field: value" item (already cut out and trimmed). */
static int parse_item(struct limit_set *out, char *item, char *why, size_t why_len)
{
    char *sep = strpbrk(item, ":=");
    if (!sep) {
        snprintf(why, why_len, "'%s' is not 'field: value'", item);
        return -1;
    }
    *sep = '\0';
    char *name = trim_space(item), *value_text = trim_space(sep + 1);
    int id = summary_field_id(name);
    if (id < 0 || !summary_field_by_id(id)->limitable) {
        snprintf(why, why_len, "%s field '%s'", id < 0 ? "unknown" : "not a limitable", name);
        return -1;
    }
    const struct summary_field *field = summary_field_by_id(id);
    double value;
    char reason[160];
    if (units_parse(value_text, field->dim, field->unit, &value, reason, sizeof reason) < 0) {
        snprintf(why, why_len, "%s: %s", name, reason);
        return -1;
    }
    if (value < 0) {
        snprintf(why, why_len, "%s: negative value", name);
        return -1;
    }
    out->set[id] = true;
    out->max[id] = value;
    return 0;
}

int limits_each_item(const char *text, limits_item_fn fn, void *ctx, char *why, size_t why_len)
{
    char *copy = strdup(text);
    if (!copy) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    int status = 0, items = 0;
    char *p = copy;
    while (*p && status == 0) {
        size_t len = strcspn(p, ",;\n#");
        char delim = p[len];
        p[len] = '\0';
        char *item = trim_space(p);
        if (*item) {
            status = fn(ctx, item, why, why_len);
            items++;
        }
        p += len + (delim != '\0');
        if (delim == '#') /* comment: skip to the end of the line */
            p += strcspn(p, "\n");
    }
    free(copy);
    return status < 0 ? -1 : items;
}

static int parse_one(void *ctx, char *item, char *why, size_t why_len)
{
    return parse_item(ctx, item, why, why_len);
}

int limits_parse(struct limit_set *limits, const char *text, char *why, size_t why_len)
{
    struct limit_set parsed = *limits;
    int items = limits_each_item(text, parse_one, &parsed, why, why_len);
    if (items < 0)
        return -1;
    if (items == 0) {
        snprintf(why, why_len, "no 'field: value' given");
        return -1;
    }
    *limits = parsed;
    return 0;
}

int limits_parse_file(struct limit_set *limits, const char *path, char *why, size_t why_len)
{
    struct text_lines in;
    if (text_lines_open(&in, path, TEXT_FILE_SMALL, (size_t)64 << 10, why, why_len) < 0)
        return -1;
    struct limit_set parsed = *limits;
    char *line, reason[256];
    int status = 0, items = 0, got;
    /* whole lines however long, up to the reader's bounds: a long comment stays one line */
    while (status == 0 && (got = text_lines_next(&in, &line, NULL)) > 0) {
        line[strcspn(line, "#")] = '\0';
        char *item = trim_space(line);
        if (!*item)
            continue;
        items++;
        if (parse_item(&parsed, item, reason, sizeof reason) < 0) {
            snprintf(why, why_len, "line %lu: %s", in.number, reason);
            status = -1;
        }
    }
    if (status == 0 && got < 0) {
        snprintf(why, why_len, "%s", in.why);
        status = -1;
    }
    text_lines_close(&in);
    if (status == 0 && items == 0) {
        snprintf(why, why_len, "no 'field: value' line");
        status = -1;
    }
    if (status == 0)
        *limits = parsed;
    return status;
}

int limits_check(const struct limit_set *limits, const double *value, bool *exceeded)
{
    int n = 0;
    for (int i = 0; i < FIELD_COUNT; i++) {
        if (limits->set[i] && value[i] > limits->max[i])
            exceeded[i] = true;
        n += exceeded[i];
    }
    return n;
}
