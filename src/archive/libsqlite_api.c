/* SQLite's library, loaded on first use (see libsqlite_api.h). The table is the
 * process's one view of a library the dynamic linker has loaded: it is
 * filled once (dynlib_open_once) and only read afterwards. The library is
 * configured once, before any connection: without memory statistics, which
 * tally never reads and which SQLite keeps under a process-wide mutex taken
 * at every allocation (a few % of an ingest's writing thread). */
#include "archive/libsqlite_api.h"

#include <pthread.h>

static struct libsqlite_api table;
static struct dynlib_once once = DYNLIB_ONCE_INIT;
static pthread_once_t configured = PTHREAD_ONCE_INIT;

static void configure(void)
{
    /* SQLITE_MISUSE when the library was initialised already: kept as it is */
    table.sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

const struct libsqlite_api *libsqlite_api_load(char *why, size_t why_size)
{
#define SYMBOL(f) DYNLIB_SYMBOL(table, f)
    const struct dynlib_symbol symbols[] = {TALLY_LIBSQLITE_FUNCTIONS(SYMBOL)};
#undef SYMBOL
    if (dynlib_open_once(&once, TALLY_SONAME_LIBSQLITE, symbols, sizeof symbols / sizeof symbols[0],
                         why, why_size) != 0)
        return NULL;
    pthread_once(&configured, configure); /* before any connection is opened */
    return &table;
}

const struct libsqlite_api *libsqlite_api(void)
{
    return &table;
}
