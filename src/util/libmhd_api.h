/* libmicrohttpd, the HTTP server library, loaded when first needed (see util/dynlib.h): the functions
 * tally calls, once, and the table they are reached through. */
#ifndef TALLY_UTIL_LIBMHD_API_H
#define TALLY_UTIL_LIBMHD_API_H

#include <microhttpd.h>
#include <stddef.h>

#include "util/dynlib.h"

#define TALLY_LIBMHD_FUNCTIONS(X) \
    X(MHD_add_connection) \
    X(MHD_add_response_header) \
    X(MHD_create_response_from_buffer) \
    X(MHD_destroy_response) \
    X(MHD_get_connection_info) \
    X(MHD_get_daemon_info) \
    X(MHD_lookup_connection_value) \
    X(MHD_queue_response) \
    X(MHD_run) \
    X(MHD_start_daemon) \
    X(MHD_stop_daemon)

struct libmhd_api {
    TALLY_LIBMHD_FUNCTIONS(DYNLIB_POINTER)
};

/* Loads the library (once per process); NULL with the reason in why. */
const struct libmhd_api *libmhd_api_load(char *why, size_t why_size);

/* The table, once libmhd_api_load has succeeded. */
const struct libmhd_api *libmhd_api(void);
#define MHD(f) (libmhd_api()->f)

#endif
