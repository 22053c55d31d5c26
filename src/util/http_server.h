/* The HTTP side of the pages tally serves on 127.0.0.1 (view --serve,
 * view --live), on libmicrohttpd: starting the server on a loopback socket
 * and answering a request. */
#ifndef TALLY_UTIL_HTTP_SERVER_H
#define TALLY_UTIL_HTTP_SERVER_H

#include <microhttpd.h>

#include "util/libmhd_api.h"
#include <stddef.h>

/* Serves port on 127.0.0.1 (0: any free port, told in *bound_port) with
 * HANDLER(CTX, ...) in libmicrohttpd's own thread; stop with
 * MHD_stop_daemon. NULL with the reason in err. Block the signals the
 * caller waits for before, so that the server's thread does not take them. */
struct MHD_Daemon *http_server_start(unsigned port, unsigned *bound_port,
                                     MHD_AccessHandlerCallback handler, void *ctx, char *why,
                                     size_t why_size);

/* Queues the answer: STATUS, Content-Type TYPE, never cached; BODY of LEN
 * bytes kept, copied or freed as MODE says. */
enum MHD_Result http_respond(struct MHD_Connection *conn, unsigned status, const char *type,
                             const char *body, size_t len, enum MHD_ResponseMemoryMode mode);

#endif
