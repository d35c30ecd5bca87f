/*
 * type_decode.c -- decoding datatypes and darrays (bindings/mpi/typedecode.c)
 * and attributes on datatypes (attr.c):
 *  - MPI_Type_get_envelope/_contents of every combiner a C program can
 *    make (named, dup, contiguous, vector, hvector, indexed, hindexed,
 *    indexed_block, hindexed_block, struct, subarray, darray, resized),
 *    printed, and the contents rebuilt into a type that packs the same
 *    bytes (a recursive decoder, as profiling and I/O libraries write);
 *    MPI_Type_get_contents with arrays too small (an error);
 *  - MPI_Type_create_darray: block, cyclic, cyclic(2), none, default and
 *    explicit dargs, C and Fortran order, 1-3 dimensions: each rank packs
 *    a global array whose elements are their own indices and rank 0
 *    prints every rank's indices; errors (grid size, block too small);
 *  - MPI_Type_create_keyval, set/get/delete_attr, copy callbacks at
 *    MPI_Type_dup, delete callbacks at free, delete and replacement, on a
 *    predefined type too; a communicator's key on a type is an error.
 * Runs on any number of ranks (the darrays use a grid of the world's
 * size); prints the same lines as Open MPI (tests/mpi/vs_openmpi.sh).
 */
#include "core_test.h"

static const char *combiner_name(int c)
{
#define C(x) if (c == MPI_COMBINER_##x) return #x;
    C(NAMED) C(DUP) C(CONTIGUOUS) C(VECTOR) C(HVECTOR) C(INDEXED) C(HINDEXED)
    C(INDEXED_BLOCK) C(HINDEXED_BLOCK) C(STRUCT) C(SUBARRAY) C(DARRAY) C(RESIZED)
#undef C
    return "?";
}

static const char *named(MPI_Datatype t)
{
#define N(x) if (t == x) return #x;
    N(MPI_INT) N(MPI_DOUBLE) N(MPI_CHAR) N(MPI_SHORT) N(MPI_FLOAT) N(MPI_BYTE)
    N(MPI_DOUBLE_INT) N(MPI_LONG)
#undef N
    return "derived";
}

/* prints t's tree, depth-first: combiner, integers, addresses */
static void print_tree(MPI_Datatype t, int depth)
{
    int ni, na, nd, comb;

    MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    if (comb == MPI_COMBINER_NAMED) {
        printf("%*s%s\n", 2 * depth, "", named(t));
        return;
    }
    int          *ints  = malloc(sizeof(int) * (ni + 1));
    MPI_Aint     *addrs = malloc(sizeof(MPI_Aint) * (na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (nd + 1));
    MPI_OK(MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types));
    printf("%*s%s i[%d]", 2 * depth, "", combiner_name(comb), ni);
    for (int i = 0; i < ni; i++) {
        int v = ints[i];
        /* the order and distribution constants differ between MPIs */
        if ((comb == MPI_COMBINER_SUBARRAY && i == ni - 1)
            || (comb == MPI_COMBINER_DARRAY && i == ni - 1))
            printf(" %s", v == MPI_ORDER_C ? "C" : "F");
        else if (comb == MPI_COMBINER_DARRAY && i >= 3 + ints[2] && i < 3 + 2 * ints[2])
            printf(" %s", v == MPI_DISTRIBUTE_BLOCK ? "block" : v == MPI_DISTRIBUTE_CYCLIC
                   ? "cyclic" : "none");
        else if (comb == MPI_COMBINER_DARRAY && v == MPI_DISTRIBUTE_DFLT_DARG)
            printf(" dflt");
        else
            printf(" %d", v);
    }
    printf(" a[%d]", na);
    for (int i = 0; i < na; i++)
        printf(" %ld", (long)addrs[i]);
    printf(" t[%d]\n", nd);
    for (int i = 0; i < nd; i++) {
        print_tree(types[i], depth + 1);
        int c2, x;
        MPI_OK(MPI_Type_get_envelope(types[i], &x, &x, &x, &c2));
        if (c2 != MPI_COMBINER_NAMED)
            MPI_OK(MPI_Type_free(&types[i]));
    }
    free(ints);
    free(addrs);
    free(types);
}

