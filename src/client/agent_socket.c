/* The agent's Unix socket, its directory, lock and peer check (see
 * agent_socket.h). */
#include "client/agent_socket.h"
#include "util/pid_text.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int agent_socket_default_path(char *path, size_t size)
{
    const char *runtime = getenv("XDG_RUNTIME_DIR"), *chosen = getenv("TALLY_AGENT");
    int n;
    if (chosen && *chosen)
        n = snprintf(path, size, "%s", chosen);
    else if (runtime && *runtime)
        n = snprintf(path, size, "%s/tally/agent.sock", runtime);
    else
        n = snprintf(path, size, "/tmp/tally-%u/agent.sock", (unsigned)getuid());
    return n > 0 && (size_t)n < size ? 0 : -1;
}

static void directory_of(const char *path, char *dir, size_t size)
{
    snprintf(dir, size, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = '\0';
    else if (slash)
        slash[1] = '\0';
    else
        snprintf(dir, size, ".");
}

/* "uid 1001 (bob)": a uid with its login name, for refusals. */
static void describe_uid(uid_t uid, char *out, size_t size)
{
    struct passwd pw, *found = NULL;
    char buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found)
        snprintf(out, size, "uid %u (%s)", (unsigned)uid, found->pw_name);
    else
        snprintf(out, size, "uid %u", (unsigned)uid);
}

/* 0 when dir is a directory (not a symlink) of this user's, closed to
 * others; else -1 with why, or -1 with errno ENOENT and why empty when it
 * does not exist. Both sides check it: the agent before it binds, a client
 * before it connects, so that another local user cannot stand in for the
 * agent by creating the directory first (/tmp/tally-UID is guessable). */
static int check_private_directory(const char *dir, char *why, size_t why_size)
{
    struct stat st;
    if (lstat(dir, &st) < 0) {
        int e = errno;
        if (e == ENOENT)
            why[0] = '\0';
        else
            snprintf(why, why_size, "cannot check %s: %s", dir, strerror(e));
        errno = e;
        return -1;
    }
    errno = EPERM;
    char owner[300], self[300];
    describe_uid(st.st_uid, owner, sizeof owner);
    describe_uid(getuid(), self, sizeof self);
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "%s is not a directory but a %s of %s%s", dir,
                 S_ISLNK(st.st_mode) ? "symbolic link" : "file", owner,
                 st.st_uid == getuid() ? "" : ", not of you: another user may be standing in "
                                              "for your agent");
        return -1;
    }
    if (st.st_uid != getuid()) {
        snprintf(why, why_size,
                 "%s belongs to %s, not to you (%s): another user may be standing in for "
                 "your agent; use a socket in a directory of your own (--socket, or set "
                 "XDG_RUNTIME_DIR)",
                 dir, owner, self);
        return -1;
    }
    /* An existing directory is never changed (--socket /tmp/x.sock must not
     * close /tmp to everyone else): one open to others is refused. */
    if (st.st_mode & 077) {
        snprintf(why, why_size,
                 "%s is open to other users (mode %04o): put the socket in a directory of "
                 "your own with mode 0700",
                 dir, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* mkdir 0700, or check that the existing directory is the user's and closed to others. */
static int prepare_directory(const char *dir, char *why, size_t why_size)
{
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        snprintf(why, why_size, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    if (check_private_directory(dir, why, why_size) < 0) {
        if (!why[0])
            snprintf(why, why_size, "%s vanished while it was being created", dir);
        return -1;
    }
    return 0;
}

static int fill_address(const char *path, struct sockaddr_un *addr)
{
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr->sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(addr->sun_path, path);
    return 0;
}

static void lock_path(const char *path, char *out, size_t size)
{
    char dir[4096];
    directory_of(path, dir, sizeof dir);
    snprintf(out, size, "%s/agent.lock", dir);
}

pid_t agent_socket_owner(const char *path)
{
    char lock[4200], buf[32];
    lock_path(path, lock, sizeof lock);
    int fd = open(lock, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    pid_t pid;
    return pid_parse(buf, NULL, PID_KERNEL_LIMIT, &pid) == 0 ? pid : 0;
}

int agent_socket_prepare(const char *path, char *why, size_t why_size)
{
    char dir[4096];
    directory_of(path, dir, sizeof dir);
    return prepare_directory(dir, why, why_size);
}

int agent_socket_listen(const char *path, int *lock_fd, char *why, size_t why_size)
{
    char lock[4200];
    if (agent_socket_prepare(path, why, why_size) < 0)
        return -1;
    lock_path(path, lock, sizeof lock);
    int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lfd < 0) {
        snprintf(why, why_size, "cannot open %s: %s", lock, strerror(errno));
        return -1;
    }
    if (flock(lfd, LOCK_EX | LOCK_NB) < 0) {
        snprintf(why, why_size, "another agent (pid %d) already serves %s",
                 (int)agent_socket_owner(path), path);
        close(lfd);
        return -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (ftruncate(lfd, 0) < 0 || pwrite(lfd, pid, (size_t)n, 0) != n) {
        snprintf(why, why_size, "cannot write %s: %s", lock, strerror(errno));
        close(lfd);
        return -1;
    }
    struct sockaddr_un addr;
    if (fill_address(path, &addr) < 0) {
        snprintf(why, why_size, "socket path too long: %s", path);
        close(lfd);
        return -1;
    }
    unlink(path); /* a socket left by an agent that died: we hold the lock */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    mode_t old = umask(077);
    int rc = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&addr, sizeof addr);
    umask(old);
    if (rc < 0 || listen(fd, 128) < 0) {
        snprintf(why, why_size, "cannot listen on %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        close(lfd);
        return -1;
    }
    *lock_fd = lfd;
    return fd;
}

int agent_socket_connect(const char *path, char *why, size_t why_size)
{
    char dir[4096];
    why[0] = '\0';
    directory_of(path, dir, sizeof dir);
    if (check_private_directory(dir, why, why_size) < 0)
        return errno == ENOENT ? -1 : -2;
    struct sockaddr_un addr;
    if (fill_address(path, &addr) < 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    /* Who listens: the credentials the server had when it called listen(). */
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != getuid()) {
        char server[300], self[300];
        describe_uid(cred.uid, server, sizeof server);
        describe_uid(getuid(), self, sizeof self);
        snprintf(why, why_size, "the socket %s is served by %s, not by you (%s): refusing to "
                 "talk to it", path, server, self);
        close(fd);
        errno = EPERM;
        return -2;
    }
    return fd;
}

int agent_socket_check_peer(int fd, char *why, size_t why_size)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
        snprintf(why, why_size, "cannot tell who the peer is: %s", strerror(errno));
        return -1;
    }
    if (cred.uid != getuid()) {
        snprintf(why, why_size, "peer uid %u is not the agent's user (uid %u)", (unsigned)cred.uid,
                 (unsigned)getuid());
        return -1;
    }
    return 0;
}

int agent_socket_spool_dir(const char *path, char *dir, size_t size)
{
    char socket_dir[4096];
    directory_of(path, socket_dir, sizeof socket_dir);
    int n = snprintf(dir, size, "%s/spool", socket_dir);
    return n > 0 && (size_t)n < size ? 0 : -1;
}
