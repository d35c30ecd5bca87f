/*
 * topo_cart.c -- MPI_Dims_create (a table of cases, printed, and its
 * errors), Cartesian communicators (coords, rank with periodic wrap and
 * its error off a non-periodic edge, shift, get, a grid smaller than the
 * communicator) and the neighborhood collectives, blocking and not, on 2D
 * grids periodic and not: a periodic dimension of size 1 or 2 (2 and 3
 * ranks) makes a rank its own, or the same, neighbor both ways.
 */
#include "nbc_util.h"

static void test_dims(void)
{
    static const int cases[][3] = {
        { 1, 1 },  { 6, 2 },   { 7, 2 },  { 12, 2 }, { 16, 3 }, { 24, 3 },  { 72, 3 },
        { 30, 3 }, { 36, 2 },  { 100, 3 }, { 64, 4 }, { 48, 2 }, { 60, 3 }, { 120, 4 },
        { 210, 4 }, { 1024, 3 }, { 90, 3 }, { 12, 3 }, { 8, 4 },  { 180, 3 }, { 144, 3 },
        { 2, 3 },  { 97, 2 },  { 1, 4 },
    };
    int dims[4];

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int n = cases[k][0], nd = cases[k][1];
        memset(dims, 0, sizeof dims);
        CU_OK(MPI_Dims_create(n, nd, dims));
        if (cu_rank == 0) {
            printf("dims_create(%d, %d):", n, nd);
            for (int i = 0; i < nd; i++)
                printf(" %d", dims[i]);
            printf("\n");
        }
    }
    /* fixed entries are kept */
    int fx[3] = { 0, 3, 0 };
    CU_OK(MPI_Dims_create(24, 3, fx));
    CU_CHECK(fx[0] == 4 && fx[1] == 3 && fx[2] == 2, "0 3 0 -> %d %d %d", fx[0], fx[1], fx[2]);
    int full[2] = { 2, 3 };
    CU_OK(MPI_Dims_create(6, 2, full));
    CU_CHECK(full[0] == 2 && full[1] == 3, "all fixed changed");
    /* errors */
    int bad[3] = { 0, 5, 0 }, neg[2] = { -1, 0 }, zero[2] = { 0, 0 };
    CU_CHECK(cu_class(MPI_Dims_create(24, 3, bad)) == MPI_ERR_DIMS, "5 does not divide 24");
    CU_CHECK(cu_class(MPI_Dims_create(4, 2, neg)) == MPI_ERR_DIMS, "negative entry");
    CU_CHECK(cu_class(MPI_Dims_create(0, 2, zero)) == MPI_ERR_DIMS, "0 nodes");
    CU_CHECK(cu_class(MPI_Dims_create(-3, 2, zero)) == MPI_ERR_DIMS, "negative nodes");
    CU_CHECK(cu_class(MPI_Dims_create(5, 0, zero)) == MPI_ERR_DIMS, "5 nodes, 0 dims");
    CU_OK(MPI_Dims_create(1, 0, zero));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    cu_section("dims_create");
}

/* rank of coords c in a dims[0] x dims[1] grid, -1 off a non-periodic edge */
static int grid_rank(const int *dims, const int *per, int c0, int c1)
{
    if (c0 < 0 || c0 >= dims[0]) {
        if (!per[0])
            return -1;
        c0 = ((c0 % dims[0]) + dims[0]) % dims[0];
    }
    if (c1 < 0 || c1 >= dims[1]) {
        if (!per[1])
            return -1;
        c1 = ((c1 % dims[1]) + dims[1]) % dims[1];
    }
    return c0 * dims[1] + c1;
}

static int or_null(int r)
{
    return r < 0 ? MPI_PROC_NULL : r;
}

