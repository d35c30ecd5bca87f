/*
 * err_peer.c -- a rank dies (_exit(5)) while the others wait for it in MPI
 * calls: the job ends with a line naming it, nothing hangs.
 *
 *   err_peer recv|waitall|ssend|return
 *
 * Rank 1 is the victim: after a barrier it sleeps 200 ms and calls _exit(5).
 *   recv     every survivor is in MPI_Recv from rank 1
 *   waitall  every survivor is in MPI_Waitall on a receive from rank 1 and
 *            one from MPI_ANY_SOURCE
 *   ssend    every survivor is in MPI_Ssend to rank 1 (never matched)
 *   return   as recv, under MPI_ERRORS_RETURN: MPI_Recv returns
 *            MPI_ERR_PROC_FAILED (the survivor says so on stderr)
 * tests/mpi/core.cmake checks the job's status and rank 0's line.
 */
#include <time.h>
#include <unistd.h>

#include "core_test.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "recv";
    int         v[2] = { 0, 0 }, rc = MPI_SUCCESS;

    t_init(&argc, &argv);
    CHECK(t_size >= 2, "err_peer needs 2 ranks");
    if (strcmp(mode, "return") == 0)
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == 1) {
        struct timespec ts = { 0, 200 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        _exit(5);
    }
    if (strcmp(mode, "recv") == 0 || strcmp(mode, "return") == 0) {
        rc = MPI_Recv(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "waitall") == 0) {
        MPI_Request r[2];
        MPI_OK(MPI_Irecv(&v[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Irecv(&v[1], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r[1]));
        rc = MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    } else if (strcmp(mode, "ssend") == 0) {
        rc = MPI_Ssend(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        CHECK(0, "usage: err_peer recv|waitall|ssend|return (got '%s')", mode);
    }
    fprintf(stderr, "err_peer: rank %d: %s returned %s\n", t_rank, mode, t_err_name(rc));
    return 0;
}
