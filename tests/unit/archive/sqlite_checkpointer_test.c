/* Unit tests for the write-ahead log checkpointed in a thread of its own
 * (src/archive/sqlite_checkpointer.c): while it runs, the writer's commits
 * do not checkpoint, the thread copies the log into the database file, the
 * log is rewound once past its bound instead of growing for the whole run,
 * every row committed is there, and the writer checkpoints itself again
 * after the stop. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/libsqlite_api.h"
#include "archive/sqlite_checkpointer.h"
#include "test.h"

#define PAGE 4096
#define ROWS_PER_COMMIT 100 /* ~100 pages a commit: a row fills a page */
#define COMMITS 40
#define REWIND_PAGES 500

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

static int exec(sqlite3 *db, const char *sql)
{
    return SQLITE(sqlite3_exec)(db, sql, NULL, NULL, NULL);
}

static long long count_rows(sqlite3 *db)
{
    sqlite3_stmt *stmt;
    long long n = -1;
    if (SQLITE(sqlite3_prepare_v2)(db, "SELECT count(*) FROM t", -1, &stmt, NULL) != SQLITE_OK)
        return -1;
    if (SQLITE(sqlite3_step)(stmt) == SQLITE_ROW)
        n = SQLITE(sqlite3_column_int64)(stmt, 0);
    SQLITE(sqlite3_finalize)(stmt);
    return n;
}

/* One transaction of ROWS_PER_COMMIT rows of PAGE - 200 random bytes. */
static int commit_rows(sqlite3 *db)
{
    return exec(db, "BEGIN IMMEDIATE") == SQLITE_OK &&
           exec(db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)"
                    " INSERT INTO t SELECT randomblob(3896) FROM n") == SQLITE_OK &&
           exec(db, "COMMIT") == SQLITE_OK;
}

int main(void)
{
    char why[200];
    CHECK(libsqlite_api_load(why, sizeof why) != NULL);
    char dir[] = "/tmp/tally-checkpointer-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128], wal[160];
    snprintf(path, sizeof path, "%s/a.db", dir);
    snprintf(wal, sizeof wal, "%s-wal", path);

    /* no such file: no thread, and stopping nothing does nothing */
    sqlite3 *db = NULL;
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none/b.db", dir);
    CHECK(SQLITE(sqlite3_open_v2)(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) ==
          SQLITE_OK);
    CHECK(sqlite_checkpointer_start(db, missing, REWIND_PAGES) == NULL);
    sqlite_checkpointer_stop(NULL);

    CHECK(exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                   " CREATE TABLE t (x BLOB)") == SQLITE_OK);
    long long db_before = file_size(path);
    struct sqlite_checkpointer *c = sqlite_checkpointer_start(db, path, REWIND_PAGES);
    CHECK(c != NULL);
    long long longest_log = 0;
    int committed = 0;
    for (int i = 0; i < COMMITS; i++) {
        committed += commit_rows(db);
        long long log = file_size(wal);
        if (log > longest_log)
            longest_log = log;
    }
    CHECK_INT(committed, COMMITS);
    /* the log was rewound: at most the bound and the two transactions around
     * the wait (a log never rewound would hold all 4,000 pages) */
    long long bound = (long long)(REWIND_PAGES + 3 * ROWS_PER_COMMIT) * (PAGE + 24);
    printf("# longest log %lld bytes, bound %lld\n", longest_log, bound);
    CHECK(longest_log > 0);
    CHECK(longest_log <= bound);
    /* the thread copied the log into the file (the writer's commits no
     * longer do): all but the last few transactions are there */
    sqlite_checkpointer_stop(c);
    long long copied = file_size(path) - db_before;
    printf("# database file grew by %lld bytes\n", copied);
    CHECK(copied >= (long long)(COMMITS - 8) * ROWS_PER_COMMIT * PAGE);
    CHECK_INT(count_rows(db), (long long)COMMITS * ROWS_PER_COMMIT);

    /* after the stop the writer checkpoints itself again (past SQLite's
     * 1,000 pages): the log does not grow past that */
    long long before_own = file_size(wal);
    for (int i = 0; i < 15; i++)
        commit_rows(db);
    CHECK(file_size(wal) <= before_own + (long long)(1000 + 2 * ROWS_PER_COMMIT) * (PAGE + 24));
    CHECK(file_size(path) - db_before >= copied + 10LL * ROWS_PER_COMMIT * PAGE);
    CHECK_INT(count_rows(db), (long long)(COMMITS + 15) * ROWS_PER_COMMIT);

    SQLITE(sqlite3_close)(db);
    CHECK(access(wal, F_OK) != 0); /* the last connection's close checkpoints and removes it */
    unlink(path);
    rmdir(dir);
    return test_done();
}
