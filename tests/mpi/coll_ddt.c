/*
 * coll_ddt.c -- collectives with derived datatypes: a vector type (3 ints
 * at stride 2) on the send side against plain ints on the receive side and
 * the other way round, in every data-moving collective (v-variants with
 * uneven and zero counts, MPI_IN_PLACE); reductions on the vector type
 * (SUM, MAX, LAND), MAXLOC on a contiguous and a vector type of
 * MPI_DOUBLE_INT. The gaps of a vector buffer are never written.
 *
 * Predefined ops on derived types are kumi's extension: MPI-3.1 5.9.1
 * allows them only on the basic types of 5.9.2/5.9.4 (Open MPI refuses the
 * rest); kumi applies them elementwise to a derived type whose data are all
 * of one basic type, as MPI's one-sided accumulates do. Elsewhere those
 * sections only print their line.
 */
#include <stddef.h>

#include "coll_util.h"

#define SENT (-7777)    /* what gaps hold */
#define VLEN 3          /* ints of data in one vec element */
#define VEXT 5          /* ints one vec element spans */

static MPI_Datatype vec;   /* MPI_Type_vector(3, 1, 2, MPI_INT) */

/* the position of data int k in a buffer of vec elements */
static int vidx(int k)
{
    return k / VLEN * VEXT + k % VLEN * 2;
}

static int *alloc_ints(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof(int));
    if (p == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t i = 0; i < n; i++)
        p[i] = SENT;
    return p;
}

/* a buffer of nvec vec elements holding data ints v(k) = cu_val(who, k, salt) */
static int *vec_buf(int nvec, int who, int salt)
{
    int *b = alloc_ints((size_t)nvec * VEXT);
    for (int k = 0; k < nvec * VLEN; k++)
        b[vidx(k)] = cu_val(who, k, salt);
    return b;
}

static void vec_check(const int *b, int nvec, int who, int salt, const char *what)
{
    for (int j = 0; j < nvec * VEXT; j++) {
        int k = j / VEXT * VLEN + j % VEXT / 2;
        int data = j % VEXT % 2 == 0 && j % VEXT / 2 < VLEN;
        int want = data ? cu_val(who, k, salt) : SENT;
        CU_CHECK(b[j] == want, "%s: int %d = %d, want %d", what, j, b[j], want);
    }
}

static void int_check(const int *b, int n, int who, int salt, const char *what)
{
    for (int k = 0; k < n; k++)
        CU_CHECK(b[k] == cu_val(who, k, salt), "%s: [%d] = %d, want %d", what, k, b[k],
                 cu_val(who, k, salt));
}

static void test_bcast(void)
{
    for (int root = 0; root < cu_size; root += cu_size > 1 ? cu_size - 1 : 1)
        for (int n = 1; n <= 700; n += 699) {   /* 700 vecs: past the eager limit */
            /* the root sends vecs, the others receive ints; then the reverse */
            int *b = cu_rank == root ? vec_buf(n, root, 1) : alloc_ints((size_t)n * VLEN);
            if (cu_rank == root)
                CU_OK(MPI_Bcast(b, n, vec, root, MPI_COMM_WORLD));
            else
                CU_OK(MPI_Bcast(b, n * VLEN, MPI_INT, root, MPI_COMM_WORLD));
            if (cu_rank == root)
                vec_check(b, n, root, 1, "bcast vec->int root");
            else
                int_check(b, n * VLEN, root, 1, "bcast vec->int");
            free(b);
            if (cu_rank == root) {
                b = alloc_ints((size_t)n * VLEN);
                for (int k = 0; k < n * VLEN; k++)
                    b[k] = cu_val(root, k, 2);
                CU_OK(MPI_Bcast(b, n * VLEN, MPI_INT, root, MPI_COMM_WORLD));
            } else {
                b = alloc_ints((size_t)n * VEXT);
                CU_OK(MPI_Bcast(b, n, vec, root, MPI_COMM_WORLD));
                vec_check(b, n, root, 2, "bcast int->vec");
            }
            free(b);
        }
    cu_section("bcast with a vector type");
}

