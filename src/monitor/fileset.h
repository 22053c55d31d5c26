/* A set of strings (the paths a task opened), kept until the report. */
#ifndef TALLY_MONITOR_FILESET_H
#define TALLY_MONITOR_FILESET_H

#include <stddef.h>

struct fileset {
    char **slots;
    size_t capacity, count;
};

void fileset_add(struct fileset *set, const char *path);
/* Moves the paths out as a sorted array (caller frees each and the array). */
char **fileset_take_sorted(struct fileset *set, size_t *count);
void fileset_free(struct fileset *set);

#endif
