/* The names of the Open MPI Fortran wrappers (fortran_openmpi_*.c, built
 * only into libtally-mpi-openmpi.so). Open MPI's Fortran bindings call PMPI_
 * directly, so the C wrappers never see them: each wrapped function gets,
 * from one FORTRAN_WRAPPER line, the names Open MPI exports for it (mpif.h
 * and `use mpi`: mpi_send_, mpi_send, mpi_send__, MPI_SEND; `use mpi_f08`:
 * mpi_send_f08_) and one body that converts the handles (MPI_Comm_f2c, ...)
 * and records through the C side's accounting (record.h; fortran.h has the
 * shared parts). The real function is Open MPI's PMPI Fortran entry
 * (pmpi_send_, pmpi_send_f08_). An mpi_f08 handle is a derived type holding
 * the INTEGER handle and its MPI_Status has the INTEGER status array's
 * layout, so both bindings pass the same C arguments; only mpi_f08's ierror
 * is OPTIONAL (NULL when absent). */
#ifndef TALLY_LIB_MPI_FORTRAN_OPENMPI_H
#define TALLY_LIB_MPI_FORTRAN_OPENMPI_H

#include "fortran.h"

#ifndef OPEN_MPI /* mpi.h says which MPI; the Makefile builds these files for Open MPI only */
#error "fortran_openmpi_*.c are for Open MPI's mpi.h"
#endif

/* The exported names of mpi_LOWER (PARAMS ending in F *ierr, ARGS their
 * names), each calling f_LOWER(real function, ARGS) with ierr never NULL. */
#define FORTRAN_ENTRIES(lower, UPPER, PARAMS, ARGS)                                          \
    FORTRAN_DECLARE(lower, PARAMS)                                                           \
    void mpi_##lower##_ PARAMS                                                               \
    {                                                                                        \
        static void *slot;                                                                   \
        f_##lower((lower##_fn *)fortran_real(&slot, "pmpi_" #lower "_"), UNPAREN ARGS);      \
    }                                                                                        \
    void mpi_##lower PARAMS __attribute__((alias("mpi_" #lower "_")));                       \
    void mpi_##lower##__ PARAMS __attribute__((alias("mpi_" #lower "_")));                   \
    void MPI_##UPPER PARAMS __attribute__((alias("mpi_" #lower "_")));                       \
    FORTRAN_F08_ENTRY(lower, PARAMS, ARGS, "pmpi_" #lower "_f08_")

/* A timed wrapper under all of Open MPI's names (fortran.h's FORTRAN_TIMED). */
#define FORTRAN_WRAPPER(lower, UPPER, PARAMS, ARGS, BEFORE, ...)                             \
    FORTRAN_ENTRIES(lower, UPPER, PARAMS, ARGS)                                              \
    FORTRAN_TIMED(lower, PARAMS, ARGS, BEFORE, __VA_ARGS__)

#endif
