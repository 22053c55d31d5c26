/* PostgreSQL backend of the store, through libpq: for many submitters on many
 * hosts. Statements are written with '?' placeholders (the SQLite spelling)
 * and rewritten to $1, $2, ...; they are prepared once per connection and
 * cached, and every value is sent as a parameter. */
#include "archive/store_backend.h"

#include <libpq-fe.h>
#include "archive/libpq_api.h"
#include "archive/pg_copy_binary.h"
#include "util/byte_codec.h"
#include "util/hex.h"
#include "util/vec.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATEMENT_CACHE_SIZE 16
#define COPY_TARGETS 4
#define MAX_PARAMS 65535 /* the protocol's limit */

struct prepared {
    char *sql;  /* as the caller wrote it */
    char name[24];
    bool *bytea; /* of each parameter: is its type bytea (its bytes then go as they are) */
    bool binary_results; /* every result column of a type read in binary (binary_readable) */
};

/* The column types of a COPY's target, "table (columns)", for the binary
 * format; found once per connection. */
struct copy_target {
    char *target;
    unsigned *types;
};

struct postgres_store {
    PGconn *conn;
    struct prepared cache[STATEMENT_CACHE_SIZE];
    size_t next_victim;
    struct copy_target copy_targets[COPY_TARGETS];
    size_t next_copy_target;
    unsigned serial;
    const char **values;  /* parameters as text, for PQexecPrepared */
    char (*numbers)[32];  /* the text of numeric parameters */
    int *lengths, *formats; /* of each parameter: blobs go as bytes (format 1) */
    size_t param_capacity;
};

