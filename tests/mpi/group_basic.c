/*
 * group_basic.c -- groups: MPI_Comm_group, size and rank, incl (reversed,
 * evens, none), excl, translate_ranks (MPI_PROC_NULL, ranks not in the
 * other group), compare (ident, similar, unequal), MPI_GROUP_EMPTY,
 * free, a rank out of range; MPI_Comm_create from the evens, the
 * reversed world and the empty group.
 */
#include "nbc_util.h"

static void test_groups(void)
{
    MPI_Group w, rev, ev, od, none, ev2;
    int       n = cu_size, *ranks = nu_ints((size_t)n), *out = nu_ints((size_t)n), sz, rk, cmp;
    int       nev = (n + 1) / 2;

    CU_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    CU_OK(MPI_Group_size(w, &sz));
    CU_OK(MPI_Group_rank(w, &rk));
    CU_CHECK(sz == n && rk == cu_rank, "world group %d %d", sz, rk);
    for (int i = 0; i < n; i++)
        ranks[i] = n - 1 - i;
    CU_OK(MPI_Group_incl(w, n, ranks, &rev));
    CU_OK(MPI_Group_rank(rev, &rk));
    CU_CHECK(rk == n - 1 - cu_rank, "reversed rank %d", rk);
    CU_OK(MPI_Group_compare(w, rev, &cmp));
    CU_CHECK(cmp == (n > 1 ? MPI_SIMILAR : MPI_IDENT), "compare reversed %d", cmp);
    CU_OK(MPI_Group_compare(w, w, &cmp));
    CU_CHECK(cmp == MPI_IDENT, "compare self %d", cmp);
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    CU_OK(MPI_Group_translate_ranks(w, n, ranks, rev, out));
    for (int i = 0; i < n; i++)
        CU_CHECK(out[i] == n - 1 - i, "translate %d -> %d", i, out[i]);
    /* evens by incl, odds by excl of the evens */
    for (int i = 0; i < nev; i++)
        ranks[i] = 2 * i;
    CU_OK(MPI_Group_incl(w, nev, ranks, &ev));
    CU_OK(MPI_Group_excl(w, nev, ranks, &od));
    CU_OK(MPI_Group_size(ev, &sz));
    CU_CHECK(sz == nev, "evens %d", sz);
    CU_OK(MPI_Group_size(od, &sz));
    CU_CHECK(sz == n - nev, "odds %d", sz);
    CU_OK(MPI_Group_rank(od, &rk));
    CU_CHECK(rk == (cu_rank % 2 ? cu_rank / 2 : MPI_UNDEFINED), "odd rank %d", rk);
    CU_OK(MPI_Group_compare(ev, od, &cmp));
    CU_CHECK(cmp == MPI_UNEQUAL, "evens vs odds %d", cmp);
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    CU_OK(MPI_Group_translate_ranks(w, n, ranks, od, out));
    for (int i = 0; i < n; i++)
        CU_CHECK(out[i] == (i % 2 ? i / 2 : MPI_UNDEFINED), "translate to odds %d -> %d", i,
                 out[i]);
    ranks[0] = MPI_PROC_NULL;
    CU_OK(MPI_Group_translate_ranks(w, 1, ranks, rev, out));
    CU_CHECK(out[0] == MPI_PROC_NULL, "translate MPI_PROC_NULL -> %d", out[0]);
    /* the evens again, listed from the reversed group: same order */
    for (int i = 0; i < nev; i++)
        ranks[i] = n - 1 - 2 * i;
    CU_OK(MPI_Group_incl(rev, nev, ranks, &ev2));
    CU_OK(MPI_Group_compare(ev, ev2, &cmp));
    CU_CHECK(cmp == MPI_IDENT, "evens twice %d", cmp);
    /* empty */
    CU_OK(MPI_Group_incl(w, 0, ranks, &none));
    CU_OK(MPI_Group_compare(none, MPI_GROUP_EMPTY, &cmp));
    CU_CHECK(cmp == MPI_IDENT, "empty %d", cmp);
    CU_OK(MPI_Group_size(MPI_GROUP_EMPTY, &sz));
    CU_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &rk));
    CU_CHECK(sz == 0 && rk == MPI_UNDEFINED, "empty size %d rank %d", sz, rk);
    /* bad rank lists */
    MPI_Group bad;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    ranks[0] = n;
    CU_CHECK(cu_class(MPI_Group_incl(w, 1, ranks, &bad)) == MPI_ERR_RANK, "rank out of range");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Group *all[] = { &w, &rev, &ev, &od, &none, &ev2 };
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) {
        CU_OK(MPI_Group_free(all[i]));
        CU_CHECK(*all[i] == MPI_GROUP_NULL, "free did not reset %u", i);
    }
    free(ranks);
    free(out);
    cu_section("groups");
}

static void test_comm_create(void)
{
    MPI_Group w, ev, rev;
    MPI_Comm  c;
    int       n = cu_size, nev = (n + 1) / 2, *ranks = nu_ints((size_t)n), sz, rk, cmp;

    MPI_Comm_group(MPI_COMM_WORLD, &w);
    for (int i = 0; i < nev; i++)
        ranks[i] = 2 * i;
    MPI_Group_incl(w, nev, ranks, &ev);
    CU_OK(MPI_Comm_create(MPI_COMM_WORLD, ev, &c));
    CU_CHECK((c == MPI_COMM_NULL) == (cu_rank % 2 == 1), "evens' communicator");
    if (c != MPI_COMM_NULL) {
        MPI_Group cg;
        int       x = cu_rank, sum = 0;
        MPI_Comm_size(c, &sz);
        MPI_Comm_rank(c, &rk);
        CU_CHECK(sz == nev && rk == cu_rank / 2, "evens: size %d rank %d", sz, rk);
        CU_OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c));
        CU_CHECK(sum == nev * (nev - 1), "evens' sum %d", sum);
        CU_OK(MPI_Comm_group(c, &cg));
        CU_OK(MPI_Group_compare(cg, ev, &cmp));
        CU_CHECK(cmp == MPI_IDENT, "evens' group %d", cmp);
        MPI_Group_free(&cg);
        CU_OK(MPI_Comm_free(&c));
    }
    for (int i = 0; i < n; i++)
        ranks[i] = n - 1 - i;
    MPI_Group_incl(w, n, ranks, &rev);
    CU_OK(MPI_Comm_create(MPI_COMM_WORLD, rev, &c));
    MPI_Comm_rank(c, &rk);
    CU_CHECK(rk == n - 1 - cu_rank, "reversed communicator: rank %d", rk);
    int first = -1;
    CU_OK(MPI_Bcast(&first, 1, MPI_INT, 0, c));   /* from world rank n - 1 */
    if (cu_rank == n - 1)
        first = -1;
    CU_OK(MPI_Comm_free(&c));
    CU_OK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    CU_CHECK(c == MPI_COMM_NULL, "empty group's communicator");
    MPI_Group_free(&rev);
    MPI_Group_free(&ev);
    MPI_Group_free(&w);
    free(ranks);
    cu_section("comm_create");
}

int main(int argc, char **argv)
{
    cu_init(&argc, &argv);
    test_groups();
    test_comm_create();
    MPI_Finalize();
    return 0;
}
