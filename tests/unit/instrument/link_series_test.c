/* link_series: a link's rate integrated over time gives its bytes back in a
 * Paje reader that prints times to the microsecond and values as floats
 * (pj_dump), even across an interval of a few microseconds carrying many
 * bytes (a rank seen late, all its bytes so far at once). A rank of another
 * host, gathered at the end, has its bytes spread over its lifetime: the
 * link's rate there is its average, with no burst at the gather, and a
 * sampled rank's bytes stay spread over their sampling interval. */
#include "instrument/link_series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"

/* What pj_dump does with the bandwidth.mpi points of the file: times read
 * back from "%.6f", values from float; returns the sum of rate x duration. */
static double reader_integral(const char *path, int *points, double *peak)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NAN;
    char line[512], var[16] = "";
    double sum = 0, last_t = NAN, last_v = 0;
    *points = 0;
    *peak = 0;
    while (fgets(line, sizeof line, f)) {
        char id[16], name[64];
        if (sscanf(line, "1 %15s %*s \"%63[^\"]\"", id, name) == 2 && !strcmp(name, "bandwidth.mpi"))
            snprintf(var, sizeof var, "%s", id);
        double t, v;
        char vid[16];
        if (sscanf(line, "8 %lf %15s %*s %lf", &t, vid, &v) == 3 && var[0] && !strcmp(vid, var)) {
            char printed[64];
            snprintf(printed, sizeof printed, "%.6f", t);
            t = atof(printed);
            if (!isnan(last_t))
                sum += (t - last_t) * (double)(float)last_v;
            last_t = t;
            last_v = v;
            *peak = fmax(*peak, v);
            (*points)++;
        }
    }
    fclose(f);
    return sum;
}

int main(void)
{
    struct tally_segment *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    struct link_series *s = link_series_new();
    CHECK(a && b && s);
    a->d.rank = 0;
    b->d.rank = 1;
    double t0 = 86400.123456789;
    link_series_begin(s, t0);
    /* regular samplings 0.05 s apart, at times that are no whole microsecond */
    uint64_t sent = 0;
    double t = t0;
    for (int i = 1; i <= 20; i++) {
        t += 0.0500003217;
        sent += 512;
        a->d.links[1].bytes = sent;
        b->d.links[0].bytes = sent;
        link_series_sample(s, t, a);
        link_series_sample(s, t, b);
    }
    /* 1.7 us later: 300 kB more in one direction (a rank seen late) */
    t += 0.0000017;
    b->d.links[0].bytes = sent + 300000;
    link_series_sample(s, t, a);
    link_series_sample(s, t, b);
    /* and the end */
    t += 0.05;
    link_series_sample(s, t, a);
    link_series_sample(s, t, b);
    uint64_t want = 2 * sent + 300000;

    char path[] = "/tmp/link_series_test.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    char why[256];
    CHECK_INT(link_series_write_paje(s, path, why, sizeof why), 0);
    int points;
    double peak;
    double got = reader_integral(path, &points, &peak);
    CHECK(points >= 22);
    CHECK_NEAR(got, (double)want, 0.05);
    link_series_free(s);

    /* rank 0 here, sampled every 0.1 s for 2 s, 1000 B each time to rank 1;
     * rank 1 on another host, gathered at the end (t0 + 2.3 s): 50000 B to
     * rank 0 over its lifetime [t0 + 0.5, t0 + 1.5] */
    s = link_series_new();
    memset(a->d.links, 0, sizeof a->d.links);
    memset(b->d.links, 0, sizeof b->d.links);
    link_series_begin(s, t0);
    for (int i = 1; i <= 20; i++) {
        a->d.links[1].bytes = 1000u * (unsigned)i;
        link_series_sample(s, t0 + 0.1 * i, a);
    }
    b->d.links[0].bytes = 50000;
    CHECK(!link_series_has_rank(s, 1));
    link_series_gathered(s, t0 + 0.5, t0 + 1.5, b);
    CHECK(link_series_has_rank(s, 1));
    CHECK_INT(link_series_write_paje(s, path, why, sizeof why), 0);
    got = reader_integral(path, &points, &peak);
    CHECK_NEAR(got, 20000.0 + 50000.0, 0.05);
    /* 10 kB/s of rank 0's plus 50 kB/s of rank 1's while both ran, never more */
    CHECK_NEAR(peak, 60000.0, 1.0);
    link_series_free(s);

    /* the same, sampled every second as `tally run --time-series` does, the
     * gathered rank's lifetime [t0 + 0.55, t0 + 1.45] inside the samplings:
     * rank 0's bytes of a second stay spread over that second, none moved to
     * the end of the piece that the gathered rank's bound cuts off */
    s = link_series_new();
    memset(a->d.links, 0, sizeof a->d.links);
    link_series_begin(s, t0);
    for (int i = 1; i <= 2; i++) {
        a->d.links[1].bytes = 10000u * (unsigned)i;
        link_series_sample(s, t0 + i, a);
    }
    link_series_gathered(s, t0 + 0.55, t0 + 1.45, b);
    CHECK_INT(link_series_write_paje(s, path, why, sizeof why), 0);
    got = reader_integral(path, &points, &peak);
    CHECK_NEAR(got, 20000.0 + 50000.0, 0.05);
    CHECK_NEAR(peak, 10000.0 + 50000.0 / 0.9, 1.0);
    unlink(path);
    link_series_free(s);
    free(a);
    free(b);
    return test_done();
}
