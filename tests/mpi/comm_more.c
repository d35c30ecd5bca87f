/*
 * comm_more.c -- communicators and groups beyond split: MPI_Comm_create_group
 * (evens only, with the odds making their own at the same time under
 * another tag; reversed world; a group of one; a group with a rank outside
 * the communicator), the group set operations (union, intersection,
 * difference; the outside member only with the argument "strict", see
 * there) and range_incl/range_excl (strides up and down, errors),
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) on one host, attributes (user
 * keys: copy callbacks at dup, delete callbacks at set, delete, free and
 * for MPI_COMM_SELF at MPI_Finalize; the MPI-1 names), info objects,
 * MPI_Alloc_mem, MPI_Pcontrol and MPI_Type_create_subarray (C and Fortran
 * order, sent and received), MPI_Cart_sub and MPI_Cart_map, the _x
 * queries and MPI_Status_set_elements/_cancelled. Prints the same lines with Open MPI
 * (tests/mpi/vs_openmpi.sh).
 */
#include <stddef.h>

#include "core_test.h"

static int class_of(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

/* members of g (in order) as world ranks */
static void group_ranks(MPI_Group g, int *n, int *out)
{
    MPI_Group w;
    int       in[64];

    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    MPI_OK(MPI_Group_size(g, n));
    for (int i = 0; i < *n; i++)
        in[i] = i;
    MPI_OK(MPI_Group_translate_ranks(g, *n, in, w, out));
    MPI_OK(MPI_Group_free(&w));
}

static int strict;   /* argv[1] "strict": also where Open MPI 4.1 strays from
                        MPI-3.1 (it crashes on a group member outside the
                        communicator; its MPI_Cart_map gives ranks beyond a
                        smaller grid their own rank, not MPI_UNDEFINED) */

static void test_create_group(void)
{
    MPI_Group w, half, rev, self, bad;
    MPI_Comm  c;
    int       ranks[64], n = t_size, mine = t_rank % 2, k = 0, sz, rk, sum, x = t_rank;

    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    /* evens and odds each make their own, at once, with different tags */
    for (int i = mine; i < n; i += 2)
        ranks[k++] = i;
    MPI_OK(MPI_Group_incl(w, k, ranks, &half));
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, half, 10 + mine, &c));
    CHECK(c != MPI_COMM_NULL, "no communicator");
    MPI_OK(MPI_Comm_size(c, &sz));
    MPI_OK(MPI_Comm_rank(c, &rk));
    CHECK(sz == k && rk == t_rank / 2, "half: size %d rank %d", sz, rk);
    MPI_OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c));
    int want = 0;
    for (int i = mine; i < n; i += 2)
        want += i;
    CHECK(sum == want, "half's sum %d, not %d", sum, want);
    MPI_OK(MPI_Barrier(c));
    MPI_OK(MPI_Comm_free(&c));
    SAY("create_group: evens and odds at once\n");

    /* the evens only: the odds do not call */
    if (mine == 0) {
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, half, 7, &c));
        MPI_OK(MPI_Comm_size(c, &sz));
        CHECK(sz == k, "evens: size %d", sz);
        int v = t_rank == 0 ? 42 : 0;
        MPI_OK(MPI_Bcast(&v, 1, MPI_INT, 0, c));
        CHECK(v == 42, "evens' bcast %d", v);
        MPI_OK(MPI_Comm_free(&c));
    }
    SAY("create_group: evens only\n");

    /* the world reversed, made from a duplicate */
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (int i = 0; i < n; i++)
        ranks[i] = n - 1 - i;
    MPI_OK(MPI_Group_incl(w, n, ranks, &rev));
    MPI_OK(MPI_Comm_create_group(dup, rev, 0, &c));
    MPI_OK(MPI_Comm_rank(c, &rk));
    CHECK(rk == n - 1 - t_rank, "reversed: rank %d", rk);
    int peer_sum = 0;
    MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, (rk + 1) % n, 3, &peer_sum, 1, MPI_INT,
                        (rk + n - 1) % n, 3, c, MPI_STATUS_IGNORE));
    CHECK(peer_sum == (t_rank + 1) % n, "reversed ring got %d", peer_sum);
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Comm_free(&dup));
    SAY("create_group: reversed world\n");

    /* a group of one: no messages */
    ranks[0] = t_rank;
    MPI_OK(MPI_Group_incl(w, 1, ranks, &self));
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, self, 1, &c));
    MPI_OK(MPI_Comm_size(c, &sz));
    CHECK(sz == 1, "self size %d", sz);
    MPI_OK(MPI_Comm_free(&c));
    /* the empty group: MPI_COMM_NULL */
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 1, &c));
    CHECK(c == MPI_COMM_NULL, "empty group gave a communicator");
    SAY("create_group: one member, none\n");

    /* a group with a member outside the communicator */
    if (n > 1 && strict) {
        MPI_Comm  sub;
        MPI_Group sg;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, t_rank == 0, 0, &sub));
        MPI_OK(MPI_Comm_group(sub, &sg));
        MPI_OK(MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN));
        int rc = MPI_Comm_create_group(sub, w, 5, &c);   /* world's group: too many */
        CHECK(class_of(rc) == MPI_ERR_GROUP, "outside member: %d", rc);
        MPI_OK(MPI_Group_free(&sg));
        MPI_OK(MPI_Comm_free(&sub));
    }
    if (strict)
        SAY("create_group: a member outside the communicator is MPI_ERR_GROUP\n");
    (void)bad;
    MPI_OK(MPI_Group_free(&half));
    MPI_OK(MPI_Group_free(&rev));
    MPI_OK(MPI_Group_free(&self));
    MPI_OK(MPI_Group_free(&w));
}

