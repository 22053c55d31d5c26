/* Checkpoints of an SQLite archive's write-ahead log in a thread of their
 * own, with a connection of their own, while one connection writes many
 * transactions in a row ('tally archive add'): the writing thread no longer
 * copies the log's pages into the database file and waits for the disk at
 * its commits (a tenth of an ingest's wall time); the checkpoints run while
 * it writes the next transaction. */
#ifndef TALLY_ARCHIVE_SQLITE_CHECKPOINTER_H
#define TALLY_ARCHIVE_SQLITE_CHECKPOINTER_H

#include <sqlite3.h>

struct sqlite_checkpointer;

/* The log's length past which a commit waits for the running checkpoint,
 * so that the next transaction rewinds the log (sqlite_checkpointer.c):
 * 64 MB; a transaction of 50,000 summaries writes ~25 MB. */
#define SQLITE_CHECKPOINTER_REWIND_BYTES (64 << 20)

/* Starts checkpointing the log of writer's database (the file at path) in a
 * thread: the writer's commits only wake it, instead of checkpointing, and
 * wait for it once the log is longer than rewind_pages. NULL when it cannot
 * start (the writer then checkpoints as before). */
struct sqlite_checkpointer *sqlite_checkpointer_start(sqlite3 *writer, const char *path,
                                                      int rewind_pages);
/* Stops the thread (after the checkpoint it may be running) and gives the
 * writer its own checkpoints back. NULL: nothing to do. */
void sqlite_checkpointer_stop(struct sqlite_checkpointer *c);

#endif