/* '?' → $n, outside quoted strings and identifiers. */
static char *number_placeholders(const char *sql)
{
    size_t len = strlen(sql);
    char *out = malloc(len * 4 + 1);
    if (!out)
        return NULL;
    char *o = out;
    int n = 0;
    char quote = 0;
    for (const char *p = sql; *p; p++) {
        if (quote) {
            if (*p == quote)
                quote = 0;
            *o++ = *p;
        } else if (*p == '\'' || *p == '"') {
            quote = *p;
            *o++ = *p;
        } else if (*p == '?') {
            o += sprintf(o, "$%d", ++n);
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

/* libpq's messages span lines; tally's errors are one line. */
static void one_line(const char *msg, char *why, size_t why_size)
{
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' ' || msg[n - 1] == '\t'))
        n--;
    snprintf(why, why_size, "%.*s", (int)n, msg);
    for (char *p = why; *p; p++)
        if (*p == '\n' || *p == '\t')
            *p = ' ';
}

static void set_error(struct postgres_store *impl, char *why, size_t why_size)
{
    one_line(PQ(PQerrorMessage)(impl->conn), why, why_size);
}

static void set_result_error(struct store *s, PGresult *res, char *why, size_t why_size)
{
    one_line(PQ(PQresultErrorMessage)(res), why, why_size);
    const char *state = PQ(PQresultErrorField)(res, PG_DIAG_SQLSTATE);
    /* 40P01 deadlock_detected, 40001 serialization_failure */
    if (state && (!strcmp(state, "40P01") || !strcmp(state, "40001")))
        s->retryable = true;
    if (state && !strcmp(state, "23505")) /* unique_violation */
        s->duplicate = true;
}

/* The column types whose binary form postgres_query reads (as it reads
 * their text form): integers, floats, text, bytes. Numeric and the others
 * stay in text. */
static bool binary_readable(Oid t)
{
    return t == OID_INT2 || t == OID_INT4 || t == OID_INT8 || t == OID_FLOAT4 || t == OID_FLOAT8 ||
           t == OID_TEXT || t == OID_VARCHAR || t == OID_BYTEA;
}

/* The prepared statement of sql, preparing it on first use. */
static const struct prepared *prepare(struct store *s, const char *sql, int nparams, char *why,
                           size_t why_size)
{
    struct postgres_store *impl = s->impl;
    for (size_t i = 0; i < STATEMENT_CACHE_SIZE; i++)
        if (impl->cache[i].sql && !strcmp(impl->cache[i].sql, sql))
            return &impl->cache[i];
    char *numbered = number_placeholders(sql);
    if (!numbered) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    struct prepared *slot = &impl->cache[impl->next_victim];
    impl->next_victim = (impl->next_victim + 1) % STATEMENT_CACHE_SIZE;
    if (slot->sql) {
        char deallocate[64];
        snprintf(deallocate, sizeof deallocate, "DEALLOCATE %s", slot->name);
        PQ(PQclear)(PQ(PQexec)(impl->conn, deallocate));
        free(slot->sql);
        slot->sql = NULL;
    }
    snprintf(slot->name, sizeof slot->name, "tally_%u", ++impl->serial);
    PGresult *res = PQ(PQprepare)(impl->conn, slot->name, numbered, nparams, NULL);
    free(numbered);
    if (PQ(PQresultStatus)(res) != PGRES_COMMAND_OK) {
        set_result_error(s, res, why, why_size);
        PQ(PQclear)(res);
        return NULL;
    }
    PQ(PQclear)(res);
    /* the types the server gave the parameters: bytes go as they are only
     * to bytea (an old schema's text column gets bytea's text form) */
    free(slot->bytea);
    slot->bytea = calloc(nparams ? (size_t)nparams : 1, sizeof *slot->bytea);
    res = slot->bytea ? PQ(PQdescribePrepared)(impl->conn, slot->name) : NULL;
    slot->binary_results = false;
    if (res && PQ(PQresultStatus)(res) == PGRES_COMMAND_OK && PQ(PQnparams)(res) == nparams) {
        for (int i = 0; i < nparams; i++)
            slot->bytea[i] = PQ(PQparamtype)(res, i) == OID_BYTEA;
        /* and the results come in binary when every column can be read so */
        int ncols = PQ(PQnfields)(res);
        slot->binary_results = ncols > 0;
        for (int c = 0; c < ncols; c++)
            slot->binary_results &= binary_readable(PQ(PQftype)(res, c));
    }
    PQ(PQclear)(res);
    slot->sql = strdup(sql);
    return slot;
}

/* bytea's text form of n bytes at out: \x, two hex digits a byte, NUL;
 * just past the NUL. */
static char *hex_form(char *out, const char *bytes, size_t n)
{
    out[0] = '\\';
    out[1] = 'x';
    hex_encode(bytes, n, out + 2);
    return out + 2 + 2 * n + 1;
}

static void forget_copy_targets(struct postgres_store *impl)
{
    for (size_t i = 0; i < COPY_TARGETS; i++) {
        free(impl->copy_targets[i].target);
        free(impl->copy_targets[i].types);
        impl->copy_targets[i] = (struct copy_target){NULL, NULL};
    }
}

/* Runs a statement and returns its result; with send (a statement with
 * parameters), sends it without waiting (*sent true when it went) and
 * returns NULL: postgres_wait takes its result. */
static PGresult *run(struct store *s, const char *sql, const struct sql_value *params,
                     size_t nparams, bool send, bool *sent, char *why, size_t why_size)
{
    struct postgres_store *impl = s->impl;
    if (send && !params) {
        snprintf(why, why_size, "a statement sent without waiting takes parameters");
        return NULL;
    }
    if (nparams > MAX_PARAMS) {
        snprintf(why, why_size, "too many parameters (%zu)", nparams);
        return NULL;
    }
    if (nparams > impl->param_capacity) { /* text forms of the values, reused */
        free(impl->values);
        free(impl->numbers);
        free(impl->lengths);
        free(impl->formats);
        impl->values = malloc(nparams * sizeof *impl->values);
        impl->numbers = malloc(nparams * sizeof *impl->numbers);
        impl->lengths = malloc(nparams * sizeof *impl->lengths);
        impl->formats = malloc(nparams * sizeof *impl->formats);
        impl->param_capacity = impl->values && impl->numbers && impl->lengths && impl->formats ? nparams : 0;
        if (!impl->param_capacity) {
            snprintf(why, why_size, "out of memory");
            return NULL;
        }
    }
    if (!params) { /* plain statements or scripts (schema, BEGIN, COMMIT) */
        PGresult *res = PQ(PQexec)(impl->conn, sql);
        if (!res)
            set_error(impl, why, why_size);
        /* a table dropped or altered: the plans prepared on it would fail
         * ("cached plan must not change result type"); prepare them again */
        if (strstr(sql, "DROP ") || strstr(sql, "ALTER ")) {
            for (size_t i = 0; i < STATEMENT_CACHE_SIZE; i++) {
                free(impl->cache[i].sql);
                impl->cache[i].sql = NULL;
            }
            forget_copy_targets(impl);
            PQ(PQclear)(PQ(PQexec)(impl->conn, "DEALLOCATE ALL"));
        }
        return res;
    }
    const struct prepared *statement = prepare(s, sql, (int)nparams, why, why_size);
    if (!statement)
        return NULL;
    const char **values = impl->values;
    char(*numbers)[32] = impl->numbers;
    size_t blob_text = 0;
    for (size_t i = 0; i < nparams; i++)
        if (params[i].type == SQL_BLOB && !statement->bytea[i])
            blob_text += 2 * params[i].length + 3;
    char *blobs = blob_text ? malloc(blob_text) : NULL, *next_blob = blobs;
    if (blob_text && !blobs) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < nparams; i++) {
        impl->formats[i] = 0;
        impl->lengths[i] = 0;
        switch (params[i].type) {
        case SQL_TEXT: values[i] = params[i].text; break;
        case SQL_REAL:
            snprintf(numbers[i], sizeof numbers[i], "%.17g", params[i].real);
            values[i] = numbers[i];
            break;
        case SQL_INT:
            snprintf(numbers[i], sizeof numbers[i], "%lld", params[i].integer);
            values[i] = numbers[i];
            break;
        case SQL_BLOB:
            if (params[i].length > INT32_MAX) {
                snprintf(why, why_size, "a value of %zu bytes is too long", params[i].length);
                free(blobs);
                return NULL;
            }
            if (statement->bytea[i]) { /* as they are: bytea's binary form is its bytes */
                values[i] = params[i].text;
                impl->lengths[i] = (int)params[i].length;
                impl->formats[i] = 1;
            } else { /* bytea's text form, \x and two hex digits a byte */
                values[i] = next_blob;
                next_blob = hex_form(next_blob, params[i].text, params[i].length);
            }
            break;
        default: values[i] = NULL; break;
        }
    }
    PGresult *res = NULL;
    if (send) {
        *sent = PQ(PQsendQueryPrepared)(impl->conn, statement->name, (int)nparams, values,
                                        impl->lengths, impl->formats, statement->binary_results) == 1;
        if (!*sent)
            set_error(impl, why, why_size);
    } else {
        res = PQ(PQexecPrepared)(impl->conn, statement->name, (int)nparams, values, impl->lengths,
                                 impl->formats, statement->binary_results);
        if (!res)
            set_error(impl, why, why_size);
    }
    free(blobs);
    return res;
}

