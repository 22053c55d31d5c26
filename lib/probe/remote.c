/* A process whose monitor is on another host (a rank that mpirun or srun
 * started there): its segment lives on its own host, in
 * BASE/tally-UID-launch-LAUNCH (BASE: /dev/shm, else $TMPDIR, else /tmp),
 * and the process registers with its own host's agent by running
 * 'tally agent attach PID --app APP --launch LAUNCH --segments DIR --start'
 * ($TALLY_EXE: the tally that launched the run; it starts the user's agent
 * when none runs, at $TALLY_AGENT or the default socket). The launch host's
 * 'tally run' gathers the segments through the agents at the end.
 * A process that cannot register says so once per host on stderr and runs
 * uninstrumented. Environment (set by tally run): TALLY_PROBE_DIR,
 * TALLY_LAUNCH, TALLY_LAUNCH_HOST, TALLY_APP, TALLY_EXE. */
#include "segment_client.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool writable_dir(const char *path)
{
    struct stat st;
    return path && *path && stat(path, &st) == 0 && S_ISDIR(st.st_mode) && access(path, W_OK | X_OK) == 0;
}

static bool launch_id_ok(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'z') ||
              (id[i] >= 'A' && id[i] <= 'Z') || id[i] == '-' || id[i] == '_'))
            return false;
    return true;
}

/* Once per host and launch: the first process to create the marker says it. */
static void say_once(const char *base, const char *launch, int rank, const char *host, const char *why)
{
    char marker[PATH_MAX];
    snprintf(marker, sizeof marker, "%s/tally-%u-launch-%s.told", base, (unsigned)getuid(), launch);
    int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST)
        return;
    if (fd >= 0)
        close(fd);
    if (rank >= 0)
        fprintf(stderr, "tally: rank %d on %s: not instrumented: %s\n", rank, host, why);
    else
        fprintf(stderr, "tally: process %d on %s: not instrumented: %s\n", (int)getpid(), host, why);
}

/* Runs tally agent attach; 0, or -1 with its one-line reason in why. */
static int attach(const char *exe, const char *launch, const char *dir, char *why, size_t len)
{
    const char *app = getenv("TALLY_APP");
    char app_default[96], pid[16];
    if (!app || !*app) {
        snprintf(app_default, sizeof app_default, "launch-%s", launch);
        app = app_default;
    }
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    char *argv[] = {(char *)exe, "agent", "attach", pid, "--app", (char *)app, "--launch", (char *)launch,
                    "--segments", (char *)dir, "--start", "--quiet", NULL};
    size_t n = 0;
    while (environ[n])
        n++;
    char **envp = calloc(n + 1, sizeof *envp);
    int out[2];
    if (!envp || pipe2(out, O_CLOEXEC) < 0) {
        free(envp);
        snprintf(why, len, "%s", strerror(errno));
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) /* tally itself runs without the preloaded libraries */
        if (strncmp(environ[i], "LD_PRELOAD=", 11))
            envp[k++] = environ[i];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, out[1], 2);
    /* Nothing else of the process's: the MPI library's sockets and pipes
     * would stay open in the agent it may start (its launcher would wait
     * for their end for ever). */
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    pid_t child;
    int rc = posix_spawn(&child, exe, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    close(out[1]);
    if (rc != 0) {
        close(out[0]);
        snprintf(why, len, "cannot run %s: %s", exe, strerror(rc));
        return -1;
    }
    char text[512];
    size_t got = 0;
    ssize_t r;
    while (got < sizeof text - 1 && ((r = read(out[0], text + got, sizeof text - 1 - got)) > 0 || (r < 0 && errno == EINTR)))
        if (r > 0)
            got += (size_t)r;
    close(out[0]);
    text[got] = '\0';
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char *nl = strchr(text, '\n');
    if (nl)
        *nl = '\0';
    const char *line = strncmp(text, "tally: ", 7) ? text : text + 7;
    snprintf(why, len, "%s", *line ? line : "its agent did not take it");
    return -1;
}

int tally__remote_dir(const char *probe_dir, int rank, char *dir, size_t len)
{
    const char *launch_host = getenv("TALLY_LAUNCH_HOST");
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    bool other_host = launch_host && *launch_host && strcmp(host, launch_host);
    if (!other_host && writable_dir(probe_dir))
        return 1;
    const char *launch = getenv("TALLY_LAUNCH"), *exe = getenv("TALLY_EXE");
    const char *base = writable_dir("/dev/shm") ? "/dev/shm" : writable_dir(getenv("TMPDIR")) ? getenv("TMPDIR") : "/tmp";
    if (!launch_id_ok(launch))
        return -1; /* not started by a tally run that follows remote ranks */
    if (!exe || !*exe) {
        say_once(base, launch, rank, host, "TALLY_EXE is not set (tally run sets it)");
        return -1;
    }
    if ((size_t)snprintf(dir, len, "%s/tally-%u-launch-%s", base, (unsigned)getuid(), launch) >= len)
        return -1;
    struct stat st;
    if ((mkdir(dir, 0700) < 0 && errno != EEXIST) || lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != getuid() || (st.st_mode & 077)) {
        char why[PATH_MAX + 64];
        snprintf(why, sizeof why, "%s: not a private directory of this user", dir);
        say_once(base, launch, rank, host, why);
        return -1;
    }
    char why[512];
    if (attach(exe, launch, dir, why, sizeof why) < 0) {
        say_once(base, launch, rank, host, why);
        return -1;
    }
    return 0;
}
