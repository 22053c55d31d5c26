/* Turning summaries (tally's and resource_monitor's JSON) into archive rows,
 * and writing them in batched transactions. */
#ifndef TALLY_ARCHIVE_INGEST_H
#define TALLY_ARCHIVE_INGEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/sha256.h"
#include "archive/start_day.h"
#include "archive/store.h"
#include "archive/summary_members.h"
#include "core/fields.h"

/* a record holds a value per field of fields.c */
#define MAX_SUMMARY_FIELDS FIELD_COUNT

/* What the command line says about the summaries being added; NULL/0 = take
 * it from the summary. */
struct ingest_options {
    const char *name;
    const char *category;
    const char *set;
    const char *host;
    int attempt;                 /* 0 = not a retried task */
    long long previous_attempt;  /* archive id of the attempt before, 0 = none */
    bool taskid_from_file;       /* a summary without taskid takes its file's name:
                                  * resource-rule-3.summary → rule-3 (Makeflow) */
};

/* The bytes of a summary's SHA-256 the archive keeps as its hash (schema
 * version 7; 32 before): 128 bits, whose chance of two different summaries
 * of one day colliding is below 10^-20 even with 10^9 summaries a day,
 * at half the bytes in the row and in the key's index. */
#define SUMMARY_HASH_LEN 16


struct summary_record {
    unsigned char hash[SHA256_LEN]; /* SHA-256 of the summary's text as given
                                     * (its first SUMMARY_HASH_LEN bytes are stored) */
    long long start_day;  /* UTC day of its start (SUMMARY_NO_START_DAY: none): the
                           * archive's key is (start_day, hash), so that new
                           * summaries land in a small part of the key's index
                           * whatever the archive's size */
    unsigned char *packed; /* the document packed against the columns
                            * (document_pack.h), followed by the strings below
                            * (one allocation; the JSON is released) */
    size_t packed_len;    /* the document's; its shape's shape_len bytes follow it */
    size_t shape_len;
    long long shape_id;   /* its document_shapes id, found by ingest_records */
    const char *name, *category, *set, *host, *tool, *command, *exit_type, *taskid;
    /* the dictionary's ids of name, category, set, host, tool and exit_type
     * (summary_rows.h's order; 0: NULL), found by ingest_records */
    long long text_ids[6];
    char *taskid_buffer;  /* while parsing */
    int attempt;                 /* 0 = NULL */
    long long previous_attempt;  /* 0 = NULL */
    bool has_level, has_exit_status;
    long long level, exit_status;
    bool present[MAX_SUMMARY_FIELDS];
    double values[MAX_SUMMARY_FIELDS]; /* in the unit of fields.c */
    long long id;         /* archive id once inserted by ingest_records; 0 = not new */
    double archived_at;
    char *name_buffer;    /* while parsing */
    struct file_rows *files; /* a level-3 run's per-file rows (file_rows.h), or NULL */
};


/* Reads one summary document. Numeric fields known to fields.c must be
 * [number, "unit"] pairs (or bare numbers) in a unit of their dimension; they
 * are converted to the field's unit. Unknown fields are kept in the document.
 * Name: options->name, else "name", else "category" (Work Queue's
 * resource_monitor summaries carry no name), else the command's program.
 * text/len is the document as given: its SHA-256 is the content hash (the
 * same summary = the same bytes, blanks around it aside); the document is
 * stored packed (document_pack.h).
 * Returns -1 and a reason naming the bad field. */
int summary_record_parse(json_t *root, const char *text, size_t len,
                         const struct ingest_options *options,
                         struct summary_record *record, char *why, size_t why_size);
/* The same from the document's members (summary_members.h): what both
 * readers, jansson's and summary_scan, end in (m's packing scratch is
 * used, and kept for the next document). */
int summary_record_from_members(struct summary_members *m, const char *text, size_t len,
                                const struct ingest_options *options,
                                struct summary_record *record, char *why, size_t why_size);
void summary_record_free(struct summary_record *record);

/* Inserts one record (inside the caller's transaction). Returns 1 when
 * stored (archive id in *id when id is not NULL), 0 when the same summary was
 * archived before, -1 on a database error. */
int ingest_record(struct store *s, const struct summary_record *record, long long *id, char *why,
                  size_t why_size);

/* Inserts n records (inside the caller's transaction), several per
 * statement, archived at their archived_at when set (whole seconds; else
 * now); *added is how many were new (the others were archived before),
 * *last_id the largest new archive id. -1 on a database error. */
int ingest_records(struct store *s, struct summary_record *const *records, size_t n,
                   size_t *added, long long *last_id, char *why, size_t why_size);

/* Records, in name_fields, which numeric fields the records carry for their
 * task names (inside the caller's transaction; once per distinct pair). */
int ingest_name_fields(struct store *s, struct summary_record *const *records, size_t n,
                       char *why, size_t why_size);

struct aggregate_table;

/* Adds the records' runs to t (aggregate_table_settle it before it is
 * read): of those ingest_records stored (id != 0), with their ids; or, when
 * first_position > 0, of every record, numbered first_position,
 * first_position + 1, ... in place of the ids they do not have yet (the
 * reading thread builds a transaction's aggregates so; each record's
 * archived_at must be set). -1 when out of memory. */
int ingest_aggregate_runs(struct aggregate_table *t, struct summary_record *const *records,
                          size_t n, long long first_position);

/* Adds the records ingest_records stored (id != 0) to the aggregates
 * (inside the caller's transaction). provisional: NULL, or the settled
 * table of every record numbered from 1 (ingest_aggregate_runs(t, records,
 * n, 1)), used as it is when every record was new (else the aggregates are
 * built again without those archived before). */
int ingest_aggregates(struct store *s, struct summary_record *const *records, size_t n,
                      const struct aggregate_table *provisional, char *why, size_t why_size);

/* Stores a set's description once (the first description given wins). */
int ingest_set_description(struct store *s, const char *set, const char *description, char *why,
                           size_t why_size);

#endif
