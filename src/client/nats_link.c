/* nats_link: libnats behind a queue and an eventfd (see nats_link.h). The
 * only code that talks to libnats; everything above it sees subjects,
 * payloads and a file descriptor. */
#include "client/nats_link.h"

#include <errno.h>
#include <nats/nats.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/libnats_api.h"
#include "util/sha256.h"
#include "util/vec.h"

struct queued {
    struct queued *next;
    struct nats_link_msg msg;
};

/* Told by libnats when a subscription's handler has run for the last time. */
struct handler_end {
    struct nats_link *link;
    bool done;
};

struct subscription {
    char *subject;
    natsSubscription *sub;
    struct handler_end *end;       /* NULL when libnats would not tell */
};

struct nats_link {
    natsConnection *conn;
    natsOptions *opts;
    int event_fd;
    pthread_mutex_t lock;          /* guards the queue, error, counters */
    pthread_cond_t quiet;          /* signalled as libnats lets go of this link */
    unsigned handlers_live;        /* subscriptions whose handler may still run */
    bool closed;                   /* the closed callback has run: no callback follows */
    struct queued *head, *tail;
    char error[256];
    unsigned reconnects;
    bool connected;
    struct subscription *subs;
    size_t sub_count, sub_cap;
    char inbox_prefix[128];
    char user[128];                /* the Unix user the link speaks for */
    char *secret;                  /* the credentials (file or URL user:password), signing key */
    size_t secret_len;
    unsigned long inbox_serial;
};

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void set_error(struct nats_link *link, const char *what)
{
    pthread_mutex_lock(&link->lock);
    snprintf(link->error, sizeof link->error, "%s", what);
    pthread_mutex_unlock(&link->lock);
}

static void on_message(natsConnection *nc, natsSubscription *sub, natsMsg *m, void *ctx)
{
    (void)nc;
    (void)sub;
    struct nats_link *link = ctx;
    struct queued *q = calloc(1, sizeof *q);
    int len = NATS(natsMsg_GetDataLength)(m);
    if (q) {
        q->msg.subject = strdup(NATS(natsMsg_GetSubject)(m));
        q->msg.reply = dup_or_null(NATS(natsMsg_GetReply)(m));
        q->msg.data = malloc((size_t)len + 1);
        if (!q->msg.subject || !q->msg.data) {
            nats_link_msg_free(&q->msg);
            free(q);
            q = NULL;
        } else {
            memcpy(q->msg.data, NATS(natsMsg_GetData)(m), (size_t)len);
            q->msg.data[len] = '\0';
            q->msg.length = (size_t)len;
        }
    }
    NATS(natsMsg_Destroy)(m);
    if (!q)
        return; /* out of memory: the message is dropped, the sender times out */
    pthread_mutex_lock(&link->lock);
    if (link->tail)
        link->tail->next = q;
    else
        link->head = q;
    link->tail = q;
    pthread_mutex_unlock(&link->lock);
    uint64_t one = 1;
    ssize_t w = write(link->event_fd, &one, sizeof one);
    (void)w;
}

static void on_error(natsConnection *nc, natsSubscription *sub, natsStatus status, void *ctx)
{
    (void)nc;
    (void)sub;
    struct nats_link *link = ctx;
    const char *detail = NATS(nats_GetLastError)(NULL);
    char text[256];
    snprintf(text, sizeof text, "%s%s%s", NATS(natsStatus_GetText)(status), detail && *detail ? ": " : "",
             detail ? detail : "");
    set_error(link, text);
}

/* libnats calls back from its own threads, also after Close and Destroy
 * return; the link is freed only once these two say nothing more comes. */
static void on_closed(natsConnection *nc, void *ctx)
{
    (void)nc;
    struct nats_link *link = ctx;
    pthread_mutex_lock(&link->lock);
    link->closed = true;
    pthread_cond_broadcast(&link->quiet);
    pthread_mutex_unlock(&link->lock);
}

static void on_handler_done(void *ctx)
{
    struct handler_end *end = ctx;
    struct nats_link *link = end->link;
    pthread_mutex_lock(&link->lock);
    end->done = true;
    link->handlers_live--;
    pthread_cond_broadcast(&link->quiet);
    pthread_mutex_unlock(&link->lock);
}