static void test_gather_scatter(void)
{
    const int n = 4;

    for (int root = 0; root < cu_size; root += cu_size > 1 ? cu_size - 1 : 1) {
        /* gather: vec -> ints at the root; ints -> vec at the root */
        int *s = vec_buf(n, cu_rank, 3), *r = alloc_ints((size_t)cu_size * n * VEXT);
        CU_OK(MPI_Gather(s, n, vec, r, n * VLEN, MPI_INT, root, MPI_COMM_WORLD));
        for (int q = 0; q < cu_size && cu_rank == root; q++)
            int_check(r + q * n * VLEN, n * VLEN, q, 3, "gather vec->int");
        free(s);
        s = alloc_ints((size_t)n * VLEN);
        for (int k = 0; k < n * VLEN; k++)
            s[k] = cu_val(cu_rank, k, 4);
        free(r);
        r = alloc_ints((size_t)cu_size * n * VEXT);
        CU_OK(MPI_Gather(s, n * VLEN, MPI_INT, r, n, vec, root, MPI_COMM_WORLD));
        for (int q = 0; q < cu_size && cu_rank == root; q++)
            vec_check(r + q * n * VEXT, n, q, 4, "gather int->vec");
        /* in place at the root, into the vec buffer just gathered */
        CU_OK(MPI_Gather(cu_rank == root ? MPI_IN_PLACE : s, n * VLEN, MPI_INT, r, n, vec, root,
                         MPI_COMM_WORLD));
        for (int q = 0; q < cu_size && cu_rank == root; q++)
            vec_check(r + q * n * VEXT, n, q, 4, "gather in place vec");
        /* scatter it back: vec at the root -> ints */
        for (int k = 0; k < n * VLEN; k++)
            s[k] = SENT;
        CU_OK(MPI_Scatter(r, n, vec, s, n * VLEN, MPI_INT, root, MPI_COMM_WORLD));
        int_check(s, n * VLEN, cu_rank, 4, "scatter vec->int");
        free(r);
        free(s);
        /* ints at the root -> vec */
        r = alloc_ints((size_t)cu_size * n * VLEN);
        for (int q = 0; q < cu_size; q++)
            for (int k = 0; k < n * VLEN; k++)
                r[q * n * VLEN + k] = cu_val(q, k, 5);
        s = alloc_ints((size_t)n * VEXT);
        CU_OK(MPI_Scatter(r, n * VLEN, MPI_INT, s, n, vec, root, MPI_COMM_WORLD));
        vec_check(s, n, cu_rank, 5, "scatter int->vec");
        free(s);
        free(r);
    }
    cu_section("gather scatter with a vector type");
}

/* uneven counts (zeros included) of vec elements: rank r holds vc(r) */
static int vc(int r)
{
    return (r * 2 + 1) % 3;
}

