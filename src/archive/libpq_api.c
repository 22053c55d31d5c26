/* libpq, PostgreSQL's client library, loaded on first use (see libpq_api.h). The table is the
 * process's one view of a library the dynamic linker has loaded: it is
 * filled once (dynlib_open_once) and only read afterwards. */
#include "archive/libpq_api.h"

static struct libpq_api table;
static struct dynlib_once once = DYNLIB_ONCE_INIT;

const struct libpq_api *libpq_api_load(char *why, size_t why_size)
{
#define SYMBOL(f) DYNLIB_SYMBOL(table, f)
    const struct dynlib_symbol symbols[] = {TALLY_LIBPQ_FUNCTIONS(SYMBOL)};
#undef SYMBOL
    return dynlib_open_once(&once, TALLY_SONAME_LIBPQ, symbols, sizeof symbols / sizeof symbols[0], why,
                            why_size) == 0
               ? &table
               : NULL;
}

const struct libpq_api *libpq_api(void)
{
    return &table;
}
