/*
 * coll_comm.c -- collectives on communicators other than the world (split
 * halves, a 5/3 split, a dup, MPI_COMM_SELF) and back to back without
 * barriers: many different collectives in a row, roots and sizes changing
 * every call, so that messages of consecutive calls are in flight at once
 * and must never meet the wrong receive. A user receive posted with
 * MPI_ANY_SOURCE/MPI_ANY_TAG all along must catch only the user's message.
 */
#include "coll_util.h"

#define PRIME 1000003LL

/* affine maps x -> a x + b (mod PRIME): composition is associative and
 * does not commute; inout = inout after in (in holds the lower ranks) */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    long long *f = in, *g = inout;

    (void)dt;
    for (int k = 0; k < *len; k++, f += 2, g += 2) {
        long long a = g[0] * f[0] % PRIME, b = (g[0] * f[1] + g[1]) % PRIME;
        g[0] = a, g[1] = b;
    }
}

static MPI_Datatype affine;
static MPI_Op       op_compose;

static void map_of(int r, int k, long long m[2])
{
    m[0] = (r * 3 + k) % 7 + 2;
    m[1] = (r * 5 + k * 2) % 11;
}

/* ranks [lo, hi) of comm, whose world ranks are world[], composed */
static void want_of(const int *world, int lo, int hi, int k, long long w[2])
{
    map_of(world[lo], k, w);
    for (int r = lo + 1; r < hi; r++) {
        long long m[2];
        map_of(world[r], k, m);
        long long a = m[0] * w[0] % PRIME, b = (m[0] * w[1] + m[1]) % PRIME;
        w[0] = a, w[1] = b;
    }
}

/* the non-commutative op, a native reduction and a gather on comm */
static void exercise(MPI_Comm comm, const char *what)
{
    int        me, n, *world;
    long long  s[2 * 3], r[2 * 3], w[2];
    const int  cnt = 3;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    world = malloc(n * sizeof(int));
    CU_OK(MPI_Allgather(&cu_rank, 1, MPI_INT, world, 1, MPI_INT, comm));
    for (int k = 0; k < cnt; k++)
        map_of(cu_rank, k, s + 2 * k);
    CU_OK(MPI_Allreduce(s, r, cnt, affine, op_compose, comm));
    for (int k = 0; k < cnt; k++) {
        want_of(world, 0, n, k, w);
        CU_CHECK(r[2 * k] == w[0] && r[2 * k + 1] == w[1], "%s: Allreduce [%d]", what, k);
    }
    CU_OK(MPI_Reduce(s, r, cnt, affine, op_compose, n - 1, comm));
    for (int k = 0; k < cnt && me == n - 1; k++) {
        want_of(world, 0, n, k, w);
        CU_CHECK(r[2 * k] == w[0] && r[2 * k + 1] == w[1], "%s: Reduce [%d]", what, k);
    }
    CU_OK(MPI_Scan(s, r, cnt, affine, op_compose, comm));
    for (int k = 0; k < cnt; k++) {
        want_of(world, 0, me + 1, k, w);
        CU_CHECK(r[2 * k] == w[0] && r[2 * k + 1] == w[1], "%s: Scan [%d]", what, k);
    }
    {
        int sum = 0, want = 0, *g = malloc(n * sizeof(int));
        CU_OK(MPI_Allreduce(&cu_rank, &sum, 1, MPI_INT, MPI_SUM, comm));
        CU_OK(MPI_Gather(&cu_rank, 1, MPI_INT, g, 1, MPI_INT, 0, comm));
        for (int r2 = 0; r2 < n; r2++) {
            want += world[r2];
            if (me == 0)
                CU_CHECK(g[r2] == world[r2], "%s: Gather [%d]", what, r2);
        }
        CU_CHECK(sum == want, "%s: Allreduce SUM %d, want %d", what, sum, want);
        free(g);
    }
    free(world);
}

