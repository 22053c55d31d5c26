/* Creating the directories a file is to be written in (mkdir -p of its
 * parent), shared by the archive (its database file) and the
 * resource_monitor front end (its report prefix). */
#ifndef TALLY_UTIL_DIRECTORIES_H
#define TALLY_UTIL_DIRECTORIES_H

#include <stddef.h>

/* mkdir -p of the directory holding path. Returns -1 with a reason in why. */
int make_parent_directories(const char *path, char *why, size_t why_size);

#endif
