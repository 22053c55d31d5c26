/* A summary document read straight from its bytes into its members
 * (summary_members.h), without building a JSON tree: the ingest path's
 * reader. It accepts a subset of what jansson's json_loadb accepts (a JSON
 * object, checked as strictly: UTF-8, escapes, surrogate pairs, numbers that
 * fit) and gives the same members, values and compact texts as
 * summary_members_from_json of jansson's object. Whatever it does not take
 * (anything jansson refuses, a duplicated key, \u0000, nesting deeper than
 * SUMMARY_SCAN_DEPTH, a number longer than 100 characters) it declines, and
 * the caller reads the document with jansson instead, which accepts it or
 * gives its error: so bad input is refused with jansson's words. */
#ifndef TALLY_ARCHIVE_SUMMARY_SCAN_H
#define TALLY_ARCHIVE_SUMMARY_SCAN_H

#include <stddef.h>

#include "archive/summary_members.h"

#define SUMMARY_SCAN_DEPTH 32

/* Reads the JSON object at the start of text[0..len) (blanks before it
 * allowed) into m. 1 with *used = the bytes up to the end of the object
 * (what json_loadb with JSON_DISABLE_EOF_CHECK gives as error.position),
 * 0 when declined (m then holds nothing useful). */
int summary_scan(const char *text, size_t len, struct summary_members *m, size_t *used);

#endif
