/* Quantities as people write them: "2 GB", "512MiB", "10 min", "1h30m",
 * "2.5", converted into the unit a summary field is reported in. */
#ifndef TALLY_CORE_UNITS_H
#define TALLY_CORE_UNITS_H

#include <stddef.h>

#include "core/fields.h"

#define BYTES_PER_MB 1048576.0

/* Parses text (a whole string, surrounding blanks allowed) as a quantity of
 * the given dimension and stores it in the summary unit of that dimension (MB,
 * s, or the count itself). Byte units: B, K/KB/KiB, M/MB/MiB, G/GB/GiB,
 * T/TB/TiB, all powers of 1024 as in resource_monitor and Slurm. Time units:
 * us, ms, s, sec, m, min, h, hr, d, day (and plurals), several may follow
 * each other ("1h 30min"). A bare number is already in the summary unit.
 * count_unit, when not NULL, is one more word accepted after a count
 * ("procs", "cores"). On error returns -1 and writes a reason naming the bad
 * part into why. */
int units_parse(const char *text, enum unit_dimension dim, const char *count_unit, double *value,
                char *why, size_t why_size);

#endif