static void test_v(void)
{
    int *counts = malloc(cu_size * sizeof(int)), *displs = malloc(cu_size * sizeof(int));
    int  total = 0;

    for (int r = 0; r < cu_size; r++) {   /* displacements in vec extents, a gap of one */
        counts[r] = vc(r);
        displs[r] = total + 1;
        total += vc(r) + 1;
    }
    for (int root = 0; root < cu_size; root += cu_size > 1 ? cu_size - 1 : 1) {
        int *s = alloc_ints((size_t)vc(cu_rank) * VLEN), *r = alloc_ints((size_t)total * VEXT);
        for (int k = 0; k < vc(cu_rank) * VLEN; k++)
            s[k] = cu_val(cu_rank, k, 6);
        CU_OK(MPI_Gatherv(s, vc(cu_rank) * VLEN, MPI_INT, r, counts, displs, vec, root,
                          MPI_COMM_WORLD));
        if (cu_rank == root)
            for (int q = 0; q < cu_size; q++) {
                vec_check(r + displs[q] * VEXT, counts[q], q, 6, "gatherv int->vec");
                for (int j = 0; j < VEXT; j++)   /* the gap extent before each block */
                    CU_CHECK(r[(displs[q] - 1) * VEXT + j] == SENT, "gatherv gap %d", q);
            }
        for (int k = 0; k < vc(cu_rank) * VLEN; k++)
            s[k] = SENT;
        CU_OK(MPI_Scatterv(r, counts, displs, vec, s, vc(cu_rank) * VLEN, MPI_INT, root,
                           MPI_COMM_WORLD));
        int_check(s, vc(cu_rank) * VLEN, cu_rank, 6, "scatterv vec->int");
        free(r);
        free(s);
    }
    {   /* allgatherv into vecs, and in place */
        int *s = alloc_ints((size_t)vc(cu_rank) * VLEN), *r = alloc_ints((size_t)total * VEXT);
        for (int k = 0; k < vc(cu_rank) * VLEN; k++)
            s[k] = cu_val(cu_rank, k, 7);
        CU_OK(MPI_Allgatherv(s, vc(cu_rank) * VLEN, MPI_INT, r, counts, displs, vec,
                             MPI_COMM_WORLD));
        for (int q = 0; q < cu_size; q++)
            vec_check(r + displs[q] * VEXT, counts[q], q, 7, "allgatherv int->vec");
        CU_OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, counts, displs, vec,
                             MPI_COMM_WORLD));
        for (int q = 0; q < cu_size; q++)
            vec_check(r + displs[q] * VEXT, counts[q], q, 7, "allgatherv in place vec");
        free(r);
        free(s);
    }
    {   /* alltoallv: rank s sends ac(s, d) vecs to d, received as ints */
        int *sc = malloc(cu_size * sizeof(int)), *sd = malloc(cu_size * sizeof(int));
        int *rc = malloc(cu_size * sizeof(int)), *rd = malloc(cu_size * sizeof(int));
        int  stot = 0, rtot = 0, *s, *r;
        for (int q = 0; q < cu_size; q++) {
            sc[q] = (cu_rank + q) % 3;
            rc[q] = (q + cu_rank) % 3 * VLEN;
            sd[q] = stot;
            rd[q] = rtot;
            stot += sc[q];
            rtot += rc[q];
        }
        s = alloc_ints((size_t)stot * VEXT);
        r = alloc_ints((size_t)rtot);
        for (int q = 0; q < cu_size; q++)
            for (int k = 0; k < sc[q] * VLEN; k++)
                s[vidx(sd[q] * VLEN + k)] = cu_val(cu_rank, q * 100 + k, 8);
        CU_OK(MPI_Alltoallv(s, sc, sd, vec, r, rc, rd, MPI_INT, MPI_COMM_WORLD));
        for (int q = 0; q < cu_size; q++)
            for (int k = 0; k < rc[q]; k++)
                CU_CHECK(r[rd[q] + k] == cu_val(q, cu_rank * 100 + k, 8),
                         "alltoallv vec->int from %d [%d]", q, k);
        free(r), free(s), free(rd), free(rc), free(sd), free(sc);
    }
    free(displs);
    free(counts);
    cu_section("v-variants with a vector type");
}

static void test_allgather_alltoall(void)
{
    const int n = 2;
    int      *s = vec_buf(n, cu_rank, 9), *r = alloc_ints((size_t)cu_size * n * VLEN);

    CU_OK(MPI_Allgather(s, n, vec, r, n * VLEN, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < cu_size; q++)
        int_check(r + q * n * VLEN, n * VLEN, q, 9, "allgather vec->int");
    free(r);
    r = alloc_ints((size_t)cu_size * n * VEXT);
    CU_OK(MPI_Allgather(s, n, vec, r, n, vec, MPI_COMM_WORLD));
    for (int q = 0; q < cu_size; q++)
        vec_check(r + q * n * VEXT, n, q, 9, "allgather vec->vec");
    CU_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, vec, MPI_COMM_WORLD));
    for (int q = 0; q < cu_size; q++)
        vec_check(r + q * n * VEXT, n, q, 9, "allgather in place vec");
    free(r);
    free(s);
    /* alltoall: block d of rank q holds cu_val(q, d * 100 + k) */
    s = alloc_ints((size_t)cu_size * n * VEXT);
    r = alloc_ints((size_t)cu_size * n * VLEN);
    for (int d = 0; d < cu_size; d++)
        for (int k = 0; k < n * VLEN; k++)
            s[d * n * VEXT + vidx(k)] = cu_val(cu_rank, d * 100 + k, 10);
    CU_OK(MPI_Alltoall(s, n, vec, r, n * VLEN, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < cu_size; q++)
        for (int k = 0; k < n * VLEN; k++)
            CU_CHECK(r[q * n * VLEN + k] == cu_val(q, cu_rank * 100 + k, 10),
                     "alltoall vec->int from %d [%d]", q, k);
    /* in place on the vec buffer: what rank q sent to me replaces block q */
    CU_OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s, n, vec, MPI_COMM_WORLD));
    for (int q = 0; q < cu_size; q++)
        for (int j = 0; j < n * VEXT; j++) {
            int k = j / VEXT * VLEN + j % VEXT / 2, data = j % VEXT % 2 == 0;
            int want = data ? cu_val(q, cu_rank * 100 + k, 10) : SENT;
            CU_CHECK(s[q * n * VEXT + j] == want, "alltoall in place vec from %d int %d", q, j);
        }
    free(r);
    free(s);
    cu_section("allgather alltoall with a vector type");
}

