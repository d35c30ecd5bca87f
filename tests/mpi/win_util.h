/*
 * win_util.h -- helpers of the one-sided tests (win_*.c): checks that end
 * the job with a line naming the file, line and rank. Plain MPI, so the
 * tests also build with another MPI (tests/mpi/vs_openmpi.sh).
 */
#ifndef WIN_UTIL_H
#define WIN_UTIL_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int w_rank, w_size;

#define WCHECK(cond, ...)                                                             \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: rank %d: check failed: %s: ", __FILE__, __LINE__, \
                    w_rank, #cond);                                                   \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            fflush(stderr);                                                           \
            MPI_Abort(MPI_COMM_WORLD, 3);                                             \
        }                                                                             \
    } while (0)

#define WOK(call)                                                                     \
    do {                                                                              \
        int rc_ = (call);                                                             \
        WCHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);                     \
    } while (0)

static inline void w_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &w_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w_size);
}

/* rank 0 prints one line per section, after everybody passed it */
static inline void w_section(const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (w_rank == 0) {
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