static PGresult *execute(struct store *s, const char *sql, const struct sql_value *params,
                         size_t nparams, char *why, size_t why_size)
{
    return run(s, sql, params, nparams, false, NULL, why, why_size);
}

static int postgres_send(struct store *s, const char *sql, const struct sql_value *params,
                         size_t nparams, char *why, size_t why_size)
{
    bool sent = false;
    run(s, sql, params, nparams, true, &sent, why, why_size);
    return sent ? 0 : -1;
}

/* The sent statement's outcome: its results read to the end (the
 * connection is then free for the next statement). */
static long long postgres_wait(struct store *s, char *why, size_t why_size)
{
    struct postgres_store *impl = s->impl;
    long long changed = -1;
    bool any = false, failed = false;
    PGresult *res;
    while ((res = PQ(PQgetResult)(impl->conn)) != NULL) {
        ExecStatusType st = PQ(PQresultStatus)(res);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
            if (!failed)
                set_result_error(s, res, why, why_size);
            failed = true;
        } else if (!failed && !any) {
            changed = atoll(PQ(PQcmdTuples)(res));
        }
        any = true;
        PQ(PQclear)(res);
    }
    if (!any) { /* nothing was sent, or the connection broke */
        set_error(impl, why, why_size);
        return -1;
    }
    return failed ? -1 : changed;
}

static long long postgres_exec(struct store *s, const char *sql, const struct sql_value *params,
                               size_t nparams, char *why, size_t why_size)
{
    PGresult *res = execute(s, sql, params, nparams, why, why_size);
    if (!res)
        return -1;
    ExecStatusType st = PQ(PQresultStatus)(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        set_result_error(s, res, why, why_size);
        PQ(PQclear)(res);
        return -1;
    }
    long long changed = atoll(PQ(PQcmdTuples)(res));
    PQ(PQclear)(res);
    return changed;
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* bytea's text form (\x and hex digits) decoded into out (room for
 * strlen(text) / 2 bytes); the number of bytes. */
