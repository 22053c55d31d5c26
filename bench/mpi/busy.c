/* Ranks that keep making cheap MPI calls (MPI_Iprobe) for SECONDS, so that
 * a switch of their control word is seen at the next call: the load for
 * switcher.c. usage: busy SECONDS */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double end = MPI_Wtime() + (argc > 1 ? atof(argv[1]) : 5);
    int flag;
    while (MPI_Wtime() < end)
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
