/* The ptrace options of every process tally follows (launch.c seizes the
 * top process with them, tracer.c adopts others with them; the kernel
 * gives them to each child it attaches). */
#ifndef TALLY_PLATFORM_LINUX_PTRACE_OPTIONS_H
#define TALLY_PLATFORM_LINUX_PTRACE_OPTIONS_H

#include <sys/ptrace.h>

#define TRACE_OPTIONS                                                                          \
    (PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT |    \
     PTRACE_O_EXITKILL)

#endif
