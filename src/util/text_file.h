/* Reading a whole (small) file into memory: the files people name on a
 * command line (limits, rulebases, contracts, descriptions). */
#ifndef TALLY_UTIL_TEXT_FILE_H
#define TALLY_UTIL_TEXT_FILE_H

#include <stddef.h>

/* The whole of PATH, NUL-terminated and malloc'd, its length in *len when
 * len is not NULL; or NULL with errno set (ENOMEM when out of memory, the
 * reason from open or read otherwise, e.g. EISDIR for a directory). */
char *text_file_read(const char *path, size_t *len);

#endif