/* Until libnats can no longer call back into the link: the connection's
 * callbacks (closed) and every handler (all), or one subscription's handler
 * (one). Bounded: a library that never says so leaves the wait after 5 s. */
static bool wait_for_callbacks(struct nats_link *link, bool all, const struct handler_end *one)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    pthread_mutex_lock(&link->lock);
    int r = 0;
    bool pending;
    while ((pending = all ? link->handlers_live > 0 || !link->closed : one && !one->done) && r == 0)
        r = pthread_cond_timedwait(&link->quiet, &link->lock, &until);
    pthread_mutex_unlock(&link->lock);
    return !pending;
}

/* A subscription's end marker is freed only once its handler is known to be over. */
static void free_handler_end(struct handler_end *end, bool over)
{
    if (over)
        free(end);
}

static void on_disconnected(natsConnection *nc, void *ctx)
{
    (void)nc;
    struct nats_link *link = ctx;
    pthread_mutex_lock(&link->lock);
    link->connected = false;
    pthread_mutex_unlock(&link->lock);
}

static void on_reconnected(natsConnection *nc, void *ctx)
{
    (void)nc;
    struct nats_link *link = ctx;
    pthread_mutex_lock(&link->lock);
    link->connected = true;
    link->reconnects++;
    pthread_mutex_unlock(&link->lock);
}

/* A "user:password" (or "user password") file, readable by its owner only,
 * or a NATS .creds file (JWT + NKey seed). */
static int apply_creds(struct nats_link *link, natsOptions *opts, const char *path, char *why,
                       size_t why_size)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        snprintf(why, why_size, "--creds: cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    if (st.st_mode & 077) {
        snprintf(why, why_size,
                 "--creds: '%s' is readable by other users (mode %03o): chmod 600 it first", path,
                 (unsigned)(st.st_mode & 0777));
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, why_size, "--creds: cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    char line[1024] = "";
    bool got = fgets(line, sizeof line, f) != NULL;
    /* The whole file (a few lines) is the key that signs requests. */
    char whole[16384];
    rewind(f);
    size_t whole_len = fread(whole, 1, sizeof whole, f);
    fclose(f);
    free(link->secret);
    link->secret = malloc(whole_len ? whole_len : 1);
    if (link->secret) {
        memcpy(link->secret, whole, whole_len);
        link->secret_len = whole_len;
    }
    if (got && strstr(line, "BEGIN NATS USER JWT")) {
        if (NATS(natsOptions_SetUserCredentialsFromFiles)(opts, path, NULL) != NATS_OK) {
            snprintf(why, why_size, "--creds: '%s': %s", path, NATS(nats_GetLastError)(NULL));
            return -1;
        }
        return 0;
    }
    line[strcspn(line, "\r\n")] = '\0';
    char *sep = strpbrk(line, ": ");
    if (!got || !sep || sep == line || !sep[1]) {
        snprintf(why, why_size, "--creds: '%s': expected a NATS .creds file or one line 'user:password'",
                 path);
        return -1;
    }
    *sep = '\0';
    NATS(natsOptions_SetUserInfo)(opts, line, sep + 1);
    return 0;
}

/* Credentials given in the URL (nats://user:password@host): their text is
 * the signing key when there is no creds file. */
static void secret_from_url(struct nats_link *link, const char *url)
{
    const char *scheme = strstr(url, "://");
    const char *host = scheme ? scheme + 3 : url;
    const char *end = host + strcspn(host, ",/");
    const char *at = memchr(host, '@', (size_t)(end - host));
    if (!at || at == host)
        return;
    link->secret = malloc((size_t)(at - host));
    if (link->secret) {
        memcpy(link->secret, host, (size_t)(at - host));
        link->secret_len = (size_t)(at - host);
    }
}

bool nats_link_can_sign(const struct nats_link *link)
{
    return link->secret != NULL;
}

int nats_link_sign(const struct nats_link *link, const char *text, size_t len, char *hex)
{
    if (!link->secret)
        return -1;
    return hmac_sha256_hex(link->secret, link->secret_len, text, len, hex);
}

