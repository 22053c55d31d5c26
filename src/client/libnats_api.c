/* libnats, the NATS C client, loaded on first use (see libnats_api.h). The table is the
 * process's one view of a library the dynamic linker has loaded: it is
 * filled once, under pthread_once, and only read afterwards. */
#include "client/libnats_api.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

static struct libnats_api table;
static bool loaded;
static char load_error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
#define SYMBOL(f) DYNLIB_SYMBOL(table, f)
    const struct dynlib_symbol symbols[] = {TALLY_LIBNATS_FUNCTIONS(SYMBOL)};
#undef SYMBOL
    loaded = dynlib_open(TALLY_SONAME_LIBNATS, symbols, sizeof symbols / sizeof symbols[0], load_error,
                         sizeof load_error) == 0;
}

const struct libnats_api *libnats_api_load(char *why, size_t why_size)
{
    pthread_once(&once, load);
    if (!loaded) {
        snprintf(why, why_size, "%s", load_error);
        return NULL;
    }
    return &table;
}

const struct libnats_api *libnats_api(void)
{
    return &table;
}