static void test_group_sets(void)
{
    MPI_Group w, a, b, u, in, d, r;
    int       n = t_size, ranks[64], out[64], k, na = 0, nb = 0;

    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    /* a: the evens; b: the world reversed, from rank n-1 down to n/2 */
    for (int i = 0; i < n; i += 2)
        ranks[na++] = i;
    MPI_OK(MPI_Group_incl(w, na, ranks, &a));
    for (int i = n - 1; i >= n / 2; i--)
        ranks[nb++] = i;
    MPI_OK(MPI_Group_incl(w, nb, ranks, &b));
    MPI_OK(MPI_Group_union(a, b, &u));
    group_ranks(u, &k, out);
    SAY("union:");
    if (t_rank == 0) {
        for (int i = 0; i < k; i++)
            printf(" %d", out[i]);
        printf("\n");
    }
    MPI_OK(MPI_Group_intersection(a, b, &in));
    group_ranks(in, &k, out);
    SAY("intersection:");
    if (t_rank == 0) {
        for (int i = 0; i < k; i++)
            printf(" %d", out[i]);
        printf("\n");
    }
    MPI_OK(MPI_Group_difference(b, a, &d));
    group_ranks(d, &k, out);
    SAY("difference:");
    if (t_rank == 0) {
        for (int i = 0; i < k; i++)
            printf(" %d", out[i]);
        printf("\n");
    }
    int rg[2][3] = { { n - 1, 0, -2 }, { 0, 0, 1 } };   /* down by 2, then 0 if not yet */
    int nr = (n - 1) % 2 == 0 ? 1 : 2;
    MPI_OK(MPI_Group_range_incl(w, nr, rg, &r));
    group_ranks(r, &k, out);
    SAY("range_incl:");
    if (t_rank == 0) {
        for (int i = 0; i < k; i++)
            printf(" %d", out[i]);
        printf("\n");
    }
    MPI_OK(MPI_Group_free(&r));
    MPI_OK(MPI_Group_range_excl(w, 1, rg, &r));
    group_ranks(r, &k, out);
    SAY("range_excl:");
    if (t_rank == 0) {
        for (int i = 0; i < k; i++)
            printf(" %d", out[i]);
        printf("\n");
    }
    MPI_OK(MPI_Group_free(&r));
    /* errors: stride 0, a rank out of range, a rank twice */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int zero[1][3] = { { 0, 0, 0 } }, out_of[1][3] = { { 0, n, 1 } },
        twice[2][3] = { { 0, n - 1, 1 }, { 0, 0, 1 } };
    int c1 = class_of(MPI_Group_range_incl(w, 1, zero, &r));
    int c2 = class_of(MPI_Group_range_incl(w, 1, out_of, &r));
    int c3 = class_of(MPI_Group_range_incl(w, 2, twice, &r));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK(c1 != MPI_SUCCESS && c2 == MPI_ERR_RANK && c3 == MPI_ERR_RANK,
          "range errors %d %d %d", c1, c2, c3);
    SAY("range errors: stride 0, out of range, twice\n");
    MPI_Group *all[] = { &w, &a, &b, &u, &in, &d };
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
        MPI_OK(MPI_Group_free(all[i]));
}

