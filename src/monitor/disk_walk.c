/* One walk of a directory tree for its footprint (see disk_walk.h).
 *
 * fts with FTS_NOCHDIR gives each entry by its whole path, which the kernel
 * looks up again component by component for every lstat, and allocates an
 * entry per name: about 2.5 us an entry on the bench machine, so that the
 * two walks of a short run (at its start and at its end) took 16 ms of
 * tally's CPU from a repository of 3,500 entries. Here each directory is
 * opened relative to its parent's descriptor, read by getdents64 and its
 * entries stat'd by fstatat relative to it, in the order fts gives (each
 * directory's entries in the order the kernel lists them, a subdirectory
 * walked where it is listed), so that the sum of blocks is made in the same
 * order and comes out the same to the bit; directories listed as such are
 * not stat'd, only opened (fstat of the descriptor: its device, for
 * FTS_XDEV, and its inode, for fts's cycle check against its ancestors).
 * Below HELD_LEVELS levels a subtree is handed to fts by its path; should
 * descriptors run out (a process near its limit), the walk is made again
 * from the root by fts alone, which holds one at a time. Nothing here
 * outlives a walk: several threads may walk at once. */
#include "monitor/disk_walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Directories open at once along the path being walked. */
#define HELD_LEVELS 32
/* getdents64's buffer, one per level. */
#define DENTS_BYTES 16384

struct walk {
    double *bytes, *files;
    dev_t dev;                       /* the root's file system */
    ino_t ino[HELD_LEVELS];          /* each open level's inode, for the cycle check */
    char *buf[HELD_LEVELS];          /* getdents64's buffers, made when first needed */
    char *path;                      /* the path of the directory being read */
    size_t path_len, path_cap;
    bool out_of_fds;                 /* EMFILE or ENFILE met: to be walked by fts */
};

static void add_entry(struct walk *w, const struct stat *st)
{
    double links = st->st_nlink > 1 ? (double)st->st_nlink : 1;
    *w->bytes += (double)st->st_blocks * 512.0 / links;
    *w->files += 1;
}

/* The fts entries that disk counts: every one that is not a directory
 * (FTS_F, FTS_SL, FTS_SLNONE, FTS_DEFAULT); those it could not stat
 * (FTS_NS), unreadable directories (FTS_DNR) and cycles (FTS_DC) are not. */
static void add_fts_entry(const FTSENT *e, double *bytes, double *files)
{
    if (e->fts_info == FTS_F || e->fts_info == FTS_SL || e->fts_info == FTS_SLNONE ||
        e->fts_info == FTS_DEFAULT) {
        const struct stat *st = e->fts_statp;
        double links = st->st_nlink > 1 ? (double)st->st_nlink : 1;
        *bytes += (double)st->st_blocks * 512.0 / links;
        *files += 1;
    }
}

static bool no_descriptor(int err)
{
    return err == EMFILE || err == ENFILE;
}

