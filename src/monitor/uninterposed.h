/* Level 3: the processes a /proc scan found running an image the I/O
 * helper did not enter (a static binary or a setuid program exec'd by a
 * process the tracer had let go), handed to the tracer from then on, so
 * that what they start is followed as at level 2. Each process is judged
 * once per executable it runs (helper_enters: its auxiliary vector and
 * environment), not at every scan. */
#ifndef TALLY_MONITOR_UNINTERPOSED_H
#define TALLY_MONITOR_UNINTERPOSED_H

#include "monitor/usage.h"
#include "platform/platform.h"
#include "util/pidmap.h"

struct uninterposed {
    struct pidmap judged; /* pid -> char *: the executable it was judged running */
    const char *dir;      /* the helper's directory (TALLY_IO_DIR) */
    size_t adopted;       /* processes handed to the tracer */
};

void uninterposed_init(struct uninterposed *n, const char *dir);
void uninterposed_free(struct uninterposed *n);
/* After a scan: every live process of u that the tracer does not follow,
 * runs an executable it was not judged for yet, and runs without the
 * helper, is adopted by the tracer. */
void uninterposed_adopt(struct uninterposed *n, struct usage *u, struct tracer *tracer);

#endif
