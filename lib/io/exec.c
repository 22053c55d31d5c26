/* libtally-io across exec: every exec function and posix_spawn hands the
 * new image an environment in which the helper's LD_PRELOAD and
 * TALLY_IO_DIR are present, even when the program cleared or replaced its
 * own (clearenv, execle with a fresh environment). Nothing here allocates:
 * a vfork child runs it on its parent's memory. The region notes the exec
 * (EXEC_PENDING and its target) so that the monitor can tell an image
 * that never started the helper (a static or setuid program). */
#include "exec.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

DECLARE_REAL(execve); DECLARE_REAL(execvpe); DECLARE_REAL(fexecve); DECLARE_REAL(posix_spawn);
DECLARE_REAL(posix_spawnp);

/* This library's path, as the loader knows it, found at the first exec
 * (an image that never execs pays no dladdr; dladdr takes the loader's
 * lock and allocates nothing, so a vfork child may call it). The entries
 * are built on the caller's stack at each exec: a short process touches no
 * page of its own for them. */
static const char *library IO_HOT;

static const char *find_library(void)
{
    Dl_info info;
    if (!library && dladdr((void *)find_library, &info) && info.dli_fname && *info.dli_fname)
        library = info.dli_fname;
    return library;
}

size_t io_env_count(char *const envp[])
{
    size_t n = 0;
    while (envp && envp[n])
        n++;
    return n;
}

/* String helpers of our own: a fork child about to exec would otherwise
 * resolve and fault in libc's strlen, strncmp and strstr. */
static size_t str_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

static bool has_prefix(const char *s, const char *prefix)
{
    while (*prefix && *s == *prefix)
        s++, prefix++;
    return !*prefix;
}

static bool contains(const char *s, const char *part)
{
    for (; *s; s++) {
        const char *a = s, *b = part;
        while (*b && *a == *b)
            a++, b++;
        if (!*b)
            return true;
    }
    return !*part;
}

/* NAME=A[:B] at *at (before end), advancing it; NULL when it does not fit. */
static char *put_entry(char **at, const char *end, const char *name, const char *a, const char *b)
{
    size_t n = str_len(name), la = str_len(a), lb = b ? str_len(b) : 0;
    if (n + la + (b ? 1 + lb : 0) + 1 > (size_t)(end - *at))
        return NULL;
    char *e = *at, *p = e;
    for (size_t i = 0; i < n; i++)
        *p++ = name[i];
    for (size_t i = 0; i < la; i++)
        *p++ = a[i];
    if (b) {
        *p++ = ':';
        for (size_t i = 0; i < lb; i++)
            *p++ = b[i];
    }
    *p++ = '\0';
    *at = p;
    return e;
}

size_t io_env_room(char *const envp[])
{
    if (!io_region || !find_library())
        return 1;
    size_t lib = str_len(library);
    size_t room = sizeof "TALLY_IO_DIR=" + str_len(io_directory()) + sizeof "LD_PRELOAD=" + lib;
    for (size_t i = 0; envp && envp[i]; i++)
        if (has_prefix(envp[i], "LD_PRELOAD="))
            room += sizeof "LD_PRELOAD=" + lib + 1 + str_len(envp[i] + 11);
    return room;
}

char *const *io_child_env(char *const envp[], char **out, char *buf, size_t buflen)
{
    if (!io_region || !library)
        return envp;
    char *at = buf;
    const char *end = buf + buflen;
    char *dir_entry = put_entry(&at, end, "TALLY_IO_DIR=", io_directory(), NULL);
    char *preload_entry = put_entry(&at, end, "LD_PRELOAD=", library, NULL);
    if (!dir_entry || !preload_entry)
        return envp;
    size_t k = 0;
    int have_dir = 0, have_preload = 0;
    for (size_t i = 0; envp && envp[i]; i++) {
        const char *e = envp[i];
        if (has_prefix(e, "TALLY_IO_DIR=")) {
            out[k++] = dir_entry; /* ours, whatever the program put there */
            have_dir = 1;
        } else if (has_prefix(e, "LD_PRELOAD=")) {
            have_preload = 1;
            if (contains(e + 11, library)) {
                out[k++] = (char *)e;
            } else { /* the program's own preloads, and ours first */
                char *joined = put_entry(&at, end, "LD_PRELOAD=", library, e + 11);
                out[k++] = joined ? joined : preload_entry;
            }
        } else {
            out[k++] = (char *)e;
        }
    }
    if (!have_dir)
        out[k++] = dir_entry;
    if (!have_preload)
        out[k++] = preload_entry;
    out[k] = NULL;
    return out;
}