/* fts's walk of root; false when it ran out of descriptors on the way. */
static bool fts_sum(const char *root, double *bytes, double *files)
{
    char *paths[] = {(char *)root, NULL};
    FTS *fts = fts_open(paths, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
    if (!fts)
        return !no_descriptor(errno);
    bool whole = true;
    FTSENT *e;
    errno = 0;
    while ((e = fts_read(fts))) {
        add_fts_entry(e, bytes, files);
        if ((e->fts_info == FTS_DNR || e->fts_info == FTS_NS || e->fts_info == FTS_ERR) &&
            no_descriptor(e->fts_errno))
            whole = false;
    }
    if (no_descriptor(errno))
        whole = false;
    fts_close(fts);
    return whole;
}

void disk_walk_fts(const char *root, double *bytes, double *files)
{
    fts_sum(root, bytes, files);
}

/* Appends "/name" to the path; false when there is no memory for it. */
static bool path_push(struct walk *w, const char *name)
{
    size_t n = strlen(name), need = w->path_len + 1 + n + 1;
    if (need > w->path_cap) {
        size_t cap = need * 2;
        char *p = realloc(w->path, cap);
        if (!p)
            return false;
        w->path = p;
        w->path_cap = cap;
    }
    w->path[w->path_len] = '/';
    memcpy(w->path + w->path_len + 1, name, n + 1);
    w->path_len += 1 + n;
    return true;
}

static void walk_dir(struct walk *w, int fd, int level);

/* A directory listed in the directory dfd (at level-1), or an entry listed
 * as unknown that fstatat found to be one (st then holds it). */
static void descend(struct walk *w, int dfd, const char *name, int level, const struct stat *known)
{
    struct stat st;
    size_t back = w->path_len;
    if (level < HELD_LEVELS) {
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            if (fstat(fd, &st) == 0 && st.st_dev == w->dev) {
                bool cycle = false;
                for (int i = 0; i < level && !cycle; i++)
                    cycle = w->ino[i] == st.st_ino;
                if (!cycle && path_push(w, name)) {
                    w->ino[level] = st.st_ino;
                    walk_dir(w, fd, level);
                    w->path_len = back;
                    w->path[back] = '\0';
                }
            }
            close(fd);
            return;
        }
        if (errno == ENOTDIR || errno == ELOOP) { /* no longer a directory: an entry as any other */
            if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
                add_entry(w, &st);
            return;
        }
        if (no_descriptor(errno))
            w->out_of_fds = true;
        return; /* unreadable, as fts's FTS_DNR: not counted */
    }
    /* Too deep: fts walks this subtree by its path, once it is known to be
     * a directory of the same file system. */
    if (!known) {
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return;
        known = &st;
    }
    if (!S_ISDIR(known->st_mode)) {
        add_entry(w, known);
        return;
    }
    if (known->st_dev != w->dev || !path_push(w, name))
        return;
    if (!fts_sum(w->path, w->bytes, w->files))
        w->out_of_fds = true;
    w->path_len = back;
    w->path[back] = '\0';
}

/* The entries of the open directory fd, at the given level (the root's 0). */
static void walk_dir(struct walk *w, int fd, int level)
{
    if (!w->buf[level] && !(w->buf[level] = malloc(DENTS_BYTES)))
        return;
    char *buf = w->buf[level];
    ssize_t n;
    while (!w->out_of_fds && (n = getdents64(fd, buf, DENTS_BYTES)) > 0) {
        for (ssize_t at = 0; at < n && !w->out_of_fds;) {
            const struct dirent64 *d = (const struct dirent64 *)(buf + at);
            at += d->d_reclen;
            const char *name = d->d_name;
            if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
                continue;
            if (d->d_type == DT_DIR) {
                descend(w, fd, name, level + 1, NULL);
                continue;
            }
            struct stat st;
            if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue; /* gone, or not ours to see: fts's FTS_NS */
            if (S_ISDIR(st.st_mode))
                descend(w, fd, name, level + 1, &st);
            else
                add_entry(w, &st);
        }
    }
}

void disk_walk(const char *root, double *bytes, double *files)
{
    struct stat st;
    if (lstat(root, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) { /* fts gives a root that is not a directory as an entry */
        add_entry(&(struct walk){.bytes = bytes, .files = files}, &st);
        return;
    }
    double bytes0 = *bytes, files0 = *files;
    struct walk w = {.bytes = bytes, .files = files};
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        w.out_of_fds = no_descriptor(errno);
    } else {
        size_t n = strlen(root);
        w.path_cap = n + 256;
        w.path = malloc(w.path_cap);
        if (w.path && fstat(fd, &st) == 0) {
            memcpy(w.path, root, n + 1);
            w.path_len = n;
            w.dev = st.st_dev;
            w.ino[0] = st.st_ino;
            walk_dir(&w, fd, 0);
        }
        close(fd);
        for (int i = 0; i < HELD_LEVELS; i++)
            free(w.buf[i]);
        free(w.path);
    }
    if (w.out_of_fds) { /* from the start, by fts alone */
        *bytes = bytes0;
        *files = files0;
        fts_sum(root, bytes, files);
    }
}
