/* Accept header negotiation (see http_accept.h): read in place, range by
 * range, without copying. */
#include "util/http_accept.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct span {
    const char *p;
    size_t n;
};

static struct span trim(const char *p, size_t n)
{
    while (n && (*p == ' ' || *p == '\t'))
        p++, n--;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    return (struct span){p, n};
}

static bool span_is(struct span s, const char *text)
{
    return strlen(text) == s.n && strncasecmp(s.p, text, s.n) == 0;
}

/* The next piece of [*p, end) up to SEP (or end); *p moves past it. */
static struct span next_piece(const char **p, const char *end, char sep)
{
    const char *start = *p;
    const char *stop = memchr(start, sep, (size_t)(end - start));
    if (!stop)
        stop = end;
    *p = stop < end ? stop + 1 : end;
    return trim(start, (size_t)(stop - start));
}

/* q's value: 0 to 1; 1 when it is not a number. */
static double quality(struct span v)
{
    char text[16];
    if (v.n == 0 || v.n >= sizeof text)
        return 1;
    memcpy(text, v.p, v.n);
    text[v.n] = '\0';
    char *end;
    double q = strtod(text, &end);
    if (*end || q != q)
        return 1;
    return q < 0 ? 0 : q > 1 ? 1 : q;
}

/* How specifically one range (its media span and parameters) names TYPE in
 * VERSION: 4 type/subtype;version=VERSION, 3 type/subtype, 2 type with any
 * subtype, 1 any type, 0 not at all. Its q in *q. */
static int match(struct span media, const char *params, const char *end, const char *type,
                 const char *version, double *q)
{
    *q = 1;
    struct span want_version = {NULL, 0};
    bool has_version = false;
    while (params < end) {
        struct span param = next_piece(&params, end, ';');
        const char *eq = memchr(param.p, '=', param.n);
        if (!eq)
            continue;
        struct span name = trim(param.p, (size_t)(eq - param.p));
        struct span value = trim(eq + 1, param.n - (size_t)(eq + 1 - param.p));
        if (value.n >= 2 && value.p[0] == '"' && value.p[value.n - 1] == '"')
            value = (struct span){value.p + 1, value.n - 2};
        if (span_is(name, "q")) {
            *q = quality(value);
        } else if (span_is(name, "version")) {
            want_version = value;
            has_version = true;
        }
    }
    const char *slash = strchr(type, '/');
    size_t major = slash ? (size_t)(slash - type) : strlen(type);
    if (span_is(media, "*/*"))
        return 1;
    if (media.n == major + 2 && strncasecmp(media.p, type, major) == 0 && media.p[major] == '/' &&
        media.p[major + 1] == '*')
        return 2;
    if (!span_is(media, type))
        return 0;
    if (!has_version)
        return 3;
    return version && span_is(want_version, version) ? 4 : 0;
}

double http_accept_quality(const char *accept, const char *type, const char *version)
{
    if (!accept || !*accept)
        return 1;
    const char *p = accept, *end = accept + strlen(accept);
    int best = 0;
    double best_q = 0;
    while (p < end) {
        const char *range_start = p;
        const char *range_end = memchr(p, ',', (size_t)(end - p));
        if (!range_end)
            range_end = end;
        p = range_end < end ? range_end + 1 : end;
        const char *params = range_start;
        struct span media = next_piece(&params, range_end, ';');
        double q;
        int level = match(media, params, range_end, type, version, &q);
        if (level > best || (level == best && level > 0 && q > best_q)) {
            best = level;
            best_q = q;
        }
    }
    return best ? best_q : 0;
}
