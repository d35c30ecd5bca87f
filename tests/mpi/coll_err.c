/*
 * coll_err.c -- argument errors of the collectives under MPI_ERRORS_RETURN,
 * made by every rank alike (as a correct program would hit them): each
 * returns its error class without communicating, and the communicator
 * works normally afterwards.
 */
#include "coll_util.h"

#define EXPECT(cls, call)                                                                    \
    do {                                                                                     \
        int got_ = cu_class(call);                                                           \
        CU_CHECK(got_ == (cls), "%s: class %d, want %s (%d)", #call, got_, #cls, (cls));      \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Datatype loose;   /* never committed */
    int          a[16] = { 0 }, b[16 * 64] = { 0 }, counts[64], displs[64], sum;
    double       d[4] = { 0 }, e[4];

    cu_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; i < 64; i++)
        counts[i] = 1, displs[i] = i;

    /* roots out of range */
    EXPECT(MPI_ERR_ROOT, MPI_Bcast(a, 1, MPI_INT, cu_size, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_ROOT, MPI_Bcast(a, 1, MPI_INT, -1, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_ROOT, MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, cu_size, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_ROOT, MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, cu_size + 3, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_ROOT, MPI_Scatterv(b, counts, displs, MPI_INT, a, 1, MPI_INT, -5,
                                      MPI_COMM_WORLD));
    cu_section("bad root: MPI_ERR_ROOT");

    /* ops not defined for the type, invalid ops */
    EXPECT(MPI_ERR_OP, MPI_Allreduce(d, e, 4, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_OP, MPI_Reduce(d, e, 4, MPI_DOUBLE, MPI_BXOR, 0, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_OP, MPI_Scan(a, b, 2, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_OP, MPI_Exscan(a, b, 2, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_OP, MPI_Reduce_scatter_block(a, b, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_OP, MPI_Reduce_scatter(a, b, counts, MPI_C_BOOL, MPI_SUM, MPI_COMM_WORLD));
    cu_section("bad op for the type: MPI_ERR_OP");

    /* datatypes: uncommitted, null */
    MPI_Type_contiguous(2, MPI_INT, &loose);
    EXPECT(MPI_ERR_TYPE, MPI_Bcast(a, 1, loose, 0, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_TYPE, MPI_Allgather(a, 1, loose, b, 1, loose, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_TYPE, MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD));
#ifdef KUMI_MPI   /* Open MPI reports these as MPI_ERR_OP: it checks the op first */
    EXPECT(MPI_ERR_TYPE, MPI_Allreduce(a, b, 1, loose, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_TYPE, MPI_Scan(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD));
#endif
    MPI_Type_free(&loose);
    cu_section("uncommitted or null type: MPI_ERR_TYPE");

    /* counts */
    EXPECT(MPI_ERR_COUNT, MPI_Bcast(a, -1, MPI_INT, 0, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_COUNT, MPI_Allreduce(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_COUNT, MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD));
    counts[0] = -1;
    EXPECT(MPI_ERR_COUNT, MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
#ifdef KUMI_MPI   /* Open MPI does not check these counts (and crashes) */
    EXPECT(MPI_ERR_COUNT, MPI_Allgatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT,
                                         MPI_COMM_WORLD));
#endif
    counts[0] = 1;
    cu_section("negative counts: MPI_ERR_COUNT");

    /* communicators */
    EXPECT(MPI_ERR_COMM, MPI_Barrier(MPI_COMM_NULL));
    EXPECT(MPI_ERR_COMM, MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL));
    EXPECT(MPI_ERR_COMM, MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL));
    cu_section("null communicator: MPI_ERR_COMM");

#ifdef KUMI_MPI   /* Open MPI crashes on these */
    EXPECT(MPI_ERR_BUFFER, MPI_Bcast(NULL, 4, MPI_INT, 0, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(NULL, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(a, NULL, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, MPI_Scan(a, NULL, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, MPI_Allgather(NULL, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, MPI_Alltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT,
                                        MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, MPI_Reduce_scatter_block(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM,
                                                    MPI_COMM_WORLD));
#endif
    cu_section("NULL or misplaced MPI_IN_PLACE buffers: MPI_ERR_BUFFER");

    /* nothing left over: everything works as before */
    sum = cu_rank + 1;
    CU_OK(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CU_CHECK(sum == cu_size * (cu_size + 1) / 2, "sum %d", sum);
    CU_OK(MPI_Scan(&cu_rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CU_CHECK(sum == cu_rank * (cu_rank + 1) / 2, "scan %d", sum);
    a[0] = cu_rank;
    CU_OK(MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < cu_size; r++)
        CU_CHECK(b[r] == r, "allgather [%d] = %d", r, b[r]);
    cu_section("collectives after the errors");
    return cu_finish();
}
