/* A listening TCP socket on 127.0.0.1, for the pages tally serves (view
 * --serve, view --live): they show a user's data, so they never listen on
 * other interfaces. */
#ifndef TALLY_UTIL_LOOPBACK_H
#define TALLY_UTIL_LOOPBACK_H

#include <stddef.h>

/* Listens on 127.0.0.1:port (0: any free port, told in *bound_port).
 * Returns the descriptor, or -1 with the reason in err. */
int loopback_listen(unsigned port, unsigned *bound_port, char *why, size_t why_size);

#endif
