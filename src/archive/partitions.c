/* Monthly partitions of summaries (see partitions.h). */
#include "archive/partitions.h"

#include "archive/calendar_month.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int partition_of_day(long long day, char *name, size_t name_len, long long *first, long long *last)
{
    struct calendar_month m;
    if (calendar_month_of(day, &m) < 0)
        return -1;
    snprintf(name, name_len, "%04d_%02d", m.year, m.month);
    *first = m.first;
    *last = m.next;
    return 0;
}

static int found(void *ctx, size_t ncols, const struct sql_value *row)
{
    *(int *)ctx = ncols > 0 && row[0].type != SQL_NULL;
    return 1;
}

/* 1 when the month's partition exists, 0 when not, -1 on an error. */
static int partition_exists(struct store *s, const char *month, char *why, size_t why_size)
{
    char partition[64];
    /* month is tally's own name, never user text */
    snprintf(partition, sizeof partition, "summaries_%s", month);
    int exists = 0;
    struct sql_value p = sql_text(partition);
    if (store_query(s, "SELECT to_regclass(?::text)", &p, 1, found, &exists, why, why_size) < 0)
        return -1;
    return exists;
}

static int create_month(struct store *s, const char *table, const char *month, long long first,
                        long long last, int serialise, char *why, size_t why_size)
{
    char sql[512];
    int exists = partition_exists(s, month, why, why_size);
    if (exists != 0)
        return exists < 0 ? -1 : 0;
    if (serialise && (store_begin(s, why, why_size) < 0 ||
                      store_exec(s, "SELECT pg_advisory_xact_lock(74110312)", NULL, 0, why, why_size) < 0))
        goto fail;
    /* table and month are tally's own names, never user text */
    snprintf(sql, sizeof sql, "CREATE TABLE IF NOT EXISTS summaries_%s PARTITION OF %s FOR VALUES FROM (%lld) TO (%lld)",
             month, table, first, last);
    if (store_exec(s, sql, NULL, 0, why, why_size) < 0)
        goto fail;
    return serialise ? store_commit(s, why, why_size) : 0;
fail:
    if (serialise)
        store_rollback(s);
    return -1;
}

static int by_value(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Each distinct month of days in turn: created when missing (create), else
 * only looked for. 0; 1 when one is missing and not created; -1 on an
 * error. */
static int months(struct store *s, const char *table, const long long *days, size_t n, bool create,
                  int serialise, char *why, size_t why_size)
{
    if (!s->backend->partition_by || n == 0)
        return 0;
    long long *sorted = malloc(n * sizeof *sorted);
    if (!sorted) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    memcpy(sorted, days, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, by_value);
    int rc = 0;
    long long covered_to = 0, covered_from = 1; /* an empty range */
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (sorted[i] >= covered_from && sorted[i] < covered_to)
            continue;
        char month[32];
        if (partition_of_day(sorted[i], month, sizeof month, &covered_from, &covered_to) < 0)
            continue; /* the default partition */
        if (create) {
            rc = create_month(s, table, month, covered_from, covered_to, serialise, why, why_size);
        } else {
            int exists = partition_exists(s, month, why, why_size);
            rc = exists < 0 ? -1 : !exists;
        }
    }
    free(sorted);
    return rc;
}

int partitions_ensure(struct store *s, const char *table, const long long *days, size_t n,
                      int serialise, char *why, size_t why_size)
{
    return months(s, table, days, n, true, serialise, why, why_size);
}

int partitions_missing(struct store *s, const long long *days, size_t n, char *why, size_t why_size)
{
    return months(s, NULL, days, n, false, 0, why, why_size);
}
