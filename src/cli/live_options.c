/* The options the tools on live_client share (see live_options.h). */
#include "cli/live_options.h"

#include "util/error.h"
#include "core/units.h"

int live_client_option(int c, const char *arg, struct live_client_options *o)
{
    switch (c) {
    case OPT_LIVE_AGENT: o->socket = arg; return 0;
    case OPT_LIVE_NATS: o->nats_url = arg; return 0;
    case OPT_LIVE_CREDS: o->creds = arg; return 0;
    case OPT_LIVE_USER: o->user = arg; return 0;
    default: return -1;
    }
}

int live_period_option(const char *who, const char *option, const char *arg, double *out)
{
    char why[256];
    double seconds;
    if (units_parse(arg, DIM_TIME, NULL, &seconds, why, sizeof why) < 0) {
        tally_error("%s: %s '%s': %s", who, option, arg, why);
        return -1;
    }
    if (seconds < 0.1) {
        tally_error("%s: %s '%s': at least 0.1 s", who, option, arg);
        return -1;
    }
    *out = seconds;
    return 0;
}
