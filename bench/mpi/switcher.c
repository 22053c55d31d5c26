/* Switching every rank on and off, as the monitor does: waits until NP
 * segments are registered in DIR, then ROUNDS times: switches MPI recording
 * on in each rank (tally_seg_monitor_switch, as the agent does), timing (a) the writes
 * for all ranks and (b) until every rank acknowledged at its next MPI call;
 * then switches it off (writes timed). The ranks run busy.c (monitor-driven
 * window: off until switched). Prints medians in microseconds:
 * "write_on_us ack_all_us write_off_us". usage: switcher DIR NP ROUNDS */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <tally/segment.h>
#include <tally/segment_switch.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    const char *dir = argv[1];
    int np = atoi(argv[2]), rounds = atoi(argv[3]);
    struct tally_segment **segs = calloc((size_t)np, sizeof *segs);
    int found = 0;
    for (int tries = 0; found < np && tries < 60000; tries++) { /* up to 60 s */
        found = 0;
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) && found < np) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".seg") || e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            int fd = open(path, O_RDWR);
            if (fd < 0)
                continue;
            void *p = mmap(NULL, TALLY_SEG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
            if (p == MAP_FAILED)
                continue;
            struct tally_segment *s = p;
            if (!(s->d.flags & TALLY_SEG_MPI)) {
                munmap(p, TALLY_SEG_SIZE);
                continue;
            }
            segs[found++] = s;
        }
        if (d)
            closedir(d);
        if (found < np) {
            for (int i = 0; i < found; i++)
                munmap(segs[i], TALLY_SEG_SIZE);
            usleep(1000);
        }
    }
    if (found < np) {
        fprintf(stderr, "switcher: %d of %d ranks registered\n", found, np);
        return 1;
    }
    double *won = calloc((size_t)rounds, sizeof(double)), *ack = calloc((size_t)rounds, sizeof(double)),
           *woff = calloc((size_t)rounds, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        double t0 = now_us();
        for (int i = 0; i < np; i++)
            tally_seg_monitor_switch(segs[i], TALLY_ON_MPI, mono_ns());
        double t1 = now_us();
        for (int done = 0; !done;) {
            done = 1;
            for (int i = 0; i < np; i++)
                if (segs[i]->control.c.ack != segs[i]->control.c.request)
                    done = 0;
            if (!done && now_us() - t0 > 5e6)
                break;
        }
        double t2 = now_us();
        for (int i = 0; i < np; i++)
            tally_seg_monitor_switch(segs[i], 0, mono_ns());
        double t3 = now_us();
        won[r] = t1 - t0;
        ack[r] = t2 - t0;
        woff[r] = t3 - t2;
        usleep(2000);
    }
    printf("%.2f %.1f %.2f\n", median(won, rounds), median(ack, rounds), median(woff, rounds));
    return 0;
}
