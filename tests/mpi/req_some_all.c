/*
 * req_some_all.c -- MPI_Testsome and MPI_Waitsome return every request
 * of the list that has completed, not only the first. Rank 1 sends rank 0
 * three messages in order (tags 0, 1, 2); rank 0 posted receives for the
 * first two, then receives the third with MPI_Recv: messages between a
 * pair are not overtaken, so by then both earlier receives have matched
 * and completed. One MPI_Testsome (then, in a second round, one
 * MPI_Waitsome) must return both: outcount 2. The second message of each
 * round is one int too long for its receive, so under MPI_ERRORS_RETURN
 * the call returns MPI_ERR_IN_STATUS with MPI_ERR_TRUNCATE in that status
 * and MPI_SUCCESS in the other (as MPICH's errinstatts checks).
 * Before, the first MPI_Testsome returned outcount 1 (and without the
 * third message, 0 even though both had arrived). Ranks other than 0 and
 * 1 only take part in the barrier. Rank 0 prints:
 *   MPI_Testsome: outcount 2, MPI_ERR_IN_STATUS, statuses MPI_SUCCESS MPI_ERR_TRUNCATE
 *   MPI_Waitsome: outcount 2, MPI_ERR_IN_STATUS, statuses MPI_SUCCESS MPI_ERR_TRUNCATE
 */
#include "core_test.h"

static void round_of(int wait)
{
    const char *name = wait ? "MPI_Waitsome" : "MPI_Testsome";
    int         a[11] = { 0 }, b[11] = { 0 }, c = 0;
    if (t_rank == 0) {
        MPI_Request r[2];
        MPI_Status  s[2];
        int         idx[2] = { -1, -1 }, out = -1;
        MPI_OK(MPI_Irecv(a, 10, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Irecv(b, 10, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[1]));
        MPI_OK(MPI_Recv(&c, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        s[0].MPI_ERROR = s[1].MPI_ERROR = -1;
        int rc = wait ? MPI_Waitsome(2, r, &out, idx, s) : MPI_Testsome(2, r, &out, idx, s);
        CHECK(out == 2, "%s: outcount %d, not 2 (returned %s)", name, out, t_err_name(rc));
        CHECK(rc == MPI_ERR_IN_STATUS, "%s returned %s", name, t_err_name(rc));
        CHECK(idx[0] == 0 && idx[1] == 1, "%s: indices %d %d", name, idx[0], idx[1]);
        CHECK(s[0].MPI_ERROR == MPI_SUCCESS && s[1].MPI_ERROR != MPI_SUCCESS,
              "%s: statuses %s %s", name, t_err_name(s[0].MPI_ERROR), t_err_name(s[1].MPI_ERROR));
        int cls;
        MPI_OK(MPI_Error_class(s[1].MPI_ERROR, &cls));
        CHECK(cls == MPI_ERR_TRUNCATE, "%s: the long message's status says %s", name,
              t_err_name(cls));
        CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "%s: requests left", name);
        printf("%s: outcount %d, %s, statuses %s %s\n", name, out, t_err_name(rc),
               t_err_name(s[0].MPI_ERROR), t_err_name(cls));
        fflush(stdout);
    } else if (t_rank == 1) {
        MPI_OK(MPI_Send(a, 10, MPI_INT, 0, 0, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(b, 11, MPI_INT, 0, 1, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(&c, 1, MPI_INT, 0, 2, MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    CHECK(t_size >= 2, "needs 2 ranks");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    round_of(0);
    round_of(1);
    MPI_OK(MPI_Finalize());
    return 0;
}
