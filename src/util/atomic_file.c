/* Atomic file writes (see atomic_file.h). */
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* fp writes through this sink (fopencookie), which keeps the errno of the
 * first failed write: stdio only keeps a flag, and by the time the file is
 * committed errno says something else (waitpid's ECHILD: "No child
 * processes" was reported for a full disk). */
struct atomic_sink {
    int fd;
    int error;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
    struct atomic_sink *sink = cookie;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(sink->fd, buf + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (!sink->error)
                sink->error = n < 0 ? errno : EIO;
            errno = sink->error;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

static int sink_close(void *cookie)
{
    struct atomic_sink *sink = cookie;
    int rc = close(sink->fd);
    if (rc < 0 && !sink->error)
        sink->error = errno;
    sink->fd = -1;
    return rc;
}

int atomic_file_open(struct atomic_file *af, const char *path)
{
    memset(af, 0, sizeof *af);
    size_t len = strlen(path);
    af->final_path = strdup(path);
    af->temp_path = malloc(len + 16);
    if (!af->final_path || !af->temp_path)
        goto fail;
    snprintf(af->temp_path, len + 16, "%s.tmp-XXXXXX", path);
    int fd = mkostemp(af->temp_path, O_CLOEXEC); /* not inherited by the task */
    if (fd < 0)
        goto fail;
    (void)fchmod(fd, 0644);
    af->sink = malloc(sizeof *af->sink);
    if (af->sink) {
        *af->sink = (struct atomic_sink){.fd = fd};
        af->fp = fopencookie(af->sink, "w",
                             (cookie_io_functions_t){.write = sink_write, .close = sink_close});
    }
    if (!af->fp) {
        int saved = af->sink ? errno : ENOMEM;
        close(fd);
        unlink(af->temp_path);
        errno = saved;
        goto fail;
    }
    return 0;
fail: {
    int saved = errno;
    free(af->sink);
    free(af->final_path);
    free(af->temp_path);
    memset(af, 0, sizeof *af);
    errno = saved;
    return -1;
}
}

static void atomic_file_free(struct atomic_file *af)
{
    free(af->sink);
    free(af->final_path);
    free(af->temp_path);
    memset(af, 0, sizeof *af);
}

int atomic_file_commit(struct atomic_file *af)
{
    int failed = ferror(af->fp) || fflush(af->fp) != 0 || fsync(af->sink->fd) != 0;
    int saved = af->sink->error ? af->sink->error : errno;
    if (fclose(af->fp) != 0 && !failed) {
        failed = 1;
        saved = af->sink->error ? af->sink->error : errno;
    }
    if (failed && !saved)
        saved = EIO;
    if (!failed && rename(af->temp_path, af->final_path) != 0) {
        failed = 1;
        saved = errno;
    }
    if (failed)
        unlink(af->temp_path);
    atomic_file_free(af);
    errno = saved;
    return failed ? -1 : 0;
}

void atomic_file_abort(struct atomic_file *af)
{
    if (af->fp)
        fclose(af->fp);
    if (af->temp_path)
        unlink(af->temp_path);
    atomic_file_free(af);
}

int atomic_write_with(const char *path, int (*write)(void *ctx, FILE *out), void *ctx)
{
    struct atomic_file af;
    if (atomic_file_open(&af, path) < 0)
        return -1;
    errno = 0;
    if (write(ctx, af.fp) < 0) {
        int saved = errno ? errno : EIO;
        atomic_file_abort(&af);
        errno = saved;
        return -1;
    }
    return atomic_file_commit(&af);
}

int atomic_write_file(const char *path, const void *data, size_t len)
{
    struct atomic_file af;
    if (atomic_file_open(&af, path) < 0)
        return -1;
    if (len && fwrite(data, 1, len, af.fp) != len) {
        int saved = errno;
        atomic_file_abort(&af);
        errno = saved;
        return -1;
    }
    return atomic_file_commit(&af);
}
