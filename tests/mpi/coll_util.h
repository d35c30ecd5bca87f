/*
 * coll_util.h -- what the collective and reduction tests (tests/mpi/
 * coll_*.c, op_*.c) share: failure counting, sections that end the job
 * when any rank failed, deterministic data. Plain MPI: every test builds
 * with another MPI's mpicc too and prints the same lines (only rank 0
 * prints, one line per section).
 */
#ifndef COLL_UTIL_H
#define COLL_UTIL_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cu_rank = -1, cu_size, cu_fail;

#define CU_CHECK(cond, ...)                                                                  \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            if (cu_fail++ < 20) {                                                            \
                fprintf(stderr, "FAIL %s:%d: rank %d: %s: ", __FILE__, __LINE__, cu_rank,    \
                        #cond);                                                              \
                fprintf(stderr, __VA_ARGS__);                                                \
                fputc('\n', stderr);                                                         \
            }                                                                                \
        }                                                                                    \
    } while (0)

#define CU_OK(call)                                                                          \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        CU_CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);                           \
    } while (0)

/* the error class of rc (MPI_SUCCESS for MPI_SUCCESS) */
static inline int cu_class(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

static inline void cu_init(int *argc, char ***argv)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init failed\n");
        exit(2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &cu_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &cu_size);
}

/* Every rank's failures so far: none, rank 0 prints "name: ok"; some, the
 * job ends with status 1. */
static inline void cu_section(const char *name)
{
    int total = 0;

    MPI_Allreduce(&cu_fail, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total != 0) {
        if (cu_rank == 0)
            fprintf(stderr, "%s: %d failures\n", name, total);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (cu_rank == 0) {
        printf("%s: ok\n", name);
        fflush(stdout);
    }
}

static inline int cu_finish(void)
{
    MPI_Finalize();
    return 0;
}

/* a value that depends on who sent it, which element and a salt */
static inline int cu_val(int rank, int i, int salt)
{
    return rank * 1000 + i * 3 + salt * 7 + 1;
}

#endif /* COLL_UTIL_H */
