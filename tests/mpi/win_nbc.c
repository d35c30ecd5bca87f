/*
 * win_nbc.c -- a window's target and a non-blocking collective both move
 * while a process waits inside kumi (the runtime's poll hooks: the
 * collectives' and the windows', one after the other). Every rank starts
 * an MPI_Iallreduce and makes a window of MPI_Win_create's memory (its
 * locks and accumulates are messages the target executes); rank 0 then
 * locks each other rank in turn and adds to its counter while those ranks
 * sit in MPI_Barrier, whose wait must answer the locks; then the
 * reduction completes everywhere. ROUNDS from argv[1].
 */
#include "win_util.h"

int main(int argc, char **argv)
{
    int     rounds = argc > 1 ? atoi(argv[1]) : 20;
    long    counter = 0, one = 1, mine, sum;
    MPI_Win win;

    t_init(&argc, &argv);
    for (int k = 0; k < rounds; k++) {
        MPI_Request req;
        mine = t_rank + k;
        MPI_OK(MPI_Iallreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &req));
        if (k == 0)
            MPI_OK(MPI_Win_create(&counter, sizeof counter, sizeof counter, MPI_INFO_NULL,
                                  MPI_COMM_WORLD, &win));
        if (t_rank == 0)
            for (int r = 1; r < t_size; r++) {
                MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, win));
                MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG, r, 0, 1, MPI_LONG, MPI_SUM, win));
                MPI_OK(MPI_Win_unlock(r, win));
            }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        long want = (long)t_size * (t_size - 1) / 2 + (long)t_size * k;
        CHECK(sum == want, "round %d: sum %ld, expected %ld", k, sum, want);
    }
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
    CHECK(counter == (t_rank == 0 ? 0 : rounds), "counter %ld after %d rounds", counter, rounds);
    MPI_OK(MPI_Win_unlock(t_rank, win));
    MPI_OK(MPI_Win_free(&win));
    w_section("locks and accumulates answered from MPI_Barrier, an Iallreduce alongside");
    MPI_Finalize();
    return 0;
}
