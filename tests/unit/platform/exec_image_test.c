/* exec_image.c: what the loader makes of an image, read from /proc: this
 * (dynamically linked) test itself, and a child exec'd with an environment
 * of its own. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/platform.h"
#include "test.h"

/* One name through proc_read_environ_vars: 1 set, 0 not, -1 unreadable. */
static int environ_var(pid_t pid, const char *name, char *out, size_t size)
{
    return proc_read_environ_vars(pid, 1, (const char *const[]){name}, (char *const[]){out}, size);
}

int main(void)
{
    struct proc_loader l;
    CHECK_INT(proc_read_loader(getpid(), &l), 0);
    CHECK(l.dynamic);   /* an interpreter was loaded */
    CHECK(!l.secure);   /* not setuid */
    char v[64];
    setenv("EXEC_IMAGE_TEST", "ignored", 1); /* not in the environment exec gave */
    CHECK_INT(environ_var(getpid(), "EXEC_IMAGE_TEST", v, sizeof v), 0);
    CHECK_INT(proc_read_loader(999999999, &l), -1);
    CHECK_INT(environ_var(999999999, "PATH", v, sizeof v), -1);

    pid_t child = fork();
    if (child == 0) {
        char *argv[] = {"sleep", "5", NULL};
        char *envp[] = {"A=1", "TALLY_IO_DIRX=no", "TALLY_IO_DIR=/dev/shm/x", NULL};
        execve("/bin/sleep", argv, envp);
        _exit(127);
    }
    char exe[256] = "";
    for (int i = 0; i < 2000; i++) { /* until the exec is done */
        if (proc_read_exe(child, exe, sizeof exe) == 0 && strstr(exe, "sleep") &&
            proc_read_loader(child, &l) == 0)
            break;
        usleep(1000);
    }
    CHECK(strstr(exe, "sleep") != NULL);
    CHECK_INT(proc_read_loader(child, &l), 0);
    CHECK(l.dynamic && !l.secure);
    CHECK_INT(environ_var(child, "A", v, sizeof v), 1);
    CHECK(!strcmp(v, "1"));
    CHECK_INT(environ_var(child, "TALLY_IO_DIR", v, sizeof v), 1);
    CHECK(!strcmp(v, "/dev/shm/x")); /* the whole name, not a prefix */
    CHECK_INT(environ_var(child, "PATH", v, sizeof v), 0);
    CHECK_INT(environ_var(child, "TALLY_IO_DIR", v, 4), 1);
    CHECK(!strcmp(v, "/de")); /* truncated to the size given */
    /* several names in one read: a bit for each one set */
    char a[8], dir[64], path[8];
    CHECK_INT(proc_read_environ_vars(child, 3, (const char *const[]){"A", "PATH", "TALLY_IO_DIR"},
                                     (char *const[]){a, path, dir}, 8),
              (1 << 0) | (1 << 2));
    CHECK(!strcmp(a, "1") && !strcmp(dir, "/dev/sh"));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return test_done();
}
