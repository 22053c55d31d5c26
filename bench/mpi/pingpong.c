/* 0-byte ping-pong between ranks 0 and 1 (others, if any, idle in a
 * barrier): N round trips timed with MPI_Wtime on rank 0. Prints the time
 * per round trip in ns; each rank makes 2 MPI calls per round trip. With one
 * rank: N 0-byte MPI_Sendrecv to itself, ns per call (no dependence on the
 * scheduler running two ranks at once: the steadier measure of a wrapper's
 * cost on a loaded machine). Instrumentation only through libtally-mpi.
 * usage: pingpong N */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    char b = 0, c = 0;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size == 1) {
        double best = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = MPI_Wtime();
            for (long i = 0; i < n; i++)
                MPI_Sendrecv(&b, 0, MPI_CHAR, 0, 0, &c, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t = (MPI_Wtime() - t0) / n * 1e9;
            if (t < best)
                best = t;
        }
        printf("%.1f\n", best);
        MPI_Finalize();
        return 0;
    }
    for (int warm = 0; warm < 2; warm++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
            }
        }
        double t1 = MPI_Wtime();
        if (warm == 1 && rank == 0)
            printf("%.1f\n", (t1 - t0) / n * 1e9);
    }
    MPI_Finalize();
    return 0;
}
