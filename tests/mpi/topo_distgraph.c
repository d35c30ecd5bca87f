/*
 * topo_distgraph.c -- MPI_Dist_graph_create (any process names any edges)
 * against the neighbor queries and the neighborhood collectives.
 *
 *   ring    rank 0 names every edge of a weighted ring (i -> i+1, weight
 *           10 + i); the others name none (MPI_WEIGHTS_EMPTY): each rank
 *           has its left as source and its right as destination
 *   mixed   every rank names its own out-edges r -> r+1 and the in-edge
 *           r-2 -> r (unweighted): sources and destinations gathered
 *           from several ranks; Neighbor_allgather and Ineighbor_alltoall
 *           move data along exactly the edges, in the order the queries
 *           give (MPI leaves that order to the implementation, so the
 *           printed lists are sorted)
 *   empty   nobody names an edge: degrees 0, Topo_test MPI_DIST_GRAPH,
 *           a neighborhood collective with no neighbors
 *   errors  (MPI_ERRORS_RETURN) a negative degree and n, a source or
 *           destination outside the communicator, MPI_WEIGHTS_EMPTY with
 *           edges, a negative weight
 * Rank 0 prints the lines; Open MPI 4.1.4 prints the same ring, mixed and
 * empty lines at 1 to 4 ranks (compared by hand, 2026-11-27). The errors
 * part is kumi's only: Open MPI 4.1.4 crashes (SIGSEGV inside
 * MPI_Dist_graph_create) on one of these erroneous calls.
 * Expected at 3 ranks:
 *   ring: rank 0 in 2 (w 12) out 1 (w 10) | rank 1 in 0 (w 10) out 2 (w 11) |
 *         rank 2 in 1 (w 11) out 0 (w 12)     (one line)
 *   mixed: rank 0 in 1 2 out 1 2 | rank 1 in 0 2 out 0 2 | rank 2 in 0 1 out 0 1
 *   empty: degrees 0 0, topology dist graph
 *   errors: MPI_ERR_ARG MPI_ERR_ARG MPI_ERR_RANK MPI_ERR_ARG MPI_ERR_ARG   (kumi only)
 */
#include "core_test.h"

static int cmp_int(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* every rank's line, printed by rank 0 as "name: l0 | l1 | ..." */
static void say_all(const char *name, const char *mine)
{
    char all[4096], line[256];
    snprintf(line, sizeof line, "%s", mine);
    MPI_OK(MPI_Gather(line, 256, MPI_CHAR, t_rank == 0 ? all : NULL, 256, MPI_CHAR, 0,
                      MPI_COMM_WORLD));
    if (t_rank == 0) {
        printf("%s:", name);
        for (int r = 0; r < t_size && r < 16; r++)
            printf("%s %s", r ? " |" : "", all + 256 * r);
        printf("\n");
        fflush(stdout);
    }
}

static void part_ring(void)
{
    int      n = t_rank == 0 ? t_size : 0;
    size_t   sz = sizeof(int) * (size_t)t_size;
    int     *src = malloc(sz), *deg = malloc(sz), *dst = malloc(sz), *w = malloc(sz);
    MPI_Comm g;
    CHECK(src != NULL && deg != NULL && dst != NULL && w != NULL, "malloc");
    for (int i = 0; i < t_size; i++)
        src[i] = i, deg[i] = 1, dst[i] = (i + 1) % t_size, w[i] = 10 + i;
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, src, deg, dst, n ? w : MPI_WEIGHTS_EMPTY,
                                 MPI_INFO_NULL, 0, &g));
    int indeg, outdeg, weighted, topo;
    MPI_OK(MPI_Topo_test(g, &topo));
    CHECK(topo == MPI_DIST_GRAPH, "topology %d", topo);
    MPI_OK(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    CHECK(indeg == 1 && outdeg == 1 && weighted, "ring: %d %d %d", indeg, outdeg, weighted);
    int in, inw, out, outw;
    MPI_OK(MPI_Dist_graph_neighbors(g, 1, &in, &inw, 1, &out, &outw));
    int left = (t_rank + t_size - 1) % t_size;
    CHECK(in == left && inw == 10 + left && out == (t_rank + 1) % t_size && outw == 10 + t_rank,
          "ring: in %d (w %d) out %d (w %d)", in, inw, out, outw);
    char line[256];
    snprintf(line, sizeof line, "rank %d in %d (w %d) out %d (w %d)", t_rank, in, inw, out,
             outw);
    say_all("ring", line);
    MPI_OK(MPI_Comm_free(&g));
    free(src), free(deg), free(dst), free(w);
}

