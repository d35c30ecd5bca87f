/*
 * win_errfatal.c -- a window's default handler is MPI_ERRORS_ARE_FATAL:
 * an MPI_Put outside any epoch ends the job with one line naming the
 * call and MPI_ERR_RMA_SYNC (tests/mpi/win.cmake expects it), even with
 * MPI_ERRORS_RETURN on the communicator.
 */
#include "win_util.h"

int main(int argc, char **argv)
{
    MPI_Win win;
    int    *mem, x = 1;

    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    printf("not reached\n");
    MPI_Finalize();
    return 0;
}