/* a type built again from t's contents (recursively) */
static MPI_Datatype rebuild(MPI_Datatype t)
{
    int ni, na, nd, comb;
    MPI_Datatype out = MPI_DATATYPE_NULL;

    MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    if (comb == MPI_COMBINER_NAMED)
        return t;
    int          *I = malloc(sizeof(int) * (ni + 1));
    MPI_Aint     *A = malloc(sizeof(MPI_Aint) * (na + 1));
    MPI_Datatype *T = malloc(sizeof(MPI_Datatype) * (nd + 1)), *R = malloc(sizeof(MPI_Datatype) * (nd + 1));
    MPI_OK(MPI_Type_get_contents(t, ni, na, nd, I, A, T));
    for (int i = 0; i < nd; i++)
        R[i] = rebuild(T[i]);
    switch (comb) {
    case MPI_COMBINER_DUP:        MPI_OK(MPI_Type_dup(R[0], &out)); break;
    case MPI_COMBINER_CONTIGUOUS: MPI_OK(MPI_Type_contiguous(I[0], R[0], &out)); break;
    case MPI_COMBINER_VECTOR:     MPI_OK(MPI_Type_vector(I[0], I[1], I[2], R[0], &out)); break;
    case MPI_COMBINER_HVECTOR:    MPI_OK(MPI_Type_create_hvector(I[0], I[1], A[0], R[0], &out)); break;
    case MPI_COMBINER_INDEXED:    MPI_OK(MPI_Type_indexed(I[0], I + 1, I + 1 + I[0], R[0], &out)); break;
    case MPI_COMBINER_HINDEXED:   MPI_OK(MPI_Type_create_hindexed(I[0], I + 1, A, R[0], &out)); break;
    case MPI_COMBINER_INDEXED_BLOCK:
        MPI_OK(MPI_Type_create_indexed_block(I[0], I[1], I + 2, R[0], &out)); break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        MPI_OK(MPI_Type_create_hindexed_block(I[0], I[1], A, R[0], &out)); break;
    case MPI_COMBINER_STRUCT:     MPI_OK(MPI_Type_create_struct(I[0], I + 1, A, R, &out)); break;
    case MPI_COMBINER_SUBARRAY: {
        int n = I[0];
        MPI_OK(MPI_Type_create_subarray(n, I + 1, I + 1 + n, I + 1 + 2 * n, I[1 + 3 * n], R[0], &out));
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int n = I[2];
        MPI_OK(MPI_Type_create_darray(I[0], I[1], n, I + 3, I + 3 + n, I + 3 + 2 * n,
                                      I + 3 + 3 * n, I[3 + 4 * n], R[0], &out));
        break;
    }
    case MPI_COMBINER_RESIZED:    MPI_OK(MPI_Type_create_resized(R[0], A[0], A[1], &out)); break;
    default: CHECK(0, "combiner %d", comb);
    }
    for (int i = 0; i < nd; i++) {
        int c2, x;
        MPI_OK(MPI_Type_get_envelope(T[i], &x, &x, &x, &c2));
        if (c2 != MPI_COMBINER_NAMED) {
            MPI_OK(MPI_Type_free(&T[i]));
            MPI_OK(MPI_Type_free(&R[i]));
        }
    }
    free(I), free(A), free(T), free(R);
    return out;
}