static void test_reductions(void)
{
#ifdef KUMI_MPI
    const int n = 3;
    int      *s = vec_buf(n, cu_rank, 11), *r = alloc_ints((size_t)n * VEXT);
    int      *want = alloc_ints((size_t)n * VLEN);

    for (int k = 0; k < n * VLEN; k++) {
        want[k] = 0;
        for (int q = 0; q < cu_size; q++)
            want[k] += cu_val(q, k, 11);
    }
    CU_OK(MPI_Allreduce(s, r, n, vec, MPI_SUM, MPI_COMM_WORLD));
    for (int j = 0; j < n * VEXT; j++) {
        int k = j / VEXT * VLEN + j % VEXT / 2, data = j % VEXT % 2 == 0;
        CU_CHECK(r[j] == (data ? want[k] : SENT), "allreduce vec SUM int %d = %d", j, r[j]);
    }
    for (int root = 0; root < cu_size; root += cu_size > 1 ? cu_size - 1 : 1) {
        int *x = vec_buf(n, cu_rank, 11);
        CU_OK(MPI_Reduce(cu_rank == root ? MPI_IN_PLACE : x, x, n, vec, MPI_SUM, root,
                         MPI_COMM_WORLD));
        for (int j = 0; j < n * VEXT && cu_rank == root; j++) {
            int k = j / VEXT * VLEN + j % VEXT / 2, data = j % VEXT % 2 == 0;
            CU_CHECK(x[j] == (data ? want[k] : SENT), "reduce vec in place int %d", j);
        }
        free(x);
    }
    /* scan with MAX; LAND (a logical op through kumi's bitwise one) */
    CU_OK(MPI_Scan(s, r, n, vec, MPI_MAX, MPI_COMM_WORLD));
    for (int k = 0; k < n * VLEN; k++)
        CU_CHECK(r[vidx(k)] == cu_val(cu_rank, k, 11), "scan vec MAX [%d]", k);
    for (int k = 0; k < n * VLEN; k++)
        s[vidx(k)] = (k + cu_rank) % 4 == 0 ? 0 : 5 + cu_rank;
    CU_OK(MPI_Allreduce(s, r, n, vec, MPI_LAND, MPI_COMM_WORLD));
    for (int k = 0; k < n * VLEN; k++) {
        int w = 1;
        for (int q = 0; q < cu_size; q++)
            w = w && (k + q) % 4 != 0;
        if (cu_size == 1)   /* one rank: its own value */
            w = (k % 4 == 0) ? 0 : 5;
        CU_CHECK(r[vidx(k)] == w, "allreduce vec LAND [%d] = %d, want %d", k, r[vidx(k)], w);
    }
    /* reduce_scatter_block: one vec per rank */
    free(s);
    s = vec_buf(cu_size, cu_rank, 12);
    CU_OK(MPI_Reduce_scatter_block(s, r, 1, vec, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < VLEN; k++) {
        int w = 0;
        for (int q = 0; q < cu_size; q++)
            w += cu_val(q, cu_rank * VLEN + k, 12);
        CU_CHECK(r[vidx(k)] == w, "reduce_scatter_block vec [%d]", k);
    }
    free(want), free(r), free(s);
#endif
    cu_section("reductions on a vector type");
}

/* MAXLOC on MPI_DOUBLE_INT inside derived types: contiguous (2 pairs per
 * element) and a vector (every other pair) */
struct dint { double v; int i; };

static void test_maxloc_derived(void)
{
#ifdef KUMI_MPI
    MPI_Datatype two, every_other;
    struct dint  in[8], out[8];
    const int    n = 2;   /* elements of each type: 4 pairs */

    CU_OK(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &two));
    CU_OK(MPI_Type_commit(&two));
    CU_OK(MPI_Type_vector(2, 1, 2, MPI_DOUBLE_INT, &every_other));
    CU_OK(MPI_Type_commit(&every_other));
    for (int pass = 0; pass < 2; pass++) {
        MPI_Datatype t = pass ? every_other : two;
        int          stride = pass ? 2 : 1;   /* pairs apart */
        int          npairs = 2 * n;
        for (int j = 0; j < 8; j++) {
            in[j]  = (struct dint){ -1, -1 };
            out[j] = (struct dint){ -2, -2 };
        }
        for (int p = 0; p < npairs; p++) {
            int at = pass ? (p / 2) * 3 * 1 + (p % 2) * stride : p;   /* vector extent: 3 pairs */
            in[at] = (struct dint){ (double)((cu_rank * 3 + p) % 4), (cu_size - cu_rank) * 10 + p };
        }
        CU_OK(MPI_Allreduce(in, out, n, t, MPI_MAXLOC, MPI_COMM_WORLD));
        for (int p = 0; p < npairs; p++) {
            int    at = pass ? (p / 2) * 3 + (p % 2) * stride : p;
            double bv = -1;
            int    bi = 0;
            for (int q = 0; q < cu_size; q++) {
                double v = (double)((q * 3 + p) % 4);
                int    i = (cu_size - q) * 10 + p;
                if (v > bv || (v == bv && i < bi))
                    bv = v, bi = i;
            }
            CU_CHECK(out[at].v == bv && out[at].i == bi, "maxloc pass %d pair %d: (%g, %d)", pass,
                     p, out[at].v, out[at].i);
        }
        if (pass)   /* the pair between the vector's two is a gap */
            CU_CHECK(out[1].v == -2 && out[1].i == -2, "maxloc vector gap written");
    }
    CU_OK(MPI_Type_free(&every_other));
    CU_OK(MPI_Type_free(&two));
#endif
    cu_section("MAXLOC on derived types of MPI_DOUBLE_INT");
}

