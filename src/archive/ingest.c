/* Summary JSON → archive row (see ingest.h). */
#include "archive/ingest.h"

#include <ctype.h>
#include <libgen.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "archive/aggregate_store.h"
#include "archive/document_pack.h"
#include "archive/file_rows.h"
#include "archive/rows_statement.h"
#include "archive/summary_rows.h"
#include "core/fields.h"
#include "report/summary_read.h"
#include "util/command_line.h"
#include "util/hex.h"
#include "util/text_builder.h"

/* The non-empty string member key, or NULL. */
static const char *string_member(const struct summary_members *m, const char *key)
{
    const struct summary_member *v = summary_members_find(m, key);
    return v && v->kind == MEMBER_STRING && v->string_len ? summary_members_at(m, v->string) : NULL;
}

static int integer_member(const struct summary_members *m, const char *key, long long *out)
{
    const struct summary_member *v = summary_members_find(m, key);
    if (v && v->kind == MEMBER_INTEGER) {
        *out = v->integer;
        return 1;
    }
    if (v && v->kind == MEMBER_REAL) {
        double d = v->number;
        if (!(d >= -9e18 && d <= 9e18) || d != floor(d))
            return -1; /* 1e300 would not fit (converting it is undefined), 2.5 is no status */
        *out = (long long)d;
        return 1;
    }
    return 0;
}

/* The program of a command line, for a summary that has neither name nor
 * category: "/usr/bin/rmapper -x" → "rmapper", "'/opt/my tools/x' -y" → "x".
 * A line that does not split as tally quotes it: its first blank-separated
 * word. */
static char *program_name(const char *command)
{
    char **words = NULL, why[64];
    char *word = command_line_split(command, &words, why, sizeof why) > 0
                     ? strdup(words[0])
                     : strndup(command, strcspn(command, " \t"));
    command_line_free(words);
    if (!word)
        return NULL;
    char *base = strdup(basename(word));
    free(word);
    return base;
}

/* The columns the record fills, for packing its document. */
static void record_columns(const struct summary_record *r, struct document_columns *cols)
{
    memset(cols, 0, sizeof *cols);
    const char *strings[DOC_STRINGS] = {r->name,    r->category,  r->set,   r->host,
                                        r->command, r->exit_type, r->taskid};
    memcpy(cols->strings, strings, sizeof strings);
    cols->has_integer[DOC_LEVEL] = r->has_level;
    cols->integers[DOC_LEVEL] = r->level;
    cols->has_integer[DOC_EXIT_STATUS] = r->has_exit_status;
    cols->integers[DOC_EXIT_STATUS] = r->exit_status;
    for (size_t f = 0; f < FIELD_COUNT && f < MAX_SUMMARY_FIELDS; f++) {
        cols->present[f] = r->present[f];
        cols->values[f] = r->values[f];
    }
}

/* The longest shape stored in document_shapes (a key in PostgreSQL's
 * unique index holds at most ~2700 bytes); a document of a longer one (keys
 * of more than 1 KB together) is stored whole. */
#define SHAPE_MAX 1024

/* Packs the document (in m's scratch, reused from one document to the
 * next) and copies it and every string the record points to into one
 * allocation of their exact size (r->packed): the record then crosses to
 * the writing thread as one block, independent of the reader's buffers.
 * (Packing into a new buffer grown by realloc, then grown again for the
 * strings, took ~8 allocations a summary.) */
static int detach_from_members(struct summary_record *r, struct summary_members *m,
                               const int *member_fields)
{
    struct document_columns cols;
    record_columns(r, &cols);
    cols.member_fields = member_fields;
    if (document_pack_shaped_into(m, &cols, &m->pack_values, &m->pack_shape) < 0)
        return -1;
    const unsigned char *packed = m->pack_values.data, *shape = m->pack_shape.data;
    size_t packed_len = m->pack_values.len, shape_len = m->pack_shape.len;
    unsigned char *whole = NULL;
    if (shape_len > SHAPE_MAX) { /* kept whole, in version 2 */
        if (!(whole = document_pack_members(m, &cols, &packed_len)))
            return -1;
        packed = whole;
        shape_len = 0;
    }
    const char **strings[] = {&r->name, &r->category, &r->set,       &r->host,
                              &r->command, &r->exit_type, &r->taskid};
    size_t total = packed_len + shape_len;
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        if (*strings[i])
            total += strlen(*strings[i]) + 1;
    unsigned char *block = malloc(total);
    if (!block) {
        free(whole);
        return -1;
    }
    memcpy(block, packed, packed_len);
    if (shape_len)
        memcpy(block + packed_len, shape, shape_len);
    free(whole);
    char *next = (char *)block + packed_len + shape_len;
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        if (!*strings[i])
            continue;
        size_t n = strlen(*strings[i]) + 1;
        memcpy(next, *strings[i], n);
        *strings[i] = next;
        next += n;
    }
    r->packed = block;
    r->packed_len = packed_len;
    r->shape_len = shape_len;
    free(r->name_buffer);
    free(r->taskid_buffer);
    r->name_buffer = r->taskid_buffer = NULL;
    return 0;
}

