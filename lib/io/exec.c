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

static char preload_entry[PATH_MAX + 16];  /* "LD_PRELOAD=/path/libtally-io.so" */
static char dir_entry[PATH_MAX + 16];      /* "TALLY_IO_DIR=..." */

static void prepare_entries(void)
{
    if (preload_entry[0])
        return;
    Dl_info info;
    if (!dladdr((void *)prepare_entries, &info) || !info.dli_fname)
        return;
    size_t n = strlen(info.dli_fname), d = strlen(io_directory());
    if (n + 12 > sizeof preload_entry || d + 14 > sizeof dir_entry)
        return;
    memcpy(dir_entry, "TALLY_IO_DIR=", 13);
    memcpy(dir_entry + 13, io_directory(), d + 1);
    memcpy(preload_entry, "LD_PRELOAD=", 11);
    memcpy(preload_entry + 11, info.dli_fname, n + 1);
}

size_t io_env_count(char *const envp[])
{
    size_t n = 0;
    while (envp && envp[n])
        n++;
    return n;
}

char *const *io_child_env(char *const envp[], char **out, char *buf, size_t buflen)
{
    if (!io_region)
        return envp;
    prepare_entries();
    if (!preload_entry[0])
        return envp;
    const char *lib = preload_entry + 11;
    size_t k = 0;
    int have_dir = 0, have_preload = 0;
    for (size_t i = 0; envp && envp[i]; i++) {
        const char *e = envp[i];
        if (!strncmp(e, "TALLY_IO_DIR=", 13)) {
            out[k++] = dir_entry; /* ours, whatever the program put there */
            have_dir = 1;
        } else if (!strncmp(e, "LD_PRELOAD=", 11)) {
            have_preload = 1;
            if (strstr(e + 11, lib)) {
                out[k++] = (char *)e;
            } else { /* the program's own preloads, and ours first */
                size_t a = strlen(preload_entry), b = strlen(e + 11);
                if (a + 1 + b + 1 > buflen) {
                    out[k++] = preload_entry;
                } else {
                    memcpy(buf, preload_entry, a);
                    buf[a] = ':';
                    memcpy(buf + a + 1, e + 11, b + 1);
                    out[k++] = buf;
                }
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

void io_exec_begin(const char *path)
{
    struct tally_io_header *h = io_region;
    if (!h)
        return;
    if (h->pid != (pid_t)syscall(SYS_getpid)) { /* a vfork child: the region is its parent's */
        io_region_note_vfork_exec(h, path ? path : "");
        return;
    }
    size_t n = path ? strlen(path) : 0;
    if (n > sizeof h->exec_target - 1)
        n = sizeof h->exec_target - 1;
    memcpy(h->exec_target, path, n);
    h->exec_target[n] = '\0';
    __atomic_fetch_or(&h->flags, TALLY_IO_EXEC_PENDING, __ATOMIC_RELEASE);
}

void io_exec_failed(void)
{
    struct tally_io_header *h = io_region;
    if (h && h->pid == (pid_t)syscall(SYS_getpid))
        __atomic_fetch_and(&h->flags, ~(uint32_t)TALLY_IO_EXEC_PENDING, __ATOMIC_RELEASE);
}

/* At the start: what a vfork child must not have to look up (dlsym and
 * dladdr may allocate). */
void io_exec_prepare(void)
{
    prepare_entries();
    (void)REAL(execve);
    (void)REAL(execvpe);
}

#define ENV_ROOM(envp) (io_env_count(envp) + 3)

IO_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    char *env[ENV_ROOM(envp)];
    char buf[PATH_MAX * 2];
    io_exec_begin(path);
    int rc = REAL(execve)(path, argv, io_child_env(envp, env, buf, sizeof buf));
    int saved = errno;
    io_exec_failed();
    errno = saved;
    return rc;
}

IO_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    char *env[ENV_ROOM(envp)];
    char buf[PATH_MAX * 2];
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
    char buf[PATH_MAX * 2];
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
    char buf[PATH_MAX * 2];
    return REAL(posix_spawn)(pid, path, actions, attr, argv, io_child_env(envp, env, buf, sizeof buf));
}

IO_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                           const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    char *env[ENV_ROOM(envp)];
    char buf[PATH_MAX * 2];
    return REAL(posix_spawnp)(pid, file, actions, attr, argv, io_child_env(envp, env, buf, sizeof buf));
}
