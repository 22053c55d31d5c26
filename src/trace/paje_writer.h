/* Writing a trace model as a Paje file (see paje_writer.c). */
#ifndef TALLY_TRACE_PAJE_WRITER_H
#define TALLY_TRACE_PAJE_WRITER_H

#include <stddef.h>

#include "trace/trace.h"

/* Writes t (after trace_finish) to path atomically. Returns -1 with a reason in err. */
int trace_write_paje(const struct trace *t, const char *path, char *why, size_t why_size);

#endif
