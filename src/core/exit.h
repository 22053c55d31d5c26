/* The exit statuses of every tally command (see man/tally.1), shared by the
 * commands and by the engine, which computes what 'tally run' exits with. */
#ifndef TALLY_CORE_EXIT_H
#define TALLY_CORE_EXIT_H

enum tally_exit {
    TALLY_EXIT_OK = 0,
    TALLY_EXIT_FAILURE = 1,   /* the command ran but found a problem (e.g. some inputs rejected) */
    TALLY_EXIT_LIMITS = 124,  /* tally run: a resource limit was broken and the task stopped */
    TALLY_EXIT_ERROR = 125,   /* tally's own error: bad option, cannot write a report, ... */
    TALLY_EXIT_CANNOT_EXEC = 126,
    TALLY_EXIT_NOT_FOUND = 127,
};

#endif
