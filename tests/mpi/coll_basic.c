/*
 * coll_basic.c -- every collective on MPI_COMM_WORLD with basic types:
 * roots 0 and last, counts 0, small and large (past the eager limit),
 * the MPI_IN_PLACE forms, uneven and zero counts in the v-variants.
 */
#include "coll_util.h"

#define BIG 3000   /* ints: 12 000 bytes, past kumi's eager limit */

static const int sizes[] = { 0, 1, 7, BIG };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int *ints(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof(int));
    if (p == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    return p;
}

static void fill(int *b, int n, int v)
{
    for (int i = 0; i < n; i++)
        b[i] = v;
}

static void test_bcast(void)
{
    for (int s = 0; s < NSIZES; s++)
        for (int root = 0; root < cu_size; root += cu_size > 1 ? cu_size - 1 : 1) {
            int n = sizes[s], *b = ints((size_t)n);
            for (int i = 0; i < n; i++)
                b[i] = cu_rank == root ? cu_val(root, i, s) : -1;
            CU_OK(MPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                CU_CHECK(b[i] == cu_val(root, i, s), "n %d root %d [%d] = %d", n, root, i, b[i]);
            free(b);
        }
    cu_section("bcast");
}

static void test_reduce(void)
{
    for (int s = 0; s < NSIZES; s++)
        for (int root = 0; root < cu_size; root += cu_size > 1 ? cu_size - 1 : 1)
            for (int form = 0; form < 3; form++) {
                /* form 0: separate buffers; 1: IN_PLACE at the root and
                 * aliased send/recv elsewhere (the OSU pattern); 2: double MAX */
                int     n = sizes[s], *a = ints((size_t)n), *b = ints((size_t)n);
                double *x = malloc((n ? n : 1) * sizeof(double));
                double *y = malloc((n ? n : 1) * sizeof(double));
                for (int i = 0; i < n; i++) {
                    a[i] = cu_val(cu_rank, i, s);
                    b[i] = form == 1 ? a[i] : -1;
                    x[i] = (double)((cu_rank * 7 + i) % 13) - 0.5;
                    y[i] = -100;
                }
                if (form == 0)
                    CU_OK(MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
                else if (form == 1)
                    CU_OK(MPI_Reduce(cu_rank == root ? MPI_IN_PLACE : b, b, n, MPI_INT, MPI_SUM,
                                     root, MPI_COMM_WORLD));
                else
                    CU_OK(MPI_Reduce(x, y, n, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD));
                for (int i = 0; i < n && cu_rank == root; i++) {
                    int    want = 0;
                    double wmax = -1e9;
                    for (int r = 0; r < cu_size; r++) {
                        want += cu_val(r, i, s);
                        if ((double)((r * 7 + i) % 13) - 0.5 > wmax)
                            wmax = (double)((r * 7 + i) % 13) - 0.5;
                    }
                    if (form < 2)
                        CU_CHECK(b[i] == want, "form %d n %d root %d [%d] = %d, want %d", form,
                                 n, root, i, b[i], want);
                    else
                        CU_CHECK(y[i] == wmax, "max n %d root %d [%d] = %g", n, root, i, y[i]);
                }
                free(y), free(x), free(b), free(a);
            }
    cu_section("reduce");
}

static void test_allreduce(void)
{
    for (int s = 0; s < NSIZES; s++)
        for (int form = 0; form < 2; form++) {
            int n = sizes[s], *a = ints((size_t)n), *b = ints((size_t)n);
            for (int i = 0; i < n; i++) {
                a[i] = cu_val(cu_rank, i, s);
                b[i] = form ? a[i] : -1;
            }
            CU_OK(MPI_Allreduce(form ? MPI_IN_PLACE : a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++) {
                int want = 0;
                for (int r = 0; r < cu_size; r++)
                    want += cu_val(r, i, s);
                CU_CHECK(b[i] == want, "form %d n %d [%d] = %d, want %d", form, n, i, b[i], want);
            }
            free(b), free(a);
        }
    cu_section("allreduce");
}

static void test_gather(void)
{
    for (int s = 0; s < NSIZES; s++)
        for (int root = 0; root < cu_size; root += cu_size > 1 ? cu_size - 1 : 1)
            for (int inplace = 0; inplace < 2; inplace++) {
                int n = sizes[s], *a = ints((size_t)n), *b = NULL;
                for (int i = 0; i < n; i++)
                    a[i] = cu_val(cu_rank, i, s);
                if (cu_rank == root) {
                    b = ints((size_t)n * cu_size);
                    fill(b, n * cu_size, -1);
                    if (inplace)
                        memcpy(b + (size_t)root * n, a, (size_t)n * sizeof(int));
                }
                /* non-roots pass no receive buffer at all (OSU does) */
                CU_OK(MPI_Gather(inplace && cu_rank == root ? MPI_IN_PLACE : a, n, MPI_INT, b, n,
                                 MPI_INT, root, MPI_COMM_WORLD));
                for (int r = 0; r < cu_size && cu_rank == root; r++)
                    for (int i = 0; i < n; i++)
                        CU_CHECK(b[r * n + i] == cu_val(r, i, s), "n %d root %d from %d [%d]", n,
                                 root, r, i);
                free(b), free(a);
            }
    cu_section("gather");
}

static void test_scatter(void)
{
    for (int s = 0; s < NSIZES; s++)
        for (int root = 0; root < cu_size; root += cu_size > 1 ? cu_size - 1 : 1)
            for (int inplace = 0; inplace < 2; inplace++) {
                int n = sizes[s], *a = NULL, *b = ints((size_t)n);
                fill(b, n, -1);
                if (cu_rank == root) {
                    a = ints((size_t)n * cu_size);
                    for (int r = 0; r < cu_size; r++)
                        for (int i = 0; i < n; i++)
                            a[r * n + i] = cu_val(r, i, s);
                }
                if (inplace && cu_rank == root)
                    CU_OK(MPI_Scatter(a, n, MPI_INT, MPI_IN_PLACE, n, MPI_INT, root,
                                      MPI_COMM_WORLD));
                else
                    CU_OK(MPI_Scatter(a, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD));
                for (int i = 0; i < n; i++) {
                    int got = inplace && cu_rank == root ? a[root * n + i] : b[i];
                    CU_CHECK(got == cu_val(cu_rank, i, s), "n %d root %d [%d] = %d", n, root, i,
                             got);
                }
                free(b), free(a);
            }
    cu_section("scatter");
}

/* v-variants: rank r's block has vcount(r) elements (zeros included) at
 * displacement vdispl(r), in reverse rank order with gaps */
static int vcount(int r, int salt)
{
    return salt ? (r * 3 + salt) % 5 * (salt == 3 ? 700 : 1) : 0;
}

static int vtotal(int salt)
{
    int t = 0;
    for (int r = 0; r < cu_size; r++)
        t += vcount(r, salt) + 2;
    return t;
}

static int vdispl(int r, int salt)
{
    int d = 1;
    for (int q = cu_size - 1; q > r; q--)
        d += vcount(q, salt) + 2;
    return d;
}

static void v_arrays(int *counts, int *displs, int salt)
{
    for (int r = 0; r < cu_size; r++) {
        counts[r] = vcount(r, salt);
        displs[r] = vdispl(r, salt);
    }
}

static void test_gatherv_scatterv(void)
{
    int *counts = ints((size_t)cu_size), *displs = ints((size_t)cu_size);

    for (int salt = 0; salt < 4; salt++)
        for (int root = 0; root < cu_size; root += cu_size > 1 ? cu_size - 1 : 1)
            for (int inplace = 0; inplace < 2; inplace++) {
                int  me = vcount(cu_rank, salt), total = vtotal(salt);
                int *a = ints((size_t)me), *b = NULL;
                v_arrays(counts, displs, salt);
                for (int i = 0; i < me; i++)
                    a[i] = cu_val(cu_rank, i, salt);
                if (cu_rank == root) {
                    b = ints((size_t)total);
                    fill(b, total, -1);
                    if (inplace)
                        memcpy(b + displs[root], a, (size_t)me * sizeof(int));
                }
                CU_OK(MPI_Gatherv(inplace && cu_rank == root ? MPI_IN_PLACE : a, me, MPI_INT, b,
                                  counts, displs, MPI_INT, root, MPI_COMM_WORLD));
                if (cu_rank == root) {   /* every block in place, every gap untouched */
                    int *want = ints((size_t)total);
                    fill(want, total, -1);
                    for (int r = 0; r < cu_size; r++)
                        for (int i = 0; i < counts[r]; i++)
                            want[displs[r] + i] = cu_val(r, i, salt);
                    for (int j = 0; j < total; j++)
                        CU_CHECK(b[j] == want[j], "gatherv salt %d root %d [%d] = %d, want %d",
                                 salt, root, j, b[j], want[j]);
                    free(want);
                }
                /* and back: the root scatters what it gathered */
                fill(a, me, -2);
                if (inplace && cu_rank == root)
                    CU_OK(MPI_Scatterv(b, counts, displs, MPI_INT, MPI_IN_PLACE, me, MPI_INT, root,
                                       MPI_COMM_WORLD));
                else
                    CU_OK(MPI_Scatterv(b, counts, displs, MPI_INT, a, me, MPI_INT, root,
                                       MPI_COMM_WORLD));
                for (int i = 0; i < me && !(inplace && cu_rank == root); i++)
                    CU_CHECK(a[i] == cu_val(cu_rank, i, salt), "scatterv salt %d root %d [%d]",
                             salt, root, i);
                free(b), free(a);
            }
    free(displs), free(counts);
    cu_section("gatherv scatterv");
}

static void test_allgather(void)
{
    for (int s = 0; s < NSIZES; s++)
        for (int inplace = 0; inplace < 2; inplace++) {
            int n = sizes[s], *a = ints((size_t)n), *b = ints((size_t)n * cu_size);
            for (int i = 0; i < n; i++)
                a[i] = cu_val(cu_rank, i, s);
            fill(b, n * cu_size, -1);
            if (inplace)
                memcpy(b + (size_t)cu_rank * n, a, (size_t)n * sizeof(int));
            CU_OK(MPI_Allgather(inplace ? MPI_IN_PLACE : a, n, MPI_INT, b, n, MPI_INT,
                                MPI_COMM_WORLD));
            for (int r = 0; r < cu_size; r++)
                for (int i = 0; i < n; i++)
                    CU_CHECK(b[r * n + i] == cu_val(r, i, s), "n %d inplace %d from %d [%d]", n,
                             inplace, r, i);
            free(b), free(a);
        }
    cu_section("allgather");
}

static void test_allgatherv(void)
{
    int *counts = ints((size_t)cu_size), *displs = ints((size_t)cu_size);

    /* salt 0..3: uneven (zeros, large); 4: equal counts, reversed displs */
    for (int salt = 0; salt < 5; salt++)
        for (int inplace = 0; inplace < 2; inplace++) {
            int total, me, *a, *b, *want;
            if (salt < 4)
                v_arrays(counts, displs, salt);
            else
                for (int r = 0; r < cu_size; r++)
                    counts[r] = 5, displs[r] = (cu_size - 1 - r) * 6 + 1;
            total = salt < 4 ? vtotal(salt) : cu_size * 6 + 1;
            me    = counts[cu_rank];
            a     = ints((size_t)me);
            b     = ints((size_t)total);
            want  = ints((size_t)total);
            for (int i = 0; i < me; i++)
                a[i] = cu_val(cu_rank, i, salt);
            fill(b, total, -1);
            fill(want, total, -1);
            for (int r = 0; r < cu_size; r++)
                for (int i = 0; i < counts[r]; i++)
                    want[displs[r] + i] = cu_val(r, i, salt);
            if (inplace)
                memcpy(b + displs[cu_rank], a, (size_t)me * sizeof(int));
            CU_OK(MPI_Allgatherv(inplace ? MPI_IN_PLACE : a, me, MPI_INT, b, counts, displs,
                                 MPI_INT, MPI_COMM_WORLD));
            for (int j = 0; j < total; j++)
                CU_CHECK(b[j] == want[j], "salt %d inplace %d [%d] = %d, want %d", salt, inplace,
                         j, b[j], want[j]);
            free(want), free(b), free(a);
        }
    free(displs), free(counts);
    cu_section("allgatherv");
}

static void test_alltoall(void)
{
    static const int n_list[] = { 0, 1, 7, 1000 };

    for (int s = 0; s < 4; s++)
        for (int inplace = 0; inplace < 2; inplace++) {
            int n = n_list[s], *a = ints((size_t)n * cu_size), *b = ints((size_t)n * cu_size);
            /* block j of rank r: cu_val(r, j * n + i) */
            for (int j = 0; j < cu_size; j++)
                for (int i = 0; i < n; i++)
                    a[j * n + i] = cu_val(cu_rank, j * n + i, s);
            if (inplace)
                memcpy(b, a, (size_t)n * cu_size * sizeof(int));
            else
                fill(b, n * cu_size, -1);
            CU_OK(MPI_Alltoall(inplace ? MPI_IN_PLACE : a, n, MPI_INT, b, n, MPI_INT,
                               MPI_COMM_WORLD));
            for (int r = 0; r < cu_size; r++)
                for (int i = 0; i < n; i++)
                    CU_CHECK(b[r * n + i] == cu_val(r, cu_rank * n + i, s),
                             "n %d inplace %d from %d [%d] = %d", n, inplace, r, i, b[r * n + i]);
            free(b), free(a);
        }
    cu_section("alltoall");
}

/* alltoallv: rank s sends tcount(s, d) elements to rank d (in place the
 * counts must be symmetric: what goes to d is what comes from d) */
static int tcount(int s, int d, int salt, int inplace)
{
    if (salt == 2)   /* uniform, canonical: takes kumi's native alltoall */
        return 4;
    return (s + (inplace ? 1 : 2) * d + salt) % 4 * (salt == 3 ? 900 : 1);
}

static void test_alltoallv(void)
{
    int *sc = ints((size_t)cu_size), *sd = ints((size_t)cu_size);
    int *rc = ints((size_t)cu_size), *rd = ints((size_t)cu_size);

    for (int salt = 0; salt < 4; salt++)
        for (int inplace = 0; inplace < 2; inplace++) {
            int stot = 0, rtot = 0, *a, *b;
            for (int r = 0; r < cu_size; r++) {   /* gaps of one between blocks unless uniform */
                int gap = salt == 2 ? 0 : 1;
                sc[r] = tcount(cu_rank, r, salt, inplace);
                rc[r] = tcount(r, cu_rank, salt, inplace);
                sd[r] = stot;
                rd[r] = rtot + gap;
                stot += sc[r];
                rtot += rc[r] + gap;
            }
            a = ints((size_t)stot);
            b = ints((size_t)rtot + 1);
            for (int r = 0; r < cu_size; r++)
                for (int i = 0; i < sc[r]; i++)
                    a[sd[r] + i] = cu_val(cu_rank, r * 10000 + i, salt);
            fill(b, rtot + 1, -1);
            if (inplace) {   /* in place, the send and receive layouts are the same */
                for (int r = 0; r < cu_size; r++)
                    for (int i = 0; i < rc[r]; i++)
                        b[rd[r] + i] = cu_val(cu_rank, r * 10000 + i, salt);
            }
            if (inplace)
                CU_OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, rc, rd,
                                    MPI_INT, MPI_COMM_WORLD));
            else
                CU_OK(MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD));
            for (int r = 0; r < cu_size; r++) {
                for (int i = 0; i < rc[r]; i++)
                    CU_CHECK(b[rd[r] + i] == cu_val(r, cu_rank * 10000 + i, salt),
                             "salt %d inplace %d from %d [%d] = %d", salt, inplace, r, i,
                             b[rd[r] + i]);
                if (salt != 2)
                    CU_CHECK(b[rd[r] - 1] == -1, "salt %d gap before block %d", salt, r);
            }
            free(b), free(a);
        }
    free(rd), free(rc), free(sd), free(sc);
    cu_section("alltoallv");
}