int summary_record_from_members(struct summary_members *m, const char *text, size_t len,
                                const struct ingest_options *options,
                                struct summary_record *r, char *why, size_t why_size)
{
    memset(r, 0, sizeof *r);
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    /* the member of each numeric field, checked in the field table's order;
     * each member's field id, for the packer (looked up once) */
    const struct summary_member *field_member[MAX_SUMMARY_FIELDS] = {NULL};
    int ids_here[64];
    int *member_fields = m->count <= 64 ? ids_here : malloc(m->count * sizeof *member_fields);
    for (size_t i = 0; i < m->count; i++) {
        int id = summary_members_field_id(m, i);
        if (member_fields)
            member_fields[i] = id;
        if (id >= 0 && id < MAX_SUMMARY_FIELDS)
            field_member[id] = &m->items[i];
    }
    for (size_t i = 0; i < nfields && i < MAX_SUMMARY_FIELDS; i++) {
        const struct summary_member *v = field_member[i];
        if (!v || v->kind == MEMBER_NULL)
            continue;
        bool number = v->kind == MEMBER_INTEGER || v->kind == MEMBER_REAL || v->kind == MEMBER_PAIR;
        if (summary_field_number(&fields[i], number ? &v->number : NULL,
                                 v->kind == MEMBER_PAIR ? summary_members_at(m, v->string) : NULL,
                                 &r->values[i], why, why_size) < 0)
            goto fail;
        r->present[i] = true;
    }
    r->category = options->category ? options->category : string_member(m, "category");
    r->command = string_member(m, "command");
    r->name = options->name ? options->name : string_member(m, "name");
    if (!r->name)
        r->name = r->category;
    if (!r->name && r->command)
        r->name = r->name_buffer = program_name(r->command);
    if (!r->name) {
        snprintf(why, why_size, "no name, category or command: give --name");
        goto fail;
    }
    r->set = options->set ? options->set : string_member(m, "set");
    r->host = options->host ? options->host : string_member(m, "host");
    r->exit_type = string_member(m, "exit_type");
    r->attempt = options->attempt;
    r->previous_attempt = options->previous_attempt;
    r->tool = summary_members_find(m, "tally_version")    ? "tally"
              : summary_members_find(m, "monitor_version") ? "resource_monitor"
                                                           : "unknown";
    int has_level = integer_member(m, "level", &r->level);
    int has_exit_status = integer_member(m, "exit_status", &r->exit_status);
    if (has_level < 0 || has_exit_status < 0) {
        snprintf(why, why_size, "field '%s': want an integer", has_level < 0 ? "level" : "exit_status");
        goto fail;
    }
    r->has_level = has_level;
    r->has_exit_status = has_exit_status;
    const struct summary_member *taskid = summary_members_find(m, "taskid");
    if (taskid && taskid->kind == MEMBER_STRING)
        r->taskid = summary_members_at(m, taskid->string);
    else if (taskid && taskid->kind == MEMBER_INTEGER &&
             asprintf(&r->taskid_buffer, "%lld", taskid->integer) >= 0)
        r->taskid = r->taskid_buffer;
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    while (len > 0 && isspace((unsigned char)*text)) {
        text++;
        len--;
    }
    sha256(text, len, r->hash);
    r->start_day = summary_start_day(r->present[FIELD_START], r->values[FIELD_START]);
    if (detach_from_members(r, m, member_fields) < 0) {
        snprintf(why, why_size, "out of memory");
        goto fail;
    }
    if (member_fields != ids_here)
        free(member_fields);
    return 0;
fail:
    if (member_fields != ids_here)
        free(member_fields);
    summary_record_free(r);
    return -1;
}

int summary_record_parse(json_t *root, const char *text, size_t len,
                         const struct ingest_options *options,
                         struct summary_record *r, char *why, size_t why_size)
{
    memset(r, 0, sizeof *r);
    if (!json_is_object(root)) {
        snprintf(why, why_size, "a summary is a JSON object");
        return -1;
    }
    struct summary_members m = {0};
    int rc = summary_members_from_json(&m, root);
    if (rc < 0)
        snprintf(why, why_size, "out of memory");
    else
        rc = summary_record_from_members(&m, text, len, options, r, why, why_size);
    summary_members_free(&m);
    return rc;
}

void summary_record_free(struct summary_record *r)
{
    free(r->packed);
    free(r->taskid_buffer);
    free(r->name_buffer);
    file_rows_free(r->files);
    free(r->files);
    memset(r, 0, sizeof *r);
}

#define ROW_PARAMS 16 /* the identity columns before the numeric fields (start_day
                        * the first, where summary_rows has it) */
#define ROWS_PER_STATEMENT 64
/* Summaries a COPY (the bulk path): their values are held at once, ~1.8 KB
 * a summary */
#define COPY_ROWS 10000

/* The identity columns of a row of summary_rows. */
static size_t row_params(const struct store *s)
{
    return summary_rows_have_start_day(s) ? ROW_PARAMS : ROW_PARAMS - 1;
}

/* The summary_rows columns ingest writes (the id aside), comma-separated, each
 * after prefix. */
static void write_columns(FILE *out, const char *prefix, bool with_day, size_t nfields,
                          const struct summary_field *fields)
{
    static const char *const identity[ROW_PARAMS] = {
        "start_day", "name_ref", "category_ref", "set_ref", "host_ref", "tool_ref", "level",
        "command", "exit_status", "exit_type_ref", "taskid", "archived_at", "document", "shape",
        "attempt", "previous_attempt"};
    for (size_t i = with_day ? 0 : 1; i < ROW_PARAMS; i++)
        fprintf(out, "%s%s%s", i > !with_day ? ", " : "", prefix, identity[i]);
    for (size_t i = 0; i < nfields; i++)
        fprintf(out, ", %s\"%s\"", prefix, fields[i].name);
}