static void test_cart(void)
{
    static const int periods[][2] = { { 0, 0 }, { 1, 1 }, { 1, 0 } };
    int              dims[2] = { 0, 0 };

    MPI_Dims_create(cu_size, 2, dims);
    for (int k = 0; k < 3; k++) {
        const int *per = periods[k];
        MPI_Comm   c;
        int        nd, st, gd[2], gp[2], gc[2], me, co[2], r, s, d;
        CU_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &c));
        MPI_Comm_rank(c, &me);
        CU_CHECK(me == cu_rank, "reorder ignored: rank %d", me);
        CU_OK(MPI_Topo_test(c, &st));
        CU_CHECK(st == MPI_CART, "topo_test %d", st);
        CU_OK(MPI_Cartdim_get(c, &nd));
        CU_CHECK(nd == 2, "cartdim %d", nd);
        CU_OK(MPI_Cart_get(c, 2, gd, gp, gc));
        CU_CHECK(gd[0] == dims[0] && gd[1] == dims[1] && !gp[0] == !per[0] && !gp[1] == !per[1],
                 "cart_get");
        CU_CHECK(gc[0] == me / dims[1] && gc[1] == me % dims[1], "cart_get coords");
        for (int q = 0; q < cu_size; q++) {
            CU_OK(MPI_Cart_coords(c, q, 2, co));
            CU_CHECK(co[0] == q / dims[1] && co[1] == q % dims[1], "coords of %d", q);
            CU_OK(MPI_Cart_rank(c, co, &r));
            CU_CHECK(r == q, "rank of coords of %d: %d", q, r);
        }
        for (int dim = 0; dim < 2; dim++)
            for (int disp = -2; disp <= 2; disp++) {
                CU_OK(MPI_Cart_shift(c, dim, disp, &s, &d));
                int ws = dim == 0 ? grid_rank(dims, per, gc[0] - disp, gc[1])
                                  : grid_rank(dims, per, gc[0], gc[1] - disp);
                int wd = dim == 0 ? grid_rank(dims, per, gc[0] + disp, gc[1])
                                  : grid_rank(dims, per, gc[0], gc[1] + disp);
                CU_CHECK(s == or_null(ws) && d == or_null(wd),
                         "periods %d%d shift dim %d disp %d: %d %d, want %d %d", per[0], per[1],
                         dim, disp, s, d, or_null(ws), or_null(wd));
            }
        /* wrapping coordinates, and the error off a non-periodic edge */
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        co[0] = gc[0] + dims[0];
        co[1] = gc[1] - dims[1];
        int rc = MPI_Cart_rank(c, co, &r);
        if (per[0] && per[1])
            CU_CHECK(rc == MPI_SUCCESS && r == me, "wrapped rank %d", r);
        else
            CU_CHECK(cu_class(rc) == MPI_ERR_ARG, "off the edge: %d", rc);
        CU_OK(MPI_Comm_free(&c));
    }
    /* a grid of one rank fewer: the last one is left out */
    if (cu_size > 1) {
        int      d1 = cu_size - 1, p1 = 1, st, sz;
        MPI_Comm c;
        CU_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &d1, &p1, 1, &c));
        CU_CHECK((c == MPI_COMM_NULL) == (cu_rank == cu_size - 1), "left out: %d", cu_rank);
        if (c != MPI_COMM_NULL) {
            MPI_Comm_size(c, &sz);
            MPI_Topo_test(c, &st);
            CU_CHECK(sz == cu_size - 1 && st == MPI_CART, "size %d", sz);
            MPI_Comm_free(&c);
        }
    }
    int st;
    CU_OK(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CU_CHECK(st == MPI_UNDEFINED, "world topo %d", st);
    cu_section("cart");
}

/* what slot i of a Cartesian rank receives: its source's block of the
 * opposite direction (i ^ 1), or the untouched -1 from MPI_PROC_NULL */
static int want_block(const int *src, int i, int salt)
{
    return src[i] == MPI_PROC_NULL ? -1 : cu_val(src[i], i ^ 1, salt);
}

/* Open MPI 4.1 (4.1.4 checked) pairs MPI_Ineighbor_alltoall(v,w)'s two
 * messages between the same two ranks (a periodic dimension of size 1 or
 * 2) the other way round than its own blocking forms and MPI-4.0's rule
 * (what a rank sends towards +1 arrives in the receiver's -1 slot): those
 * checks are not made there. */
static int ompi_swaps(int form, const int *src, int i)
{
#if defined(OPEN_MPI) && !defined(KUMI_MPI)
    return form == 1 && src[i] == src[i ^ 1];
#else
    (void)form, (void)src, (void)i;
    return 0;
#endif
}