static void test_reduce_scatter(void)
{
    int *counts = ints((size_t)cu_size);

    for (int salt = 0; salt < 4; salt++)
        for (int block = 0; block < 2; block++)
            for (int inplace = 0; inplace < 2; inplace++) {
                int total = 0, before = 0, me, *a, *b;
                for (int r = 0; r < cu_size; r++) {
                    counts[r] = block ? (salt == 3 ? 1000 : salt + 1) : (r + salt) % 3;
                    if (r == cu_rank)
                        before = total;
                    total += counts[r];
                }
                me = counts[cu_rank];
                a  = ints((size_t)total);
                b  = ints((size_t)total);
                for (int i = 0; i < total; i++)
                    a[i] = cu_val(cu_rank, i, salt);
                if (inplace)
                    memcpy(b, a, (size_t)total * sizeof(int));
                else
                    fill(b, total, -1);
                if (block)
                    CU_OK(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : a, b, me, MPI_INT,
                                                   MPI_SUM, MPI_COMM_WORLD));
                else
                    CU_OK(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : a, b, counts, MPI_INT,
                                             MPI_SUM, MPI_COMM_WORLD));
                for (int i = 0; i < me; i++) {
                    int want = 0;
                    for (int r = 0; r < cu_size; r++)
                        want += cu_val(r, before + i, salt);
                    CU_CHECK(b[i] == want, "block %d salt %d inplace %d [%d] = %d, want %d",
                             block, salt, inplace, i, b[i], want);
                }
                free(b), free(a);
            }
    free(counts);
    cu_section("reduce_scatter");
}