void io_exec_prepare(void)
{
    find_library();
    (void)REAL(execve);
    (void)REAL(execvpe);
}

bool io_exec_begin(const char *path)
{
    struct tally_io_header *h = io_region;
    if (!h)
        return false;
    if (h->pid != io_getpid()) { /* a vfork child: the region is its parent's */
        io_region_note_vfork_exec(path ? path : "");
        return true;
    }
    io_copy_str(h->exec_target, path ? path : "", sizeof h->exec_target);
    __atomic_fetch_or(&h->flags, TALLY_IO_EXEC_PENDING, __ATOMIC_RELEASE);
    return false;
}

void io_exec_failed(void)
{
    struct tally_io_header *h = io_region;
    if (h && h->pid == io_getpid())
        __atomic_fetch_and(&h->flags, ~(uint32_t)TALLY_IO_EXEC_PENDING, __ATOMIC_RELEASE);
}

#define ENV_ROOM(envp) (io_env_count(envp) + 3)

/* execve's next definition, looked up at the first exec; a vfork child
 * that finds it not yet looked up makes the system call itself (it runs on
 * its parent's memory: no dlsym there). */
static int next_execve(bool vforked, const char *path, char *const argv[], char *const envp[])
{
    if (!real_execve && vforked) {
        long r = io_sys(SYS_execve, path, argv, envp);
        errno = (int)-r;
        return -1;
    }
    return REAL(execve)(path, argv, envp);
}

IO_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    char *env[ENV_ROOM(envp)];
    char buf[io_env_room(envp)];
    bool vforked = io_exec_begin(path);
    int rc = next_execve(vforked, path, argv, io_child_env(envp, env, buf, sizeof buf));
    int saved = errno;
    io_exec_failed();
    errno = saved;
    return rc;
}

IO_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    char *env[ENV_ROOM(envp)];
    char buf[io_env_room(envp)];
    io_exec_begin(file);
    int rc = REAL(execvpe)(file, argv, io_child_env(envp, env, buf, sizeof buf));
    int saved = errno;
    io_exec_failed();
    errno = saved;
    return rc;
}

IO_EXPORT int execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

IO_EXPORT int execvp(const char *file, char *const argv[])
{
    return execvpe(file, argv, environ);
}

IO_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    char *env[ENV_ROOM(envp)];
    char buf[io_env_room(envp)];
    io_exec_begin("");
    int rc = REAL(fexecve)(fd, argv, io_child_env(envp, env, buf, sizeof buf));
    int saved = errno;
    io_exec_failed();
    errno = saved;
    return rc;
}

/* The arguments of an execl-style call, into a NULL-terminated array on
 * the caller's stack; *envp set for execle. */
#define COLLECT_ARGS(arg, argv, envp_out, with_env)                \
    size_t argc_ = 1;                                              \
    {                                                              \
        va_list ap;                                                \
        va_start(ap, arg);                                         \
        while (va_arg(ap, const char *))                           \
            argc_++;                                               \
        va_end(ap);                                                \
    }                                                              \
    char *argv[argc_ + 1];                                         \
    {                                                              \
        va_list ap;                                                \
        va_start(ap, arg);                                         \
        argv[0] = (char *)arg;                                     \
        for (size_t i = 1; i <= argc_; i++)                        \
            argv[i] = va_arg(ap, char *);                          \
        envp_out = with_env ? va_arg(ap, char *const *) : environ; \
        va_end(ap);                                                \
    }

IO_EXPORT int execl(const char *path, const char *arg, ...)
{
    char *const *envp;
    COLLECT_ARGS(arg, argv, envp, 0);
    return execve(path, argv, envp);
}

IO_EXPORT int execlp(const char *file, const char *arg, ...)
{
    char *const *envp;
    COLLECT_ARGS(arg, argv, envp, 0);
    return execvpe(file, argv, envp);
}

IO_EXPORT int execle(const char *path, const char *arg, ...)
{
    char *const *envp;
    COLLECT_ARGS(arg, argv, envp, 1);
    return execve(path, argv, envp);
}

IO_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                          const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    char *env[ENV_ROOM(envp)];
    char buf[io_env_room(envp)];
    return REAL(posix_spawn)(pid, path, actions, attr, argv, io_child_env(envp, env, buf, sizeof buf));
}

IO_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                           const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    char *env[ENV_ROOM(envp)];
    char buf[io_env_room(envp)];
    return REAL(posix_spawnp)(pid, file, actions, attr, argv, io_child_env(envp, env, buf, sizeof buf));
}