static size_t decode_bytea(const char *text, unsigned char *out)
{
    size_t n = 0;
    if (text[0] != '\\' || text[1] != 'x')
        return 0;
    for (const char *p = text + 2; hex_value(p[0]) >= 0 && hex_value(p[1]) >= 0; p += 2)
        out[n++] = (unsigned char)(hex_value(p[0]) << 4 | hex_value(p[1]));
    return n;
}

/* A value in its binary form (big-endian integers and IEEE floats, text
 * and bytes as they are: libpq ends every value with a NUL) for a column of
 * a binary_readable type. */
static struct sql_value binary_value(Oid type, const char *v, size_t len)
{
    const unsigned char *b = (const unsigned char *)v;
    uint64_t n = 0;
    for (size_t i = 0; i < len && i < 8; i++)
        n = n << 8 | b[i];
    switch (type) {
    case OID_INT2: return sql_int((int16_t)n);
    case OID_INT4: return sql_int((int32_t)n);
    case OID_INT8: return sql_int((int64_t)n);
    case OID_FLOAT4: {
        uint32_t bits = (uint32_t)n;
        float f;
        memcpy(&f, &bits, sizeof f);
        return sql_real(f);
    }
    case OID_FLOAT8: {
        double d;
        memcpy(&d, &n, sizeof d);
        return sql_real(d);
    }
    case OID_BYTEA: return sql_blob(v, len);
    default: return sql_text(v);
    }
}

/* What reading a query's rows keeps from one result to the next. */
struct row_reader {
    int ncols;
    struct sql_value *row;
    Oid *types;
    bool *binary;
    unsigned char *bytes; /* the decoded blobs of one row (text format) */
    size_t bytes_capacity;
    bool stopped;         /* fn asked for no more rows, or memory ran out */
    bool out_of_memory;
};

static void row_reader_free(struct row_reader *rr)
{
    free(rr->row);
    free(rr->types);
    free(rr->binary);
    free(rr->bytes);
}

/* The column types of the first result; -1 when out of memory. */
static int row_reader_start(struct row_reader *rr, const PGresult *res)
{
    rr->ncols = PQ(PQnfields)(res);
    rr->row = calloc((size_t)rr->ncols + 1, sizeof *rr->row);
    rr->types = calloc((size_t)rr->ncols + 1, sizeof *rr->types);
    rr->binary = calloc((size_t)rr->ncols + 1, sizeof *rr->binary);
    if (!rr->row || !rr->types || !rr->binary)
        return -1;
    for (int c = 0; c < rr->ncols; c++) {
        rr->types[c] = PQ(PQftype)(res, c);
        rr->binary[c] = PQ(PQfformat)(res, c) == 1;
    }
    return 0;
}

/* The rows of one result, each given to fn until it asks for no more. */
static void read_rows(struct row_reader *rr, const PGresult *res, store_row_fn fn, void *ctx)
{
    int nrows = PQ(PQntuples)(res), ncols = rr->ncols;
    for (int r = 0; r < nrows && !rr->stopped; r++) {
        size_t blob_room = 0;
        for (int c = 0; c < ncols; c++)
            if (rr->types[c] == OID_BYTEA && !rr->binary[c])
                blob_room += (size_t)PQ(PQgetlength)(res, r, c) / 2 + 1;
        if (VEC_RESERVE(rr->bytes, rr->bytes_capacity, blob_room) < 0) {
            rr->stopped = rr->out_of_memory = true;
            break;
        }
        unsigned char *room = rr->bytes;
        for (int c = 0; c < ncols; c++) {
            const char *v = PQ(PQgetvalue)(res, r, c);
            Oid type = rr->types[c];
            if (PQ(PQgetisnull)(res, r, c))
                rr->row[c] = sql_null();
            else if (rr->binary[c])
                rr->row[c] = binary_value(type, v, (size_t)PQ(PQgetlength)(res, r, c));
            else if (type == OID_INT8 || type == OID_INT2 || type == OID_INT4)
                rr->row[c] = sql_int(atoll(v));
            else if (type == OID_FLOAT4 || type == OID_FLOAT8 || type == OID_NUMERIC)
                rr->row[c] = sql_real(strtod(v, NULL));
            else if (type == OID_BYTEA) {
                size_t n = decode_bytea(v, room);
                rr->row[c] = sql_blob(room, n);
                room += n + 1;
            }
            else
                rr->row[c] = sql_text(v);
        }
        if (fn && fn(ctx, (size_t)ncols, rr->row))
            rr->stopped = true;
    }
}

