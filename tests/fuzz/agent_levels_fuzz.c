/* Fuzzes the agent's contract-levels store (src/agent/agent_levels.c): the
 * input is lines of JSON, each a {"op":"levels",...} message as tally
 * contract watch sends them, applied in turn to one store; then the store
 * is written as OpenMetrics. Beyond "no crash, no leak, no UB" it checks
 * that a refused message leaves a reason, an accepted one reports as many
 * levels as it carried, and every exposition line is one gauge sample. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_levels.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct agent_levels *levels = NULL;
    size_t start = 0;
    for (size_t i = 0; i <= size; i++) {
        if (i < size && data[i] != '\n')
            continue;
        json_t *msg = json_loadb((const char *)data + start, i - start, 0, NULL);
        start = i + 1;
        if (!msg)
            continue;
        char why[300] = "";
        long kept = agent_levels_apply(&levels, msg, NULL, why, sizeof why);
        if (kept < 0 && !why[0])
            abort();
        if (kept >= 0 && (size_t)kept != json_array_size(json_object_get(msg, "levels")))
            abort();
        json_decref(msg);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out) {
        agent_levels_write(levels, "u\"ser", out);
        fclose(out);
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            if (line[0] != '#' && strncmp(line, "tally_contract_violation{", 25))
                abort();
    }
    free(text);
    agent_levels_free(levels);
    return 0;
}
