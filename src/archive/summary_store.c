/* The one path of a finished summary into the archive (see summary_store.h). */
#include "archive/summary_store.h"

#include <stdlib.h>
#include <string.h>

#include "archive/ingest_files.h"

int archive_store_summary(struct store *store, json_t *summary, const char *label,
                          const struct ingest_options *options, long long *id)
{
    static const struct ingest_options none = {0};
    /* the one serialisation: the writers' 16 significant digits read back
     * and written again give the same text */
    char *text = json_dumps(summary, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(16));
    if (!text)
        return -1;
    struct ingest_session session;
    ingest_session_init(&session, store, options ? options : &none);
    int rc = ingest_buffer(&session, label, text, strlen(text));
    free(text);
    if (ingest_session_finish(&session) < 0 || rc < 0)
        return -1;
    if (session.added == 0)
        return 0;
    if (id)
        *id = session.last_id;
    return 1;
}