static void test_scan(void)
{
    for (int s = 0; s < NSIZES; s++)
        for (int ex = 0; ex < 2; ex++)
            for (int inplace = 0; inplace < 2; inplace++) {
                int n = sizes[s], *a = ints((size_t)n), *b = ints((size_t)n);
                for (int i = 0; i < n; i++) {
                    a[i] = cu_val(cu_rank, i, s);
                    b[i] = inplace ? a[i] : -1;
                }
                if (ex)
                    CU_OK(MPI_Exscan(inplace ? MPI_IN_PLACE : a, b, n, MPI_INT, MPI_SUM,
                                     MPI_COMM_WORLD));
                else
                    CU_OK(MPI_Scan(inplace ? MPI_IN_PLACE : a, b, n, MPI_INT, MPI_SUM,
                                   MPI_COMM_WORLD));
                for (int i = 0; i < n && !(ex && cu_rank == 0); i++) {
                    int want = 0;
                    for (int r = 0; r < cu_rank + !ex; r++)
                        want += cu_val(r, i, s);
                    CU_CHECK(b[i] == want, "exscan %d inplace %d n %d [%d] = %d, want %d", ex,
                             inplace, n, i, b[i], want);
                }
                free(b), free(a);
            }
    cu_section("scan exscan");
}

int main(int argc, char **argv)
{
    cu_init(&argc, &argv);
    for (int i = 0; i < 10; i++)
        CU_OK(MPI_Barrier(MPI_COMM_WORLD));
    cu_section("barrier");
    test_bcast();
    test_reduce();
    test_allreduce();
    test_gather();
    test_scatter();
    test_gatherv_scatterv();
    test_allgather();
    test_allgatherv();
    test_alltoall();
    test_alltoallv();
    test_reduce_scatter();
    test_scan();
    return cu_finish();
}
