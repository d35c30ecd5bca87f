/*
 * coll_userop.c -- user-defined operations: a non-commutative one (2x2
 * matrix product mod a prime) must be applied in rank order by Reduce
 * (roots 0 and last), Allreduce, Reduce_scatter(_block), Scan, Exscan and
 * Reduce_local, on a contiguous and on a vector type (the function gets
 * the caller's datatype and the data in its layout); a commutative one with
 * MPI_IN_PLACE; Op_commutative and Op_free.
 */
#include "coll_util.h"

#define PRIME 1000003LL

static MPI_Datatype mat;    /* 4 long longs: a b / c d */
static MPI_Datatype vmat;   /* the same 4 at stride 2: extent 7 long longs */
static int          bad_type_seen;

/* the layout of dt: long longs between matrix entries, and per element */
static int layout(MPI_Datatype dt, int *stride)
{
    if (dt == vmat) {
        *stride = 2;
        return 7;
    }
    *stride = 1;
    return 4;
}

static void mul(const long long *a, int sa, const long long *b, int sb, long long *c, int sc)
{
    long long r0 = (a[0] * b[0] + a[sa] * b[2 * sb]) % PRIME;
    long long r1 = (a[0] * b[sb] + a[sa] * b[3 * sb]) % PRIME;
    long long r2 = (a[2 * sa] * b[0] + a[3 * sa] * b[2 * sb]) % PRIME;
    long long r3 = (a[2 * sa] * b[sb] + a[3 * sa] * b[3 * sb]) % PRIME;
    c[0] = r0, c[sc] = r1, c[2 * sc] = r2, c[3 * sc] = r3;
}

/* inout = in x inout: MPI's order (in holds the lower ranks) */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int stride, ext;

    if (*dt != mat && *dt != vmat)
        bad_type_seen = 1;
    ext = layout(*dt, &stride);
    for (int k = 0; k < *len; k++) {
        long long *a = (long long *)in + (size_t)k * ext, *b = (long long *)inout + (size_t)k * ext;
        mul(a, stride, b, stride, b, stride);
    }
}

/* rank r's matrix for element e: entries small, products never commute */
static void mat_of(int r, int e, long long m[4])
{
    m[0] = (r * 7 + e) % 5 + 1;
    m[1] = (r + 2 * e) % 3 + 1;
    m[2] = (r * 3 + e) % 4;
    m[3] = 1 + r % 2;
}

/* the product of ranks [lo, hi) for element e, in rank order */
static void want_of(int lo, int hi, int e, long long w[4])
{
    mat_of(lo, e, w);
    for (int r = lo + 1; r < hi; r++) {
        long long m[4];
        mat_of(r, e, m);
        mul(w, 1, m, 1, w, 1);
    }
}

/* buffers of n elements of dt */
static long long *mats(MPI_Datatype dt, int n, int who)
{
    int        stride, ext = layout(dt, &stride);
    long long *b = malloc(((size_t)n * ext + 1) * sizeof(long long));

    for (int j = 0; j < n * ext; j++)
        b[j] = -1;
    for (int e = 0; e < n && who >= 0; e++) {
        long long m[4];
        mat_of(who, e, m);
        for (int x = 0; x < 4; x++)
            b[(size_t)e * ext + x * stride] = m[x];
    }
    return b;
}

static void check(MPI_Datatype dt, const long long *b, int n, int e0, int lo, int hi,
                  const char *what)
{
    int stride, ext = layout(dt, &stride);

    for (int e = 0; e < n; e++) {
        long long w[4];
        want_of(lo, hi, e0 + e, w);
        for (int x = 0; x < 4; x++)
            CU_CHECK(b[(size_t)e * ext + x * stride] == w[x],
                     "%s: element %d entry %d = %lld, want %lld", what, e, x,
                     b[(size_t)e * ext + x * stride], w[x]);
        if (stride == 2)   /* gaps stay */
            CU_CHECK(b[(size_t)e * ext + 1] == -1, "%s: element %d gap written", what, e);
    }
}

