/* resource_monitor's limits (-L 'field: value', --limits-file) read into
 * tally's limit set: its old field names (resident_memory,
 * workdir_footprint, workdir_number_files_dirs) are taken as today's, and the
 * fields resource_monitor knows but tally does not enforce (bandwidth, end,
 * fs_nodes, ...) are skipped and named, so the caller can warn, as
 * resource_monitor skips names it does not know. Everything else goes
 * through limits_parse: units, values and unknown names as in 'tally run'. */
#ifndef TALLY_RMCOMPAT_RM_LIMITS_H
#define TALLY_RMCOMPAT_RM_LIMITS_H

#include <stddef.h>

#include "core/limits.h"

/* Adds the items of TEXT ("field: value" separated by ',' ';' or newlines,
 * '#' comments to the end of the line). Skipped field names are appended to
 * skipped (space-separated, truncated to skipped_len). Returns -1 with a
 * reason in why, the set unchanged, on a bad item. */
int rm_limits_parse(struct limit_set *limits, const char *text, char *why, size_t why_size,
                    char *skipped, size_t skipped_len);

#endif
