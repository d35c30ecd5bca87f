/*
 * win_fail.c -- one-sided communication is not provided: every window
 * call fails with MPI_ERR_UNSUPPORTED_OPERATION (under MPI_ERRORS_RETURN),
 * and under the default MPI_ERRORS_ARE_FATAL MPI_Win_create ends the job
 * with one line naming the call (tests/mpi/nbc.cmake expects it). Not
 * for other MPIs, which provide windows.
 */
#include "nbc_util.h"

int main(int argc, char **argv)
{
    MPI_Win win = 7;
    char    buf[64], *base = NULL;

    cu_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CU_CHECK(cu_class(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win))
                 == MPI_ERR_UNSUPPORTED_OPERATION, "Win_create");
    CU_CHECK(win == MPI_WIN_NULL, "win not reset");
    CU_CHECK(cu_class(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win))
                 == MPI_ERR_UNSUPPORTED_OPERATION, "Win_allocate");
    CU_CHECK(cu_class(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win))
                 == MPI_ERR_UNSUPPORTED_OPERATION, "Win_create_dynamic");
    CU_CHECK(cu_class(MPI_Win_attach(win, buf, sizeof buf)) == MPI_ERR_UNSUPPORTED_OPERATION,
             "Win_attach");
    CU_CHECK(cu_class(MPI_Win_free(&win)) == MPI_ERR_UNSUPPORTED_OPERATION, "Win_free");
    cu_section("window calls fail");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    printf("not reached\n");
    MPI_Finalize();
    return 0;
}
