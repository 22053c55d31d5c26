/* Generates a SimGrid-like categorized Paje trace for bench/trace.bench.sh:
 * HOSTS hosts (speed, core_count, p<cat>) and HOSTS/2 links (bandwidth,
 * b<cat>) in a flat zone, then EVENTS variable events (set/add/sub) at
 * increasing times, usage kept within capacity.
 * usage: paje_gen EVENTS HOSTS CATEGORIES > trace.paje */
#include <stdio.h>
#include <stdlib.h>

static const char header[] =
    "%EventDef PajeDefineContainerType 0\n%       Alias string\n%       Type string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeDefineVariableType 1\n%       Alias string\n%       Type string\n%       Name string\n%       Color color\n%EndEventDef\n"
    "%EventDef PajeDefineLinkType 4\n%       Alias string\n%       Type string\n%       StartContainerType string\n%       EndContainerType string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 6\n%       Time date\n%       Alias string\n%       Type string\n%       Container string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeDestroyContainer 7\n%       Time date\n%       Type string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeSetVariable 8\n%       Time date\n%       Type string\n%       Container string\n%       Value double\n%EndEventDef\n"
    "%EventDef PajeAddVariable 9\n%       Time date\n%       Type string\n%       Container string\n%       Value double\n%EndEventDef\n"
    "%EventDef PajeSubVariable 10\n%       Time date\n%       Type string\n%       Container string\n%       Value double\n%EndEventDef\n"
    "%EventDef PajeStartLink 15\n%       Time date\n%       Type string\n%       Container string\n%       Value string\n%       StartContainer string\n%       Key string\n%EndEventDef\n"
    "%EventDef PajeEndLink 16\n%       Time date\n%       Type string\n%       Container string\n%       Value string\n%       EndContainer string\n%       Key string\n%EndEventDef\n";

static unsigned long long rng = 88172645463325252ULL;
static unsigned long long next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: paje_gen EVENTS HOSTS CATEGORIES\n");
        return 2;
    }
    long events = atol(argv[1]), hosts = atol(argv[2]), cats = atol(argv[3]);
    if (events < 1 || hosts < 2 || cats < 1 || cats > 26) {
        fprintf(stderr, "paje_gen: bad arguments\n");
        return 2;
    }
    long links = hosts / 2, n = hosts + links;
    double *cap = malloc((size_t)n * sizeof *cap), *use = calloc((size_t)(n * cats), sizeof *use);
    if (!cap || !use)
        return 1;
    fputs(header, stdout);
    printf("0 1 0 HOST\n1 2 1 speed \"1 1 1\"\n1 3 1 core_count \"1 1 1\"\n0 5 0 LINK\n1 6 5 bandwidth \"1 1 1\"\n");
    printf("4 9 0 1 5 0-HOST1-LINK5\n");
    for (long c = 0; c < cats; c++)
        printf("1 p%c 1 p%c \"1 0 0\"\n1 b%c 5 b%c \"0 0 1\"\n", (char)('a' + c), (char)('a' + c),
               (char)('a' + c), (char)('a' + c));
    for (long h = 0; h < hosts; h++) {
        cap[h] = 1e9 * (double)(1 + next() % 4);
        printf("6 0.000000 h%ld 1 0 \"host-%ld\"\n8 0.000000 2 h%ld %f\n8 0.000000 3 h%ld 1.000000\n", h,
               h, h, cap[h], h);
        for (long c = 0; c < cats; c++) /* as SimGrid: set to 0 before any add */
            printf("8 0.000000 p%c h%ld 0.000000\n", (char)('a' + c), h);
    }
    for (long l = 0; l < links; l++) {
        cap[hosts + l] = 1.25e8 * (double)(1 + next() % 8);
        printf("6 0.000000 l%ld 5 0 \"link-%ld\"\n8 0.000000 6 l%ld %f\n", l, l, l, cap[hosts + l]);
        for (long c = 0; c < cats; c++)
            printf("8 0.000000 b%c l%ld 0.000000\n", (char)('a' + c), l);
        printf("15 0.000000 9 0 topology h%ld k%ld\n16 0.000000 9 0 topology l%ld k%ld\n", 2 * l, l, l, l);
    }
    double t = 0;
    for (long e = 0; e < events; e++) {
        t += (double)(next() % 1000) * 1e-6;
        long r = (long)(next() % (unsigned long long)n), c = (long)(next() % (unsigned long long)cats);
        char prefix = r < hosts ? 'p' : 'b';
        char kind = r < hosts ? 'h' : 'l';
        long idx = r < hosts ? r : r - hosts;
        double *u = &use[r * cats + c], limit = cap[r] / (double)cats;
        int op = (int)(next() % 3);
        double v = limit * (double)(next() % 1000) / 1000.0;
        if (op == 0) {
            *u = v;
            printf("8 %f %c%c %c%ld %f\n", t, prefix, (char)('a' + c), kind, idx, v);
        } else if (op == 1 || *u < v / 4) {
            v = (limit - *u) / 4;
            *u += v;
            printf("9 %f %c%c %c%ld %f\n", t, prefix, (char)('a' + c), kind, idx, v);
        } else {
            v = *u / 2;
            *u -= v;
            printf("10 %f %c%c %c%ld %f\n", t, prefix, (char)('a' + c), kind, idx, v);
        }
    }
    for (long h = 0; h < hosts; h++)
        printf("7 %f 1 h%ld\n", t, h);
    for (long l = 0; l < links; l++)
        printf("7 %f 5 l%ld\n", t, l);
    free(cap);
    free(use);
    return 0;
}