/* t and its rebuilt twin pack a patterned buffer into the same bytes */
static void check_same(MPI_Datatype t, const char *what)
{
    MPI_Datatype u = rebuild(t);
    MPI_Aint     lb, ext, tlb, text, ulb, uext;
    int          s1, s2, p1 = 0, p2 = 0;

    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Type_commit(&u));
    MPI_OK(MPI_Type_size(t, &s1));
    MPI_OK(MPI_Type_size(u, &s2));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    MPI_OK(MPI_Type_get_extent(u, &ulb, &uext));
    MPI_OK(MPI_Type_get_true_extent(t, &tlb, &text));
    CHECK(s1 == s2 && lb == ulb && ext == uext, "%s: the rebuilt type differs", what);
    size_t span = (size_t)(text + 2 * (ext > 0 ? ext : 0)) + 64;
    unsigned char *buf = malloc(span), *a = malloc((size_t)s1 * 2 + 1), *b = malloc((size_t)s1 * 2 + 1);
    for (size_t i = 0; i < span; i++)
        buf[i] = (unsigned char)(i * 7 + 1);
    unsigned char *origin = buf - tlb;
    MPI_OK(MPI_Pack(origin, 2, t, a, s1 * 2 + 1, &p1, MPI_COMM_WORLD));
    MPI_OK(MPI_Pack(origin, 2, u, b, s1 * 2 + 1, &p2, MPI_COMM_WORLD));
    CHECK(p1 == p2 && memcmp(a, b, (size_t)p1) == 0, "%s: packs differ", what);
    printf("%s: size %d extent %ld lb %ld true_lb %ld true_extent %ld, rebuilt packs the same\n",
           what, s1, (long)ext, (long)lb, (long)tlb, (long)text);
    MPI_OK(MPI_Type_free(&u));
    free(buf), free(a), free(b);
}

static void test_decode(void)
{
    MPI_Datatype t[16], inner;
    int          bl[3] = { 2, 1, 3 }, di[3] = { 0, 4, 7 };
    MPI_Aint     ad[3] = { 0, 24, 40 };
    MPI_Datatype tys[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
    int          sizes[3] = { 4, 5, 6 }, subs[3] = { 2, 3, 2 }, starts[3] = { 1, 2, 3 };
    int          gs[2] = { 7, 5 }, ds[2] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK },
                 dg[2] = { 2, MPI_DISTRIBUTE_DFLT_DARG }, ps[2] = { 1, 1 };
    const char  *names[16];
    int          n = 0;

    MPI_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &inner));
#define ADD(name, call) do { MPI_OK(call); names[n++] = name; } while (0)
    ADD("dup", MPI_Type_dup(MPI_DOUBLE, &t[n]));
    ADD("contiguous", MPI_Type_contiguous(5, inner, &t[n]));
    ADD("vector", MPI_Type_vector(2, 3, -5, MPI_SHORT, &t[n]));
    ADD("hvector", MPI_Type_create_hvector(3, 1, 40, inner, &t[n]));
    ADD("indexed", MPI_Type_indexed(3, bl, di, MPI_INT, &t[n]));
    ADD("hindexed", MPI_Type_create_hindexed(3, bl, ad, inner, &t[n]));
    ADD("indexed_block", MPI_Type_create_indexed_block(3, 2, di, MPI_FLOAT, &t[n]));
    ADD("hindexed_block", MPI_Type_create_hindexed_block(3, 2, ad, MPI_DOUBLE, &t[n]));
    ADD("struct", MPI_Type_create_struct(3, bl, ad, tys, &t[n]));
    ADD("subarray_c", MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t[n]));
    ADD("subarray_f", MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, inner, &t[n]));
    ADD("darray", MPI_Type_create_darray(1, 0, 2, gs, ds, dg, ps, MPI_ORDER_C, MPI_INT, &t[n]));
    ADD("resized", MPI_Type_create_resized(inner, -8, 64, &t[n]));
    ADD("struct_of_derived", MPI_Type_create_struct(2, bl, ad, (MPI_Datatype[]){ t[1], t[8] }, &t[n]));
