/* Atomic file writes (see atomic_file.h). */
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        int saved = errno;
        close(fd);
        unlink(af->temp_path);
        errno = saved;
        goto fail;
    }
    return 0;
fail: {
    int saved = errno;
    free(af->final_path);
    free(af->temp_path);
    memset(af, 0, sizeof *af);
    errno = saved;
    return -1;
}
}

static void atomic_file_free(struct atomic_file *af)
{
    free(af->final_path);
    free(af->temp_path);
    memset(af, 0, sizeof *af);
}

int atomic_file_commit(struct atomic_file *af)
{
    int failed = ferror(af->fp) || fflush(af->fp) != 0 || fsync(fileno(af->fp)) != 0;
    int saved = errno;
    if (fclose(af->fp) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
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
