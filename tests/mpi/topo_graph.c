/*
 * topo_graph.c -- distributed graphs from adjacency lists: a weighted
 * ring (queries, whole and partial; the topology kept by MPI_Comm_dup),
 * an unweighted one, a star with empty lists (MPI_WEIGHTS_EMPTY), and the
 * neighborhood collectives, blocking and not, on the ring (2 ranks: both
 * neighbors are the other rank, 1 rank: itself) and the star.
 */
#include "nbc_util.h"

/* slot 0 is my left neighbor, slot 1 my right one; I send block 0 to the
 * right and block 1 to the left, so slot 0 gets my left's block 0 */
static void test_ring(MPI_Comm g)
{
    MPI_Request  r;
    int          left = (cu_rank - 1 + cu_size) % cu_size, right = (cu_rank + 1) % cu_size;
    int          from[2] = { left, right };
    int          mine = cu_val(cu_rank, 0, 3), in[2], sb[2], rb[4], cnt[2] = { 1, 1 };
    int          dsp[2] = { 1, 0 }, sd[2] = { 0, 1 }, wd[2] = { 0, 2 };
    MPI_Aint     ad[2] = { sizeof(int), 0 }, asd[2] = { 0, sizeof(int) };
    MPI_Datatype ty[2] = { MPI_INT, MPI_INT };

    for (int form = 0; form < 2; form++) {
        in[0] = in[1] = -1;
        if (form == 0)
            CU_OK(MPI_Neighbor_allgather(&mine, 1, MPI_INT, in, 1, MPI_INT, g));
        else {
            CU_OK(MPI_Ineighbor_allgather(&mine, 1, MPI_INT, in, 1, MPI_INT, g, &r));
            CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < 2; i++)
            CU_CHECK(in[i] == cu_val(from[i], 0, 3), "allgather form %d slot %d", form, i);
        in[0] = in[1] = -1;
        if (form == 0)
            CU_OK(MPI_Neighbor_allgatherv(&mine, 1, MPI_INT, in, cnt, dsp, MPI_INT, g));
        else {
            CU_OK(MPI_Ineighbor_allgatherv(&mine, 1, MPI_INT, in, cnt, dsp, MPI_INT, g, &r));
            CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < 2; i++)
            CU_CHECK(in[1 - i] == cu_val(from[i], 0, 3), "allgatherv form %d slot %d", form, i);
        for (int j = 0; j < 2; j++)
            sb[j] = cu_val(cu_rank, j, 4);
        in[0] = in[1] = -1;
        if (form == 0)
            CU_OK(MPI_Neighbor_alltoall(sb, 1, MPI_INT, in, 1, MPI_INT, g));
        else {
            CU_OK(MPI_Ineighbor_alltoall(sb, 1, MPI_INT, in, 1, MPI_INT, g, &r));
            CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < 2; i++)
            CU_CHECK(in[i] == cu_val(from[i], i, 4), "alltoall form %d slot %d: %d", form, i,
                     in[i]);
        for (int i = 0; i < 4; i++)
            rb[i] = -1;
        if (form == 0)
            CU_OK(MPI_Neighbor_alltoallv(sb, cnt, sd, MPI_INT, rb, cnt, wd, MPI_INT, g));
        else {
            CU_OK(MPI_Ineighbor_alltoallv(sb, cnt, sd, MPI_INT, rb, cnt, wd, MPI_INT, g, &r));
            CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < 2; i++)
            CU_CHECK(rb[2 * i] == cu_val(from[i], i, 4) && rb[2 * i + 1] == -1,
                     "alltoallv form %d slot %d", form, i);
        in[0] = in[1] = -1;
        if (form == 0)
            CU_OK(MPI_Neighbor_alltoallw(sb, cnt, asd, ty, in, cnt, ad, ty, g));
        else {
            CU_OK(MPI_Ineighbor_alltoallw(sb, cnt, asd, ty, in, cnt, ad, ty, g, &r));
            CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < 2; i++)
            CU_CHECK(in[1 - i] == cu_val(from[i], i, 4), "alltoallw form %d slot %d", form, i);
    }
}

