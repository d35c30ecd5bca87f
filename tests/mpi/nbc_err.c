/*
 * nbc_err.c -- a non-blocking collective that fails when it completes:
 * the root broadcasts more than the others receive. Under
 * MPI_ERRORS_RETURN their MPI_Wait returns MPI_ERR_TRUNCATE (the status
 * says so too) and the job goes on; under the default
 * MPI_ERRORS_ARE_FATAL their MPI_Wait ends the job with one line
 * (tests/mpi/nbc.cmake expects it). The same through the blocking
 * MPI_Alltoallw. Not for other MPIs: what a mismatched call does is
 * theirs to choose.
 */
#include "nbc_util.h"

int main(int argc, char **argv)
{
    MPI_Request r;
    MPI_Status  st;
    MPI_Comm    c;
    int         b[8] = { 0 }, n;

    cu_init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    n = cu_rank == 0 ? 8 : 4;
    CU_OK(MPI_Ibcast(b, n, MPI_INT, 0, c, &r));
    int rc = MPI_Wait(&r, &st);
    CU_CHECK(cu_class(rc) == (cu_rank == 0 ? MPI_SUCCESS : MPI_ERR_TRUNCATE), "wait: %d", rc);
    CU_CHECK(cu_rank == 0 || st.MPI_ERROR == MPI_ERR_TRUNCATE, "status: %d", st.MPI_ERROR);
    CU_CHECK(r == MPI_REQUEST_NULL, "request not reset");
    /* the communicator still works */
    int x = 1, y = 0;
    CU_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, c, &r));
    CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CU_CHECK(y == cu_size, "allreduce %d", y);
    /* blocking alltoallw: rank 0 sends 2 ints where 1 is expected */
    int *cnt = nu_ints((size_t)cu_size), *dsp = nu_ints((size_t)cu_size);
    int *rcnt = nu_ints((size_t)cu_size), *sb = nu_ints(2 * (size_t)cu_size);
    int *rb = nu_ints(2 * (size_t)cu_size);
    MPI_Datatype *ty = malloc((size_t)cu_size * sizeof(*ty));
    for (int i = 0; i < cu_size; i++) {
        cnt[i]  = cu_rank == 0 && i != 0 ? 2 : 1;
        rcnt[i] = 1;
        dsp[i]  = 2 * i * (int)sizeof(int);
        ty[i]   = MPI_INT;
    }
    rc = MPI_Alltoallw(sb, cnt, dsp, ty, rb, rcnt, dsp, ty, c);
    CU_CHECK(cu_class(rc) == (cu_rank == 0 ? MPI_SUCCESS : MPI_ERR_TRUNCATE), "alltoallw: %d",
             rc);
    cu_section("errors returned");
    MPI_Comm_free(&c);
    /* fatal: the receivers' MPI_Wait ends the job */
    CU_OK(MPI_Ibcast(b, n, MPI_INT, 0, MPI_COMM_WORLD, &r));
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (cu_rank != 0)
        printf("not reached\n");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
