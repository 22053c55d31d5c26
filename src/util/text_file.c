/* Bounded reading of files people name (see text_file.h). */
#include "util/text_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void text_file_size_text(size_t bytes, char *text, size_t size)
{
    static const char *const units[] = {"bytes", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    snprintf(text, size, "%zu %s", bytes, units[u]);
}

int text_file_open(const char *path, bool regular_only, char *why, size_t why_size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    const char *refused = NULL;
    if (fstat(fd, &st) < 0)
        refused = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        refused = strerror(EISDIR);
    else if (regular_only && !S_ISREG(st.st_mode))
        refused = S_ISFIFO(st.st_mode) ? "is a FIFO, not a regular file" : "not a regular file";
    int flags = refused ? 0 : fcntl(fd, F_GETFL);
    if (!refused && (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0))
        refused = strerror(errno);
    if (refused) {
        snprintf(why, why_size, "%s", refused);
        close(fd);
        return -1;
    }
    return fd;
}

static void too_large(size_t max, char *why, size_t why_size)
{
    char bound[32];
    text_file_size_text(max, bound, sizeof bound);
    snprintf(why, why_size, "larger than %s (the most read from such a file)", bound);
}

char *text_file_read_stream(FILE *fp, size_t max, size_t *len, char *why, size_t why_size)
{
    size_t cap = 4096, n = 0;
    char *text = malloc(cap);
    while (text) {
        if (n + 1 == cap) {
            if (n > max)
                break;
            char *bigger = realloc(text, cap *= 2);
            if (!bigger)
                free(text);
            text = bigger;
            continue;
        }
        size_t want = cap - n - 1;
        if (want > max + 1 - n) /* one byte past the bound tells that there is more */
            want = max + 1 - n;
        size_t got = fread(text + n, 1, want, fp);
        n += got;
        if (got < want || n > max)
            break;
    }
    if (!text) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    if (ferror(fp) || n > max) {
        if (n > max)
            too_large(max, why, why_size);
        else
            snprintf(why, why_size, "%s", strerror(errno ? errno : EIO));
        free(text);
        return NULL;
    }
    text[n] = '\0';
    if (len)
        *len = n;
    return text;
}

char *text_file_read(const char *path, size_t max, size_t *len, char *why, size_t why_size)
{
    int fd = text_file_open(path, false, why, why_size);
    if (fd < 0)
        return NULL;
    FILE *fp = fdopen(fd, "r");
    if (!fp) {
        snprintf(why, why_size, "%s", strerror(errno));
        close(fd);
        return NULL;
    }
    char *text = text_file_read_stream(fp, max, len, why, why_size);
    fclose(fp);
    return text;
}

int text_lines_open(struct text_lines *r, const char *path, size_t max_total, size_t max_line,
                    char *why, size_t why_size)
{
    memset(r, 0, sizeof *r);
    int fd = text_file_open(path, false, why, why_size);
    if (fd < 0)
        return -1;
    FILE *fp = fdopen(fd, "r");
    if (!fp) {
        snprintf(why, why_size, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    text_lines_attach(r, fp, max_total, max_line);
    r->owned = true;
    return 0;
}

void text_lines_attach(struct text_lines *r, FILE *fp, size_t max_total, size_t max_line)
{
    memset(r, 0, sizeof *r);
    r->fp = fp;
    r->max_total = max_total;
    r->max_line = max_line;
}

int text_lines_next(struct text_lines *r, char **line, size_t *len)
{
    size_t n = 0;
    int c = EOF;
    errno = 0;
    while ((c = getc_unlocked(r->fp)) != EOF) {
        if (++r->total > r->max_total) {
            too_large(r->max_total, r->why, sizeof r->why);
            return -1;
        }
        if (c == '\n')
            break;
        if (c == '\0') {
            snprintf(r->why, sizeof r->why, "a NUL byte on line %lu: not a text file", r->number + 1);
            return -1;
        }
        if (n >= r->max_line) {
            char bound[32];
            text_file_size_text(r->max_line, bound, sizeof bound);
            snprintf(r->why, sizeof r->why, "line %lu is longer than %s", r->number + 1, bound);
            return -1;
        }
        if (n + 1 >= r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 256;
            char *bigger = realloc(r->line, cap);
            if (!bigger) {
                snprintf(r->why, sizeof r->why, "out of memory");
                return -1;
            }
            r->line = bigger;
            r->cap = cap;
        }
        r->line[n++] = (char)c;
    }
    if (c == EOF && ferror(r->fp)) {
        snprintf(r->why, sizeof r->why, "%s", strerror(errno ? errno : EIO));
        return -1;
    }
    if (c == EOF && n == 0)
        return 0;
    if (!r->line && !(r->line = malloc(r->cap = 256))) {
        snprintf(r->why, sizeof r->why, "out of memory");
        return -1;
    }
    r->line[n] = '\0';
    r->number++;
    *line = r->line;
    if (len)
        *len = n;
    return 1;
}

void text_lines_close(struct text_lines *r)
{
    if (r->owned && r->fp)
        fclose(r->fp);
    free(r->line);
    memset(r, 0, sizeof *r);
}
