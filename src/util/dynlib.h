/* Loading a shared library when it is first needed, instead of at start:
 * tally links libpq, libnats and libmicrohttpd this way, so that a process
 * that never uses them (a waiting `tally run`, its guardian) does not carry
 * their relocated data (about 1 MB of private memory per process).
 *
 * A library's functions are listed once, as an X-macro, by the room that
 * uses them; DYNLIB_POINTER makes a struct of typed pointers from that list
 * (the types come from the library's own header), and DYNLIB_SYMBOL the
 * table dynlib_open fills. */
#ifndef TALLY_UTIL_DYNLIB_H
#define TALLY_UTIL_DYNLIB_H

#include <pthread.h>
#include <stddef.h>

struct dynlib_symbol {
    const char *name;
    void **slot;
};

#define DYNLIB_POINTER(f) __typeof__(f) *f;
#define DYNLIB_SYMBOL(api, f) {#f, (void **)&(api).f},

/* Opens SONAME (already loaded: found again) and resolves every symbol into
 * its slot. -1 with the reason (which library, which symbol, the loader's
 * words) in why; nothing is left open then. */
int dynlib_open(const char *soname, const struct dynlib_symbol *symbols, size_t n, char *why,
                size_t why_size);

/* A library opened once per process: the first caller opens it, the
 * others (any thread) get the same outcome, success or the same reason. */
struct dynlib_once {
    pthread_mutex_t lock;
    int state; /* 0: not tried, 1: loaded, -1: failed */
    char error[256];
};
#define DYNLIB_ONCE_INIT {PTHREAD_MUTEX_INITIALIZER, 0, ""}

/* dynlib_open the first time; afterwards its outcome again. */
int dynlib_open_once(struct dynlib_once *once, const char *soname,
                     const struct dynlib_symbol *symbols, size_t n, char *why, size_t why_size);

#endif
