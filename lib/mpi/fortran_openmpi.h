/* What the Open MPI Fortran wrappers share (fortran_openmpi_*.c). Open MPI's
 * Fortran bindings call PMPI_ directly, so the C wrappers never see them:
 * each wrapped function gets, from one FORTRAN_WRAPPER line, the names
 * Open MPI exports for it (mpif.h and `use mpi`: mpi_send_, mpi_send,
 * mpi_send__, MPI_SEND; `use mpi_f08`: mpi_send_f08_) and one body that
 * converts the handles (MPI_Comm_f2c, ...) and records through the C side's
 * accounting (record.h). The real function is Open MPI's PMPI Fortran entry
 * (pmpi_send_, pmpi_send_f08_), found by dlsym(RTLD_NEXT) at the first call.
 * An mpi_f08 handle is a derived type holding the INTEGER handle and its
 * MPI_Status has the INTEGER status array's layout, so both bindings pass the
 * same C arguments; only mpi_f08's ierror is OPTIONAL (NULL when absent). */
#ifndef TALLY_LIB_MPI_FORTRAN_OPENMPI_H
#define TALLY_LIB_MPI_FORTRAN_OPENMPI_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "record.h"

typedef MPI_Fint F;
_Static_assert(sizeof(F) == sizeof(int), "Fortran INTEGER arrays are passed as int arrays");

#define DT(h) MPI_Type_f2c(*(h))
#define COMM(h) MPI_Comm_f2c(*(h))
/* The Fortran status's length in INTEGERs (Open MPI's MPI_STATUS_SIZE). */
#define F_STATUS_LEN (sizeof(MPI_Status) / sizeof(F))

/* The real function NAME, cached in *SLOT. */
static inline void *fortran_real(void **slot, const char *name)
{
    void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (__builtin_expect(fn == NULL, 0)) {
        fn = dlsym(RTLD_NEXT, name);
        if (fn == NULL) {
            fprintf(stderr, "libtally-mpi: %s not found: %s\n", name, dlerror());
            abort();
        }
        __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

/* STATUS, or OWN when the program passed MPI_STATUS_IGNORE (the receive's
 * bytes are read from the status, as in C). */
static inline F *fortran_status(F *status, F *own)
{
    return status == MPI_F_STATUS_IGNORE ? own : status;
}

/* STATUS as a C status in *C. */
static inline const MPI_Status *c_status(const F *status, MPI_Status *c)
{
    MPI_Status_f2c(status, c);
    return c;
}

#define UNPAREN(...) __VA_ARGS__

/* The exported names of mpi_LOWER (PARAMS ending in F *ierr, ARGS their
 * names), each calling f_LOWER(real function, ARGS) with ierr never NULL. */
#define FORTRAN_ENTRIES(lower, UPPER, PARAMS, ARGS)                                          \
    typedef void lower##_fn PARAMS;                                                          \
    static void f_##lower(lower##_fn *real, UNPAREN PARAMS);                                 \
    void mpi_##lower##_ PARAMS                                                               \
    {                                                                                        \
        static void *slot;                                                                   \
        f_##lower((lower##_fn *)fortran_real(&slot, "pmpi_" #lower "_"), UNPAREN ARGS);      \
    }                                                                                        \
    void mpi_##lower PARAMS __attribute__((alias("mpi_" #lower "_")));                       \
    void mpi_##lower##__ PARAMS __attribute__((alias("mpi_" #lower "_")));                   \
    void MPI_##UPPER PARAMS __attribute__((alias("mpi_" #lower "_")));                       \
    void mpi_##lower##_f08_ PARAMS                                                           \
    {                                                                                        \
        static void *slot;                                                                   \
        F own_ierr;                                                                          \
        if (ierr == NULL)                                                                    \
            ierr = &own_ierr;                                                                \
        f_##lower((lower##_fn *)fortran_real(&slot, "pmpi_" #lower "_f08_"), UNPAREN ARGS);  \
    }

/* A timed wrapper: off, the real call only; on, BEFORE (a statement that may
 * replace an argument), the call between t0 and t1, then the statements
 * after it (the accounting, which reads *ierr for the return code). */
#define FORTRAN_WRAPPER(lower, UPPER, PARAMS, ARGS, BEFORE, ...)                             \
    FORTRAN_ENTRIES(lower, UPPER, PARAMS, ARGS)                                              \
    static void f_##lower(lower##_fn *real, UNPAREN PARAMS)                                  \
    {                                                                                        \
        if (!MPI_RECORDING()) {                                                              \
            real ARGS;                                                                       \
            return;                                                                          \
        }                                                                                    \
        BEFORE;                                                                              \
        uint64_t t0 = tally__now_ns();                                                       \
        real ARGS;                                                                           \
        uint64_t t1 = tally__now_ns();                                                       \
        __VA_ARGS__;                                                                         \
    }

#endif
