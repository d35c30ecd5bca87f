/*
 * win_lockall.c -- MPI_Win_lock_all waits for a rank held exclusively and
 * takes every other rank's shared lock meanwhile: rank 0 holds rank 1's
 * exclusive lock while every other rank calls MPI_Win_lock_all; rank 0
 * then stores 42 at rank 1 and unlocks, and each of the others, inside
 * its lock_all epoch, must read 42 at rank 1 (its lock_all returned only
 * after the exclusive epoch) and its own value at every other rank. On a
 * window of MPI_Win_allocate (lock words in shared memory on the shm
 * transport) and of MPI_Win_create (lock messages). ROUNDS from argv[1].
 */
#include <time.h>

#include "win_util.h"

static void pause_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

static void lockall_round(MPI_Win win, long *mine, int k)
{
    long v = 42 + k, got;

    *mine = t_rank;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == 0)
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == 0) {
        pause_ms(20);
        MPI_OK(MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win));
        MPI_OK(MPI_Win_unlock(1, win));
    } else {
        MPI_OK(MPI_Win_lock_all(0, win));
        for (int r = 1; r < t_size; r++) {
            MPI_OK(MPI_Get(&got, 1, MPI_LONG, r, 0, 1, MPI_LONG, win));
            MPI_OK(MPI_Win_flush(r, win));
            long want = r == 1 ? v : r;
            CHECK(got == want, "round %d: rank %d holds %ld under lock_all, expected %ld", k, r,
                  got, want);
        }
        MPI_OK(MPI_Win_unlock_all(win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int     rounds = argc > 1 ? atoi(argv[1]) : 5;
    long   *abuf, cbuf;
    MPI_Win awin, cwin;

    t_init(&argc, &argv);
    MPI_OK(MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &abuf,
                            &awin));
    MPI_OK(MPI_Win_create(&cbuf, sizeof cbuf, sizeof cbuf, MPI_INFO_NULL, MPI_COMM_WORLD,
                          &cwin));
    for (int k = 0; k < rounds && t_size > 1; k++)
        lockall_round(awin, abuf, k);
    w_section("MPI_Win_lock_all waits out an exclusive lock (MPI_Win_allocate)");
    for (int k = 0; k < rounds && t_size > 1; k++)
        lockall_round(cwin, &cbuf, k);
    w_section("MPI_Win_lock_all waits out an exclusive lock (MPI_Win_create)");
    MPI_OK(MPI_Win_free(&cwin));
    MPI_OK(MPI_Win_free(&awin));
    MPI_Finalize();
    return 0;
}
