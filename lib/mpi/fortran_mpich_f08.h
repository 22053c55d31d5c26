/* The names of the MPICH `use mpi_f08` wrappers (fortran_mpich_f08_*.c,
 * built only into libtally-mpi-mpich.so). MPICH's mpi_f08 (libmpichfort)
 * reaches C in two ways. A call with a choice buffer (mpi_send_f08ts_,
 * mpi_allreduce_f08ts_, ...: TS 29113, the buffer a CFI_cdesc_t) goes
 * through MPIR_*_cdesc, which calls the C MPI_Send, MPI_Allreduce, ...: the
 * C wrappers record it, nothing is needed here. A call without one
 * (mpi_init_f08_, mpi_wait_f08_, mpi_barrier_f08_, ...) calls PMPI_
 * directly: for those this library exports the same name, mpi_wait_f08_,
 * which records and calls MPICH's (dlsym(RTLD_NEXT), fortran.h). Their
 * arguments are pointers to INTEGERs (an mpi_f08 handle is a derived type
 * holding the INTEGER handle; TYPE(MPI_Status) has the C status's layout)
 * and an OPTIONAL ierror (NULL when left out), as in Open MPI's mpi_f08. */
#ifndef TALLY_LIB_MPI_FORTRAN_MPICH_F08_H
#define TALLY_LIB_MPI_FORTRAN_MPICH_F08_H

#include "fortran.h"

#ifndef MPICH_VERSION /* mpi.h says which MPI; the Makefile builds these files for MPICH only */
#error "fortran_mpich_f08_*.c are for MPICH's mpi.h"
#endif

/* mpi_LOWER_f08_ (PARAMS ending in F *ierr, ARGS their names) calling
 * f_LOWER with MPICH's mpi_LOWER_f08_ (UPPER is unused: the signature is
 * fortran_openmpi.h's, so fortran_init.h and fortran_nobuf.h serve both). */
#define MPICH_F08_ENTRIES(lower, UPPER, PARAMS, ARGS)                                        \
    FORTRAN_DECLARE(lower, PARAMS)                                                           \
    FORTRAN_F08_ENTRY(lower, PARAMS, ARGS, "mpi_" #lower "_f08_")

/* A timed wrapper under that name (fortran.h's FORTRAN_TIMED). */
#define MPICH_F08_WRAPPER(lower, UPPER, PARAMS, ARGS, BEFORE, ...)                           \
    MPICH_F08_ENTRIES(lower, UPPER, PARAMS, ARGS)                                            \
    FORTRAN_TIMED(lower, PARAMS, ARGS, BEFORE, __VA_ARGS__)

#endif
