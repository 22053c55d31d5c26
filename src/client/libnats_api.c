/* libnats, the NATS C client, loaded on first use (see libnats_api.h). The table is the
 * process's one view of a library the dynamic linker has loaded: it is
 * filled once (dynlib_open_once) and only read afterwards. */
#include "client/libnats_api.h"

static struct libnats_api table;
static struct dynlib_once once = DYNLIB_ONCE_INIT;

const struct libnats_api *libnats_api_load(char *why, size_t why_size)
{
#define SYMBOL(f) DYNLIB_SYMBOL(table, f)
    const struct dynlib_symbol symbols[] = {TALLY_LIBNATS_FUNCTIONS(SYMBOL)};
#undef SYMBOL
    return dynlib_open_once(&once, TALLY_SONAME_LIBNATS, symbols, sizeof symbols / sizeof symbols[0], why,
                            why_size) == 0
               ? &table
               : NULL;
}

const struct libnats_api *libnats_api(void)
{
    return &table;
}
