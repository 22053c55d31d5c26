/* Fortran entry points of libtally-probe (gfortran's convention: lower case,
 * trailing underscore, arguments by reference, hidden string lengths last).
 * measuremark is ScoPro's name for the marker, kept so its users' loops
 * (`call measuremark()`) work unchanged. */
#include <stddef.h>
#include <string.h>

#include "segment_client.h"
#include "tally/probe.h"

TALLY_EXPORT void tally_mark_(void) { tally_mark(); }
TALLY_EXPORT void measuremark_(void) { tally_mark(); }

/* A Fortran string is blank-padded, not NUL-terminated. */
static void fortran_name(char *out, const char *name, size_t len)
{
    while (len > 0 && name[len - 1] == ' ')
        len--;
    if (len > TALLY_SEG_NAME - 1)
        len = TALLY_SEG_NAME - 1;
    memcpy(out, name, len);
    out[len] = '\0';
}

TALLY_EXPORT void tally_probe_id_(const char *name, int *id, size_t len)
{
    char text[TALLY_SEG_NAME];
    fortran_name(text, name, len);
    *id = tally_probe_id(text);
}

TALLY_EXPORT void tally_counter_id_(const char *name, int *id, size_t len)
{
    char text[TALLY_SEG_NAME];
    fortran_name(text, name, len);
    *id = tally_counter_id(text);
}

TALLY_EXPORT void tally_probe_hit_(const int *id) { tally_probe_hit(*id); }
TALLY_EXPORT void tally_counter_add_(const int *id, const int64_t *delta) { tally_counter_add(*id, *delta); }
