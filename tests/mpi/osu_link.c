/*
 * osu_link.c -- every MPI function the OSU micro-benchmarks (5.x and 7.x)
 * reference from the programs they build against kumi's subset (point to
 * point standard/persistent/congestion, blocking, non-blocking and
 * neighborhood collectives, start-up, and their shared utilities, which
 * also name the window calls) must be declared by mpi.h and link: this
 * file takes the address of each (compiled with implicit declarations as
 * errors, as GCC 14 does), then checks at run time the few properties the
 * benchmarks' output depends on: datatype names, MPI_COMM_NULL usable in
 * a static initializer, MPI_VERSION >= 3.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static MPI_Comm file_scope_comm = MPI_COMM_NULL;   /* as osu_mbw_mr.c does */

#define F(fn) { #fn, (void (*)(void))fn },
static const struct { const char *name; void (*fn)(void); } funcs[] = {
    /* environment */
    F(MPI_Init) F(MPI_Init_thread) F(MPI_Finalize) F(MPI_Abort) F(MPI_Wtime)
    F(MPI_Get_processor_name) F(MPI_Comm_rank) F(MPI_Comm_size) F(MPI_Comm_split)
    F(MPI_Comm_free)
    /* point to point */
    F(MPI_Send) F(MPI_Recv) F(MPI_Isend) F(MPI_Irecv) F(MPI_Wait) F(MPI_Waitall)
    F(MPI_Test) F(MPI_Send_init) F(MPI_Recv_init) F(MPI_Start) F(MPI_Startall)
    F(MPI_Request_free)
    /* datatypes */
    F(MPI_Type_size) F(MPI_Type_get_name) F(MPI_Type_contiguous) F(MPI_Type_vector)
    F(MPI_Type_indexed) F(MPI_Type_commit) F(MPI_Type_free) F(MPI_Get_address)
    /* blocking collectives */
    F(MPI_Barrier) F(MPI_Bcast) F(MPI_Reduce) F(MPI_Allreduce) F(MPI_Gather)
    F(MPI_Gatherv) F(MPI_Scatter) F(MPI_Scatterv) F(MPI_Allgather) F(MPI_Allgatherv)
    F(MPI_Alltoall) F(MPI_Alltoallv) F(MPI_Alltoallw) F(MPI_Reduce_scatter)
    F(MPI_Reduce_scatter_block)
    /* non-blocking collectives */
    F(MPI_Ibarrier) F(MPI_Ibcast) F(MPI_Ireduce) F(MPI_Iallreduce) F(MPI_Igather)
    F(MPI_Igatherv) F(MPI_Iscatter) F(MPI_Iscatterv) F(MPI_Iallgather) F(MPI_Iallgatherv)
    F(MPI_Ialltoall) F(MPI_Ialltoallv) F(MPI_Ialltoallw) F(MPI_Ireduce_scatter)
    F(MPI_Ireduce_scatter_block)
    /* topologies and neighborhood collectives */
    F(MPI_Dims_create) F(MPI_Cart_create) F(MPI_Cart_coords) F(MPI_Cart_rank)
    F(MPI_Dist_graph_create_adjacent) F(MPI_Dist_graph_neighbors)
    F(MPI_Neighbor_allgather) F(MPI_Neighbor_allgatherv) F(MPI_Neighbor_alltoall)
    F(MPI_Neighbor_alltoallv) F(MPI_Neighbor_alltoallw) F(MPI_Ineighbor_allgather)
    F(MPI_Ineighbor_allgatherv) F(MPI_Ineighbor_alltoall) F(MPI_Ineighbor_alltoallv)
    F(MPI_Ineighbor_alltoallw)
    /* one-sided: the utilities' window calls and the one-sided benchmarks' */
    F(MPI_Win_create) F(MPI_Win_allocate) F(MPI_Win_create_dynamic) F(MPI_Win_attach)
    F(MPI_Win_free) F(MPI_Win_detach) F(MPI_Put) F(MPI_Get) F(MPI_Accumulate)
    F(MPI_Get_accumulate) F(MPI_Fetch_and_op) F(MPI_Compare_and_swap) F(MPI_Win_fence)
    F(MPI_Win_post) F(MPI_Win_start) F(MPI_Win_complete) F(MPI_Win_wait) F(MPI_Win_lock)
    F(MPI_Win_unlock) F(MPI_Win_lock_all) F(MPI_Win_unlock_all) F(MPI_Win_flush)
    F(MPI_Win_flush_local) F(MPI_Win_flush_all)
};

int main(int argc, char **argv)
{
    static const struct { MPI_Datatype t; const char *name; } names[] = {
        { MPI_CHAR, "MPI_CHAR" }, { MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR" },
        { MPI_INT, "MPI_INT" }, { MPI_FLOAT, "MPI_FLOAT" }, { MPI_DOUBLE, "MPI_DOUBLE" },
        { MPI_LONG, "MPI_LONG" },
    };
    int rank, bad = 0;

#if MPI_VERSION < 3
#error "MPI_VERSION must be at least 3"
#endif
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
        if (!funcs[i].fn) {
            printf("%s: no address\n", funcs[i].name);
            bad = 1;
        }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char buf[MPI_MAX_OBJECT_NAME];
        int len = -1, size = 0;
        if (MPI_Type_get_name(names[i].t, buf, &len) != MPI_SUCCESS ||
            strcmp(buf, names[i].name) != 0 || len != (int)strlen(names[i].name) ||
            MPI_Type_size(names[i].t, &size) != MPI_SUCCESS || size <= 0) {
            printf("MPI_Type_get_name(%s): \"%s\" (%d), size %d\n", names[i].name, buf, len,
                   size);
            bad = 1;
        }
    }
    if (file_scope_comm != MPI_COMM_NULL)
        bad = 1;
    if (rank == 0)
        printf("%zu functions, datatype names %s\n", sizeof funcs / sizeof funcs[0],
               bad ? "WRONG" : "ok");
    MPI_Finalize();
    return bad;
}
