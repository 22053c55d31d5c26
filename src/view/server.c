/* The --serve HTTP server; see server.h. util/http_server.c opens the
 * listening socket itself, so that "port in use" is reported precisely, and
 * hands it to libmicrohttpd (one internal polling thread: the trace is only
 * read); we wait for SIGINT/SIGTERM with sigwait() in the main thread. */
#include "view/server.h"

#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/aggregate.h"
#include "view/html_report.h"
#include "view/timeline.h"
#include "util/http_server.h"

struct server_context {
    const struct trace *trace;
    char *page;
    size_t page_len;
};

static enum MHD_Result respond_error(struct MHD_Connection *conn, unsigned status, const char *why)
{
    char *body = NULL;
    if (asprintf(&body, "%s\n", why) < 0)
        return MHD_NO;
    return http_respond(conn, status, "text/plain; charset=utf-8", body, strlen(body), MHD_RESPMEM_MUST_FREE);
}

static int parse_time(const char *text, double *out)
{
    if (!text || !*text)
        return -1;
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    return (*end || errno || !isfinite(*out)) ? -1 : 0;
}

static const char *argument(struct MHD_Connection *conn, const char *name)
{
    return MHD(MHD_lookup_connection_value)(conn, MHD_GET_ARGUMENT_KIND, name);
}

static enum MHD_Result respond_json(struct MHD_Connection *conn, json_t *doc)
{
    char *body = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(doc);
    if (!body)
        return respond_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    return http_respond(conn, MHD_HTTP_OK, "application/json", body, strlen(body), MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result serve_slice(struct server_context *ctx, struct MHD_Connection *conn)
{
    const char *from_text = MHD(MHD_lookup_connection_value)(conn, MHD_GET_ARGUMENT_KIND, "from");
    const char *to_text = MHD(MHD_lookup_connection_value)(conn, MHD_GET_ARGUMENT_KIND, "to");
    const char *level = MHD(MHD_lookup_connection_value)(conn, MHD_GET_ARGUMENT_KIND, "level");
    const char *kind = MHD(MHD_lookup_connection_value)(conn, MHD_GET_ARGUMENT_KIND, "kind");
    const char *cats = MHD(MHD_lookup_connection_value)(conn, MHD_GET_ARGUMENT_KIND, "categories");
    double from, to;
    if (parse_time(from_text, &from) < 0)
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, "from: not a number");
    if (parse_time(to_text, &to) < 0)
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, "to: not a number");
    if (!(from < to))
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, "from must be before to");
    char why[512];
    bool *selection = NULL;
    if (cats && *cats && !(selection = trace_category_selection(ctx->trace, cats, why, sizeof why)))
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, why);
    struct trace_aggregate_options opts = {
        .from = from, .to = to, .level = level && *level ? level : "root", .categories = selection,
        .kind = kind && *kind ? kind : NULL};
    struct trace_aggregation a;
    if (trace_aggregate(ctx->trace, &opts, &a, why, sizeof why) < 0) {
        free(selection);
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, why);
    }
    json_t *doc = trace_aggregation_to_json(ctx->trace, &a);
    trace_aggregation_free(&a);
    free(selection);
    return respond_json(conn, doc);
}

static enum MHD_Result serve_timeline(struct server_context *ctx, struct MHD_Connection *conn)
{
    struct view_timeline_request rq = {.level = argument(conn, "level"), .group = argument(conn, "group"),
                                       .kind = argument(conn, "kind")};
    const char *from_text = argument(conn, "from"), *to_text = argument(conn, "to");
    const char *steps_text = argument(conn, "steps");
    if (from_text && parse_time(from_text, &rq.from) < 0)
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, "from: not a number");
    if (to_text && parse_time(to_text, &rq.to) < 0)
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, "to: not a number");
    double steps = 0;
    if (parse_time(steps_text, &steps) < 0 || steps != floor(steps))
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, "steps: not a whole number");
    if (!(steps >= 1 && steps <= VIEW_TIMELINE_MAX_STEPS)) { /* checked before the cast */
        char detail[64];
        snprintf(detail, sizeof detail, "steps: expected 1 to %d", VIEW_TIMELINE_MAX_STEPS);
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, detail);
    }
    rq.steps = (size_t)steps;
    char why[512];
    json_t *doc = view_timeline_json(ctx->trace, &rq, why, sizeof why);
    if (!doc)
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, why);
    return respond_json(conn, doc);
}

static enum MHD_Result handle_request(void *cls, struct MHD_Connection *conn, const char *url,
                                      const char *method, const char *version,
                                      const char *upload_data, size_t *upload_data_size,
                                      void **request_state)
{
    struct server_context *ctx = cls;
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET");
    if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
        return http_respond(conn, MHD_HTTP_OK, "text/html; charset=utf-8", ctx->page, ctx->page_len,
                       MHD_RESPMEM_PERSISTENT);
    if (!strcmp(url, "/slice"))
        return serve_slice(ctx, conn);
    if (!strcmp(url, "/timeline"))
        return serve_timeline(ctx, conn);
    return respond_error(conn, MHD_HTTP_NOT_FOUND, "not found");
}

int view_server_run(const struct trace *t, const struct view_page_options *page, unsigned port,
                    char *why, size_t why_size)
{
    struct view_page_options served = *page;
    served.serve = true;
    struct server_context ctx = {.trace = t};
    FILE *mem = open_memstream(&ctx.page, &ctx.page_len);
    if (!mem || html_report_write(t, &served, mem) < 0) {
        if (mem)
            fclose(mem);
        free(ctx.page);
        snprintf(why, why_size, "cannot build the page");
        return -1;
    }
    fclose(mem);
    unsigned bound_port = 0;
    /* Block the stop signals before MHD starts its thread, so only sigwait sees them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigset_t previous;
    pthread_sigmask(SIG_BLOCK, &stop, &previous);
    struct MHD_Daemon *d = http_server_start(port, &bound_port, handle_request, &ctx, why, why_size);
    if (!d) {
        pthread_sigmask(SIG_SETMASK, &previous, NULL);
        free(ctx.page);
        return -1;
    }
    printf("serving http://127.0.0.1:%u/\n", bound_port);
    fflush(stdout);
    int sig = 0;
    sigwait(&stop, &sig);
    MHD(MHD_stop_daemon)(d);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    free(ctx.page);
    return 0;
}
