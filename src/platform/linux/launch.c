/* Starting the task's top process. The child waits on a pipe until the
 * parent has seized it with ptrace (so that not even its first fork is
 * missed), then execs; an exec failure is sent back through a close-on-exec
 * pipe as the errno, so that 'not found' (127) and 'cannot execute' (126)
 * are told apart from a command that itself exits 126 or 127. */
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "platform/linux/ptrace_options.h"
#include "util/error.h"


int launch_command(char *const argv[], unsigned flags, struct launch *out)
{
    bool traced = flags & LAUNCH_TRACED;
    int go[2], err[2];
    if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
        tally_error_errno("run: pipe");
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        tally_error_errno("run: fork");
        return -1;
    }
    if (pid == 0) {
        close(go[1]);
        close(err[0]);
        /* Not outliving a killed tally: at level 2 every process of the
         * tree is ended by PTRACE_O_EXITKILL, at level 1 by the guardian
         * (which needs this one alive to find its children); unguarded, at
         * least this one ends. */
        if (!(flags & LAUNCH_GUARDED))
            prctl(PR_SET_PDEATHSIG, SIGKILL);
        /* tally blocks SIGCHLD to wait for it (level 1); the task must not inherit that. */
        sigset_t unblock;
        sigemptyset(&unblock);
        sigaddset(&unblock, SIGCHLD);
        sigaddset(&unblock, SIGALRM);
        sigprocmask(SIG_UNBLOCK, &unblock, NULL);
        if (getppid() != parent)
            _exit(127);
        char c;
        while (read(go[0], &c, 1) < 0 && errno == EINTR)
            ;
        close(go[0]);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t ignored = write(err[1], &e, sizeof e);
        (void)ignored;
        _exit(e == ENOENT ? 127 : 126);
    }
    close(go[0]);
    close(err[1]);
    long options = TRACE_OPTIONS | (flags & LAUNCH_EXEC_EVENTS ? PTRACE_O_TRACEEXEC : 0);
    if (traced && ptrace(PTRACE_SEIZE, pid, 0, (void *)options) < 0) {
        tally_error_errno("run: process events unavailable (ptrace), using --level 1");
        kill(pid, SIGKILL);
        close(go[1]);
        close(err[0]);
        out->pid = pid;
        out->error_fd = -1;
        return -2; /* the caller reaps pid */
    }
    if (write(go[1], "g", 1) < 0) {
        tally_error_errno("run: start");
    }
    close(go[1]);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    out->pid = pid;
    out->error_fd = err[0];
    return 0;
}

int launch_exec_errno(struct launch *launch)
{
    int e = 0;
    if (launch->error_fd < 0)
        return 0;
    if (read(launch->error_fd, &e, sizeof e) != (ssize_t)sizeof e)
        e = 0;
    close(launch->error_fd);
    launch->error_fd = -1;
    return e;
}