/* The multi-row statements for `rows` summaries, built once per row count
 * and kept in the store's memo: the keys' INSERT (slot = row count), which
 * skips the summaries archived before, and the rows' (slot
 * ROWS_PER_STATEMENT + row count). */
static const char *insert_sql(struct store *s, bool keys, size_t rows, size_t nfields,
                              const struct summary_field *fields)
{
    _Static_assert(2 * ROWS_PER_STATEMENT < STORE_MEMO_SLOTS, "a memo slot per statement");
    size_t slot = keys ? rows : ROWS_PER_STATEMENT + rows;
    const char *cached = store_memo(s, slot);
    if (cached)
        return cached;
    char why[80];
    struct text_builder head, row;
    if (text_builder_open(&head, why, sizeof why) < 0)
        return NULL;
    if (text_builder_open(&row, why, sizeof why) < 0) {
        free(text_builder_finish(&head, why, sizeof why));
        return NULL;
    }
    if (keys) {
        fputs("INSERT INTO summary_keys (start_day, hash, id) VALUES", head.out);
    } else {
        fputs("INSERT INTO summary_rows (id, ", head.out);
        write_columns(head.out, "", summary_rows_have_start_day(s), nfields, fields);
        fputs(") VALUES", head.out);
    }
    size_t per_row = keys ? 3 : 1 + row_params(s) + nfields;
    for (size_t i = 0; i < per_row; i++)
        fputs(i ? ", ?" : "?", row.out);
    char *head_text = text_builder_finish(&head, why, sizeof why);
    char *row_text = text_builder_finish(&row, why, sizeof why);
    char *sql = head_text && row_text
                    ? rows_statement(head_text, row_text, rows,
                                     keys ? " ON CONFLICT (start_day, hash) DO NOTHING" : "", why, sizeof why)
                    : NULL;
    free(head_text);
    free(row_text);
    return sql ? store_memo_keep(s, slot, sql) : NULL;
}

struct inserted {
    size_t count;
    long long last_id;
    struct summary_record *const *records; /* the statement's rows */
    size_t nrecords, cursor;
};

/* Notes the archive id of a new row on its record, found by hash: rows come
 * back in the order given (both backends do), so the search starts after
 * the record found last. */
static int take_id(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct inserted *ins = ctx;
    long long id = ncols > 0 ? (long long)row[0].real : 0;
    ins->count++;
    if (id > ins->last_id)
        ins->last_id = id;
    if (ncols < 2 || row[1].type != SQL_BLOB || row[1].length != SUMMARY_HASH_LEN)
        return 0;
    for (size_t k = 0; k < ins->nrecords; k++) {
        size_t i = (ins->cursor + k) % ins->nrecords;
        if (!ins->records[i]->id && !memcmp(ins->records[i]->hash, row[1].text, SUMMARY_HASH_LEN)) {
            ins->records[i]->id = id;
            ins->cursor = i + 1;
            break;
        }
    }
    return 0;
}

static struct sql_value text_id(const struct summary_record *r, enum dictionary_kind kind)
{
    long long id = r->text_ids[kind - DICT_NAME];
    return id ? sql_int(id) : sql_null();
}

static size_t bind_record(struct sql_value *p, const struct summary_record *r, bool with_day,
                          size_t nfields)
{
    size_t k = 0;
    if (with_day)
        p[k++] = sql_int(r->start_day);
    p[k++] = text_id(r, DICT_NAME);
    p[k++] = text_id(r, DICT_CATEGORY);
    p[k++] = text_id(r, DICT_SET);
    p[k++] = text_id(r, DICT_HOST);
    p[k++] = text_id(r, DICT_TOOL);
    p[k++] = r->has_level ? sql_int(r->level) : sql_null();
    p[k++] = sql_text(r->command);
    p[k++] = r->has_exit_status ? sql_int(r->exit_status) : sql_null();
    p[k++] = text_id(r, DICT_EXIT_TYPE);
    p[k++] = sql_text(r->taskid);
    p[k++] = sql_real(r->archived_at);
    p[k++] = sql_blob(r->packed, r->packed_len);
    p[k++] = r->shape_len ? sql_int(r->shape_id) : sql_null();
    p[k++] = r->attempt ? sql_int(r->attempt) : sql_null();
    p[k++] = r->previous_attempt ? sql_int(r->previous_attempt) : sql_null();
    for (size_t i = 0; i < nfields; i++)
        p[k++] = r->present[i] ? sql_real(r->values[i]) : sql_null();
    return k;
}

/* The bulk path's SQL naming the rows' id sequence (found once per
 * connection: a constant in the statement, not a catalog lookup per row):
 * format's %s is the sequence. Kept in the store's memo, slot slot. */
#define MEMO_COPY_KEYS (STORE_MEMO_SLOTS - 1)
#define MEMO_NEW_IDS (STORE_MEMO_SLOTS - 2)
_Static_assert(MEMO_NEW_IDS > 2 * ROWS_PER_STATEMENT, "memo slots of their own");

static const char *sequence_sql(struct store *s, size_t slot, const char *format, char *why,
                                size_t why_size)
{
    const char *cached = store_memo(s, slot);
    if (cached)
        return cached;
    char *sequence = NULL;
    if (store_query(s, "SELECT pg_get_serial_sequence('summary_rows', 'id')", NULL, 0, store_first_text,
                    &sequence, why, why_size) < 0)
        return NULL;
    char *sql = NULL;
    if (!sequence || strchr(sequence, '\'')) {
        snprintf(why, why_size, "the sequence of summary_rows' ids cannot be named");
    } else if (asprintf(&sql, format, sequence) < 0) {
        sql = NULL;
        snprintf(why, why_size, "out of memory");
    }
    free(sequence);
    return sql ? store_memo_keep(s, slot, sql) : NULL;
}