static void test_split_type(void)
{
    MPI_Comm c;
    int      sz, rk, cmp;

    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, t_rank, MPI_INFO_NULL, &c));
    MPI_OK(MPI_Comm_size(c, &sz));
    MPI_OK(MPI_Comm_rank(c, &rk));
    CHECK(sz == t_size && rk == t_rank, "one host: size %d rank %d", sz, rk);
    MPI_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "compare %d", cmp);
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
    SAY("split_type: shared is the whole host, undefined is none\n");
}

static int copies, deletes, self_deletes;

static int copy_fn(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)key;
    copies++;
    *(void **)out = (char *)in + *(int *)extra;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int self_delete_fn(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)key, (void)extra;
    /* at MPI_Finalize, while MPI still works */
    int fin = 1;
    MPI_Finalized(&fin);
    if (comm == MPI_COMM_SELF && !fin && *(int *)val == 99) {
        self_deletes++;
        if (t_rank == 0) {   /* every rank checks its count after MPI_Finalize */
            printf("MPI_COMM_SELF's attribute deleted at MPI_Finalize\n");
            fflush(stdout);
        }
    }
    return MPI_SUCCESS;
}

static int self_value = 99;

static void test_attrs(void)
{
    static char base[16];
    static int  step = 3;
    MPI_Comm    d1, d2;
    int         key, key_null, flag, *tag_ub;
    void       *v;

    MPI_OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &step));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key_null,
                                  NULL));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d1));
    MPI_OK(MPI_Comm_get_attr(d1, key, &v, &flag));
    CHECK(!flag, "a value before set");
    MPI_OK(MPI_Comm_set_attr(d1, key, base));
    MPI_OK(MPI_Comm_set_attr(d1, key_null, base + 1));
    MPI_OK(MPI_Comm_set_attr(d1, key, base + 2));   /* replaced: old one deleted */
    CHECK(deletes == 1, "replace: %d deletes", deletes);
    MPI_OK(MPI_Comm_get_attr(d1, key, &v, &flag));
    CHECK(flag && v == base + 2, "get after set");
    MPI_OK(MPI_Comm_dup(d1, &d2));                   /* copy_fn adds step */
    CHECK(copies == 1, "dup: %d copies", copies);
    MPI_OK(MPI_Comm_get_attr(d2, key, &v, &flag));
    CHECK(flag && v == base + 5, "copied value %p vs %p", v, (void *)(base + 5));
    MPI_OK(MPI_Comm_get_attr(d2, key_null, &v, &flag));
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied");
    MPI_OK(MPI_Comm_free_keyval(&key));              /* values keep it */
    CHECK(key == MPI_KEYVAL_INVALID, "free_keyval left %d", key);
    MPI_OK(MPI_Comm_free(&d2));                       /* delete_fn */
    CHECK(deletes == 2, "free: %d deletes", deletes);
    MPI_OK(MPI_Comm_delete_attr(d1, key_null));
    MPI_OK(MPI_Comm_free(&d1));
    CHECK(deletes == 3, "second free: %d deletes", deletes);
    MPI_OK(MPI_Comm_free_keyval(&key_null));
    /* predefined */
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB");
    /* MPI-1 names */
    int k1;
    MPI_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k1, NULL));
    MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, k1, base + 7));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d1));
    MPI_OK(MPI_Attr_get(d1, k1, &v, &flag));
    CHECK(flag && v == base + 7, "MPI_DUP_FN copy");
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, k1));
    MPI_OK(MPI_Comm_free(&d1));
    MPI_OK(MPI_Keyval_free(&k1));
    /* errors: a freed key, a predefined one set */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int c1 = class_of(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, base));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK(c1 != MPI_SUCCESS, "setting MPI_TAG_UB succeeded");
    /* a clean-up hook on MPI_COMM_SELF, run by MPI_Finalize */
    int ks;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete_fn, &ks, NULL));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, ks, &self_value));
    MPI_OK(MPI_Comm_free_keyval(&ks));
    SAY("attributes: copy, delete, free, MPI-1 names\n");
}

