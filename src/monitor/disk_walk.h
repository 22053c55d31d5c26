/* One walk of a directory tree for its footprint ('disk', 'total_files'):
 * the blocks and the number of entries that are not directories, without
 * following symbolic links or crossing into another file system (what fts
 * gives with FTS_PHYSICAL | FTS_XDEV, in the same order), by openat,
 * getdents64 and fstatat relative to each directory's descriptor. */
#ifndef TALLY_MONITOR_DISK_WALK_H
#define TALLY_MONITOR_DISK_WALK_H

/* Adds to *bytes the allocated bytes of every entry under root that is not a
 * directory (1/N of them for a file of N hard links) and 1 to *files for
 * each; root itself when it is not a directory. */
void disk_walk(const char *root, double *bytes, double *files);

/* The same figures by fts(3), as tally measured before: kept for the walk
 * of a subtree past the depth at which disk_walk stops holding a descriptor
 * per level, and for the tests' comparison. */
void disk_walk_fts(const char *root, double *bytes, double *files);

#endif