#undef ADD
    /* the contents outlive the types they name */
    MPI_OK(MPI_Type_free(&inner));
    if (t_rank == 0)
        for (int i = 0; i < n; i++) {
            printf("%s:\n", names[i]);
            print_tree(t[i], 1);
            check_same(t[i], names[i]);
        }
    int ni, na, nd, comb;
    MPI_OK(MPI_Type_get_envelope(MPI_DOUBLE_INT, &ni, &na, &nd, &comb));
    if (t_rank == 0)
        printf("MPI_DOUBLE_INT: %s %d %d %d\n", combiner_name(comb), ni, na, nd);
    /* arrays too small */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int      I[8];
    MPI_Aint A[8];
    MPI_Datatype T[8];
    int rc = MPI_Type_get_contents(t[4], 2, 0, 1, I, A, T);
    if (t_rank == 0)
        printf("contents into arrays too small: %s\n", rc == MPI_SUCCESS ? "accepted" : "refused");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    for (int i = 0; i < n; i++)
        MPI_OK(MPI_Type_free(&t[i]));
}

/* ------------------------------------------------------------ darrays */

/* each rank's indices of a global int array of prod(gsizes) elements,
 * printed by rank 0 in rank order */
static void darray_case(const char *what, int ndims, const int *gsizes, const int *distribs,
                        const int *dargs, const int *psizes, int order)
{
    int total = 1, size, pos = 0;
    MPI_Datatype t;

    for (int i = 0; i < ndims; i++)
        total *= gsizes[i];
    int *global = malloc(sizeof(int) * total), *mine = malloc(sizeof(int) * total);
    for (int i = 0; i < total; i++)
        global[i] = i;
    MPI_OK(MPI_Type_create_darray(t_size, t_rank, ndims, gsizes, distribs, dargs, psizes, order,
                                  MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_Aint lb, ext;
    MPI_OK(MPI_Type_size(t, &size));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    CHECK(lb == 0 && ext == (MPI_Aint)sizeof(int) * total, "%s: lb %ld extent %ld", what,
          (long)lb, (long)ext);
    MPI_OK(MPI_Pack(global, 1, t, mine, (int)sizeof(int) * total, &pos, MPI_COMM_WORLD));
    int count = size / (int)sizeof(int), *counts = malloc(sizeof(int) * t_size),
        *displs = malloc(sizeof(int) * t_size), *all = malloc(sizeof(int) * total);
    MPI_OK(MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (t_rank == 0)
        for (int r = 0, d = 0; r < t_size; r++) {
            displs[r] = d;
            d += counts[r];
        }
    MPI_OK(MPI_Gatherv(mine, count, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    if (t_rank == 0) {
        int sum = 0;
        printf("darray %s:", what);
        for (int r = 0; r < t_size; r++) {
            printf(" [");
            for (int k = 0; k < counts[r]; k++)
                printf(k ? " %d" : "%d", all[displs[r] + k]);
            printf("]");
            sum += counts[r];
        }
        printf("%s\n", sum == total ? "" : " (not a partition)");
    }
    /* unpacking puts them back where they came from */
    int *back = malloc(sizeof(int) * total);
    for (int i = 0; i < total; i++)
        back[i] = -1;
    pos = 0;
    MPI_OK(MPI_Unpack(mine, size, &pos, back, 1, t, MPI_COMM_WORLD));
    for (int k = 0; k < count; k++)
        CHECK(back[mine[k]] == mine[k], "%s: unpack of %d", what, mine[k]);
    MPI_OK(MPI_Type_free(&t));
    free(global), free(mine), free(counts), free(displs), free(all), free(back);
}

static void test_darray(void)
{
    int p = t_size, dims2[2] = { 0, 0 };
    MPI_OK(MPI_Dims_create(p, 2, dims2));
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;

    darray_case("1d block 10", 1, (int[]){ 10 }, (int[]){ B }, (int[]){ D }, (int[]){ p },
                MPI_ORDER_C);
    darray_case("1d block(4) 11", 1, (int[]){ 11 }, (int[]){ B }, (int[]){ 11 / p + 1 },
                (int[]){ p }, MPI_ORDER_C);
    darray_case("1d cyclic 11", 1, (int[]){ 11 }, (int[]){ C }, (int[]){ D }, (int[]){ p },
                MPI_ORDER_C);
    darray_case("1d cyclic(2) 11", 1, (int[]){ 11 }, (int[]){ C }, (int[]){ 2 }, (int[]){ p },
                MPI_ORDER_FORTRAN);
    for (int o = 0; o < 2; o++) {
        int order = o ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        char what[64];
        snprintf(what, sizeof what, "2d 5x7 block,cyclic(2) %s", o ? "F" : "C");
        darray_case(what, 2, (int[]){ 5, 7 }, (int[]){ B, C }, (int[]){ D, 2 }, dims2, order);
        snprintf(what, sizeof what, "2d 6x4 cyclic,block %s", o ? "F" : "C");
        darray_case(what, 2, (int[]){ 6, 4 }, (int[]){ C, B }, (int[]){ D, D }, dims2, order);
        snprintf(what, sizeof what, "3d 3x4x5 none,block,cyclic %s", o ? "F" : "C");
        darray_case(what, 3, (int[]){ 3, 4, 5 }, (int[]){ N, B, C }, (int[]){ D, D, D },
                    (int[]){ 1, dims2[0], dims2[1] }, order);
    }
    /* errors: a grid that is not the group's size; blocks that leave elements out */
    MPI_Datatype t;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc1 = MPI_Type_create_darray(p, 0, 1, (int[]){ 10 }, (int[]){ B }, (int[]){ D },
                                     (int[]){ p + 1 }, MPI_ORDER_C, MPI_INT, &t);
    int rc2 = MPI_Type_create_darray(p, 0, 1, (int[]){ 10 * p }, (int[]){ B }, (int[]){ 9 },
                                     (int[]){ p }, MPI_ORDER_C, MPI_INT, &t);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    if (t_rank == 0)
        printf("darray errors: grid of another size %s, blocks too small %s\n",
               rc1 == MPI_SUCCESS ? "accepted" : "refused",
               rc2 == MPI_SUCCESS ? "accepted" : "refused");
}

/* ------------------------------------------------------------ type attributes */

static int t_copies, t_deletes;

static int t_copy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k;
    t_copies++;
    *(void **)out = in;
    *flag = extra == NULL;   /* the key made with extra state is not copied */
    return MPI_SUCCESS;
}

static int t_delete(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t, (void)k, (void)val, (void)extra;
    t_deletes++;
    return MPI_SUCCESS;
}

static void test_type_attrs(void)
{
    int          k1, k2, k3, flag, ck;
    static char  v1[4], v2[4], v3[4];
    void        *got;
    MPI_Datatype t, d;

    MPI_OK(MPI_Type_create_keyval(t_copy, t_delete, &k1, NULL));
    MPI_OK(MPI_Type_create_keyval(t_copy, t_delete, &k2, v2));
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &k3, NULL));
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    MPI_OK(MPI_Type_get_attr(t, k1, &got, &flag));
    CHECK(!flag, "a value before any was set");
    MPI_OK(MPI_Type_set_attr(t, k1, v1));
    MPI_OK(MPI_Type_set_attr(t, k2, v2));
    MPI_OK(MPI_Type_set_attr(t, k3, v3));
    MPI_OK(MPI_Type_set_attr(t, k1, v2));   /* replaced: v1 deleted */
    MPI_OK(MPI_Type_get_attr(t, k1, &got, &flag));
    CHECK(flag && got == v2, "replaced value");
    MPI_OK(MPI_Type_dup(t, &d));
    MPI_OK(MPI_Type_get_attr(d, k1, &got, &flag));
    CHECK(flag && got == v2, "k1 not copied");
    MPI_OK(MPI_Type_get_attr(d, k2, &got, &flag));
    CHECK(!flag, "k2 copied");
    MPI_OK(MPI_Type_get_attr(d, k3, &got, &flag));
    CHECK(flag && got == v3, "k3 (MPI_TYPE_DUP_FN) not copied");
    SAY("type attrs: after dup %d copies, %d deletes\n", t_copies, t_deletes);
    MPI_OK(MPI_Type_delete_attr(t, k2));
    /* k1's value is deleted here (MPI-3.1 6.7.4; Open MPI 4.1 waits until
     * the last type built on t goes: the count is printed after that) */
    MPI_OK(MPI_Type_free(&t));
    /* a predefined type */
    MPI_OK(MPI_Type_set_attr(MPI_INT, k1, v1));
    MPI_OK(MPI_Type_get_attr(MPI_INT, k1, &got, &flag));
    CHECK(flag && got == v1, "attribute on MPI_INT");
    MPI_OK(MPI_Type_delete_attr(MPI_INT, k1));
    MPI_OK(MPI_Type_get_attr(MPI_INT, k1, &got, &flag));
    CHECK(!flag, "deleted attribute on MPI_INT");
    /* the key may go before the values of it */
    MPI_OK(MPI_Type_free_keyval(&k1));
    CHECK(k1 == MPI_KEYVAL_INVALID, "free_keyval left the key");
    MPI_OK(MPI_Type_free(&d));
    SAY("type attrs: after the dup's free %d deletes\n", t_deletes);
    MPI_OK(MPI_Type_free_keyval(&k2));
    MPI_OK(MPI_Type_free_keyval(&k3));
    /* errors: a communicator's key; a deleted value */
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &k1, NULL));
    int rc = MPI_Type_delete_attr(MPI_INT, k1);
    /* kumi: MPI_ERR_KEYVAL, as for a communicator; Open MPI 4.1 another class */
    SAY("type attrs: deleting a value never set: %s\n", rc == MPI_SUCCESS ? "accepted"
        : "refused");
    MPI_OK(MPI_Type_free_keyval(&k1));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Comm_free_keyval(&ck));
}