static void test_info(void)
{
    MPI_Info info, dup;
    char     key[MPI_MAX_INFO_KEY], val[MPI_MAX_INFO_VAL];
    int      n, flag, len;

    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "alpha", "1"));
    MPI_OK(MPI_Info_set(info, "beta", "two"));
    MPI_OK(MPI_Info_set(info, "alpha", "one"));   /* replaced */
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 2, "nkeys %d", n);
    MPI_OK(MPI_Info_get_nthkey(info, 1, key));
    CHECK(strcmp(key, "beta") == 0, "nthkey 1 is %s", key);
    MPI_OK(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL - 1, val, &flag));
    CHECK(flag && strcmp(val, "one") == 0, "alpha is %s", val);
    MPI_OK(MPI_Info_get(info, "beta", 2, val, &flag));   /* cut to 2 characters */
    CHECK(flag && strcmp(val, "tw") == 0, "beta cut is %s", val);
    MPI_OK(MPI_Info_get_valuelen(info, "beta", &len, &flag));
    CHECK(flag && len == 3, "valuelen %d", len);
    MPI_OK(MPI_Info_get(info, "gamma", MPI_MAX_INFO_VAL - 1, val, &flag));
    CHECK(!flag, "gamma found");
    MPI_OK(MPI_Info_dup(info, &dup));
    MPI_OK(MPI_Info_delete(info, "alpha"));
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 1, "nkeys after delete %d", n);
    MPI_OK(MPI_Info_get_nkeys(dup, &n));
    CHECK(n == 2, "dup's nkeys %d", n);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int c1 = class_of(MPI_Info_delete(info, "alpha"));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK(c1 == MPI_ERR_INFO_NOKEY, "delete of a missing key: %d", c1);
    MPI_Comm c;
    MPI_Info used;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_info(c, dup));
    MPI_OK(MPI_Comm_get_info(c, &used));
    MPI_OK(MPI_Info_free(&used));
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Info_free(&dup));
    CHECK(info == MPI_INFO_NULL && dup == MPI_INFO_NULL, "free did not reset");
    SAY("info: set, get, cut, nthkey, dup, delete, comm hints\n");
}

static void test_mem_subarray(void)
{
    double *p;
    MPI_OK(MPI_Alloc_mem(1024 * sizeof(double), MPI_INFO_NULL, &p));
    for (int i = 0; i < 1024; i++)
        p[i] = i;
    MPI_OK(MPI_Free_mem(p));
    MPI_OK(MPI_Pcontrol(1));
    MPI_OK(MPI_Pcontrol(0));

    /* a 4 x 5 x 6 int array; the 2 x 3 x 2 block at (1, 1, 3); C order */
    int          sizes[3] = { 4, 5, 6 }, sub[3] = { 2, 3, 2 }, start[3] = { 1, 1, 3 };
    int          a[4][5][6], b[4][5][6], count = 0;
    MPI_Datatype t, tf;
    MPI_Aint     lb, ext;
    int          size;

    MPI_OK(MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Type_size(t, &size));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    CHECK(size == 12 * (int)sizeof(int) && lb == 0 && ext == (MPI_Aint)sizeof(a),
          "C subarray: size %d lb %ld extent %ld", size, (long)lb, (long)ext);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 6; k++) {
                a[i][j][k] = 100 * i + 10 * j + k;
                b[i][j][k] = -1;
            }
    int to = (t_rank + 1) % t_size, from = (t_rank + t_size - 1) % t_size;
    MPI_OK(MPI_Sendrecv(a, 1, t, to, 4, b, 1, t, from, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 6; k++) {
                int in = i >= 1 && i < 3 && j >= 1 && j < 4 && k >= 3 && k < 5;
                CHECK(b[i][j][k] == (in ? a[i][j][k] : -1), "C subarray at %d %d %d: %d", i, j,
                      k, b[i][j][k]);
                count += in;
            }
    CHECK(count == 12, "C subarray moved %d", count);
    /* the same memory seen in Fortran order: sizes (6, 5, 4), block at (3, 1, 1) */
    int fsizes[3] = { 6, 5, 4 }, fsub[3] = { 2, 3, 2 }, fstart[3] = { 3, 1, 1 };
    MPI_OK(MPI_Type_create_subarray(3, fsizes, fsub, fstart, MPI_ORDER_FORTRAN, MPI_INT, &tf));
    MPI_OK(MPI_Type_commit(&tf));
    memset(b, 0xff, sizeof(b));
    MPI_OK(MPI_Sendrecv(a, 1, t, to, 5, b, 1, tf, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 6; k++) {
                int in = i >= 1 && i < 3 && j >= 1 && j < 4 && k >= 3 && k < 5;
                CHECK(b[i][j][k] == (in ? a[i][j][k] : -1), "Fortran subarray at %d %d %d", i,
                      j, k);
            }
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&tf));
    SAY("alloc_mem, pcontrol, subarray (C and Fortran order)\n");
}

