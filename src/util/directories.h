/* Creating the directories a file is to be written in (mkdir -p of its
 * parent), shared by the archive (its database file) and the
 * resource_monitor front end (its report prefix); and removing a flat
 * directory of scratch files (segments, a launch's files). */
#ifndef TALLY_UTIL_DIRECTORIES_H
#define TALLY_UTIL_DIRECTORIES_H

#include <stddef.h>

/* mkdir -p of the directory holding path. Returns -1 with a reason in why. */
int make_parent_directories(const char *path, char *why, size_t why_size);
/* Removes a directory that holds files only (a run's segment directory, a
 * launch's scratch): its files, then itself; nothing when dir is a
 * symbolic link. Errors are ignored (what is left stays). */
void remove_flat_directory(const char *dir);

#endif