/* (kumi only: Open MPI 4.1 leaves the MPI-1 names out of its mpi.h) */
static void test_mpi1_names(void)
{
#ifdef KUMI_MPI
    MPI_Datatype h, s, x;
    MPI_Aint     a0, a1, lb, ub, ext, d[2] = { 0, 16 };
    int          bl[2] = { 1, 2 }, ni, na, nd, comb;
    double       v[2];

    MPI_OK(MPI_Address(&v[0], &a0));
    MPI_OK(MPI_Address(&v[1], &a1));
    CHECK(MPI_Aint_diff(a1, a0) == sizeof(double) && MPI_Aint_add(a0, 8) == a1, "addresses");
    MPI_OK(MPI_Type_hvector(3, 1, 24, MPI_DOUBLE, &h));
    MPI_OK(MPI_Type_get_envelope(h, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_HVECTOR && ni == 2 && na == 1, "hvector envelope");
    MPI_OK(MPI_Type_struct(2, bl, d, (MPI_Datatype[]){ MPI_INT, h }, &s));
    MPI_OK(MPI_Type_hindexed(2, bl, d, MPI_SHORT, &x));
    MPI_OK(MPI_Type_lb(s, &lb));
    MPI_OK(MPI_Type_ub(s, &ub));
    MPI_OK(MPI_Type_extent(s, &ext));
    CHECK(lb == 0 && ub == ext, "lb %ld ub %ld extent %ld", (long)lb, (long)ub, (long)ext);
    MPI_OK(MPI_Type_free(&h));
    MPI_OK(MPI_Type_free(&s));
    MPI_OK(MPI_Type_free(&x));
    MPI_Errhandler e;
    MPI_OK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Errhandler_get(MPI_COMM_WORLD, &e));
    CHECK(e == MPI_ERRORS_RETURN, "MPI_Errhandler_get");
    MPI_OK(MPI_Errhandler_free(&e));
    MPI_OK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
#endif
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    test_mpi1_names();
    test_decode();
    fflush(stdout);
    test_darray();
    test_type_attrs();
    MPI_OK(MPI_Finalize());
    return 0;
}
