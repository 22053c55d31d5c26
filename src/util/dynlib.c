/* Loading a shared library on first use (see dynlib.h). */
#include "util/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>

int dynlib_open(const char *soname, const struct dynlib_symbol *symbols, size_t n, char *why,
                size_t why_size)
{
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *error = dlerror();
        snprintf(why, why_size, "cannot load %s (%s)", soname, error ? error : "unknown reason");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        void *address = dlsym(handle, symbols[i].name);
        if (!address) {
            snprintf(why, why_size, "%s has no %s: not the version tally was built with", soname,
                     symbols[i].name);
            dlclose(handle);
            return -1;
        }
        *symbols[i].slot = address;
    }
    return 0; /* the library stays loaded: its functions are in use from now on */
}

int dynlib_open_once(struct dynlib_once *once, const char *soname,
                     const struct dynlib_symbol *symbols, size_t n, char *why, size_t why_size)
{
    pthread_mutex_lock(&once->lock);
    if (once->state == 0)
        once->state = dynlib_open(soname, symbols, n, once->error, sizeof once->error) == 0 ? 1 : -1;
    int state = once->state;
    if (state < 0)
        snprintf(why, why_size, "%s", once->error);
    pthread_mutex_unlock(&once->lock);
    return state > 0 ? 0 : -1;
}
