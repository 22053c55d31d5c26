/* Benchmark program (Table 3a/4a of seed 002): computes the sine and cosine of
 * N random numbers, then prints its own CPU time (utime+stime from
 * getrusage) so that the benchmark knows the true CPU time of a run with no
 * monitor.  Usage: cpu_sincos N */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cpu_sincos ITERATIONS\n");
        return 2;
    }
    long long iterations = strtoll(argv[1], NULL, 10);
    unsigned int seed = 12345;
    double sum = 0.0;
    for (long long i = 0; i < iterations; i++) {
        double x = (double)rand_r(&seed) / RAND_MAX * 1000.0;
        sum += sin(x) * cos(x);
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
                 usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    /* The sum is printed so that the loop cannot be optimised away. */
    printf("cpu_time %.6f checksum %.3f\n", cpu, sum);
    return 0;
}