static void part_mixed(void)
{
    /* r names r -> r+1 (its own out-edge) and r-2 -> r (an in-edge), so
     * every edge r -> r+1 and r -> r+2 exists once (sizes 1, 2: self
     * edges and double edges, as named) */
    int      right = (t_rank + 1) % t_size, from = (t_rank + 2 * t_size - 2) % t_size;
    int      src[2] = { t_rank, from }, deg[2] = { 1, 1 }, dst[2] = { right, t_rank };
    MPI_Comm g;
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, src, deg, dst, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 1, &g));
    int indeg, outdeg, weighted;
    MPI_OK(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    CHECK(indeg == 2 && outdeg == 2 && !weighted, "mixed: %d %d %d", indeg, outdeg, weighted);
    int in[2], out[2], sin[2], sout[2];
    MPI_OK(MPI_Dist_graph_neighbors(g, 2, in, MPI_UNWEIGHTED, 2, out, MPI_UNWEIGHTED));
    /* the collectives follow the queries' order */
    int mine = 1000 + t_rank, got[2] = { -1, -1 };
    MPI_OK(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, g));
    for (int i = 0; i < 2; i++)
        CHECK(got[i] == 1000 + in[i], "allgather slot %d: %d from %d", i, got[i], in[i]);
    int sb[2], rb[2] = { -1, -1 };
    MPI_Request r;
    for (int i = 0; i < 2; i++)
        sb[i] = t_rank * 100 + out[i];
    MPI_OK(MPI_Ineighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, g, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2; i++)
        CHECK(rb[i] == in[i] * 100 + t_rank, "alltoall slot %d: %d from %d", i, rb[i], in[i]);
    memcpy(sin, in, sizeof in);
    memcpy(sout, out, sizeof out);
    qsort(sin, 2, sizeof(int), cmp_int);
    qsort(sout, 2, sizeof(int), cmp_int);
    int ein[2] = { (t_rank + t_size - 1) % t_size, from };
    int eout[2] = { right, (t_rank + 2) % t_size };
    qsort(ein, 2, sizeof(int), cmp_int);
    qsort(eout, 2, sizeof(int), cmp_int);
    CHECK(!memcmp(sin, ein, sizeof ein) && !memcmp(sout, eout, sizeof eout),
          "mixed: in %d %d out %d %d", sin[0], sin[1], sout[0], sout[1]);
    char line[256];
    snprintf(line, sizeof line, "rank %d in %d %d out %d %d", t_rank, sin[0], sin[1], sout[0],
             sout[1]);
    say_all("mixed", line);
    MPI_OK(MPI_Comm_free(&g));
}

static void part_empty(void)
{
    MPI_Comm g;
    int      indeg = -1, outdeg = -1, weighted = -1, topo, x = 5, y = 7;
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &g));
    MPI_OK(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    MPI_OK(MPI_Topo_test(g, &topo));
    MPI_OK(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, g));
    CHECK(y == 7 && !weighted, "empty: y %d weighted %d", y, weighted);
    SAY("empty: degrees %d %d, topology %s\n", indeg, outdeg,
        topo == MPI_DIST_GRAPH ? "dist graph" : "other");
    MPI_OK(MPI_Comm_free(&g));
}

#ifdef KUMI_MPI
static void part_errors(void)
{
    MPI_Comm g = MPI_COMM_NULL;
    int      src = 0, deg = 1, neg = -1, dst = 0, bad = t_size, w = -3, rc[5];
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc[0] = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &neg, &dst, MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &g);
    rc[1] = MPI_Dist_graph_create(MPI_COMM_WORLD, -1, &src, &deg, &dst, MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &g);
    rc[2] = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &bad, &deg, &dst, MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &g);
    rc[3] = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, &dst, MPI_WEIGHTS_EMPTY,
                                  MPI_INFO_NULL, 0, &g);
    rc[4] = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, &dst, &w, MPI_INFO_NULL, 0,
                                  &g);
    CHECK(g == MPI_COMM_NULL, "a communicator was made");
    SAY("errors: %s %s %s %s %s\n", t_err_name(rc[0]), t_err_name(rc[1]), t_err_name(rc[2]),
        t_err_name(rc[3]), t_err_name(rc[4]));
    int rcd = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, &bad, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &g);
    CHECK(rcd == MPI_ERR_RANK, "destination outside: %s", t_err_name(rcd));
    /* MPI_UNWEIGHTED on some ranks, weights on others: every rank fails */
    int one = 1;
    if (t_size > 1) {
        rcd = MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL,
                                    t_rank == 0 ? MPI_UNWEIGHTED : &one, MPI_INFO_NULL, 0, &g);
        CHECK(rcd == MPI_ERR_ARG && g == MPI_COMM_NULL, "mixed weights: %s", t_err_name(rcd));
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}
#else
static void part_errors(void)
{
}
#endif

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    part_ring();
    part_mixed();
    part_empty();
    part_errors();
    MPI_OK(MPI_Finalize());
    return 0;
}