/* One result of a query read (its rows given to fn) and cleared. */
struct query_read {
    struct row_reader rows;
    bool started, failed;
};

static void take_result(struct store *s, struct query_read *q, PGresult *res, store_row_fn fn, void *ctx,
                        char *why, size_t why_size)
{
    ExecStatusType st = PQ(PQresultStatus)(res);
    if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK) {
        if (!q->failed)
            set_result_error(s, res, why, why_size);
        q->failed = true;
    } else if (!q->failed && !q->rows.stopped) {
        if (!q->started && row_reader_start(&q->rows, res) < 0)
            q->rows.stopped = q->rows.out_of_memory = true;
        else
            read_rows(&q->rows, res, fn, ctx);
        q->started = true;
    }
    PQ(PQclear)(res);
}

/* With parameters, the rows come one at a time (libpq's single-row mode),
 * each given to fn while the server sends the next: a question's day rows
 * are decoded as they arrive, not after the last (10 MB at 10^7 summaries,
 * half the question's time). Rows after fn stops are read and dropped,
 * which leaves the connection free for the next statement. */
static int postgres_query(struct store *s, const char *sql, const struct sql_value *params,
                          size_t nparams, store_row_fn fn, void *ctx, char *why, size_t why_size)
{
    struct postgres_store *impl = s->impl;
    struct query_read q = {0};
    if (!params) { /* a plain statement: its result at once */
        PGresult *res = execute(s, sql, params, nparams, why, why_size);
        if (!res)
            return -1;
        take_result(s, &q, res, fn, ctx, why, why_size);
    } else {
        bool sent = false;
        run(s, sql, params, nparams, true, &sent, why, why_size);
        if (!sent)
            return -1;
        PQ(PQsetSingleRowMode)(impl->conn); /* refused, the rows come at once: read the same */
        PGresult *res;
        while ((res = PQ(PQgetResult)(impl->conn)) != NULL)
            take_result(s, &q, res, fn, ctx, why, why_size);
    }
    row_reader_free(&q.rows);
    if (q.rows.out_of_memory && !q.failed) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    if (!q.failed && !q.started) { /* no result at all: the connection broke */
        set_error(impl, why, why_size);
        return -1;
    }
    return q.failed ? -1 : 0;
}

/* --- COPY ... FROM STDIN, text format ---------------------------------- */

/* Text as COPY's text format reads it: backslash, tab, newline and carriage
 * return escaped (a quote needs nothing). */
static void copy_text(struct byte_writer *b, const char *s)
{
    const char *run = s;
    for (; *s; s++) {
        const char *escape = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n"
                             : *s == '\r' ? "\\r" : NULL;
        if (!escape)
            continue;
        byte_put(b, run, (size_t)(s - run));
        byte_put(b, escape, 2);
        run = s + 1;
    }
    byte_put(b, run, (size_t)(s - run));
}

static void copy_value(struct byte_writer *b, const struct sql_value *v)
{
    char number[40];
    switch (v->type) {
    case SQL_TEXT: copy_text(b, v->text); break;
    case SQL_REAL: byte_put(b, number, (size_t)snprintf(number, sizeof number, "%.17g", v->real)); break;
    case SQL_INT: byte_put(b, number, (size_t)snprintf(number, sizeof number, "%lld", v->integer)); break;
    case SQL_BLOB: { /* bytea's \x form, its backslash escaped for COPY */
        byte_put(b, "\\\\x", 3);
        char hex[2 * 256 + 1];
        for (size_t k = 0; k < v->length; k += 256) {
            size_t n = v->length - k < 256 ? v->length - k : 256;
            byte_put(b, hex_encode(v->text + k, n, hex), 2 * n);
        }
        break;
    }
    default: byte_put(b, "\\N", 2); break;
    }
}

/* --- COPY ... FROM STDIN, binary where the values fit (pg_copy_binary.h) -- */

/* The types of table (columns) learnt before (copy_types), without a
 * statement; NULL when not known yet. */