/* MPI_Cart_sub into rows and columns of a 2-D grid, and to nothing;
 * MPI_Cart_map */
static void test_cart_sub(void)
{
    int      dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, coords[2], sz, rk, nd, newrank;
    MPI_Comm grid, row, col, none;

    MPI_OK(MPI_Dims_create(t_size, 2, dims));
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid));
    MPI_OK(MPI_Cart_coords(grid, t_rank, 2, coords));
    int keep_row[2] = { 0, 1 }, keep_col[2] = { 1, 0 }, keep_none[2] = { 0, 0 };
    MPI_OK(MPI_Cart_sub(grid, keep_row, &row));
    MPI_OK(MPI_Cart_sub(grid, keep_col, &col));
    MPI_OK(MPI_Comm_size(row, &sz));
    MPI_OK(MPI_Comm_rank(row, &rk));
    CHECK(sz == dims[1] && rk == coords[1], "row: size %d rank %d", sz, rk);
    MPI_OK(MPI_Comm_size(col, &sz));
    MPI_OK(MPI_Comm_rank(col, &rk));
    CHECK(sz == dims[0] && rk == coords[0], "column: size %d rank %d", sz, rk);
    int sum = 0;
    MPI_OK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, row));
    int want = 0;
    for (int j = 0; j < dims[1]; j++)
        want += coords[0] * dims[1] + j;
    CHECK(sum == want, "row sum %d, not %d", sum, want);
    int gd[1], gp[1], gc[1];
    MPI_OK(MPI_Cartdim_get(col, &nd));
    MPI_OK(MPI_Cart_get(col, 1, gd, gp, gc));
    CHECK(nd == 1 && gd[0] == dims[0] && gp[0] == 1 && gc[0] == coords[0],
          "column grid %d: %d %d %d", nd, gd[0], gp[0], gc[0]);
    MPI_OK(MPI_Cart_sub(grid, keep_none, &none));
    MPI_OK(MPI_Comm_size(none, &sz));
    MPI_OK(MPI_Cartdim_get(none, &nd));
    CHECK(sz == 1 && nd == 0, "no dimensions kept: size %d ndims %d", sz, nd);
    MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank));
    CHECK(newrank == t_rank, "Cart_map gave %d", newrank);
    int one[1] = { 1 };
    MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, one, periods, &newrank));
    CHECK(!strict || newrank == (t_rank == 0 ? 0 : MPI_UNDEFINED), "Cart_map of one cell gave %d",
          newrank);
    MPI_OK(MPI_Comm_free(&none));
    MPI_OK(MPI_Comm_free(&row));
    MPI_OK(MPI_Comm_free(&col));
    MPI_OK(MPI_Comm_free(&grid));
    SAY("cart_sub: rows, columns, none; cart_map\n");
}