static void test_noncommutative(MPI_Op op, MPI_Datatype dt, const char *section)
{
    const int  n = 3, last = cu_size - 1;
    long long *s = mats(dt, n, cu_rank), *r;

    for (int root = 0; root < cu_size; root += cu_size > 1 ? last : 1) {
        r = mats(dt, n, -1);
        CU_OK(MPI_Reduce(s, r, n, dt, op, root, MPI_COMM_WORLD));
        if (cu_rank == root)
            check(dt, r, n, 0, 0, cu_size, "Reduce");
        free(r);
        r = mats(dt, n, cu_rank);
        CU_OK(MPI_Reduce(cu_rank == root ? MPI_IN_PLACE : r, r, n, dt, op, root, MPI_COMM_WORLD));
        if (cu_rank == root)
            check(dt, r, n, 0, 0, cu_size, "Reduce in place");
        free(r);
    }
    r = mats(dt, n, -1);
    CU_OK(MPI_Allreduce(s, r, n, dt, op, MPI_COMM_WORLD));
    check(dt, r, n, 0, 0, cu_size, "Allreduce");
    CU_OK(MPI_Scan(s, r, n, dt, op, MPI_COMM_WORLD));
    check(dt, r, n, 0, 0, cu_rank + 1, "Scan");
    free(r);
    r = mats(dt, n, cu_rank);
    CU_OK(MPI_Exscan(MPI_IN_PLACE, r, n, dt, op, MPI_COMM_WORLD));
    if (cu_rank > 0)
        check(dt, r, n, 0, 0, cu_rank, "Exscan in place");
    free(r);
    free(s);

    {   /* reduce-scatter: rank i gets elements [off_i, off_i + cnt_i) */
        int       *cnt = malloc(cu_size * sizeof(int)), total = 0, off = 0;
        long long *all, *mine;
        for (int i = 0; i < cu_size; i++) {
            cnt[i] = (i + 1) % 3;   /* zeros included */
            if (i < cu_rank)
                off += cnt[i];
            total += cnt[i];
        }
        all  = mats(dt, total, cu_rank);
        mine = mats(dt, cnt[cu_rank], -1);
        CU_OK(MPI_Reduce_scatter(all, mine, cnt, dt, op, MPI_COMM_WORLD));
        check(dt, mine, cnt[cu_rank], off, 0, cu_size, "Reduce_scatter");
        free(mine);
        free(all);
        all  = mats(dt, 2 * cu_size, cu_rank);
        CU_OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, all, 2, dt, op, MPI_COMM_WORLD));
        check(dt, all, 2, 2 * cu_rank, 0, cu_size, "Reduce_scatter_block in place");
        free(all);
        free(cnt);
    }
    {   /* Reduce_local: inout = in op inout */
        long long *a = mats(dt, n, 0), *b = mats(dt, n, 1);
        CU_OK(MPI_Reduce_local(a, b, n, dt, op));
        check(dt, b, n, 0, 0, 2, "Reduce_local");
        free(b);
        free(a);
    }
    CU_CHECK(!bad_type_seen, "the op got another datatype than the caller's");
    cu_section(section);
}

/* commutative: sum mod PRIME on ints */
static void summod(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++)
        ((int *)inout)[k] = (int)((((int *)in)[k] + (long long)((int *)inout)[k]) % PRIME);
}