static void test_dist_graph(void)
{
    int      left = (cu_rank - 1 + cu_size) % cu_size, right = (cu_rank + 1) % cu_size;
    int      src[2] = { left, right }, dst[2] = { right, left };
    int      sw[2] = { 10 + left, 20 + right }, dw[2] = { 30 + right, 40 + left };
    int      indeg, outdeg, weighted, st, s2[2], w2[2], d2[2], x2[2];
    MPI_Comm g, d, u;

    CU_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL,
                                         0, &g));
    CU_OK(MPI_Topo_test(g, &st));
    CU_CHECK(st == MPI_DIST_GRAPH, "topo_test %d", st);
    CU_OK(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    CU_CHECK(indeg == 2 && outdeg == 2 && weighted, "count %d %d %d", indeg, outdeg, weighted);
    CU_OK(MPI_Dist_graph_neighbors(g, 2, s2, w2, 2, d2, x2));
    for (int i = 0; i < 2; i++)
        CU_CHECK(s2[i] == src[i] && w2[i] == sw[i] && d2[i] == dst[i] && x2[i] == dw[i],
                 "neighbors %d", i);
    /* only the first of each */
    s2[1] = d2[1] = w2[1] = x2[1] = -5;
    CU_OK(MPI_Dist_graph_neighbors(g, 1, s2, w2, 1, d2, x2));
    CU_CHECK(s2[0] == left && w2[0] == sw[0] && d2[0] == right && x2[0] == dw[0]
                 && s2[1] == -5 && d2[1] == -5 && w2[1] == -5 && x2[1] == -5,
             "partial neighbors");
    test_ring(g);
    /* a duplicate keeps the topology */
    CU_OK(MPI_Comm_dup(g, &d));
    CU_OK(MPI_Dist_graph_neighbors_count(d, &indeg, &outdeg, &weighted));
    CU_CHECK(indeg == 2 && outdeg == 2 && weighted, "dup count %d %d %d", indeg, outdeg,
             weighted);
    test_ring(d);
    CU_OK(MPI_Comm_free(&d));
    CU_OK(MPI_Comm_free(&g));
    /* unweighted */
    CU_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &u));
    CU_OK(MPI_Dist_graph_neighbors_count(u, &indeg, &outdeg, &weighted));
    CU_CHECK(indeg == 2 && outdeg == 2 && !weighted, "unweighted count %d %d %d", indeg,
             outdeg, weighted);
    CU_OK(MPI_Dist_graph_neighbors(u, 2, s2, MPI_UNWEIGHTED, 2, d2, MPI_UNWEIGHTED));
    CU_CHECK(s2[0] == left && s2[1] == right && d2[0] == right && d2[1] == left,
             "unweighted neighbors");
    test_ring(u);
    int nd;
    MPI_Comm_set_errhandler(u, MPI_ERRORS_RETURN);
    CU_CHECK(cu_class(MPI_Cartdim_get(u, &nd)) == MPI_ERR_TOPOLOGY, "cartdim on a graph");
    CU_OK(MPI_Comm_free(&u));
    cu_section("dist graph ring");
}

/* rank 0 sends to every other rank; they each receive from 0 */
static void test_star(void)
{
    MPI_Comm    g;
    MPI_Request r;
    int         n = cu_size - 1, *dst = nu_ints((size_t)n), *w = nu_ints((size_t)n), zero = 0;
    int         indeg, outdeg, weighted, mine = cu_val(cu_rank, 0, 6), in = -1;

    for (int i = 0; i < n; i++) {
        dst[i] = i + 1;
        w[i]   = i;
    }
    if (cu_rank == 0)
        CU_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, n, dst,
                                             n ? w : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g));
    else
        CU_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, &zero, 0, NULL,
                                             MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g));
    CU_OK(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    CU_CHECK(indeg == (cu_rank ? 1 : 0) && outdeg == (cu_rank ? 0 : n) && weighted,
             "star count %d %d %d", indeg, outdeg, weighted);
    CU_OK(MPI_Ineighbor_allgather(&mine, 1, MPI_INT, &in, 1, MPI_INT, g, &r));
    CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CU_CHECK(in == (cu_rank ? cu_val(0, 0, 6) : -1), "star allgather %d", in);
    CU_OK(MPI_Comm_free(&g));
    free(dst);
    free(w);
    cu_section("dist graph star");
}

int main(int argc, char **argv)
{
    cu_init(&argc, &argv);
    test_dist_graph();
    test_star();
    MPI_Finalize();
    return 0;
}
