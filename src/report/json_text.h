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
#include <stdbool.h>
#include <stdio.h>

/* 0, or -1 when the stream failed (or VALUE is NULL). A string's bytes
 * other than those escaped are written as they are: jansson's strings are
 * UTF-8 already (json_string checks). */
int json_text_write(FILE *f, const json_t *value, int indent, int precision);

/* The same text written piece by piece, for a report too large to build as
 * one value first: containers opened and closed, an object's members as a
 * key then its value, an array's elements as values; what json_dumps would
 * give for the value so described. */
struct json_text;
struct json_text *json_text_open(FILE *f, int indent, int precision);
/* Flushes and frees T: 0, or -1 when the stream failed or a container was
 * left open. */
int json_text_close(struct json_text *t);
void json_text_open_object(struct json_text *t);
void json_text_close_object(struct json_text *t);
void json_text_open_array(struct json_text *t);
void json_text_close_array(struct json_text *t);
void json_text_key(struct json_text *t, const char *key);
void json_text_value(struct json_text *t, const json_t *v);
void json_text_integer(struct json_text *t, json_int_t v);
/* As json_real would hold it: not NaN or infinite (json_real refuses them). */
void json_text_real(struct json_text *t, double v);
void json_text_bool(struct json_text *t, bool v);
/* A string that is UTF-8 (io_path_json makes a file name one). */
void json_text_string(struct json_text *t, const char *s);

#endif