/* The keys insert of a batch that holds a summary archived before (or one
 * twice): the keys as two arrays, each new one given the next id of the
 * rows' sequence; those archived before, or twice in the batch, skipped;
 * the new ones' ids and hashes returned. */
static const char *copy_keys_sql(struct store *s, char *why, size_t why_size)
{
    return sequence_sql(s, MEMO_COPY_KEYS,
                        "INSERT INTO summary_keys (start_day, hash, id) SELECT u.start_day, u.hash,"
                        " nextval('%s') FROM unnest(CAST(? AS BIGINT[]), CAST(? AS BYTEA[]))"
                        " AS u (start_day, hash) ON CONFLICT (start_day, hash) DO NOTHING"
                        " RETURNING id, hash", why, why_size);
}

/* n ids of the rows' sequence, taken in one statement that answers in one
 * row: the first and the last, which are all of them when they follow each
 * other (no other writer took one meanwhile: the common case), else the
 * list as text. 10,000 rows of one id each were a tenth of the writing
 * thread's work for the keys. */
struct new_ids {
    long long *ids;
    size_t n, wanted;
};

static int take_new_ids(void *ctx, size_t ncols, const struct sql_value *row)
{
    struct new_ids *t = ctx;
    if (ncols < 3 || row[0].type == SQL_NULL || row[1].type == SQL_NULL)
        return 1;
    long long first = sql_integer_of(&row[0]), last = sql_integer_of(&row[1]);
    if (row[2].type == SQL_NULL) { /* first..last */
        if (last < first || (unsigned long long)(last - first) + 1 != t->wanted)
            return 1;
        for (t->n = 0; t->n < t->wanted; t->n++)
            t->ids[t->n] = first + (long long)t->n;
        return 0;
    }
    if (row[2].type != SQL_TEXT)
        return 1;
    t->n = 0;
    for (const char *p = row[2].text; *p && t->n < t->wanted;) {
        char *end;
        long long id = strtoll(p, &end, 10);
        if (end == p)
            return 1;
        t->ids[t->n++] = id;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

/* The rows' COPY of a batch whose keys are all new: its columns, and its
 * values encoded while the server takes the keys (ready). */
struct rows_copy {
    size_t nfields, per_row;
    char *columns;
    struct store_copy_data data;
    bool ready;
};

/* The values of records' rows, id from ids (or, ids NULL, the record's
 * own), those without one left out: malloc'd, *count rows of them; NULL
 * when out of memory. */
static struct sql_value *rows_values(struct summary_record *const *records, size_t n,
                                     const long long *ids, const struct rows_copy *rows,
                                     size_t *count)
{
    struct sql_value *values = malloc((n ? n : 1) * rows->per_row * sizeof *values);
    *count = 0;
    for (size_t r = 0; values && r < n; r++) {
        long long id = ids ? ids[r] : records[r]->id;
        if (!id)
            continue;
        struct sql_value *row = values + *count * rows->per_row;
        row[0] = sql_int(id);
        bind_record(row + 1, records[r], true, rows->nfields);
        ++*count;
    }
    return values;
}

/* Encodes the rows of records with the ids they get when all their keys
 * are new; left not ready when that needs a statement (the columns' types,
 * learnt at the session's first COPY of rows) or memory. */
static void prepare_rows(struct store *s, struct summary_record *const *records, size_t n,
                         const long long *ids, struct rows_copy *rows)
{
    size_t count;
    char why[160];
    struct sql_value *values = rows_values(records, n, ids, rows, &count);
    rows->ready = values && store_copy_encode(s, "summary_rows", rows->columns, values, count,
                                              rows->per_row, false, &rows->data, why,
                                              sizeof why) == 0;
    free(values);
}

/* Records in the order of their keys (start day, then hash), near enough:
 * the hash by its first 8 bytes. The keys' unique index takes them in that
 * order at 0.8 s for 500,000 instead of 1.0-1.2 s in the records' order
 * (each insert next to the one before, not anywhere in its day). */
struct key_order {
    long long day;
    uint64_t hash_prefix;
    size_t record;
};

static int by_key(const void *a, const void *b)
{
    const struct key_order *x = a, *y = b;
    if (x->day != y->day)
        return x->day < y->day ? -1 : 1;
    return x->hash_prefix < y->hash_prefix ? -1 : x->hash_prefix > y->hash_prefix;
}

/* malloc'd, n of them; NULL when out of memory */
static struct key_order *key_order(struct summary_record *const *records, size_t n)
{
    struct key_order *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return NULL;
    for (size_t r = 0; r < n; r++) {
        uint64_t prefix = 0;
        for (int i = 0; i < 8; i++) /* big-endian: the order of memcmp */
            prefix = prefix << 8 | records[r]->hash[i];
        order[r] = (struct key_order){records[r]->start_day, prefix, r};
    }
    qsort(order, n, sizeof *order, by_key);
    return order;
}

/* The common case of the bulk path, no summary of the batch archived
 * before: n ids taken from the rows' sequence in one statement, the keys
 * copied with them into summary_keys (its unique key refuses a key that
 * exists, committed or being written by another writer, which is waited
 * for), and meanwhile the rows encoded with those ids (rows->ready). *all_new
 * false, and the keys' copy undone (a savepoint), when one was refused: the
 * caller then inserts them skipping those that exist. */
static int copy_new_keys(struct store *s, struct summary_record *const *records, size_t n,
                         struct inserted *ins, bool *all_new, struct rows_copy *rows, char *why,
                         size_t why_size)
{
    *all_new = false;
    const char *ids_sql = sequence_sql(s, MEMO_NEW_IDS,
                                       "SELECT min(v), max(v), CASE WHEN max(v) - min(v) + 1 = count(*)"
                                       " THEN NULL ELSE string_agg(v::text, ',' ORDER BY v) END"
                                       " FROM (SELECT nextval('%s') AS v FROM generate_series(1, ?)) AS t",
                                       why, why_size);
    if (!ids_sql)
        return -1;
    struct new_ids t = {malloc(n * sizeof *t.ids), 0, n};
    struct sql_value *keys = malloc(3 * n * sizeof *keys);
    struct sql_value count = sql_int((long long)n);
    int rc = -1;
    if (!t.ids || !keys)
        snprintf(why, why_size, "out of memory");
    else if (store_query(s, ids_sql, &count, 1, take_new_ids, &t, why, why_size) < 0)
        ;
    else if (t.n != n)
        snprintf(why, why_size, "the sequence of summary_rows' ids gave %zu ids of %zu", t.n, n);
    else if (store_exec(s, "SAVEPOINT tally_keys", NULL, 0, why, why_size) >= 0)
        rc = 0;
    struct key_order *order = rc == 0 ? key_order(records, n) : NULL;
    if (rc == 0 && !order) {
        snprintf(why, why_size, "out of memory");
        rc = -1;
    }
    if (rc == 0) {
        for (size_t k = 0; k < n; k++) {
            size_t r = order[k].record;
            keys[3 * k] = sql_int(records[r]->start_day);
            keys[3 * k + 1] = sql_blob(records[r]->hash, SUMMARY_HASH_LEN);
            keys[3 * k + 2] = sql_int(t.ids[r]);
        }
        s->duplicate = false;
        struct store_copy_data sent;
        if (store_copy_encode(s, "summary_keys", "start_day, hash, id", keys, n, 3, true, &sent, why,
                              why_size) != 0) {
            rc = -1;
        } else if (store_copy_send(s, &sent, why, why_size) < 0) {
            rc = -1;
        } else {
            /* the rows' COPY encoded while the server takes the keys: each
             * was most of the other's wait */
            prepare_rows(s, records, n, t.ids, rows);
            if (store_wait(s, why, why_size) >= 0) {
                rc = store_exec(s, "RELEASE SAVEPOINT tally_keys", NULL, 0, why, why_size) < 0 ? -1 : 0;
                *all_new = rc == 0;
            } else if (s->duplicate && !s->retryable) {
                rc = store_exec(s, "ROLLBACK TO SAVEPOINT tally_keys", NULL, 0, why, why_size) < 0 ? -1 : 0;
            } else {
                rc = -1;
            }
        }
        store_copy_data_free(&sent);
    }
    for (size_t r = 0; *all_new && r < n; r++) {
        records[r]->id = t.ids[r];
        if (t.ids[r] > ins->last_id)
            ins->last_id = t.ids[r];
    }
    if (*all_new)
        ins->count = n;
    free(order);
    free(t.ids);
    free(keys);
    return rc;
}

/* The batch's keys as PostgreSQL array literals: "{day,...}" and
 * "{"\\x<hex>",...}" (malloc'd). */
static int key_arrays(struct summary_record *const *records, size_t n, char **days, char **hashes,
                      char *why, size_t why_size)
{
    struct text_builder d, h;
    *days = *hashes = NULL;
    if (text_builder_open(&d, why, why_size) < 0)
        return -1;
    if (text_builder_open(&h, why, why_size) < 0) {
        free(text_builder_finish(&d, why, why_size));
        return -1;
    }
    for (size_t r = 0; r < n; r++) {
        fprintf(d.out, "%c%lld", r ? ',' : '{', records[r]->start_day);
        char hex[2 * SUMMARY_HASH_LEN + 1];
        fprintf(h.out, "%c\"\\\\x%s\"", r ? ',' : '{', hex_encode(records[r]->hash, SUMMARY_HASH_LEN, hex));
    }
    fputs(n ? "}" : "{}", d.out);
    fputs(n ? "}" : "{}", h.out);
    *days = text_builder_finish(&d, why, why_size);
    *hashes = text_builder_finish(&h, why, why_size);
    if (*days && *hashes)
        return 0;
    free(*days);
    free(*hashes);
    *days = *hashes = NULL;
    return -1;
}

/* The rows' COPY columns: "id, start_day, name_ref, ..." (malloc'd). */
static char *copy_columns(size_t nfields, const struct summary_field *fields, char *why, size_t why_size)
{
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return NULL;
    fputs("id, ", b.out);
    write_columns(b.out, "", true, nfields, fields);
    return text_builder_finish(&b, why, why_size);
}

/* Where the backend has a bulk path (PostgreSQL's COPY): the batch's keys
 * copied (copy_new_keys), or, when some were archived before, inserted in
 * one statement that skips those and returns the new ones' ids; the new
 * rows then copied straight into their table (routed to their month's
 * partition), encoded already when every key was new. */
static int ingest_records_copy(struct store *s, struct summary_record *const *records, size_t n,
                               struct inserted *ins, char *why, size_t why_size)
{
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    if (nfields > MAX_SUMMARY_FIELDS)
        nfields = MAX_SUMMARY_FIELDS;
    if (!summary_rows_have_start_day(s)) { /* its partitions' key */
        snprintf(why, why_size, "a bulk path needs summary_rows' start_day");
        return -1;
    }
    struct rows_copy rows = {nfields, 1 + ROW_PARAMS + nfields,
                             copy_columns(nfields, fields, why, why_size), {NULL, NULL, 0}, false};
    if (!rows.columns)
        return -1;
    ins->records = records;
    ins->nrecords = n;
    ins->cursor = 0;
    bool all_new = false;
    int rc = n ? copy_new_keys(s, records, n, ins, &all_new, &rows, why, why_size) : 0;
    if (rc == 0 && !all_new) { /* some archived before, or twice in the batch */
        const char *keys = copy_keys_sql(s, why, why_size);
        char *days = NULL, *hashes = NULL;
        if (!keys || key_arrays(records, n, &days, &hashes, why, why_size) < 0) {
            rc = -1;
        } else {
            struct sql_value arrays[2] = {sql_text(days), sql_text(hashes)};
            rc = store_query(s, keys, arrays, 2, take_id, ins, why, why_size) < 0 ? -1 : 0;
        }
        free(days);
        free(hashes);
    }
    if (rc == 0 && ins->count > 0 && all_new && rows.ready) {
        rc = store_copy_send(s, &rows.data, why, why_size) < 0 || store_wait(s, why, why_size) < 0
                 ? -1 : 0;
    } else if (rc == 0 && ins->count > 0) {
        size_t count;
        struct sql_value *values = rows_values(records, n, NULL, &rows, &count);
        if (!values)
            snprintf(why, why_size, "out of memory");
        rc = values && store_copy(s, "summary_rows", rows.columns, values, count, rows.per_row, why,
                                  why_size) == 0 ? 0 : -1;
        free(values);
    }
    store_copy_data_free(&rows.data);
    free(rows.columns);
    return rc;
}

/* The keys of a statement of `rows` summaries were inserted with the ids
 * next_id + position, those archived before (or twice in it) skipped: the
 * records whose key holds its id are the new ones (all of them when the
 * statement inserted as many keys as rows). */
static int new_keys(struct store *s, struct summary_record *const *chunk, size_t rows,
                    long long next_id, bool all_new, char *why, size_t why_size)
{
    for (size_t r = 0; r < rows; r++) {
        long long id = next_id + (long long)r, stored = 0;
        if (!all_new) {
            struct sql_value p[2] = {sql_int(chunk[r]->start_day),
                                     sql_blob(chunk[r]->hash, SUMMARY_HASH_LEN)};
            if (store_query(s, "SELECT id FROM summary_keys WHERE start_day = ? AND hash = ?", p,
                            2, store_first_integer, &stored, why, why_size) < 0)
                return -1;
        }
        chunk[r]->id = all_new || stored == id ? id : 0;
    }
    return 0;
}

/* SQLite's path, in the write transaction that makes this the only writer:
 * the ids follow the largest one, given to the keys of each statement's
 * summaries in their order; the keys archived before are skipped, and when
 * some were, the new ones' ids are moved down to follow each other (as
 * they would have without the skipped ones), then the new rows are added. */
static int ingest_records_values(struct store *s, struct summary_record *const *records, size_t n,
                                 struct inserted *ins, char *why, size_t why_size)
{
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    if (nfields > MAX_SUMMARY_FIELDS)
        nfields = MAX_SUMMARY_FIELDS;
    size_t per_row = 1 + row_params(s) + nfields;
    long long next_id = 0;
    if (store_query(s, "SELECT coalesce(max(id), 0) + 1 FROM summary_rows", NULL, 0, store_first_integer,
                    &next_id, why, why_size) < 0)
        return -1;
    struct sql_value *params = malloc(ROWS_PER_STATEMENT * per_row * sizeof *params);
    if (!params) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    int rc = 0;
    for (size_t first = 0; first < n && rc == 0; first += ROWS_PER_STATEMENT) {
        size_t rows = n - first < ROWS_PER_STATEMENT ? n - first : ROWS_PER_STATEMENT, k = 0;
        struct summary_record *const *chunk = records + first;
        for (size_t r = 0; r < rows; r++) {
            params[k++] = sql_int(chunk[r]->start_day);
            params[k++] = sql_blob(chunk[r]->hash, SUMMARY_HASH_LEN);
            params[k++] = sql_int(next_id + (long long)r);
        }
        const char *keys = insert_sql(s, true, rows, nfields, fields);
        const char *insert = insert_sql(s, false, rows, nfields, fields);
        if (!keys || !insert) {
            snprintf(why, why_size, "out of memory");
            rc = -1;
            break;
        }
        long long inserted = store_exec(s, keys, params, k, why, why_size);
        if (inserted < 0) {
            rc = -1;
            break;
        }
        if (new_keys(s, chunk, rows, next_id, inserted == (long long)rows, why, why_size) < 0) {
            rc = -1;
            break;
        }
        size_t added = 0;
        for (size_t r = 0; r < rows; r++)
            added += chunk[r]->id != 0;
        ins->count += added;
        for (size_t r = 0, j = 0; r < rows && added < rows && rc == 0; r++) {
            if (!chunk[r]->id)
                continue;
            long long want = next_id + (long long)j++;
            struct sql_value p[3] = {sql_int(want), sql_int(chunk[r]->start_day),
                                     sql_blob(chunk[r]->hash, SUMMARY_HASH_LEN)};
            if (chunk[r]->id != want &&
                store_exec(s, "UPDATE summary_keys SET id = ? WHERE start_day = ? AND hash = ?", p, 3,
                           why, why_size) < 0)
                rc = -1;
            chunk[r]->id = want;
        }
        next_id += (long long)added;
        if (added > 0)
            ins->last_id = next_id - 1;
        k = 0;
        for (size_t r = 0; r < rows && rc == 0; r++) {
            if (!chunk[r]->id)
                continue;
            params[k++] = sql_int(chunk[r]->id);
            k += bind_record(params + k, chunk[r], summary_rows_have_start_day(s), nfields);
        }
        const char *sql = added == rows ? insert : insert_sql(s, false, added, nfields, fields);
        if (rc == 0 && added > 0 && (!sql || store_exec(s, sql, params, k, why, why_size) < 0)) {
            if (!sql)
                snprintf(why, why_size, "out of memory");
            rc = -1;
        }
    }
    free(params);
    return rc;
}

/* The document_shapes id of a shape, added when new. */
static int shape_id_of(struct store *s, const unsigned char *shape, size_t len, long long *id,
                       char *why, size_t why_size)
{
    struct sql_value p = sql_blob(shape, len);
    if (store_exec(s, "INSERT INTO document_shapes (members) VALUES (?)"
                      " ON CONFLICT (members) DO NOTHING", &p, 1, why, why_size) < 0)
        return -1;
    *id = 0;
    if (store_query(s, "SELECT id FROM document_shapes WHERE members = ?", &p, 1, store_first_integer,
                    id, why, why_size) < 0)
        return -1;
    if (!*id) {
        snprintf(why, why_size, "document shape not stored");
        return -1;
    }
    return 0;
}

/* Each record's shape id. The batch's distinct shapes (one or a few: the
 * shape of a tool's summaries) are looked up once each, in the
 * transaction, so that a rolled back shape is never referred to. */
static int document_shapes_resolve(struct store *s, struct summary_record *const *records,
                                   size_t n, char *why, size_t why_size)
{
    enum { KNOWN = 16 };
    const struct summary_record *known[KNOWN];
    size_t nknown = 0, last = 0;
    for (size_t i = 0; i < n; i++) {
        struct summary_record *r = records[i];
        const unsigned char *shape = r->packed + r->packed_len;
        if (!r->shape_len)
            continue; /* stored whole */
        size_t j = last < nknown ? last : 0, k;
        for (k = 0; k < nknown; k++, j = (j + 1) % nknown) {
            const struct summary_record *o = known[j];
            if (o->shape_len == r->shape_len && !memcmp(o->packed + o->packed_len, shape, r->shape_len))
                break;
        }
        if (k < nknown) {
            r->shape_id = known[j]->shape_id;
            last = j;
            continue;
        }
        if (shape_id_of(s, shape, r->shape_len, &r->shape_id, why, why_size) < 0)
            return -1;
        last = nknown < KNOWN ? nknown++ : (size_t)(i % KNOWN);
        known[last] = r;
    }
    return 0;
}

/* Each record's dictionary ids (in the transaction: a text added by one
 * that rolls back is forgotten, dictionary.h), the new ones looked up and
 * added together. */
static int dictionary_resolve(struct store *s, struct summary_record *const *records, size_t n,
                              char *why, size_t why_size)
{
    enum { KINDS = DICT_KINDS - DICT_NAME };
    _Static_assert(sizeof records[0]->text_ids / sizeof records[0]->text_ids[0] == KINDS,
                   "an id per kind");
    struct dictionary_text *texts = malloc((n ? n : 1) * KINDS * sizeof *texts);
    if (!texts) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        struct summary_record *r = records[i];
        const char *of[KINDS] = {r->name, r->category, r->set, r->host, r->tool, r->exit_type};
        for (int k = 0; k < KINDS; k++)
            texts[KINDS * i + k] = (struct dictionary_text){DICT_NAME + k, of[k], &r->text_ids[k]};
    }
    int rc = dictionary_ids(s, texts, KINDS * n, why, why_size);
    free(texts);
    return rc;
}

int ingest_records(struct store *s, struct summary_record *const *records, size_t n,
                   size_t *added, long long *last_id, char *why, size_t why_size)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    /* whole seconds: stored in 4 bytes instead of 8 (SQLite keeps an
     * integral REAL as an integer), the same UTC day for aggregate_day */
    struct inserted ins = {0, 0, NULL, 0, 0};
    for (size_t i = 0; i < n; i++) {
        records[i]->id = 0;
        if (!records[i]->archived_at)
            records[i]->archived_at = (double)now.tv_sec;
    }
    if (document_shapes_resolve(s, records, n, why, why_size) < 0 ||
        dictionary_resolve(s, records, n, why, why_size) < 0)
        return -1;
    int rc = 0;
    if (!store_can_copy(s))
        rc = ingest_records_values(s, records, n, &ins, why, why_size);
    for (size_t first = 0; store_can_copy(s) && first < n && rc == 0; first += COPY_ROWS) {
        struct inserted chunk = {0};
        rc = ingest_records_copy(s, records + first, n - first < COPY_ROWS ? n - first : COPY_ROWS,
                                 &chunk, why, why_size);
        ins.count += chunk.count;
        if (chunk.last_id > ins.last_id)
            ins.last_id = chunk.last_id;
    }
    if (rc < 0)
        return -1;
    *added = ins.count;
    *last_id = ins.last_id;
    return 0;
}

