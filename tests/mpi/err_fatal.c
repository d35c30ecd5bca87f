/*
 * err_fatal.c -- MPI_ERRORS_ARE_FATAL (the default) and MPI_Abort end the
 * whole job, with one line naming the call, the cause and the rank.
 *
 *   err_fatal rank|truncate|abort|user
 *
 *   rank      rank 0 sends to a rank out of range while the others wait in
 *             MPI_Recv for a message that never comes
 *   truncate  rank 1 receives 8 ints into 4 (the others wait in a barrier)
 *   abort     the last rank calls MPI_Abort(MPI_COMM_WORLD, 7)
 *   user      rank 0 raises an error code of its own, with a string
 *             (MPI_Add_error_string), on MPI_COMM_WORLD
 *             (MPI_Comm_call_errhandler): the line names the code and
 *             quotes the string (MPICH's errhan/errfatal)
 * Nothing may hang: tests/mpi/core.cmake checks the exit status (1, or 7)
 * and the line.
 */
#include "core_test.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "rank";
    int         v[8] = { 0 };

    t_init(&argc, &argv);
    if (strcmp(mode, "rank") == 0) {
        if (t_rank == 0)
            MPI_Send(v, 1, MPI_INT, t_size + 2, 0, MPI_COMM_WORLD);
        else
            MPI_Recv(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "truncate") == 0) {
        CHECK(t_size >= 2, "truncate needs 2 ranks");
        if (t_rank == 0)
            MPI_OK(MPI_Send(v, 8, MPI_INT, 1, 0, MPI_COMM_WORLD));
        if (t_rank == 1)
            MPI_Recv(v, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "abort") == 0) {
        if (t_rank == t_size - 1)
            MPI_Abort(MPI_COMM_WORLD, 7);
        MPI_Recv(v, 1, MPI_INT, t_size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "user") == 0) {
        int cls, code;
        MPI_OK(MPI_Add_error_class(&cls));
        MPI_OK(MPI_Add_error_code(cls, &code));
        MPI_OK(MPI_Add_error_string(code, "MY ERROR"));
        if (t_rank == 0)
            MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
        else
            MPI_Recv(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        CHECK(0, "usage: err_fatal rank|truncate|abort|user (got '%s')", mode);
    }
    printf("err_fatal: rank %d returned from the erroneous call\n", t_rank);
    return 0;
}
