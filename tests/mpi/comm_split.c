/*
 * comm_split.c -- communicators.
 *
 *   comm_split [PARTS]   all (default), or a comma-separated list of the
 *                        parts below; "limit" runs only with kumi's MPI
 *
 *   world    MPI_COMM_WORLD and MPI_COMM_SELF: ranks, sizes, names, a
 *            message to oneself on MPI_COMM_SELF, MPI_TAG_UB >= 32767
 *   dup      MPI_Comm_dup: congruent with its parent; the same tag between
 *            the same ranks on the parent and on the dup never cross (a
 *            receive from ANY_SOURCE with ANY_TAG on the dup takes the dup's
 *            message, sent after the parent's); names; MPI_Comm_free
 *   split    MPI_Comm_split by parity with keys in reverse order: ranks,
 *            sizes, a ring on each half; MPI_UNDEFINED gives MPI_COMM_NULL;
 *            one color with reversed keys is MPI_SIMILAR to the world,
 *            a half is MPI_UNEQUAL
 *   churn    200 rounds of dup + free, and 20 communicators alive at once
 *   coll     a user receive from ANY_SOURCE with ANY_TAG stays unmatched
 *            while collectives run on the same communicator (they have a
 *            context of their own), then takes the user's message
 *   limit    (kumi only) MPI_Comm_dup until it fails: MPI_ERR_OTHER, no
 *            corruption; after freeing them every communicator works again
 * Rank 0 prints one line per part.
 */
#include "core_test.h"

static void part_world(void)
{
    int  r = -1, n = -1, flag = 0, len = 0, v = 5, w = 0, *ub = NULL;
    char name[MPI_MAX_OBJECT_NAME];

    MPI_OK(MPI_Comm_rank(MPI_COMM_SELF, &r));
    MPI_OK(MPI_Comm_size(MPI_COMM_SELF, &n));
    CHECK(r == 0 && n == 1, "MPI_COMM_SELF: rank %d size %d", r, n);
    MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world's name '%s'", name);
    MPI_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self's name '%s'", name);
    MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &w, 1, MPI_INT, 0, 1, MPI_COMM_SELF,
                        MPI_STATUS_IGNORE));
    CHECK(w == 5, "a message to myself on MPI_COMM_SELF");
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && ub != NULL && *ub >= 32767, "MPI_TAG_UB");
    SAY("world: MPI_COMM_WORLD and MPI_COMM_SELF, MPI_TAG_UB >= 32767\n");
}

static void part_dup(void)
{
    MPI_Comm   dup;
    int        res, r, len, right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    char       a = 'W', b = 'D', x = 0, name[MPI_MAX_OBJECT_NAME];
    MPI_Status st;

    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
    CHECK(res == MPI_CONGRUENT, "world vs its dup: %d", res);
    MPI_OK(MPI_Comm_compare(dup, dup, &res));
    CHECK(res == MPI_IDENT, "dup vs itself: %d", res);
    MPI_OK(MPI_Comm_rank(dup, &r));
    CHECK(r == t_rank, "rank %d in the dup", r);
    MPI_OK(MPI_Send(&a, 1, MPI_CHAR, right, 5, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&b, 1, MPI_CHAR, right, 5, dup));
    MPI_OK(MPI_Recv(&x, 1, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st));
    CHECK(x == 'D' && st.MPI_SOURCE == left, "the dup's receive got '%c'", x);
    MPI_OK(MPI_Recv(&x, 1, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(x == 'W', "the world's receive got '%c'", x);
    MPI_OK(MPI_Comm_set_name(dup, "my dup"));
    MPI_OK(MPI_Comm_get_name(dup, name, &len));
    CHECK(strcmp(name, "my dup") == 0 && len == 6, "name '%s'", name);
    MPI_OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free left the handle");
    SAY("dup: a dup's messages never match the parent's\n");
}

static void part_split(void)
{
    MPI_Comm half, rev, none;
    int      r, n, res, color = t_rank % 2;

    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, -t_rank, &half));
    MPI_OK(MPI_Comm_rank(half, &r));
    MPI_OK(MPI_Comm_size(half, &n));
    int expect_n = (t_size + 1 - color) / 2;
    CHECK(n == expect_n, "half %d has %d ranks, expected %d", color, n, expect_n);
    CHECK(r == n - 1 - t_rank / 2, "rank %d in half %d", r, color);
    /* a ring in each half: everyone hears its left neighbour's world rank */
    int v = t_rank, w = -1;
    MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % n, 0, &w, 1, MPI_INT, (r + n - 1) % n, 0, half,
                        MPI_STATUS_IGNORE));
    /* half rank k is world rank color + 2 (n - 1 - k) (keys in reverse) */
    int left_world = color + 2 * (n - 1 - (r + n - 1) % n);
    CHECK(w == left_world, "ring in half %d: got %d, expected %d", color, w, left_world);
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, half, &res));
    CHECK(t_size == 1 ? res == MPI_CONGRUENT : res == MPI_UNEQUAL, "world vs half: %d", res);
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, t_size - t_rank, &rev));
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, rev, &res));
    CHECK(t_size == 1 ? res == MPI_CONGRUENT : res == MPI_SIMILAR, "world vs reversed: %d", res);
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, t_rank == 0 ? 0 : MPI_UNDEFINED, 0, &none));
    CHECK((t_rank == 0) == (none != MPI_COMM_NULL), "MPI_UNDEFINED gave a communicator");
    if (none != MPI_COMM_NULL)
        MPI_OK(MPI_Comm_free(&none));
    MPI_OK(MPI_Comm_free(&half));
    MPI_OK(MPI_Comm_free(&rev));
    SAY("split: by color and key, MPI_UNDEFINED, compare\n");
}