/* the large-count queries and setting a status (as a generalized request's
 * query function does) */
static void test_counts(void)
{
    struct pair { int i; double d; };
    int          bl[2] = { 1, 1 }, n;
    MPI_Aint     disp[2] = { offsetof(struct pair, i), offsetof(struct pair, d) };
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE }, t;
    MPI_Count    sz, lb, ext, c;
    MPI_Status   st;

    MPI_OK(MPI_Type_create_struct(2, bl, disp, types, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Type_size_x(t, &sz));
    MPI_OK(MPI_Type_get_extent_x(t, &lb, &ext));
    CHECK(sz == (MPI_Count)(sizeof(int) + sizeof(double)) && lb == 0
          && ext == (MPI_Count)sizeof(struct pair), "size_x %lld, extent_x %lld %lld",
          (long long)sz, (long long)lb, (long long)ext);
    MPI_OK(MPI_Type_get_true_extent_x(t, &lb, &ext));
    CHECK(lb == 0 && ext == (MPI_Count)sizeof(struct pair), "true extent_x");
    MPI_OK(MPI_Status_set_elements(&st, t, 4));   /* two whole pairs */
    MPI_OK(MPI_Get_count(&st, t, &n));
    CHECK(n == 2, "count of 4 elements: %d", n);
    MPI_OK(MPI_Get_elements_x(&st, t, &c));
    CHECK(c == 4, "elements_x %lld", (long long)c);
    MPI_OK(MPI_Status_set_elements_x(&st, t, 3));  /* a pair and a half */
    MPI_OK(MPI_Get_count(&st, t, &n));
    CHECK(n == MPI_UNDEFINED, "count of 3 elements: %d", n);
    MPI_OK(MPI_Get_elements(&st, t, &n));
    CHECK(n == 3, "elements %d", n);
    MPI_OK(MPI_Status_set_elements(&st, MPI_DOUBLE, 5));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == 5 * (int)sizeof(double), "bytes of 5 doubles: %d", n);
    int flag = 1;
    MPI_OK(MPI_Status_set_cancelled(&st, 0));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "not cancelled");
    MPI_OK(MPI_Status_set_cancelled(&st, 1));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "cancelled");
    MPI_OK(MPI_Type_free(&t));
    /* hindexed_block: ints 0, 2 and 5 of an array, two each */
    int      src[8] = { 10, 11, 12, 13, 14, 15, 16, 17 }, dst[6];
    MPI_Aint hd[3] = { 0, 2 * sizeof(int), 5 * sizeof(int) };
    MPI_OK(MPI_Type_create_hindexed_block(3, 1, hd, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Sendrecv(src, 1, t, t_rank, 9, dst, 3, MPI_INT, t_rank, 9, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    CHECK(dst[0] == 10 && dst[1] == 12 && dst[2] == 15, "hindexed_block %d %d %d", dst[0],
          dst[1], dst[2]);
    MPI_OK(MPI_Type_free(&t));
    MPI_Datatype m;
    double   dx = 1.5, dy = 0;
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m));   /* an 8-byte real: a double */
    MPI_OK(MPI_Allreduce(&dx, &dy, 1, m, MPI_SUM, MPI_COMM_WORLD));
    CHECK(dy == 1.5 * t_size, "match_size real 8: sum %g", dy);
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m));
    MPI_OK(MPI_Type_size(m, &n));
    CHECK(n == 4, "match_size integer 4: size %d", n);
    MPI_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(!flag, "world is an intercommunicator");
    SAY("counts: size_x, extent_x, status_set_elements(_x), set_cancelled; hindexed_block, "
        "match_size, test_inter\n");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    strict = argc > 1 && strcmp(argv[1], "strict") == 0;
    CHECK(t_size <= 64, "at most 64 ranks");
    test_create_group();
    test_group_sets();
    test_split_type();
    test_attrs();
    test_info();
    test_mem_subarray();
    test_cart_sub();
    test_counts();
    SAY("done\n");
    MPI_OK(MPI_Finalize());
    CHECK(self_deletes == 1, "MPI_COMM_SELF's delete ran %d times", self_deletes);
    return 0;
}