static void test_commutative(void)
{
    MPI_Op op;
    int    commute = -1, a[5], b[5];

    CU_OK(MPI_Op_create(summod, 1, &op));
    CU_OK(MPI_Op_commutative(op, &commute));
    CU_CHECK(commute == 1, "commutative op says %d", commute);
    for (int root = 0; root < cu_size; root += cu_size > 1 ? cu_size - 1 : 1) {
        for (int i = 0; i < 5; i++)
            a[i] = b[i] = cu_val(cu_rank, i, root);
        CU_OK(MPI_Reduce(cu_rank == root ? MPI_IN_PLACE : a, b, 5, MPI_INT, op, root,
                         MPI_COMM_WORLD));
        for (int i = 0; i < 5 && cu_rank == root; i++) {
            long long w = 0;
            for (int r = 0; r < cu_size; r++)
                w += cu_val(r, i, root);
            CU_CHECK(b[i] == w % PRIME, "Reduce summod root %d [%d]", root, i);
        }
    }
    for (int i = 0; i < 5; i++)
        b[i] = cu_val(cu_rank, i, 9);
    CU_OK(MPI_Allreduce(MPI_IN_PLACE, b, 5, MPI_INT, op, MPI_COMM_WORLD));
    for (int i = 0; i < 5; i++) {
        long long w = 0;
        for (int r = 0; r < cu_size; r++)
            w += cu_val(r, i, 9);
        CU_CHECK(b[i] == w % PRIME, "Allreduce summod [%d]", i);
    }
    {   /* blocks past the eager limit: 3000 ints (12 000 bytes) per rank */
        const int big = 3000;
        int      *v = malloc((size_t)big * cu_size * sizeof(int)), *w = malloc(big * sizeof(int));
        for (int i = 0; i < big * cu_size; i++)
            v[i] = cu_val(cu_rank, i, 5);
        CU_OK(MPI_Reduce_scatter_block(v, w, big, MPI_INT, op, MPI_COMM_WORLD));
        for (int i = 0; i < big; i++) {
            long long want = 0;
            for (int r = 0; r < cu_size; r++)
                want += cu_val(r, cu_rank * big + i, 5);
            CU_CHECK(w[i] == want % PRIME, "big Reduce_scatter_block [%d]", i);
        }
        CU_OK(MPI_Scan(v, w, big, MPI_INT, op, MPI_COMM_WORLD));
        for (int i = 0; i < big; i++) {
            long long want = 0;
            for (int r = 0; r <= cu_rank; r++)
                want += cu_val(r, i, 5);
            CU_CHECK(w[i] == want % PRIME, "big Scan [%d]", i);
        }
        CU_OK(MPI_Allreduce(v, w, big, MPI_INT, op, MPI_COMM_WORLD));
        CU_OK(MPI_Reduce(cu_rank == 0 ? MPI_IN_PLACE : v, cu_rank == 0 ? v : NULL, big, MPI_INT,
                         op, 0, MPI_COMM_WORLD));
        for (int i = 0; i < big; i++) {
            long long want = 0;
            for (int r = 0; r < cu_size; r++)
                want += cu_val(r, i, 5);
            CU_CHECK(w[i] == want % PRIME, "big Allreduce [%d]", i);
            if (cu_rank == 0)
                CU_CHECK(v[i] == want % PRIME, "big Reduce [%d]", i);
        }
        free(w);
        free(v);
    }
    CU_OK(MPI_Op_free(&op));
    CU_CHECK(op == MPI_OP_NULL, "Op_free leaves the handle");
    cu_section("commutative user op");
}

int main(int argc, char **argv)
{
    MPI_Op op;
    int    commute = -1;

    cu_init(&argc, &argv);
    CU_OK(MPI_Type_contiguous(4, MPI_LONG_LONG, &mat));
    CU_OK(MPI_Type_commit(&mat));
    CU_OK(MPI_Type_vector(4, 1, 2, MPI_LONG_LONG, &vmat));
    CU_OK(MPI_Type_commit(&vmat));
    CU_OK(MPI_Op_create(matmul, 0, &op));
    CU_OK(MPI_Op_commutative(op, &commute));
    CU_CHECK(commute == 0, "non-commutative op says %d", commute);
    test_noncommutative(op, mat, "matrix product in rank order");
    test_noncommutative(op, vmat, "matrix product on a vector type");
    CU_OK(MPI_Op_free(&op));
    test_commutative();
    CU_OK(MPI_Type_free(&vmat));
    CU_OK(MPI_Type_free(&mat));
    return cu_finish();
}
