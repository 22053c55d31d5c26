/* The screen of `tally top`, as a pure function: from a snapshot of an
 * application's processes on all its hosts to the text of one terminal
 * screen (a title, one line per host with its totals, one line per process),
 * sorted by a chosen column and cut to the terminal's width and height.
 * When a contract is watched (tally contract watch), a CONTRACT column shows
 * each process's overall violation level and its worst dimension, marked
 * '!' (and, with colour, in bold red) at or above the threshold. When
 * some process is instrumented (tally run --mpi|--probes), a REC column
 * shows what it records now ("mpi", "probes", "mpi+probes", "off"; a '*'
 * while a switch is not yet taken by the process). No
 * terminal I/O here: the command clears the screen and prints the string,
 * which keeps the layout unit-testable and lets `tally top` work over plain
 * ssh (no curses needed). An ENDED% column, once some process has it,
 * shows the CPU of a process's children that ended since the last refresh
 * and that no line of theirs showed (children living less than one
 * interval); the host's CPU% counts it. */
#ifndef TALLY_VIEW_TOP_RENDER_H
#define TALLY_VIEW_TOP_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* One process as the agents report it. Quantities unknown to the sender
 * are NaN and shown as "-". */
struct top_row {
    const char *host;
    pid_t pid;
    char state;              /* R, S, D, T, Z, ... ('?' when unknown) */
    double cpu_percent;      /* of one core, over the last interval */
    double memory_mb;        /* resident, MB (2^20 bytes) as in summaries */
    double read_bytes_per_s; /* I/O rates over the last interval */
    double write_bytes_per_s;
    double recv_bytes_per_s;
    double sent_bytes_per_s;
    const char *command;
    bool has_contract;         /* a contract watch sends levels for this process */
    double contract_level;     /* its overall violation level, 0..1 */
    double contract_threshold; /* violating at or above it (NaN: unknown) */
    const char *contract_space, *contract_dimension; /* the worst dimension (NULL: unknown) */
    char recording[24];        /* what it records ("mpi+probes", "off", "mpi*"); "": not instrumented */
    double ended_percent;      /* CPU of its children that ended in the last interval, beyond what
                                * their own lines showed (the kernel adds it to the parent), per
                                * second of the interval, % of one core (NaN or 0: none known) */
};

struct top_snapshot {
    const char *app; /* NULL: all of the user's processes */
    double time;     /* seconds since the epoch, shown as UTC */
    const struct top_row *rows;
    size_t row_count;
};

enum top_column {
    TOP_HOST,
    TOP_PID,
    TOP_STATE,
    TOP_CPU,
    TOP_MEMORY,
    TOP_READ,
    TOP_WRITE,
    TOP_RECV,
    TOP_SENT,
    TOP_COMMAND,
    TOP_LEVEL,         /* the contract violation level */
    TOP_COLUMN_COUNT
};

struct top_options {
    enum top_column sort;
    bool reverse;      /* flips the natural order: largest first for
                                  quantities, A to Z for names, pids ascending */
    int width, height; /* the terminal's size in columns and lines */
    bool color;        /* ANSI bold red for violating lines (outside the width count) */
    bool ended_column; /* show ENDED% even when no row has some now (it appeared once) */
};

/* The column named by a --sort value or key ("cpu", "mem", "memory",
 * "read", "write", "recv", "sent", "pid", "host", "state", "command", "level"),
 * case-insensitive; -1 when unknown. */
int top_column_parse(const char *name);
/* The column's name as top_column_parse accepts it. */
const char *top_column_name(enum top_column column);

/* Renders the screen: at most height lines, none longer than width bytes,
 * each ending in '\n'. When the processes do not fit, the last line says
 * how many were left out. malloc'd; NULL when out of memory. */
char *top_render(const struct top_snapshot *snapshot, const struct top_options *options);

/* A row violates its contract: its level is at or above its threshold. */
bool top_row_violating(const struct top_row *row);

/* Formats a quantity of bytes in at most 7 characters: "512B", "1.5K",
 * "20.0M", "3.1G", "-" for NaN. */
void top_format_bytes(double bytes, char *buf, size_t size);

#endif
