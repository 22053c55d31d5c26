/* Opening an archive: a connection (store.h) whose schema is brought up to
 * date by the migrations of schema.c. */
#ifndef TALLY_ARCHIVE_SCHEMA_H
#define TALLY_ARCHIVE_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "archive/store.h"

/* Opens LOCATION (see store_connect; NULL = the default location) and
 * migrates its schema. Returns NULL and a reason. */
struct store *store_open(const char *location, char *why, size_t why_size);
/* As store_open, but migrates only up to schema version `version` (tests). */
struct store *store_open_at_version(const char *location, int version, char *why, size_t why_size);

/* The current version, the migration to one, the version of an archive. */
int schema_current_version(void);
/* Whether an upgrade from that version rewrote rows, leaving their old
 * space in the file until 'tally archive compact'. */
bool schema_upgrade_leaves_space(int from);
int schema_migrate(struct store *s, int target_version, char *why, size_t why_size);
int schema_version_of(struct store *s, char *why, size_t why_size);

#endif
