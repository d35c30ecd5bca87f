/*
 * win_util.h -- helpers of the one-sided tests (win_*.c) on top of
 * core_test.h (CHECK, MPI_OK, t_init, t_rank, t_size): a section line
 * and error classes. Plain MPI, so the tests also build with another MPI
 * (tests/mpi/vs_openmpi.sh).
 */
#ifndef WIN_UTIL_H
#define WIN_UTIL_H

#include "core_test.h"

/* rank 0 prints one line per section, after everybody passed it */
static inline void w_section(const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        printf("ok: %s\n", what);
        fflush(stdout);
    }
}

static inline int w_class(int code)
{
    int c = code;
    MPI_Error_class(code, &c);
    return c;
}

#endif /* WIN_UTIL_H */