bool nats_link_signed_by_user(const struct nats_link *link, const char *text, size_t len,
                              const char *sig)
{
    char expected[SHA256_HEX_LEN + 1];
    if (!sig || strlen(sig) != SHA256_HEX_LEN || nats_link_sign(link, text, len, expected) < 0)
        return false;
    unsigned diff = 0; /* constant time: no early exit on the first wrong digit */
    for (size_t i = 0; i < SHA256_HEX_LEN; i++)
        diff |= (unsigned)(expected[i] ^ sig[i]);
    return diff == 0;
}

int nats_link_open(const struct nats_link_options *o, struct nats_link **out, char *why,
                   size_t why_size)
{
    *out = NULL;
    if (!libnats_api_load(why, why_size))
        return -1;
    struct nats_link *link = calloc(1, sizeof *link);
    if (!link) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    pthread_mutex_init(&link->lock, NULL);
    pthread_cond_init(&link->quiet, NULL);
    link->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    snprintf(link->inbox_prefix, sizeof link->inbox_prefix, "_INBOX.%s", o->user ? o->user : "anyone");
    snprintf(link->user, sizeof link->user, "%s", o->user ? o->user : "anyone");
    if (link->event_fd < 0 || NATS(natsOptions_Create)(&link->opts) != NATS_OK) {
        snprintf(why, why_size, "cannot set up a NATS connection: %s", strerror(errno));
        nats_link_close(link);
        return -1;
    }
    natsOptions *opts = link->opts;
    double wait = o->reconnect_wait > 0 ? o->reconnect_wait : 0.25;
    if (NATS(natsOptions_SetURL)(opts, o->url) != NATS_OK) { /* a comma-separated list is allowed */
        snprintf(why, why_size, "--nats: bad server URL '%s'", o->url);
        nats_link_close(link);
        return -1;
    }
    NATS(natsOptions_SetSendAsap)(opts, true);
    NATS(natsOptions_SetMaxReconnect)(opts, -1);
    NATS(natsOptions_SetReconnectWait)(opts, (int64_t)(wait * 1000));
    NATS(natsOptions_SetReconnectBufSize)(opts, 8 * 1024 * 1024);
    NATS(natsOptions_SetCustomInboxPrefix)(opts, link->inbox_prefix);
    NATS(natsOptions_SetErrorHandler)(opts, on_error, link);
    NATS(natsOptions_SetClosedCB)(opts, on_closed, link);
    NATS(natsOptions_SetDisconnectedCB)(opts, on_disconnected, link);
    NATS(natsOptions_SetReconnectedCB)(opts, on_reconnected, link);
    NATS(natsOptions_SetMaxPendingMsgs)(opts, 1 << 20);
    if (o->name)
        NATS(natsOptions_SetName)(opts, o->name);
    if (o->retry_first_connect)
        NATS(natsOptions_SetRetryOnFailedConnect)(opts, true, on_reconnected, link);
    if (!o->creds)
        secret_from_url(link, o->url);
    if (o->creds && apply_creds(link, opts, o->creds, why, why_size) < 0) {
        nats_link_close(link);
        return -1;
    }
    natsStatus s = NATS(natsConnection_Connect)(&link->conn, opts);
    if (s == NATS_NOT_YET_CONNECTED) {
        s = NATS_OK; /* retrying in the background (agents started before their server) */
    } else if (s == NATS_OK) {
        link->connected = true;
    }
    if (s != NATS_OK) {
        const char *detail = s == NATS_NO_SERVER ? "no server answers there" : NATS(natsStatus_GetText)(s);
        if (s == NATS_CONNECTION_AUTH_FAILED || strstr(NATS(nats_GetLastError)(NULL), "uthoriz"))
            detail = "the server refused these credentials";
        snprintf(why, why_size, "--nats: cannot connect to %s: %s", o->url, detail);
        nats_link_close(link);
        return -1;
    }
    *out = link;
    return 0;
}

/* url without the user:password@ of each comma-separated server, so that
 * the probe below connects with no credentials at all. */
