/*
 * topo_mpigraph.c -- graph topologies (bindings/mpi/topo_graph.c):
 * MPI_Graph_create of a ring with every node also tied to node 0, on all
 * ranks and on all but the last (which gets MPI_COMM_NULL),
 * MPI_Topo_test, MPI_Graphdims_get, MPI_Graph_get, the neighbors of every
 * node, MPI_Neighbor_allgather and MPI_Neighbor_alltoall on it,
 * MPI_Graph_map, errors (an edge to no node: kumi only, Open MPI 4.1
 * accepts it). Prints the same lines as Open MPI 4.1 (tests/mpi/vs_openmpi.sh).
 */
#include "core_test.h"

/* node i: i+1, i-1 (mod n), and 0 for i > 0 / every other node for 0 */
static int make_graph(int n, int *index, int *edges)
{
    int e = 0;

    for (int i = 0; i < n; i++) {
        edges[e++] = (i + 1) % n;
        edges[e++] = (i + n - 1) % n;
        if (i > 0)
            edges[e++] = 0;
        else
            for (int j = 1; j < n; j++)
                edges[e++] = j;
        index[i] = e;
    }
    return e;
}

static void run(int nnodes)
{
    int      index[64], edges[256], ne = make_graph(nnodes, index, edges), st, nn, nedg;
    MPI_Comm g;

    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &g));
    SAY("graph of %d nodes, %d edges:\n", nnodes, ne);
    if (t_rank >= nnodes) {
        CHECK(g == MPI_COMM_NULL, "rank %d beyond the graph got a communicator", t_rank);
        SAY("  neighbor collectives on it: ok\n");
        return;
    }
    MPI_OK(MPI_Topo_test(g, &st));
    CHECK(st == MPI_GRAPH, "Topo_test %d", st);
    MPI_OK(MPI_Graphdims_get(g, &nn, &nedg));
    CHECK(nn == nnodes && nedg == ne, "dims %d %d", nn, nedg);
    int gi[64], ge[256];
    MPI_OK(MPI_Graph_get(g, nn, nedg, gi, ge));
    CHECK(memcmp(gi, index, sizeof(int) * nn) == 0 && memcmp(ge, edges, sizeof(int) * ne) == 0,
          "Graph_get");
    /* every node's neighbors (rank 0 prints: it is in every graph here) */
    if (t_rank == 0)
        for (int r = 0; r < nnodes; r++) {
            int cnt, nb[64];
            MPI_OK(MPI_Graph_neighbors_count(g, r, &cnt));
            MPI_OK(MPI_Graph_neighbors(g, r, cnt, nb));
            printf("  node %d: %d neighbors:", r, cnt);
            for (int k = 0; k < cnt; k++)
                printf(" %d", nb[k]);
            printf("\n");
        }
    fflush(stdout);
    MPI_OK(MPI_Barrier(g));
    /* every neighbor's rank, twice: allgather and alltoall */
    int cnt, mine = t_rank * 10, got[64], out[64], got2[64];
    MPI_OK(MPI_Graph_neighbors_count(g, t_rank, &cnt));
    int nb[64];
    MPI_OK(MPI_Graph_neighbors(g, t_rank, cnt, nb));
    MPI_OK(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, g));
    for (int k = 0; k < cnt; k++) {
        CHECK(got[k] == nb[k] * 10, "allgather slot %d: %d from %d", k, got[k], nb[k]);
        out[k] = t_rank * 100 + nb[k];
    }
    MPI_OK(MPI_Neighbor_alltoall(out, 1, MPI_INT, got2, 1, MPI_INT, g));
    for (int k = 0; k < cnt; k++)
        CHECK(got2[k] == nb[k] * 100 + t_rank, "alltoall slot %d: %d", k, got2[k]);
    int newrank;
    MPI_OK(MPI_Graph_map(g, nnodes, index, edges, &newrank));
    CHECK(newrank >= 0 && newrank < nnodes, "Graph_map gave %d", newrank);
    MPI_OK(MPI_Comm_free(&g));
    SAY("  neighbor collectives on it: ok\n");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    run(t_size);
    if (t_size > 1)
        run(t_size - 1);
    /* an edge to no node */
    int index[2] = { 1, 2 }, edges[2] = { 1, 5 };
    MPI_Comm g;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Graph_create(MPI_COMM_WORLD, t_size >= 2 ? 2 : 1, index, edges, 0, &g);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
#ifdef KUMI_MPI
    CHECK(rc == MPI_ERR_ARG, "an edge to no node: %d", rc);   /* Open MPI 4.1 accepts it */
#else
    if (rc == MPI_SUCCESS && g != MPI_COMM_NULL)
        MPI_Comm_free(&g);
#endif
    MPI_OK(MPI_Finalize());
    return 0;
}
