/* Unit tests for the procfs readers (src/platform/linux/procfs.c), on real
 * processes: a child's I/O and memory as the kernel accounts them. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/platform.h"
#include "test.h"

/* Forks a child that writes 'bytes' to /dev/null and reads 'bytes' from /dev/zero. */
static void child_io(long bytes)
{
    pid_t pid = fork();
    if (pid == 0) {
        static char buf[4096];
        int out = open("/dev/null", O_WRONLY), in = open("/dev/zero", O_RDONLY);
        for (long left = bytes; left > 0;) {
            long n = left < (long)sizeof buf ? left : (long)sizeof buf;
            if (write(out, buf, (size_t)n) != n || read(in, buf, (size_t)n) != n)
                _exit(1);
            left -= n;
        }
        _exit(0);
    }
    waitpid(pid, NULL, 0);
}

static char wanted[] = "/tmp/tally-procfs-test-XXXXXX";

static void visit(void *ctx, const char *path)
{
    if (!strcmp(path, wanted))
        (*(int *)ctx)++;
}

int main(void)
{
    struct proc_stat st;
    CHECK_INT(proc_read_stat(getpid(), &st), 0);
    CHECK_INT(st.ppid, getppid());
    CHECK(st.rss_bytes > 0 && st.vm_bytes >= st.rss_bytes);
    struct proc_status status;
    CHECK_INT(proc_read_status(getpid(), &status), 0);
    CHECK(status.vm_hwm >= status.vm_rss && status.vm_peak >= status.vm_size);
    struct proc_statm statm;
    CHECK_INT(proc_read_statm(getpid(), &statm), 0);
    CHECK(statm.resident > 0 && statm.size >= statm.resident && statm.shared <= statm.resident);
    CHECK_INT(proc_read_stat(999999999, &st), -1);

    /* A reaped child's I/O is counted exactly, tally's own reads are not. */
    struct proc_io before, after;
    CHECK_INT(proc_reaped_children_io(&before), 0);
    child_io(1234567);
    for (int i = 0; i < 5; i++) /* our own reads in between must not count */
        proc_read_status(getpid(), &status);
    CHECK_INT(proc_reaped_children_io(&after), 0);
    CHECK_INT(after.wchar - before.wchar, 1234567);
    CHECK_INT(after.rchar - before.rchar, 1234567);

    /* Open files: a file this test opens is listed, once closed it is not. */
    int fd = mkstemp(wanted);
    int found = 0;
    CHECK_INT(proc_visit_open_files(getpid(), visit, &found), 0);
    CHECK_INT(found, 1);
    close(fd);
    found = 0;
    proc_visit_open_files(getpid(), visit, &found);
    CHECK_INT(found, 0);
    unlink(wanted);
    CHECK(machine_cpu_count() >= 1);
    CHECK_INT(gpu_count_in_use(NULL, 0), 0);

    /* The readings the agent, instrument and client take through here. */
    char comm[64];
    CHECK_INT(proc_read_comm(getpid(), comm, sizeof comm), 0);
    CHECK_STR(comm, "procfs_test");
    CHECK_INT(proc_read_comm(999999999, comm, sizeof comm), -1);
    CHECK_STR(comm, "");
    uid_t uid = 12345;
    CHECK_INT(proc_owner(getpid(), &uid), 0);
    CHECK_INT(uid, getuid());
    CHECK_INT(proc_owner(999999999, &uid), -1);
    char exe[4096], tiny[4];
    CHECK_INT(proc_self_exe(exe, sizeof exe), 0);
    CHECK(strstr(exe, "/unit/platform/procfs_test") != NULL);
    CHECK_INT(proc_self_exe(tiny, sizeof tiny), -1);
    usleep(1000); /* at least one voluntary switch */
    CHECK_INT(proc_read_status(getpid(), &status), 0);
    CHECK(status.context_switches >= 1);
    double load[3];
    CHECK_INT(machine_load_averages(load), 0);
    CHECK(load[0] >= 0 && load[1] >= 0 && load[2] >= 0);
    CHECK(machine_uptime() > 0);
    CHECK(machine_meminfo_mb("MemTotal") > 1);
    CHECK(machine_meminfo_mb("MemAvailable") <= machine_meminfo_mb("MemTotal"));
    CHECK(machine_meminfo_mb("NoSuchKey") == 0);
    return test_done();
}