static int strip_userinfo(const char *url, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = url; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *scheme = memmem(p, len, "://", 3);
        const char *host = scheme ? scheme + 3 : p;
        const char *at = memchr(host, '@', len - (size_t)(host - p));
        size_t head = (size_t)(host - p), tail = len - (size_t)((at ? at + 1 : host) - p);
        if (o + head + tail + 2 > size)
            return -1;
        memcpy(out + o, p, head);
        memcpy(out + o + head, at ? at + 1 : host, tail);
        o += head + tail;
        if (!end)
            break;
        out[o++] = ',';
        p = end + 1;
    }
    out[o] = '\0';
    return 0;
}

int nats_link_admits_anonymous(const char *url, double timeout, char *why, size_t why_size)
{
    if (!libnats_api_load(why, why_size))
        return -1;
    char bare[2048];
    if (strip_userinfo(url, bare, sizeof bare) < 0) {
        snprintf(why, why_size, "--nats: server URL too long");
        return -1;
    }
    natsOptions *opts = NULL;
    natsConnection *conn = NULL;
    int verdict = -1;
    if (NATS(natsOptions_Create)(&opts) != NATS_OK || NATS(natsOptions_SetURL)(opts, bare) != NATS_OK) {
        snprintf(why, why_size, "--nats: bad server URL '%s'", url);
        goto out;
    }
    NATS(natsOptions_SetNoRandomize)(opts, true);
    NATS(natsOptions_SetAllowReconnect)(opts, false);
    NATS(natsOptions_SetTimeout)(opts, (int64_t)(timeout * 1000));
    NATS(natsOptions_SetName)(opts, "tally anonymous probe");
    natsStatus s = NATS(natsConnection_Connect)(&conn, opts);
    if (s == NATS_OK) {
        /* Connected with no credentials; a server may still refuse at the
         * first round trip (authorization violation): ask it once. */
        s = NATS(natsConnection_FlushTimeout)(conn, (int64_t)(timeout * 1000));
        verdict = s == NATS_OK ? 1 : 0;
    } else if (s == NATS_CONNECTION_AUTH_FAILED || s == NATS_NOT_PERMITTED ||
               strstr(NATS(nats_GetLastError)(NULL), "uthoriz")) {
        verdict = 0;
    } else {
        snprintf(why, why_size, "no server answers at %s", bare);
    }
out:
    if (conn) {
        NATS(natsConnection_Close)(conn);
        NATS(natsConnection_Destroy)(conn);
    }
    NATS(natsOptions_Destroy)(opts);
    return verdict;
}

void nats_link_close(struct nats_link *link)
{
    if (!link)
        return;
    bool over = true;
    if (link->conn) {
        NATS(natsConnection_Close)(link->conn);
        over = wait_for_callbacks(link, true, NULL);
    }
    for (size_t i = 0; i < link->sub_count; i++) {
        NATS(natsSubscription_Destroy)(link->subs[i].sub);
        free(link->subs[i].subject);
        free_handler_end(link->subs[i].end, over);
    }
    free(link->subs);
    if (link->conn)
        NATS(natsConnection_Destroy)(link->conn);
    NATS(natsOptions_Destroy)(link->opts);
    free(link->secret);
    struct nats_link_msg m;
    while (nats_link_next(link, &m) == 1)
        nats_link_msg_free(&m);
    if (link->event_fd >= 0)
        close(link->event_fd);
    if (!over)
        return; /* a callback may still come: the link is left, not freed */
    pthread_mutex_destroy(&link->lock);
    pthread_cond_destroy(&link->quiet);
    free(link);
}

int nats_link_subscribe(struct nats_link *link, const char *subject)
{
    for (size_t i = 0; i < link->sub_count; i++)
        if (!strcmp(link->subs[i].subject, subject))
            return 0;
    if (VEC_RESERVE(link->subs, link->sub_cap, link->sub_count + 1) < 0)
        return -1;
    struct subscription *s = &link->subs[link->sub_count];
    s->subject = strdup(subject);
    if (!s->subject)
        return -1;
    natsStatus st = NATS(natsConnection_Subscribe)(&s->sub, link->conn, subject, on_message, link);
    if (st != NATS_OK) {
        char text[256];
        snprintf(text, sizeof text, "cannot subscribe to %s: %s", subject, NATS(natsStatus_GetText)(st));
        set_error(link, text);
        free(s->subject);
        return -1;
    }
    NATS(natsSubscription_SetPendingLimits)(s->sub, -1, -1);
    s->end = calloc(1, sizeof *s->end);
    if (s->end) {
        s->end->link = link;
        pthread_mutex_lock(&link->lock);
        link->handlers_live++;
        pthread_mutex_unlock(&link->lock);
        if (NATS(natsSubscription_SetOnCompleteCB)(s->sub, on_handler_done, s->end) != NATS_OK) {
            pthread_mutex_lock(&link->lock);
            link->handlers_live--;
            pthread_mutex_unlock(&link->lock);
            free(s->end);
            s->end = NULL;
        }
    }
    link->sub_count++;
    return 0;
}

