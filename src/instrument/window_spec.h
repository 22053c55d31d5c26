/* The --window specification of tally run (see window_spec.c). */
#ifndef TALLY_INSTRUMENT_WINDOW_SPEC_H
#define TALLY_INSTRUMENT_WINDOW_SPEC_H

#include <stddef.h>

#include "instrument/mpi_summary.h"

/* Fills w from 'start=N,iterations=M,time=T,calls=C' or 'request' (recording
 * off until the agent switches it, in periods). Returns -1 with a
 * reason (naming the bad part) in why. */
int window_spec_parse(const char *spec, struct window_spec *w, char *why, size_t why_size);

#endif
