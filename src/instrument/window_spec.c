/* Parsing --window 'start=N,iterations=M,time=T,calls=C' (any subset, any
 * order), or --window request, into a window_spec (mpi_summary.h). */
#include "instrument/window_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

static int parse_count(const char *key, const char *text, long long *out, char *why, size_t why_size)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < 0) {
        snprintf(why, why_size, "%s='%s' is not a whole number >= 0", key, text);
        return -1;
    }
    *out = v;
    return 0;
}

int window_spec_parse(const char *spec, struct window_spec *w, char *why, size_t why_size)
{
    char *copy = strdup(spec), *save = NULL;
    if (!copy) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    w->set = true;
    w->start = 0;
    int rc = 0, keys = 0;
    for (char *item = strtok_r(copy, ",", &save); item && rc == 0; item = strtok_r(NULL, ",", &save)) {
        item += strspn(item, " ");
        char *eq = strchr(item, '=');
        if (!strcmp(item, "request")) {
            w->by_request = true;
            continue;
        }
        if (!eq) {
            snprintf(why, why_size, "'%.60s' is not key=value (keys: start, iterations, time, calls; or 'request')", item);
            rc = -1;
            break;
        }
        *eq = '\0';
        const char *value = eq + 1;
        keys++;
        if (!strcmp(item, "start"))
            rc = parse_count(item, value, &w->start, why, why_size);
        else if (!strcmp(item, "iterations"))
            rc = parse_count(item, value, &w->iterations, why, why_size);
        else if (!strcmp(item, "calls"))
            rc = parse_count(item, value, &w->call_limit, why, why_size);
        else if (!strcmp(item, "time")) {
            char reason[160];
            if (units_parse(value, DIM_TIME, NULL, &w->time_limit, reason, sizeof reason) < 0) {
                snprintf(why, why_size, "time='%.60s': %s", value, reason);
                rc = -1;
            } else if (!(w->time_limit > 0)) {
                snprintf(why, why_size, "time='%.60s': not a positive duration", value);
                rc = -1;
            }
        } else {
            snprintf(why, why_size, "unknown key '%.60s' (keys: start, iterations, time, calls)", item);
            rc = -1;
        }
    }
    free(copy);
    if (rc == 0 && w->by_request && keys) {
        snprintf(why, why_size, "'request' stands alone: the agent's requests open and close its periods");
        rc = -1;
    }
    if (rc == 0 && w->by_request)
        w->start = -1; /* no marker hit opens it */
    return rc;
}