int nats_link_unsubscribe(struct nats_link *link, const char *subject)
{
    for (size_t i = 0; i < link->sub_count; i++) {
        if (strcmp(link->subs[i].subject, subject))
            continue;
        NATS(natsSubscription_Unsubscribe)(link->subs[i].sub);
        bool over = wait_for_callbacks(link, false, link->subs[i].end); /* its handler may be running now */
        NATS(natsSubscription_Destroy)(link->subs[i].sub);
        free_handler_end(link->subs[i].end, over);
        free(link->subs[i].subject);
        link->subs[i] = link->subs[--link->sub_count];
        return 0;
    }
    return -1;
}

const char *nats_link_user(const struct nats_link *link)
{
    return link->user;
}

int nats_link_fd(const struct nats_link *link)
{
    return link->event_fd;
}

int nats_link_next(struct nats_link *link, struct nats_link_msg *msg)
{
    pthread_mutex_lock(&link->lock);
    struct queued *q = link->head;
    if (q) {
        link->head = q->next;
        if (!link->head)
            link->tail = NULL;
    } else {
        uint64_t drained;
        ssize_t r = read(link->event_fd, &drained, sizeof drained); /* empty: not readable any more */
        (void)r;
    }
    pthread_mutex_unlock(&link->lock);
    if (!q)
        return 0;
    *msg = q->msg;
    free(q);
    return 1;
}

void nats_link_msg_free(struct nats_link_msg *msg)
{
    free(msg->subject);
    free(msg->reply);
    free(msg->data);
    memset(msg, 0, sizeof *msg);
}

int nats_link_publish(struct nats_link *link, const char *subject, const char *reply,
                      const char *data, size_t length)
{
    natsStatus s = reply ? NATS(natsConnection_PublishRequest)(link->conn, subject, reply, data, (int)length)
                         : NATS(natsConnection_Publish)(link->conn, subject, data, (int)length);
    if (s != NATS_OK) {
        char text[256];
        snprintf(text, sizeof text, "cannot publish to %s: %s", subject, NATS(natsStatus_GetText)(s));
        set_error(link, text);
        return -1;
    }
    return 0;
}

int nats_link_flush(struct nats_link *link, double timeout)
{
    return NATS(natsConnection_FlushTimeout)(link->conn, (int64_t)(timeout * 1000)) == NATS_OK ? 0 : -1;
}

int nats_link_new_inbox(struct nats_link *link, char *out, size_t size)
{
    natsInbox *inbox = NULL;
    if (NATS(natsInbox_Create)(&inbox) != NATS_OK)
        return -1;
    /* natsInbox_Create uses the default prefix: keep its unique part. */
    const char *unique = strrchr(inbox, '.');
    int n = snprintf(out, size, "%s.%s%lu", link->inbox_prefix, unique ? unique + 1 : inbox,
                     ++link->inbox_serial);
    NATS(natsInbox_Destroy)(inbox);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

void nats_link_error(struct nats_link *link, char *out, size_t size)
{
    pthread_mutex_lock(&link->lock);
    snprintf(out, size, "%s", link->error);
    pthread_mutex_unlock(&link->lock);
}

unsigned nats_link_reconnects(struct nats_link *link)
{
    pthread_mutex_lock(&link->lock);
    unsigned n = link->reconnects;
    pthread_mutex_unlock(&link->lock);
    return n;
}

bool nats_link_connected(struct nats_link *link)
{
    pthread_mutex_lock(&link->lock);
    bool c = link->connected;
    pthread_mutex_unlock(&link->lock);
    return c;
}
