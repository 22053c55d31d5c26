/* Level 3: the processes of a task told by the I/O helper preloaded into
 * them (lib/io, include/tally/io_segment.h). Each process image the helper
 * runs in claims its region at its start (a forked child at once, in the
 * fork), before anything else it does, and writes its pid there: the
 * region says that the pid ran in the task, even one that began and ended
 * between two scans, with no ptrace stop and no wake-up of the monitor. */
#ifndef TALLY_MONITOR_HELPER_REPORTS_H
#define TALLY_MONITOR_HELPER_REPORTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "monitor/usage.h"

/* The helper's file name (build/lib, installed beside tally). */
#define TALLY_IO_LIBRARY "libtally-io.so"

struct helper_reports {
    const char *dir;
    uint64_t next;   /* the first slot of the run file not yet read */
};

void helper_reports_init(struct helper_reports *h, const char *dir);
/* Tells usage of every pid whose region appeared since the last call
 * (usage counts each pid once, whoever told of it first): the new slots of
 * the run file, a few bytes each, and the regions that had files of their
 * own. A slot claimed but not yet written is read again next time, unless
 * FINAL (every process has ended: one killed before it wrote its pid is
 * passed over). */
void helper_reports_read(struct helper_reports *h, struct usage *u, bool final);
/* Does the helper run in pid's image (read at its exec stop, or by a
 * scan)? 1 for a dynamically linked program, not in the loader's secure
 * mode (setuid or setgid), whose environment names the helper in
 * LD_PRELOAD and this run's directory in TALLY_IO_DIR; 0 for a static
 * binary, a setuid program, an environment that was cleared: such an image
 * is left to the tracer (tracker.c). -1 when it cannot be told (gone, or
 * caught inside an exec that has not set the new image up yet). */
int helper_enters(pid_t pid, const char *dir);

#endif
