/* Fuzzes the user's agent configuration parser (src/client/agent_conf.c).
 * Beyond "no crash, no leak, no UB": a refusal gives a reason, and what is
 * accepted fits its field (terminated, no newline, no '#'). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/agent_conf.h"

static void field_ok(const char *f, size_t cap)
{
    if (strnlen(f, cap) >= cap || strchr(f, '\n') || strchr(f, '#'))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct agent_conf c;
    char why[300] = "";
    if (agent_conf_parse((const char *)data, size, &c, why, sizeof why) < 0) {
        if (!why[0])
            abort();
        return 0;
    }
    field_ok(c.nats, sizeof c.nats);
    field_ok(c.creds, sizeof c.creds);
    field_ok(c.site, sizeof c.site);
    field_ok(c.user, sizeof c.user);
    return 0;
}