static const unsigned *known_copy_types(const struct postgres_store *impl, const char *table,
                                        const char *columns)
{
    size_t tlen = strlen(table), clen = strlen(columns);
    for (size_t i = 0; i < COPY_TARGETS; i++) {
        const char *t = impl->copy_targets[i].target; /* "table (columns)" */
        if (t && !strncmp(t, table, tlen) && !strncmp(t + tlen, " (", 2) &&
            !strncmp(t + tlen + 2, columns, clen) && !strcmp(t + tlen + 2 + clen, ")"))
            return impl->copy_targets[i].types;
    }
    return NULL;
}

/* The types of table's columns (ncols of them), from an empty select; NULL
 * when they cannot be had (the text format then). */
static const unsigned *copy_types(struct postgres_store *impl, const char *table, const char *columns,
                                  size_t ncols)
{
    const unsigned *known = known_copy_types(impl, table, columns);
    if (known)
        return known;
    char *target = NULL;
    if (asprintf(&target, "%s (%s)", table, columns) < 0)
        return NULL;
    char *sql = NULL;
    unsigned *types = malloc((ncols ? ncols : 1) * sizeof *types);
    PGresult *res = types && asprintf(&sql, "SELECT %s FROM %s LIMIT 0", columns, table) >= 0
                        ? PQ(PQexec)(impl->conn, sql) : NULL;
    free(sql);
    bool found = res && PQ(PQresultStatus)(res) == PGRES_TUPLES_OK && (size_t)PQ(PQnfields)(res) == ncols;
    for (size_t c = 0; found && c < ncols; c++)
        types[c] = PQ(PQftype)(res, (int)c);
    PQ(PQclear)(res);
    if (!found) {
        free(types);
        free(target);
        return NULL;
    }
    struct copy_target *slot = &impl->copy_targets[impl->next_copy_target];
    impl->next_copy_target = (impl->next_copy_target + 1) % COPY_TARGETS;
    free(slot->target);
    free(slot->types);
    *slot = (struct copy_target){target, types};
    return types;
}

/* The COPY of nrows × ncols values into table (columns) as it will be sent:
 * its statement and data (binary where every value fits its column, else
 * text). 1, nothing encoded, when the columns' types are not known yet
 * and no statement may run to learn them (statements_allowed false: a COPY
 * is under way); -1 when out of memory (said). */