int ingest_record(struct store *s, const struct summary_record *r, long long *id, char *why,
                  size_t why_size)
{
    size_t added;
    long long last_id;
    struct summary_record *one = (struct summary_record *)r;
    if (ingest_records(s, &one, 1, &added, &last_id, why, why_size) < 0)
        return -1;
    if (id)
        *id = last_id;
    return added ? 1 : 0;
}

static int insert_name_fields(struct store *s, const struct sql_value *pairs, size_t rows, char *why,
                              size_t why_size)
{
    char *sql = rows_statement("INSERT INTO name_fields (name, field) VALUES", "?, ?", rows,
                               " ON CONFLICT (name, field) DO NOTHING", why, why_size);
    int rc = sql && store_exec(s, sql, pairs, 2 * rows, why, why_size) >= 0 ? 0 : -1;
    free(sql);
    return rc;
}

int ingest_name_fields(struct store *s, struct summary_record *const *records, size_t n,
                       char *why, size_t why_size)
{
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    if (nfields > MAX_SUMMARY_FIELDS)
        nfields = MAX_SUMMARY_FIELDS;
    /* the distinct names of the batch, each with the union of its fields,
     * found by a hash of the name (a site's batch holds hundreds of names) */
    struct name_mask {
        const char *name;
        bool present[MAX_SUMMARY_FIELDS];
    } *names = calloc(n ? n : 1, sizeof *names);
    size_t nslots = 16;
    while (nslots < 2 * n)
        nslots *= 2;
    size_t *slots = calloc(nslots, sizeof *slots); /* position in names + 1; 0: empty */
    if (!names || !slots) {
        free(names);
        free(slots);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        const struct summary_record *r = records[i];
        size_t h = 1469598103934665603u;
        for (const unsigned char *c = (const unsigned char *)r->name; *c; c++)
            h = (h ^ *c) * 1099511628211u;
        for (h &= nslots - 1; slots[h] && strcmp(names[slots[h] - 1].name, r->name);
             h = (h + 1) & (nslots - 1))
            ;
        if (!slots[h]) {
            names[distinct++].name = r->name;
            slots[h] = distinct;
        }
        struct name_mask *j = &names[slots[h] - 1];
        for (size_t f = 0; f < nfields; f++)
            j->present[f] |= r->present[f];
    }
    free(slots);
    /* the pairs, ROWS_STATEMENT_CHUNK to a statement */
    struct sql_value p[2 * ROWS_STATEMENT_CHUNK];
    size_t rows = 0;
    int rc = 0;
    for (size_t j = 0; j < distinct && rc == 0; j++)
        for (size_t f = 0; f < nfields && rc == 0; f++) {
            if (!names[j].present[f])
                continue;
            p[2 * rows] = sql_text(names[j].name);
            p[2 * rows + 1] = sql_text(fields[f].name);
            if (++rows == ROWS_STATEMENT_CHUNK) {
                rc = insert_name_fields(s, p, rows, why, why_size);
                rows = 0;
            }
        }
    if (rc == 0 && rows) /* the last, partly filled statement */
        rc = insert_name_fields(s, p, rows, why, why_size);
    free(names);
    return rc;
}

