/*
 * win_lockall_fail.c -- MPI_Win_lock_all on a window of lock messages
 * (MPI_Win_create) where one target answers its lock request with an
 * error: the call returns the error and the targets that granted their
 * shared lock have it back. Rank 0 holds rank 1's exclusive lock, so rank
 * 1 must queue the last rank's shared request, and rank 1's next malloc of
 * a queue entry's size fails (this program's malloc: the target answers
 * MPI_ERR_NO_MEM). The last rank's MPI_Win_lock_all must return
 * MPI_ERR_NO_MEM; then rank 0 takes every rank's exclusive lock in turn,
 * which waits forever (the time limit) for a shared lock left held, and
 * the last rank's next MPI_Win_lock_all must succeed. 3 or more ranks
 * (the one that fails is neither the caller nor the holder).
 * kumi only (the size of the binding's queue entry); under a sanitizer,
 * whose malloc this one cannot stand in for, the test only says so.
 */
#include <errno.h>
#include <stddef.h>

#include "win_util.h"

/* bindings/mpi/win_int.h's struct kmpi_win_waiter: four ints, a pointer */
#define WAITER_BYTES (4 * sizeof(int) + sizeof(void *))

#ifndef W_NO_INJECT
extern void *__libc_malloc(size_t n);

/* per thread: only the thread that armed it (the one that serves the
 * window's messages) fails, not the tcp transport's progress thread */
static _Thread_local int fail_armed, fail_hit;

/* glibc's malloc, but the first request of WAITER_BYTES of the armed
 * thread fails (the library's calls reach this definition: the
 * executable's comes first; free, calloc and realloc stay glibc's, which
 * take its blocks) */
void *malloc(size_t n)
{
    if (fail_armed && n == WAITER_BYTES) {
        fail_armed = 0;
        fail_hit   = 1;
        errno      = ENOMEM;
        return NULL;
    }
    return __libc_malloc(n);
}
#endif

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
#ifdef W_NO_INJECT
    return w_skip("a sanitizer's malloc: no failure can be injected");
#else
    long    cbuf = 0;
    MPI_Win win;
    int     last = t_size - 1;

    if (t_size < 3)
        return w_skip("fewer than 3 ranks");
    MPI_OK(MPI_Win_create(&cbuf, sizeof cbuf, sizeof cbuf, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    /* armed once rank 0's lock is granted (its answer's send allocates
     * blocks of that size too) and before the last rank sends its
     * request, which rank 1 serves in the third barrier */
    if (t_rank == 0)
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == 1)
        fail_armed = 1;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == last) {
        int rc = MPI_Win_lock_all(0, win);
        CHECK(w_class(rc) == MPI_ERR_NO_MEM, "MPI_Win_lock_all returned %d (%s), not "
              "MPI_ERR_NO_MEM from rank 1's lock queue", rc, t_err_name(rc));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == 1) {
        CHECK(fail_hit, "rank 1 never failed a queue entry's malloc (%zu bytes)",
              (size_t)WAITER_BYTES);
        fail_armed = 0;
    }
    w_section("MPI_Win_lock_all returns a target's error");
    if (t_rank == 0) {
        MPI_OK(MPI_Win_unlock(1, win));
        w_lock_each(win);
    }
    w_section("every shared lock the failed MPI_Win_lock_all was granted is free again");
    if (t_rank == last) {
        MPI_OK(MPI_Win_lock_all(0, win));
        MPI_OK(MPI_Win_unlock_all(win));
    }
    w_section("MPI_Win_lock_all after the failed one");
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
#endif
}