/* a struct of an int and a double moves, but no predefined op applies */
static void test_struct(void)
{
    struct rec { int a; double b; } x[3];
    int          bl[2] = { 1, 1 };
    MPI_Aint     d[2]  = { offsetof(struct rec, a), offsetof(struct rec, b) };
    MPI_Datatype ts[2] = { MPI_INT, MPI_DOUBLE }, rec;

    CU_OK(MPI_Type_create_struct(2, bl, d, ts, &rec));
    CU_OK(MPI_Type_commit(&rec));
    for (int i = 0; i < 3; i++)
        x[i] = cu_rank == 0 ? (struct rec){ 10 + i, 0.5 * i } : (struct rec){ -1, -1 };
    CU_OK(MPI_Bcast(x, 3, rec, 0, MPI_COMM_WORLD));
    for (int i = 0; i < 3; i++)
        CU_CHECK(x[i].a == 10 + i && x[i].b == 0.5 * i, "bcast struct [%d]", i);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CU_CHECK(cu_class(MPI_Allreduce(MPI_IN_PLACE, x, 3, rec, MPI_SUM, MPI_COMM_WORLD)) ==
                 MPI_ERR_OP, "SUM on a struct of int and double");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CU_OK(MPI_Type_free(&rec));
    cu_section("struct type");
}

int main(int argc, char **argv)
{
    cu_init(&argc, &argv);
    CU_OK(MPI_Type_vector(VLEN, 1, 2, MPI_INT, &vec));
    CU_OK(MPI_Type_commit(&vec));
    test_bcast();
    test_gather_scatter();
    test_v();
    test_allgather_alltoall();
    test_reductions();
    test_maxloc_derived();
    test_struct();
    CU_OK(MPI_Type_free(&vec));
    return cu_finish();
}
