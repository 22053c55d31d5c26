/* A jansson value written as JSON text straight to a stream, byte for byte
 * what json_dumps gives with JSON_INDENT(INDENT) (or JSON_COMPACT, indent
 * 0), JSON_PRESERVE_ORDER and JSON_REAL_PRECISION(PRECISION): the reports
 * are written without building their whole text in memory first, and
 * integers, the most common values of the large ones (level 3's
 * PREFIX.files.json: a process entry per image, Darshan's counters per
 * file), are formatted without printf. tests/unit/report/json_text_test.c
 * compares it with json_dumps. */
#ifndef TALLY_REPORT_JSON_TEXT_H
#define TALLY_REPORT_JSON_TEXT_H

#include <jansson.h>
#include <stdio.h>

/* 0, or -1 when the stream failed (or VALUE is NULL). A string's bytes
 * other than those escaped are written as they are: jansson's strings are
 * UTF-8 already (json_string checks). */
int json_text_write(FILE *f, const json_t *value, int indent, int precision);

#endif
