/* Host-wide counters and capacities for a trace of the whole host (seed
 * "Visualization and Detection of Resource Usage Anomalies in Large Scale
 * Distributed Systems", Schnorr, Legrand and Vincent, section 2.1: a
 * resource's capacity over time, and what every user of it takes):
 *   cores            online CPUs (sysconf)
 *   cpu_busy         /proc/stat "cpu": user+nice+system+irq+softirq+steal
 *   memory           /proc/meminfo MemTotal, and MemTotal - MemAvailable used
 *   disk             /proc/diskstats of whole physical disks (those with a
 *                    /sys/block/NAME/device), sectors of 512 bytes
 *   network          /proc/net/dev of every interface but lo
 *   net bandwidth    the sum of /sys/class/net/IF/speed (Mb/s) of the
 *                    interfaces that are up and say their speed; 0 when
 *                    none does (virtual interfaces do not)
 * Each file is read whole into a buffer, no stdio. */
#include "platform/platform.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MB (1024.0 * 1024.0)

static ssize_t read_whole(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t total = 0;
    while (total < size - 1) {
        ssize_t n = read(fd, buf + total, size - 1 - total);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        total += (size_t)n;
    }
    close(fd);
    buf[total] = '\0';
    return (ssize_t)total;
}

static int read_cpu_busy(double *seconds)
{
    char buf[512];
    if (read_whole("/proc/stat", buf, sizeof buf) < 4 || strncmp(buf, "cpu ", 4))
        return -1;
    unsigned long long f[8] = {0};
    if (sscanf(buf + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3],
               &f[4], &f[5], &f[6], &f[7]) < 4)
        return -1;
    long ticks = sysconf(_SC_CLK_TCK);
    /* user nice system idle iowait irq softirq steal: all but idle and iowait */
    *seconds = (double)(f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / (double)(ticks > 0 ? ticks : 100);
    return 0;
}

static double meminfo_kb(const char *buf, const char *key)
{
    const char *p = strstr(buf, key);
    return p ? strtod(p + strlen(key), NULL) : -1;
}

static int read_memory(double *total_mb, double *used_mb)
{
    char buf[8192];
    if (read_whole("/proc/meminfo", buf, sizeof buf) <= 0)
        return -1;
    double total = meminfo_kb(buf, "MemTotal:"), avail = meminfo_kb(buf, "MemAvailable:");
    if (total <= 0 || avail < 0)
        return -1;
    *total_mb = total / 1024;
    *used_mb = (total - avail) / 1024;
    return 0;
}

static int is_physical_disk(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "/sys/block/%s/device", name);
    return access(path, F_OK) == 0;
}

static int read_disks(double *read_mb, double *written_mb)
{
    char buf[32768];
    if (read_whole("/proc/diskstats", buf, sizeof buf) <= 0)
        return -1;
    double sectors_read = 0, sectors_written = 0;
    for (char *line = buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        unsigned major, minor;
        char name[128];
        unsigned long long reads, merged, rsec, rms, writes, wmerged, wsec;
        if (sscanf(line, "%u %u %127s %llu %llu %llu %llu %llu %llu %llu", &major, &minor, name,
                   &reads, &merged, &rsec, &rms, &writes, &wmerged, &wsec) == 10 &&
            is_physical_disk(name)) {
            sectors_read += (double)rsec;
            sectors_written += (double)wsec;
        }
    }
    *read_mb = sectors_read * 512 / MB;
    *written_mb = sectors_written * 512 / MB;
    return 0;
}

static int read_network(double *received_mb, double *sent_mb)
{
    char buf[32768];
    if (read_whole("/proc/net/dev", buf, sizeof buf) <= 0)
        return -1;
    double rx = 0, tx = 0;
    for (char *line = buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *colon = strchr(line, ':');
        if (!colon)
            continue; /* the two header lines */
        *colon = '\0';
        char *name = line;
        while (*name == ' ')
            name++;
        if (!strcmp(name, "lo"))
            continue;
        unsigned long long f[9];
        if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2],
                   &f[3], &f[4], &f[5], &f[6], &f[7], &f[8]) == 9) {
            rx += (double)f[0];
            tx += (double)f[8];
        }
    }
    *received_mb = rx / MB;
    *sent_mb = tx / MB;
    return 0;
}

double host_network_bandwidth(void)
{
    DIR *d = opendir("/sys/class/net");
    if (!d)
        return 0;
    double total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "lo"))
            continue;
        char path[512], buf[64];
        snprintf(path, sizeof path, "/sys/class/net/%s/operstate", e->d_name);
        if (read_whole(path, buf, sizeof buf) <= 0 || strncmp(buf, "up", 2))
            continue;
        snprintf(path, sizeof path, "/sys/class/net/%s/speed", e->d_name);
        long mbit = read_whole(path, buf, sizeof buf) > 0 ? strtol(buf, NULL, 10) : -1;
        if (mbit > 0)
            total += (double)mbit * 1e6 / 8 / MB;
    }
    closedir(d);
    return total;
}

int host_read_sample(struct host_sample *out)
{
    memset(out, 0, sizeof *out);
    out->cores = machine_cpu_count();
    if (read_cpu_busy(&out->cpu_busy) < 0 ||
        read_memory(&out->memory_total, &out->memory_used) < 0)
        return -1;
    /* disks and network may be hidden (containers): zeros then */
    read_disks(&out->disk_read, &out->disk_written);
    read_network(&out->net_received, &out->net_sent);
    out->net_bandwidth = host_network_bandwidth();
    return 0;
}