static int postgres_copy_encode(struct store *s, const char *table, const char *columns,
                                const struct sql_value *values, size_t nrows, size_t ncols,
                                bool statements_allowed, struct store_copy_data *out, char *why,
                                size_t why_size)
{
    struct postgres_store *impl = s->impl;
    *out = (struct store_copy_data){NULL, NULL, 0};
    const unsigned *types = known_copy_types(impl, table, columns);
    if (!types && !statements_allowed)
        return 1;
    if (!types)
        types = copy_types(impl, table, columns, ncols);
    struct byte_writer b = {NULL, 0, 0, false};
    bool binary = types != NULL;
    if (binary) {
        byte_reserve(&b, nrows * (2 + ncols * 12) + 32);
        pg_copy_binary_header(&b);
        for (size_t r = 0; r < nrows && binary; r++)
            binary = pg_copy_binary_row(&b, types, &values[r * ncols], ncols);
        if (binary)
            pg_copy_binary_trailer(&b);
        else /* a value that does not fit its column: the text format */
            b.len = 0;
    }
    if (!binary) {
        for (size_t r = 0; r < nrows; r++) {
            for (size_t c = 0; c < ncols; c++) {
                if (c)
                    byte_put(&b, "\t", 1);
                copy_value(&b, &values[r * ncols + c]);
            }
            byte_put(&b, "\n", 1);
        }
    }
    if (b.failed || asprintf(&out->sql, "COPY %s (%s) FROM STDIN%s", table, columns,
                             binary ? " WITH (FORMAT binary)" : "") < 0) {
        out->sql = NULL;
        free(b.data);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    out->bytes = b.data;
    out->len = b.len;
    return 0;
}

/* Sends an encoded COPY whole, without waiting for its outcome: 0 when
 * postgres_wait is to read it, -1 when it failed before (said; nothing to
 * wait for). */
static int postgres_copy_send(struct store *s, const struct store_copy_data *data, char *why,
                              size_t why_size)
{
    struct postgres_store *impl = s->impl;
    PGresult *res = PQ(PQexec)(impl->conn, data->sql);
    if (PQ(PQresultStatus)(res) != PGRES_COPY_IN) {
        set_result_error(s, res, why, why_size);
        PQ(PQclear)(res);
        return -1;
    }
    PQ(PQclear)(res);
    int rc = 0;
    for (size_t at = 0; at < data->len && rc == 0; at += 1 << 20) { /* a megabyte at a time */
        size_t n = data->len - at < (1 << 20) ? data->len - at : (1 << 20);
        if (PQ(PQputCopyData)(impl->conn, (const char *)data->bytes + at, (int)n) != 1)
            rc = -1;
    }
    if (PQ(PQputCopyEnd)(impl->conn, rc == 0 ? NULL : "tally: the data could not be sent") == 1 &&
        rc == 0)
        return 0;
    set_error(impl, why, why_size);
    while ((res = PQ(PQgetResult)(impl->conn)) != NULL) /* the connection free again */
        PQ(PQclear)(res);
    return -1;
}

static int postgres_copy(struct store *s, const char *table, const char *columns,
                         const struct sql_value *values, size_t nrows, size_t ncols, char *why,
                         size_t why_size)
{
    struct store_copy_data data;
    if (postgres_copy_encode(s, table, columns, values, nrows, ncols, true, &data, why, why_size) != 0)
        return -1;
    int rc = postgres_copy_send(s, &data, why, why_size) < 0 || postgres_wait(s, why, why_size) < 0
                 ? -1 : 0;
    free(data.sql);
    free(data.bytes);
    return rc;
}

static void postgres_close(struct store *s)
{
    struct postgres_store *impl = s->impl;
    for (size_t i = 0; i < STATEMENT_CACHE_SIZE; i++) {
        free(impl->cache[i].sql);
        free(impl->cache[i].bytea);
    }
    forget_copy_targets(impl);
    PQ(PQfinish)(impl->conn);
    free(impl->values);
    free(impl->numbers);
    free(impl->lengths);
    free(impl->formats);
    free(impl);
    free(s->location);
    free(s);
}

static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

static const struct store_backend postgres_backend = {
    .name = "postgresql",
    .id_column = "id BIGSERIAL PRIMARY KEY",
    .begin_write = "BEGIN",
    .lock_schema = "SELECT pg_advisory_xact_lock(74110311)",
    /* the catalog itself: information_schema.columns took 8 ms to plan
     * and run, at every opening of an archive (a question's sixth) */
    .table_columns = "SELECT a.attname FROM pg_catalog.pg_attribute a"
                     " JOIN pg_catalog.pg_class c ON c.oid = a.attrelid"
                     " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                     " WHERE n.nspname = current_schema() AND c.relname = ?"
                     " AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
    .blob_type = "BYTEA",
    .aggregates_uncompressed = "ALTER TABLE aggregates ALTER COLUMN data SET STORAGE EXTERNAL;",
    .partitioned_id_column = "id BIGSERIAL",
    .partition_by = " PARTITION BY RANGE (start_day)",
    .copy = postgres_copy,
    .copy_encode = postgres_copy_encode,
    .copy_send = postgres_copy_send,
    .send = postgres_send,
    .wait = postgres_wait,
    .size_query = "SELECT pg_database_size(current_database())",
    /* FULL: plain VACUUM keeps the space for the table's own reuse; FULL
     * rewrites each table under an exclusive lock and gives it back */
    .compact = "VACUUM FULL",
    .reset_ids = "SELECT setval(pg_get_serial_sequence('summaries', 'id'),"
                 " (SELECT coalesce(max(id), 0) + 1 FROM summaries), false);",
    .exec = postgres_exec,
    .query = postgres_query,
    .close = postgres_close,
};

struct store *store_postgres_open(const char *uri, char *why, size_t why_size)
{
    if (!libpq_api_load(why, why_size))
        return NULL;
    struct store *s = calloc(1, sizeof *s);
    struct postgres_store *impl = calloc(1, sizeof *impl);
    if (!s || !impl) {
        free(s);
        free(impl);
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    s->backend = &postgres_backend;
    s->impl = impl;
    s->location = strdup(uri);
    impl->conn = PQ(PQconnectdb)(uri);
    if (PQ(PQstatus)(impl->conn) != CONNECTION_OK) {
        set_error(impl, why, why_size);
        postgres_close(s);
        return NULL;
    }
    PQ(PQsetNoticeProcessor)(impl->conn, ignore_notice, NULL);
    return s;
}