int ingest_set_description(struct store *s, const char *set, const char *description, char *why,
                           size_t why_size)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct sql_value p[3] = {sql_text(set), sql_text(description), sql_real((double)now.tv_sec)};
    return store_exec(s, "INSERT INTO sets (id, description, created) VALUES (?, ?, ?)"
                         " ON CONFLICT (id) DO NOTHING",
                      p, 3, why, why_size) < 0 ? -1 : 0;
}

int ingest_aggregate_runs(struct aggregate_table *t, struct summary_record *const *records,
                          size_t n, long long first_position)
{
    for (size_t i = 0; i < n; i++) {
        const struct summary_record *r = records[i];
        if (!first_position && !r->id) /* archived before: already counted */
            continue;
        double values[FIELD_COUNT];
        bool present[FIELD_COUNT];
        for (size_t f = 0; f < FIELD_COUNT; f++) {
            present[f] = f < MAX_SUMMARY_FIELDS && r->present[f];
            values[f] = present[f] ? r->values[f] : NAN;
        }
        long long day = aggregate_day(present[FIELD_START], values[FIELD_START], r->archived_at);
        if (aggregate_table_add_run(t, r->name, r->category, day, values, present,
                                    first_position ? first_position + (long long)i : r->id,
                                    r->exit_type && !strcmp(r->exit_type, "limits")) < 0)
            return -1;
    }
    return 0;
}

int ingest_aggregates(struct store *s, struct summary_record *const *records, size_t n,
                      const struct aggregate_table *provisional, char *why, size_t why_size)
{
    bool all_new = true;
    for (size_t i = 0; i < n && all_new; i++)
        all_new = records[i]->id != 0;
    if (provisional && all_new) {
        long long *ids = malloc((n ? n : 1) * sizeof *ids);
        if (!ids) {
            snprintf(why, why_size, "out of memory");
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            ids[i] = records[i]->id;
        int rc = aggregate_table_flush(provisional, s, ids, n, why, why_size);
        free(ids);
        return rc;
    }
    struct aggregate_table *t = aggregate_table_new();
    if (!t || ingest_aggregate_runs(t, records, n, 0) < 0 || aggregate_table_settle(t) < 0) {
        aggregate_table_free(t);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    int rc = aggregate_table_flush(t, s, NULL, 0, why, why_size);
    aggregate_table_free(t);
    return rc;
}
