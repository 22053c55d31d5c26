/* The user's agent configuration file (agent_conf.h). */
#include "client/agent_conf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/text_file.h"

int agent_conf_path(char *out, size_t size)
{
    const char *config = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n;
    if (config && *config)
        n = snprintf(out, size, "%s/tally/agent.conf", config);
    else if (home && *home)
        n = snprintf(out, size, "%s/.config/tally/agent.conf", home);
    else
        return -1;
    return n > 0 && (size_t)n < size ? 0 : -1;
}

static const char *trim_span(const char *s, const char *end, size_t *n)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    *n = (size_t)(end - s);
    return s;
}

int agent_conf_parse(const char *text, size_t len, struct agent_conf *c, char *why, size_t why_size)
{
    memset(c, 0, sizeof *c);
    const char *p = text, *end = text + len;
    for (int line = 1; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        const char *hash = memchr(p, '#', (size_t)(stop - p));
        size_t n;
        const char *s = trim_span(p, hash ? hash : stop, &n);
        p = nl ? nl + 1 : end;
        if (!n)
            continue;
        const char *eq = memchr(s, '=', n);
        if (!eq) {
            snprintf(why, why_size, "line %d: expected 'key = value'", line);
            return -1;
        }
        size_t kn, vn;
        const char *key = trim_span(s, eq, &kn), *value = trim_span(eq + 1, s + n, &vn);
        char *field = NULL;
        size_t cap = 0;
        if (kn == 4 && !memcmp(key, "nats", 4))
            field = c->nats, cap = sizeof c->nats;
        else if (kn == 5 && !memcmp(key, "creds", 5))
            field = c->creds, cap = sizeof c->creds;
        else if (kn == 4 && !memcmp(key, "site", 4))
            field = c->site, cap = sizeof c->site;
        else if (kn == 4 && !memcmp(key, "user", 4))
            field = c->user, cap = sizeof c->user;
        if (!field) {
            snprintf(why, why_size, "line %d: unknown key '%.*s' (nats, creds, site, user)", line,
                     (int)(kn > 40 ? 40 : kn), key);
            return -1;
        }
        if (!vn || vn >= cap || memchr(value, '\0', vn)) {
            snprintf(why, why_size, "line %d: %.*s: %s", line, (int)kn, key, vn ? "value too long" : "empty value");
            return -1;
        }
        memcpy(field, value, vn);
        field[vn] = '\0';
    }
    if (c->nats[0] && strncmp(c->nats, "nats://", 7) && strncmp(c->nats, "tls://", 6)) {
        snprintf(why, why_size, "nats: '%.100s' is not a nats:// URL", c->nats);
        return -1;
    }
    return 0;
}

int agent_conf_load(struct agent_conf *c, char *why, size_t why_size)
{
    memset(c, 0, sizeof *c);
    char path[4096];
    if (agent_conf_path(path, sizeof path) < 0)
        return 0;
    /* Only a file of the user's own, that nobody else may change, is taken:
     * it names the NATS server the agent obeys. One the user cannot even
     * reach (HOME another user's, under sudo) is no configuration. */
    struct stat st;
    if (stat(path, &st) < 0) {
        if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
            return 0;
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (st.st_uid != getuid() || (st.st_mode & 022)) {
        snprintf(why, why_size, "%s: not read: %s", path,
                 st.st_uid != getuid() ? "it belongs to another user"
                                       : "others may write it (chmod go-w it)");
        return -1;
    }
    size_t len;
    char reason[256];
    char *text = text_file_read(path, 64 * 1024, &len, reason, sizeof reason);
    if (!text) {
        snprintf(why, why_size, "%s: %s", path, reason);
        return -1;
    }
    char inner[300];
    int rc = agent_conf_parse(text, len, c, inner, sizeof inner);
    free(text);
    if (rc < 0) {
        snprintf(why, why_size, "%s: %s", path, inner);
        return -1;
    }
    if (c->creds[0] && c->creds[0] != '/') {
        char *slash = strrchr(path, '/');
        char absolute[sizeof c->creds];
        if (slash && (size_t)snprintf(absolute, sizeof absolute, "%.*s/%s", (int)(slash - path), path, c->creds) <
                         sizeof absolute)
            memcpy(c->creds, absolute, sizeof absolute);
    }
    return 0;
}
