/* Fuzzes rank_cover (src/client/rank_cover.c): an agent's line, as the tool
 * receives it over NATS, taken as a line and again as a done line (a rank
 * named again counts once).
 * The count of ranks named never passes a world's size, a complete cover
 * has nothing missing, and the missing ranks' text always ends. */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/rank_cover.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *line = json_loadb((const char *)data, size, 0, NULL);
    struct rank_cover cover = {0};
    bool done = rank_cover_line(&cover, (const char *)data, size);
    if (done != json_is_true(json_object_get(line, "done")))
        abort();
    rank_cover_take(&cover, line);
    for (size_t i = 0; i < cover.count; i++)
        if (cover.worlds[i].named > cover.worlds[i].size || !cover.worlds[i].size)
            abort();
    char missing[64];
    rank_cover_missing(&cover, missing, sizeof missing);
    if (!memchr(missing, '\0', sizeof missing))
        abort();
    if (rank_cover_complete(&cover) && missing[0])
        abort();
    if (rank_cover_known(&cover) != (cover.count > 0) || cover.count > RANK_COVER_MAX_WORLDS)
        abort();
    rank_cover_free(&cover);
    json_decref(line);
    return 0;
}
