/* comm_reclaim.c -- a communicator freed on one rank only, with a receive
 * still pending on it, and then constructors until the communicator limit:
 * the freed one's team slot cannot come back before the others free it
 * too, so the constructors must go on without it and, at the limit, fail
 * with an error on every rank, not wait for ever (MPICH's comm/cmfree held
 * 1020 splits at once and hung at the limit: the last rank waited for the
 * slot while the others waited for it in the split). Then the pending
 * receive completes and every communicator is freed; a second round of
 * splits works again. */
#include "core_test.h"

#define NELM  128
#define MAXC  300

static int split_until_full(MPI_Comm *cs)
{
    int n;

    for (n = 0; n < MAXC; n++)
        if (MPI_Comm_split(MPI_COMM_WORLD, 0, t_size - t_rank, &cs[n]) != MPI_SUCCESS)
            break;
    return n;
}

int main(int argc, char **argv)
{
    static MPI_Comm cs[MAXC];
    MPI_Comm        comm;
    MPI_Request     req = MPI_REQUEST_NULL;
    int             buf[NELM], src = 0, dst, n, lo, hi;

    t_init(&argc, &argv);
    dst = t_size - 1;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    for (int i = 0; i < NELM; i++)
        buf[i] = t_rank == src ? i : -1;
    if (t_rank == dst && t_size > 1) {
        MPI_OK(MPI_Irecv(buf, NELM, MPI_INT, src, 0, comm, &req));
        MPI_OK(MPI_Comm_free(&comm));
        CHECK(comm == MPI_COMM_NULL, "the freed communicator is not MPI_COMM_NULL");
    }
    n = split_until_full(cs);
    MPI_OK(MPI_Allreduce(&n, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    MPI_OK(MPI_Allreduce(&n, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lo == hi, "the splits failed at %d here, between %d and %d elsewhere", n, lo, hi);
    CHECK(n > 8, "only %d splits before the limit", n);
    for (int i = 0; i < n; i++) {
        int r;
        MPI_OK(MPI_Comm_rank(cs[i], &r));
        CHECK(r == t_size - 1 - t_rank, "split %d: rank %d, expected %d", i, r,
              t_size - 1 - t_rank);
    }
    if (t_rank == src && t_size > 1)
        MPI_OK(MPI_Send(buf, NELM, MPI_INT, dst, 0, comm));
    if (t_rank == dst && t_size > 1) {
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < NELM; i++)
            CHECK(buf[i] == i, "buf[%d] = %d, expected %d", i, buf[i], i);
    }
    for (int i = 0; i < n; i++)
        MPI_OK(MPI_Comm_free(&cs[i]));
    if (comm != MPI_COMM_NULL)
        MPI_OK(MPI_Comm_free(&comm));
    /* everything freed: as many splits again */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 8; i++)
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, t_rank, &cs[i]));
    for (int i = 0; i < 8; i++)
        MPI_OK(MPI_Comm_free(&cs[i]));
    SAY("comm_reclaim: the splits stopped at the limit with an error on every rank\n");
    MPI_OK(MPI_Finalize());
    return 0;
}
