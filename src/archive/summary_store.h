/* The one path of a finished task's summary into the archive, used by
 * 'tally run --archive' and by the agent: the summary (a JSON object) is
 * serialised one way, so the same summary has the same bytes and content
 * hash whichever path took it, and is stored once. */
#ifndef TALLY_ARCHIVE_SUMMARY_STORE_H
#define TALLY_ARCHIVE_SUMMARY_STORE_H

#include <jansson.h>
#include <stddef.h>

#include "archive/ingest.h"

/* Stores summary in store (label names it in messages about the document;
 * a bad document is reported on stderr as 'archive add' does). Returns 1
 * when stored (its archive id in *id when id is not NULL), 0 when the same
 * summary was archived before (by this path or another), -1 when it was not
 * stored. */
int archive_store_summary(struct store *store, json_t *summary, const char *label,
                          const struct ingest_options *options, long long *id);

#endif
