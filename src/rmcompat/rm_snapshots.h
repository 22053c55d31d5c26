/* resource_monitor's --snapshot-events: files to watch, and the events on
 * them (created, deleted, truncated, a line matching a pattern) that call for
 * a snapshot of the resources used since the previous one. The file is JSON:
 *   {"FILE": {"from-start": bool, "from-start-if-truncated": bool,
 *             "delete-if-found": bool,
 *             "events": [{"label": "NAME", "on-create": bool, "on-delete": bool,
 *                         "on-truncate": bool, "on-pattern": "REGEX",
 *                         "count": N}, ...]}, ...}
 * (exactly one on-... per event; labels of letters, digits, '-' and '_';
 * patterns are POSIX extended regular expressions). The caller polls at its
 * samples; each poll reads the lines appended since the last one. */
#ifndef TALLY_RMCOMPAT_RM_SNAPSHOTS_H
#define TALLY_RMCOMPAT_RM_SNAPSHOTS_H

#include <stddef.h>

struct rm_snapshots;

/* Parses TEXT and notes the files' present state (paths relative to the
 * current directory). NULL with a reason in why. */
struct rm_snapshots *rm_snapshots_parse(const char *text, char *why, size_t why_size);
void rm_snapshots_free(struct rm_snapshots *snapshots);
/* Looks at the files once. Returns how many events fired, and their labels
 * as resource_monitor names a snapshot, "label(count),label(count)". */
int rm_snapshots_poll(struct rm_snapshots *snapshots, char *labels, size_t labels_len);

#endif
