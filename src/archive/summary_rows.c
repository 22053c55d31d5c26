/* The summaries as stored from schema version 11 (see summary_rows.h). */
#include "archive/summary_rows.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/fields.h"
#include "util/text_builder.h"

const struct summary_text_column summary_text_columns[SUMMARY_TEXT_COLUMNS] = {
    {DICT_NAME, "name", "name_ref"},     {DICT_CATEGORY, "category", "category_ref"},
    {DICT_SET, "set_id", "set_ref"},     {DICT_HOST, "host", "host_ref"},
    {DICT_TOOL, "tool", "tool_ref"},     {DICT_EXIT_TYPE, "exit_type", "exit_type_ref"},
};

/* Runs the script b holds. */
static int run(struct store *s, struct text_builder *b, char *why, size_t why_size)
{
    char *sql = text_builder_finish(b, why, why_size);
    if (!sql)
        return -1;
    int rc = store_exec(s, sql, NULL, 0, why, why_size) < 0 ? -1 : 0;
    free(sql);
    return rc;
}

static void write_fields(FILE *out, const char *prefix)
{
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    for (size_t i = 0; i < nfields; i++)
        fprintf(out, ", %s\"%s\"", prefix, fields[i].name);
}

/* A LEFT JOIN of the dictionary (as d1..d6) per text column of the table
 * `row`: on its id in summary_rows, or on its text in the old summaries. */
static void write_dictionary_joins(FILE *out, const char *row, bool on_text)
{
    for (int k = 0; k < SUMMARY_TEXT_COLUMNS; k++)
        fprintf(out, " LEFT JOIN dictionary d%d ON d%d.kind = %d AND d%d.%s = %s.%s", k + 1, k + 1,
                summary_text_columns[k].kind, k + 1, on_text ? "text" : "id", row,
                on_text ? summary_text_columns[k].column : summary_text_columns[k].ref);
}

int summary_rows_view_create(struct store *s, char *why, size_t why_size)
{
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return -1;
    /* LEFT JOINs on the dictionary's key: a query that names none of a
     * join's texts skips that join (both backends drop it) */
    fputs("DROP VIEW IF EXISTS summaries;"
          "CREATE VIEW summaries AS SELECT r.id, d1.text AS name, d2.text AS category,"
          " d3.text AS set_id, d4.text AS host, d5.text AS tool, r.level, r.command, r.exit_status,"
          " d6.text AS exit_type, r.taskid, r.archived_at, r.document, r.attempt, r.previous_attempt,"
          " r.shape", b.out);
    write_fields(b.out, "r.");
    fputs(" FROM summary_rows r", b.out);
    write_dictionary_joins(b.out, "r", false);
    fputs(";", b.out);
    return run(s, &b, why, why_size);
}

/* The dictionary from the distinct texts of summaries' columns. */
static int fill_dictionary(struct store *s, char *why, size_t why_size)
{
    if (dictionary_create(s, why, why_size) < 0)
        return -1;
    for (int k = 0; k < SUMMARY_TEXT_COLUMNS; k++) {
        char sql[512];
        /* column names are tally's own */
        snprintf(sql, sizeof sql, "INSERT INTO dictionary (kind, id, text) SELECT %d,"
                 " row_number() OVER (ORDER BY v), v FROM (SELECT DISTINCT %s AS v FROM summaries"
                 " WHERE %s IS NOT NULL) AS texts;", summary_text_columns[k].kind,
                 summary_text_columns[k].column, summary_text_columns[k].column);
        if (store_exec(s, sql, NULL, 0, why, why_size) < 0)
            return -1;
    }
    return 0;
}

/* PostgreSQL's partitioned summaries becomes summary_rows in place. */
static int change_in_place(struct store *s, char *why, size_t why_size)
{
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return -1;
    fputs("ALTER TABLE summaries RENAME TO summary_rows; ALTER TABLE summary_rows", b.out);
    for (int k = 0; k < SUMMARY_TEXT_COLUMNS; k++)
        fprintf(b.out, "%s ADD COLUMN %s INTEGER", k ? "," : "", summary_text_columns[k].ref);
    fputs("; UPDATE summary_rows SET", b.out);
    for (int k = 0; k < SUMMARY_TEXT_COLUMNS; k++)
        fprintf(b.out, "%s %s = (SELECT d.id FROM dictionary d WHERE d.kind = %d AND d.text = summary_rows.%s)",
                k ? "," : "", summary_text_columns[k].ref, summary_text_columns[k].kind,
                summary_text_columns[k].column);
    fputs("; ALTER TABLE summary_rows", b.out);
    for (int k = 0; k < SUMMARY_TEXT_COLUMNS; k++)
        fprintf(b.out, "%s DROP COLUMN %s", k ? "," : "", summary_text_columns[k].column);
    fputs("; ALTER TABLE summary_rows ALTER COLUMN name_ref SET NOT NULL;", b.out);
    return run(s, &b, why, why_size);
}

/* summaries copied into a new summary_rows (without start_day, which
 * summary_keys holds), then dropped. */
static int rebuild(struct store *s, char *why, size_t why_size)
{
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return -1;
    /* the columns most rows fill first; the dictionary's ids in place of
     * the texts */
    fprintf(b.out, "CREATE TABLE summary_rows (%s, name_ref INTEGER NOT NULL,"
                 " category_ref INTEGER, set_ref INTEGER, host_ref INTEGER, tool_ref INTEGER,"
                 " level INTEGER, command TEXT, exit_status INTEGER, exit_type_ref INTEGER,"
                 " taskid TEXT, archived_at DOUBLE PRECISION, document %s NOT NULL, shape BIGINT,"
                 " attempt INTEGER, previous_attempt BIGINT",
            s->backend->id_column, s->backend->blob_type);
    size_t nfields;
    const struct summary_field *fields = summary_fields(&nfields);
    for (size_t i = 0; i < nfields; i++)
        fprintf(b.out, ", \"%s\" DOUBLE PRECISION", fields[i].name);
    fputs(");", b.out);
    fputs("INSERT INTO summary_rows (id, name_ref, category_ref, set_ref, host_ref,"
          " tool_ref, level, command, exit_status, exit_type_ref, taskid, archived_at, document,"
          " shape, attempt, previous_attempt", b.out);
    write_fields(b.out, "");
    fputs(") SELECT s.id, d1.id, d2.id, d3.id, d4.id, d5.id, s.level, s.command,"
          " s.exit_status, d6.id, s.taskid, s.archived_at, s.document, s.shape, s.attempt,"
          " s.previous_attempt", b.out);
    write_fields(b.out, "s.");
    fputs(" FROM summaries s", b.out);
    write_dictionary_joins(b.out, "s", true);
    fputs(" ORDER BY s.id; DROP TABLE summaries;", b.out);
    return run(s, &b, why, why_size);
}

int summary_rows_migrate(struct store *s, char *why, size_t why_size)
{
    if (fill_dictionary(s, why, why_size) < 0 ||
        (s->backend->partition_by ? change_in_place(s, why, why_size) : rebuild(s, why, why_size)) < 0)
        return -1;
    return summary_rows_view_create(s, why, why_size);
}
