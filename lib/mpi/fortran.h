/* What every Fortran wrapper shares (Open MPI's fortran_openmpi_*.c, MPICH's
 * fortran_mpich_f08_*.c): the handle and status conversions, the real
 * function found by dlsym(RTLD_NEXT) at the first call, the `use mpi_f08`
 * entry (its ierror is OPTIONAL: NULL when left out) and the timed body with
 * the C wrappers' off path. A wrapper is written as f_LOWER(real, ARGS); the
 * per-MPI headers make the exported names that call it. */
#ifndef TALLY_LIB_MPI_FORTRAN_H
#define TALLY_LIB_MPI_FORTRAN_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "record.h"

typedef MPI_Fint F;
_Static_assert(sizeof(F) == sizeof(int), "Fortran INTEGER arrays are passed as int arrays");

#define DT(h) MPI_Type_f2c(*(h))
#define COMM(h) MPI_Comm_f2c(*(h))
/* The Fortran status's length in INTEGERs (MPI_STATUS_SIZE). */
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

/* The type of the real mpi_LOWER (PARAMS ending in F *ierr) and the wrapper
 * f_LOWER the exported names call. */
#define FORTRAN_DECLARE(lower, PARAMS)                                                       \
    typedef void lower##_fn PARAMS;                                                          \
    static void f_##lower(lower##_fn *real, UNPAREN PARAMS);

/* The `use mpi_f08` name mpi_LOWER_f08_, calling f_LOWER with the real
 * function REAL and an ierr that is never NULL (ours when left out). */
#define FORTRAN_F08_ENTRY(lower, PARAMS, ARGS, REAL)                                         \
    void mpi_##lower##_f08_ PARAMS                                                           \
    {                                                                                        \
        static void *slot;                                                                   \
        F own_ierr;                                                                          \
        if (ierr == NULL)                                                                    \
            ierr = &own_ierr;                                                                \
        f_##lower((lower##_fn *)fortran_real(&slot, REAL), UNPAREN ARGS);                    \
    }

/* f_LOWER as a timed wrapper: off, the real call only (the C wrappers' one
 * load and branch); on, BEFORE (a statement that may replace an argument),
 * the call between t0 and t1, then the statements after it (the accounting,
 * which reads *ierr for the return code). */
#define FORTRAN_TIMED(lower, PARAMS, ARGS, BEFORE, ...)                                      \
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
