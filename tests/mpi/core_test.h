/*
 * core_test.h -- helpers of the MPI core tests (env_*, p2p_*, comm_*,
 * err_*, req_*): checks that end the job with a line naming the file,
 * line and rank, and error-class names. Plain MPI, so every test also
 * builds with another MPI (tests/mpi/vs_openmpi.sh compares the outputs).
 */
#ifndef CORE_TEST_H
#define CORE_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_rank = -1, t_size;

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: rank %d: check failed: %s: ", __FILE__, __LINE__, \
                    t_rank, #cond);                                                   \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            fflush(stderr);                                                           \
            MPI_Abort(MPI_COMM_WORLD, 3);                                             \
        }                                                                             \
    } while (0)

#define MPI_OK(call)                                                                  \
    do {                                                                              \
        int rc_ = (call);                                                             \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d (%s)", #call, rc_, t_err_name(rc_)); \
    } while (0)

/* the class name of an error code, from this MPI's own constants */
static inline const char *t_err_name(int code)
{
    int cls = code;
    MPI_Error_class(code, &cls);
#define T_ERR(c) if (cls == c) return #c;
    T_ERR(MPI_SUCCESS) T_ERR(MPI_ERR_BUFFER) T_ERR(MPI_ERR_COUNT) T_ERR(MPI_ERR_TYPE)
    T_ERR(MPI_ERR_TAG) T_ERR(MPI_ERR_COMM) T_ERR(MPI_ERR_RANK) T_ERR(MPI_ERR_REQUEST)
    T_ERR(MPI_ERR_ROOT) T_ERR(MPI_ERR_ARG) T_ERR(MPI_ERR_TRUNCATE) T_ERR(MPI_ERR_OTHER)
    T_ERR(MPI_ERR_INTERN) T_ERR(MPI_ERR_IN_STATUS) T_ERR(MPI_ERR_PENDING)
    T_ERR(MPI_ERR_NO_MEM) T_ERR(MPI_ERR_UNKNOWN)
#ifdef MPI_ERR_PROC_FAILED
    T_ERR(MPI_ERR_PROC_FAILED)
#endif
#undef T_ERR
    return "another error class";
}

static inline void t_init(int *argc, char ***argv)
{
    MPI_OK(MPI_Init(argc, argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &t_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &t_size));
}

/* rank 0 prints a line (after a barrier, so lines come in program order) */
#define SAY(...)                                                                      \
    do {                                                                              \
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));                                          \
        if (t_rank == 0) {                                                            \
            printf(__VA_ARGS__);                                                      \
            fflush(stdout);                                                           \
        }                                                                             \
    } while (0)

/* byte i of message idx of the (src, dst, tag) stream */
static inline unsigned char t_pattern(int src, int dst, int tag, int idx, size_t i)
{
    return (unsigned char)(src * 131 + dst * 29 + tag * 7 + idx * 17 + i * 3 + (i >> 8));
}

static inline void t_fill(unsigned char *b, size_t n, int src, int dst, int tag, int idx)
{
    for (size_t i = 0; i < n; i++)
        b[i] = t_pattern(src, dst, tag, idx, i);
}

static inline void t_verify(const unsigned char *b, size_t n, int src, int dst, int tag, int idx)
{
    for (size_t i = 0; i < n; i++)
        CHECK(b[i] == t_pattern(src, dst, tag, idx, i), "message %d tag %d from %d: byte %zu is "
              "%u, expected %u", idx, tag, src, i, b[i], t_pattern(src, dst, tag, idx, i));
}

static inline int t_count(const MPI_Status *st, MPI_Datatype t)
{
    int n = -1;
    MPI_OK(MPI_Get_count(st, t, &n));
    return n;
}

/* MPI_Test_cancelled of a status */
static inline int t_cancelled(const MPI_Status *st)
{
    int flag = -1;
    MPI_OK(MPI_Test_cancelled(st, &flag));
    return flag;
}

/* no message of tag from src is there (several progress rounds) */
static inline void t_nothing_there(int src, int tag)
{
    for (int i = 0; i < 50; i++) {
        int        flag = 1;
        MPI_Status st;
        MPI_OK(MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "a cancelled message of tag %d from %d is there (%d bytes)", tag, src,
              t_count(&st, MPI_BYTE));
    }
}

/* A persistent send *p of n bytes of s to right, tag tag: started and
 * cancelled (which must succeed: nothing matched it), then started again
 * with its receive from left into b posted, which completes. Returns the
 * first cancel's MPI_Test_cancelled. */
static inline int t_persist_cancel(MPI_Request *p, unsigned char *s, unsigned char *b, int n,
                                   int right, int left, int tag)
{
    MPI_Request rr;
    MPI_Status  st;

    t_fill(s, (size_t)n, t_rank, right, tag, 1);
    MPI_OK(MPI_Start(p));
    MPI_OK(MPI_Cancel(p));
    MPI_OK(MPI_Wait(p, &st));
    int flag = t_cancelled(&st);
    CHECK(flag == 1 && *p != MPI_REQUEST_NULL, "persist: cancelled %d", flag);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    t_nothing_there(left, tag);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    t_fill(s, (size_t)n, t_rank, right, tag, 2);
    MPI_OK(MPI_Irecv(b, n, MPI_BYTE, left, tag, MPI_COMM_WORLD, &rr));
    MPI_OK(MPI_Start(p));
    MPI_OK(MPI_Wait(&rr, &st));
    t_verify(b, (size_t)n, left, t_rank, tag, 2);
    MPI_OK(MPI_Wait(p, &st));
    CHECK(t_cancelled(&st) == 0, "persist: the restarted send cancelled");
    return flag;
}

#endif /* CORE_TEST_H */
