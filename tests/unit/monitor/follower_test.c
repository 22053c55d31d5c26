/* Unit tests for followers sharing one machine-wide scan (follower.h,
 * proc_scan.h): three real process trees followed at once from one scan
 * per tick; each sees exactly its own processes; killing one tree ends its
 * follower only; a limit broken in one tree terminates that tree alone. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "monitor/follower.h"
#include "core/limits.h"
#include "test.h"

/* A tree: a shell with n sleeping children, then it waits. */
static pid_t start_tree(int n, const char *alloc_mb)
{
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0); /* one group per tree: the test kills a whole tree */
        /* n sleeps spelled out: a $(seq n) would be one more, short-lived
         * process of the tree, which a scan may rightly count */
        char script[512] = "";
        for (int i = 0; i < n && i < 16; i++)
            strcat(script, "sleep 30 & ");
        snprintf(script + strlen(script), sizeof script - strlen(script), "%s wait",
                 alloc_mb ? alloc_mb : "");
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    return pid;
}

struct roots {
    struct follower **f;
    int n;
};

static bool is_root(void *ctx, pid_t pid)
{
    struct roots *r = ctx;
    for (int i = 0; i < r->n; i++)
        if (r->f[i] && follower_root(r->f[i]) == pid)
            return true;
    return false;
}

static void tick(struct proc_scan *scan, struct roots *r)
{
    proc_scan_refresh(scan);
    proc_scan_assign_roots(scan, is_root, r);
    for (int i = 0; i < r->n; i++) {
        follower_take_scan(r->f[i], scan);
        follower_step(r->f[i], 0);
    }
}

static void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

int main(void)
{
    pid_t trees[3] = {start_tree(2, NULL), start_tree(3, NULL), start_tree(1, NULL)};
    struct task_options o;
    task_options_init(&o);
    o.interval = 0.05;
    o.skip_disk = true;
    struct follower *f[3];
    for (int i = 0; i < 3; i++)
        f[i] = follower_new(&o, trees[i]);
    CHECK(f[0] && f[1] && f[2]);
    struct roots roots = {f, 3};
    struct proc_scan scan;
    proc_scan_init(&scan);
    /* Bounded polling until every tree shows all its children. */
    for (int k = 0; k < 200; k++) {
        tick(&scan, &roots);
        if (follower_live_processes(f[0]) == 3 && follower_live_processes(f[1]) == 4 &&
            follower_live_processes(f[2]) == 2)
            break;
        pause_ms(10);
    }
    CHECK_INT(follower_live_processes(f[0]), 3);
    CHECK_INT(follower_live_processes(f[1]), 4);
    CHECK_INT(follower_live_processes(f[2]), 2);

    /* A vanished pid is refused. */
    errno = 0;
    CHECK(follower_new(&o, 999999999) == NULL);

    /* Kill tree 1 (all of it): only its follower ends. */
    kill(-trees[1], SIGKILL);
    waitpid(trees[1], NULL, 0);
    for (int k = 0; k < 200 && !follower_done(f[1]); k++) {
        tick(&scan, &roots);
        pause_ms(10);
    }
    CHECK(follower_done(f[1]));
    CHECK(!follower_done(f[0]));
    CHECK(!follower_done(f[2]));
    follower_finish(f[1]);
    CHECK_INT(follower_result(f[1])->value[FIELD_TOTAL_PROCESSES], 4);
    CHECK_INT(follower_result(f[1])->value[FIELD_MAX_CONCURRENT_PROCESSES], 4);

    /* A live watchdog on tree 0: wall_time at most 10 ms. */
    struct limit_set limits;
    memset(&limits, 0, sizeof limits);
    limits.set[FIELD_WALL_TIME] = true;
    limits.max[FIELD_WALL_TIME] = 0.01;
    follower_set_limits(f[0], &limits);
    for (int k = 0; k < 400 && !follower_done(f[0]); k++) {
        tick(&scan, &roots);
        pause_ms(10);
    }
    CHECK(follower_done(f[0]));
    follower_finish(f[0]);
    CHECK_INT(follower_result(f[0])->exit_type, TASK_EXIT_LIMITS);
    CHECK(follower_result(f[0])->limit_exceeded[FIELD_WALL_TIME]);
    int status = 0;
    CHECK_INT(waitpid(trees[0], &status, 0), trees[0]);
    /* Ended by the watchdog's SIGTERM: directly, or by its children's (the
     * shell's wait returns when they die first: exit 128+15). */
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) ||
          (WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM));
    CHECK(!follower_done(f[2])); /* the third tree is untouched */

    kill(-trees[2], SIGKILL);
    waitpid(trees[2], NULL, 0);
    for (int i = 0; i < 3; i++)
        follower_free(f[i]);
    proc_scan_free(&scan);
    return test_done();
}