/* many collectives back to back on comm, sizes and roots changing */
static void storm(MPI_Comm comm, int rounds)
{
    int  me, n;
    int *counts, *displs, *a, *b;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    counts = malloc(n * sizeof(int));
    displs = malloc(n * sizeof(int));
    a      = malloc(4000 * sizeof(int));
    b      = malloc((size_t)n * 4000 * sizeof(int));
    for (int it = 0; it < rounds; it++) {
        int root = it % n, big = it % 3 == 0 ? 1500 : 1 + it % 5, total = 0;
        /* gatherv of uneven blocks to a moving root */
        for (int r = 0; r < n; r++) {
            counts[r] = (r + it) % 2 ? big : (r + it) % 3;
            displs[r] = total;
            total += counts[r];
        }
        for (int i = 0; i < counts[me]; i++)
            a[i] = cu_val(me, i, it);
        CU_OK(MPI_Gatherv(a, counts[me], MPI_INT, b, counts, displs, MPI_INT, root, comm));
        for (int r = 0; r < n && me == root; r++)
            for (int i = 0; i < counts[r]; i++)
                CU_CHECK(b[displs[r] + i] == cu_val(r, i, it), "storm %d gatherv", it);
        /* a scan right behind it */
        {
            int x = me + it, y = -1, want = 0;
            CU_OK(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, comm));
            for (int r = 0; r <= me; r++)
                want += r + it;
            CU_CHECK(y == want, "storm %d scan", it);
        }
        /* an allgatherv of the same uneven blocks */
        for (int i = 0; i < counts[me]; i++)
            a[i] = cu_val(me, i, it + 1);
        CU_OK(MPI_Allgatherv(a, counts[me], MPI_INT, b, counts, displs, MPI_INT, comm));
        for (int r = 0; r < n; r++)
            for (int i = 0; i < counts[r]; i++)
                CU_CHECK(b[displs[r] + i] == cu_val(r, i, it + 1), "storm %d allgatherv", it);
        /* and a non-commutative reduce to another root */
        {
            long long s[2], r2[2] = { -1, -1 };
            map_of(me, it, s);
            CU_OK(MPI_Reduce(s, r2, 1, affine, op_compose, (root + 1) % n, comm));
            if (me == (root + 1) % n) {
                long long w[2] = { 0, 0 };
                map_of(0, it, w);
                for (int r = 1; r < n; r++) {
                    long long m[2];
                    map_of(r, it, m);
                    long long a2 = m[0] * w[0] % PRIME, b2 = (m[0] * w[1] + m[1]) % PRIME;
                    w[0] = a2, w[1] = b2;
                }
                CU_CHECK(r2[0] == w[0] && r2[1] == w[1], "storm %d reduce", it);
            }
        }
    }
    free(b), free(a), free(displs), free(counts);
}

int main(int argc, char **argv)
{
    MPI_Comm    halves, uneven, dup;
    MPI_Request user;
    MPI_Status  st;
    int         got = -1, msg;

    cu_init(&argc, &argv);
    CU_OK(MPI_Type_contiguous(2, MPI_LONG_LONG, &affine));
    CU_OK(MPI_Type_commit(&affine));
    CU_OK(MPI_Op_create(compose, 0, &op_compose));

    CU_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    /* a user receive that collective traffic must never satisfy */
    CU_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &user));

    exercise(MPI_COMM_WORLD, "world");
    exercise(dup, "dup");
    exercise(MPI_COMM_SELF, "self");
    cu_section("world, dup, self");

    CU_OK(MPI_Comm_split(MPI_COMM_WORLD, cu_rank % 2, cu_size - cu_rank, &halves));
    CU_OK(MPI_Comm_split(MPI_COMM_WORLD, cu_rank < 5, cu_rank, &uneven));
    exercise(halves, "halves (reversed ranks)");
    exercise(uneven, "5 and the rest");
    cu_section("split communicators");

    storm(MPI_COMM_WORLD, 40);
    storm(dup, 20);
    storm(halves, 20);
    cu_section("back to back");

    /* only now the user's message: from the left neighbour */
    msg = 1000 + cu_rank;
    CU_OK(MPI_Send(&msg, 1, MPI_INT, (cu_rank + 1) % cu_size, 42, dup));
    CU_OK(MPI_Wait(&user, &st));
    CU_CHECK(got == 1000 + (cu_rank + cu_size - 1) % cu_size && st.MPI_TAG == 42,
             "the user receive got %d tag %d", got, st.MPI_TAG);
    cu_section("collective traffic never meets user receives");

    CU_OK(MPI_Comm_free(&uneven));
    CU_OK(MPI_Comm_free(&halves));
    CU_OK(MPI_Comm_free(&dup));
    CU_OK(MPI_Op_free(&op_compose));
    CU_OK(MPI_Type_free(&affine));
    return cu_finish();
}
