/* Starting a loopback HTTP server and answering its requests (see
 * http_server.h). */
#include "util/http_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/loopback.h"

struct MHD_Daemon *http_server_start(unsigned port, unsigned *bound_port,
                                     MHD_AccessHandlerCallback handler, void *ctx, char *why,
                                     size_t why_size)
{
    if (!libmhd_api_load(why, why_size))
        return NULL;
    int fd = loopback_listen(port, bound_port, why, why_size);
    if (fd < 0)
        return NULL;
    struct MHD_Daemon *d = MHD(MHD_start_daemon)(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL_LINUX_ONLY,
                                            0, NULL, NULL, handler, ctx, MHD_OPTION_LISTEN_SOCKET, fd,
                                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_END);
    if (!d) {
        close(fd);
        snprintf(why, why_size, "127.0.0.1:%u: cannot start the HTTP server", *bound_port);
    }
    return d; /* MHD_stop_daemon closes fd */
}

enum MHD_Result http_respond(struct MHD_Connection *conn, unsigned status, const char *type,
                             const char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD(MHD_create_response_from_buffer)(len, (void *)body, mode);
    if (!r) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free((void *)body);
        return MHD_NO;
    }
    MHD(MHD_add_response_header)(r, "Content-Type", type);
    MHD(MHD_add_response_header)(r, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD(MHD_queue_response)(conn, status, r);
    MHD(MHD_destroy_response)(r);
    return ret;
}