static void test_neighbor(void)
{
    static const int periods[][2] = { { 1, 1 }, { 0, 1 } };
    int              dims[2] = { 0, 0 };

    MPI_Dims_create(cu_size, 2, dims);
    for (int k = 0; k < 2; k++) {
        MPI_Comm    c;
        MPI_Request r;
        int         src[4], in[4], sb[4], rb[8], cnt[4], dsp[4], mine;
        MPI_Aint    adsp[4], asdsp[4];
        MPI_Datatype ty[4];
        CU_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods[k], 0, &c));
        /* the neighbors: the -1 one of a dimension, then the +1 one */
        for (int dim = 0; dim < 2; dim++)
            MPI_Cart_shift(c, dim, 1, &src[2 * dim], &src[2 * dim + 1]);
        for (int form = 0; form < 2; form++) {
            /* allgather: every neighbor gets my one value */
            mine = cu_val(cu_rank, 0, 1);
            for (int i = 0; i < 4; i++)
                in[i] = -1;
            if (form == 0)
                CU_OK(MPI_Neighbor_allgather(&mine, 1, MPI_INT, in, 1, MPI_INT, c));
            else {
                CU_OK(MPI_Ineighbor_allgather(&mine, 1, MPI_INT, in, 1, MPI_INT, c, &r));
                CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            for (int i = 0; i < 4; i++)
                CU_CHECK(in[i] == (src[i] == MPI_PROC_NULL ? -1 : cu_val(src[i], 0, 1)),
                         "allgather form %d slot %d: %d", form, i, in[i]);
            /* allgatherv: slots reversed in memory */
            for (int i = 0; i < 4; i++) {
                cnt[i] = 1;
                dsp[i] = 3 - i;
                in[i]  = -1;
            }
            if (form == 0)
                CU_OK(MPI_Neighbor_allgatherv(&mine, 1, MPI_INT, in, cnt, dsp, MPI_INT, c));
            else {
                CU_OK(MPI_Ineighbor_allgatherv(&mine, 1, MPI_INT, in, cnt, dsp, MPI_INT, c, &r));
                CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            for (int i = 0; i < 4; i++)
                CU_CHECK(in[3 - i] == (src[i] == MPI_PROC_NULL ? -1 : cu_val(src[i], 0, 1)),
                         "allgatherv form %d slot %d", form, i);
            /* alltoall: block j to neighbor j */
            for (int j = 0; j < 4; j++) {
                sb[j] = cu_val(cu_rank, j, 2);
                in[j] = -1;
            }
            if (form == 0)
                CU_OK(MPI_Neighbor_alltoall(sb, 1, MPI_INT, in, 1, MPI_INT, c));
            else {
                CU_OK(MPI_Ineighbor_alltoall(sb, 1, MPI_INT, in, 1, MPI_INT, c, &r));
                CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            for (int i = 0; i < 4; i++)
                CU_CHECK(in[i] == want_block(src, i, 2) || ompi_swaps(form, src, i),
                         "alltoall form %d slot %d: %d, want %d", form, i, in[i],
                         want_block(src, i, 2));
            /* alltoallv: slot i lands at 2 * i, with a gap */
            for (int i = 0; i < 4; i++) {
                cnt[i] = 1;
                dsp[i] = 2 * i;
            }
            for (int i = 0; i < 8; i++)
                rb[i] = -1;
            int sd[4] = { 0, 1, 2, 3 };
            if (form == 0)
                CU_OK(MPI_Neighbor_alltoallv(sb, cnt, sd, MPI_INT, rb, cnt, dsp, MPI_INT, c));
            else {
                CU_OK(MPI_Ineighbor_alltoallv(sb, cnt, sd, MPI_INT, rb, cnt, dsp, MPI_INT, c,
                                              &r));
                CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            for (int i = 0; i < 4; i++)
                CU_CHECK((rb[2 * i] == want_block(src, i, 2) || ompi_swaps(form, src, i))
                             && rb[2 * i + 1] == -1,
                         "alltoallv form %d slot %d", form, i);
            /* alltoallw: byte displacements */
            for (int i = 0; i < 4; i++) {
                adsp[i]  = (MPI_Aint)((3 - i) * sizeof(int));
                asdsp[i] = (MPI_Aint)(i * sizeof(int));
                ty[i]    = MPI_INT;
                in[i]    = -1;
            }
            if (form == 0)
                CU_OK(MPI_Neighbor_alltoallw(sb, cnt, asdsp, ty, in, cnt, adsp, ty, c));
            else {
                CU_OK(MPI_Ineighbor_alltoallw(sb, cnt, asdsp, ty, in, cnt, adsp, ty, c, &r));
                CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            for (int i = 0; i < 4; i++)
                CU_CHECK(in[3 - i] == want_block(src, i, 2) || ompi_swaps(form, src, i),
                         "alltoallw form %d slot %d", form, i);
        }
        CU_OK(MPI_Comm_free(&c));
    }
    /* no topology: MPI_ERR_TOPOLOGY */
    int nd;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CU_CHECK(cu_class(MPI_Cartdim_get(MPI_COMM_WORLD, &nd)) == MPI_ERR_TOPOLOGY, "cartdim");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    cu_section("neighbor collectives on 2D grids");
}

int main(int argc, char **argv)
{
    cu_init(&argc, &argv);
    test_dims();
    test_cart();
    test_neighbor();
    MPI_Finalize();
    return 0;
}
