/*
 * win_util.h -- helpers of the one-sided tests (win_*.c) on top of
 * core_test.h (CHECK, MPI_OK, t_init, t_rank, t_size): a section line,
 * a skip, every rank's exclusive lock in turn, and error classes. Plain MPI, so the tests also build with another MPI
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

/* rank 0 says why the test does not run, then everybody finishes: the
 * value for main to return */
static inline int w_skip(const char *why)
{
    if (t_rank == 0)
        printf("ok: skipped (%s)\n", why);
    MPI_Finalize();
    return 0;
}

/* every rank's exclusive lock in turn: waits forever (the test's time
 * limit) where a shared lock of win is still held */
static inline void w_lock_each(MPI_Win win)
{
    for (int r = 0; r < t_size; r++) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, win));
        MPI_OK(MPI_Win_unlock(r, win));
    }
}

/* The tests that make malloc fail (win_lockall_*.c: their own malloc in
 * front of glibc's) cannot stand in for a sanitizer's: W_NO_INJECT then. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define W_NO_INJECT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define W_NO_INJECT 1
#endif
#endif

static inline int w_class(int code)
{
    int c = code;
    MPI_Error_class(code, &c);
    return c;
}

#endif /* WIN_UTIL_H */