static void part_churn(void)
{
    MPI_Comm c[20];
    int      v, sum;

    for (int i = 0; i < 200; i++) {
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c[0]));
        MPI_OK(MPI_Comm_free(&c[0]));
    }
    for (int i = 0; i < 20; i++)
        MPI_OK(MPI_Comm_dup(i ? c[i - 1] : MPI_COMM_WORLD, &c[i]));
    for (int i = 0; i < 20; i++) {
        v = i;
        MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c[i]));
        CHECK(sum == i * t_size, "allreduce on dup %d: %d", i, sum);
    }
    for (int i = 19; i >= 0; i--)
        MPI_OK(MPI_Comm_free(&c[i]));
    SAY("churn: 200 dup/free rounds, 20 communicators alive at once\n");
}

static void part_coll(void)
{
    int         right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size, flag = 1;
    int         x = -1, v = t_rank, *all = malloc(sizeof(int) * (size_t)t_size);
    int        *counts = malloc(sizeof(int) * (size_t)t_size), *displs = malloc(sizeof(int) *
                                                                                 (size_t)t_size);
    MPI_Request r;
    MPI_Status  st;
    CHECK(all && counts && displs, "malloc");

    MPI_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
    for (int i = 0; i < t_size; i++) {
        counts[i] = 1;
        displs[i] = i;
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Allgatherv(&t_rank, 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD));
    MPI_OK(MPI_Gather(&t_rank, 1, MPI_INT, all, 1, MPI_INT, t_size - 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Scan(&t_rank, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MPI_OK(MPI_Alltoall(all, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(flag == 0, "a user receive took a collective's message (source %d tag %d)",
          st.MPI_SOURCE, st.MPI_TAG);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));   /* nobody sends before everyone tested */
    v = 1000 + t_rank;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, right, 123, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(x == 1000 + left && st.MPI_TAG == 123 && st.MPI_SOURCE == left, "got %d", x);
    free(all);
    free(counts);
    free(displs);
    SAY("coll: collectives never match a user's ANY_SOURCE/ANY_TAG receive\n");
}

static void part_limit(void)
{
#ifdef KUMI_MPI
    enum { MAXC = 512 };
    MPI_Comm *c = malloc(sizeof(MPI_Comm) * MAXC);
    int       n = 0, rc = MPI_SUCCESS, cls, sum, one = 1;
    CHECK(c != NULL, "malloc");

    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    while (n < MAXC && (rc = MPI_Comm_dup(MPI_COMM_WORLD, &c[n])) == MPI_SUCCESS)
        n++;
    MPI_Error_class(rc, &cls);
    CHECK(n < MAXC && cls == MPI_ERR_OTHER, "after %d dups: %s", n, t_err_name(rc));
    /* every one of them (and the world) still works */
    for (int i = 0; i < n; i += 17) {
        MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c[i]));
        CHECK(sum == t_size, "dup %d", i);
    }
    for (int i = n - 1; i >= 0; i--)
        MPI_OK(MPI_Comm_free(&c[i]));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c[0]));
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c[0]));
    CHECK(sum == t_size, "a dup after the limit");
    MPI_OK(MPI_Comm_free(&c[0]));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    free(c);
    SAY("limit: %d communicators at most, then MPI_ERR_OTHER; all work after\n", n + 2);
#endif
}

int main(int argc, char **argv)
{
    const char *parts = argc > 1 ? argv[1] : "all";

    t_init(&argc, &argv);
#define PART(name) if (strcmp(parts, "all") == 0 || strstr(parts, #name) != NULL) part_##name();
    PART(world)
    PART(dup)
    PART(split)
    PART(churn)
    PART(coll)
    if (strstr(parts, "limit") != NULL)
        part_limit();
    SAY("comm_split: %d ranks ok\n", t_size);
    MPI_OK(MPI_Finalize());
    return 0;
}
