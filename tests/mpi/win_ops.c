/*
 * win_ops.c -- every one-sided communication call under every kind of
 * synchronization, on windows of every flavor, at any number of ranks:
 * each rank writes into its right neighbour's window, reads its left
 * neighbour's, accumulates into rank 0's, and the values are checked
 * against what the test computes.
 */
#include "win_util.h"

#define N 64

static void fill(int *a, int n, int who, int round)
{
    for (int i = 0; i < n; i++)
        a[i] = who * 1000 + round * 100 + i;
}

/* Put to the right, Get from the left, Accumulate into rank 0, in one
 * fence epoch, then check */
static void fence_round(MPI_Win win, int *base, int round)
{
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int src[N], got[N], sum = 0;

    fill(src, N, t_rank, round);
    MPI_OK(MPI_Win_fence(0, win));
    /* base[0..N): written by the left neighbour; base[N]: rank 0's sum */
    MPI_OK(MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, win));
    MPI_OK(MPI_Accumulate(&t_rank, 1, MPI_INT, 0, N, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        CHECK(base[i] == left * 1000 + round * 100 + i, "put: base[%d] = %d", i, base[i]);
    if (t_rank == 0) {
        for (int r = 0; r < t_size; r++)
            sum += r;
        CHECK(base[N] == sum * (round + 1), "accumulate: %d, expected %d", base[N],
              sum * (round + 1));
    }
    MPI_OK(MPI_Get(got, N, MPI_INT, left, 0, N, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    int left2 = (left + t_size - 1) % t_size;
    for (int i = 0; i < N; i++)
        CHECK(got[i] == left2 * 1000 + round * 100 + i, "get: got[%d] = %d", i, got[i]);
}

static void flavors(void)
{
    MPI_Win win;
    int    *mem;
    int     bytes = (N + 1) * (int)sizeof(int);

    /* MPI_Win_create on our memory */
    int *mine = calloc(N + 1, sizeof(int));
    MPI_OK(MPI_Win_create(mine, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    fence_round(win, mine, 0);
    fence_round(win, mine, 1);
    MPI_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "free did not reset the handle");
    free(mine);
    w_section("Win_create, fence: put, get, accumulate");

    MPI_OK(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    memset(mem, 0, (size_t)bytes);
    fence_round(win, mem, 0);
    void *bp;
    int   flag, *fl;
    MPI_Aint *sz;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &bp, &flag));
    CHECK(flag && bp == mem, "MPI_WIN_BASE");
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
    CHECK(flag && *sz == bytes, "MPI_WIN_SIZE %ld", (long)*sz);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &fl, &flag));
    CHECK(flag && *fl == (int)sizeof(int), "MPI_WIN_DISP_UNIT");
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
    CHECK(flag && *fl == MPI_WIN_FLAVOR_ALLOCATE, "MPI_WIN_CREATE_FLAVOR %d", *fl);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &fl, &flag));
    CHECK(flag && *fl == MPI_WIN_UNIFIED, "MPI_WIN_MODEL %d", *fl);
    MPI_OK(MPI_Win_free(&win));
    w_section("Win_allocate, attributes");
}

/* passive target: exclusive and shared locks, lock_all, flushes, the
 * atomics, request-based calls */
static void passive(void)
{
    MPI_Win win;
    long   *mem;
    int     n = 8;

    MPI_OK(MPI_Win_allocate(n * (int)sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &mem, &win));
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t_rank, 0, win));
    for (int i = 0; i < n; i++)
        mem[i] = 0;
    MPI_OK(MPI_Win_unlock(t_rank, win));
    MPI_Barrier(MPI_COMM_WORLD);

    /* every rank adds 1 + rank to slot 0 of every rank, exclusive lock */
    for (int t = 0; t < t_size; t++) {
        long one = 1 + t_rank;
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
        MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win));
        MPI_OK(MPI_Win_unlock(t, win));
    }
    /* fetch-and-op and compare-and-swap under lock_all */
    MPI_OK(MPI_Win_lock_all(0, win));
    long one = 1, old = -1, cmp, nv, res;
    for (int t = 0; t < t_size; t++) {
        MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG, t, 1, MPI_SUM, win));
        MPI_OK(MPI_Win_flush(t, win));
        CHECK(old >= 0 && old < t_size, "fetch_and_op fetched %ld", old);
    }
    /* a ticket: each rank takes slot 2's value with CAS until it wins */
    for (;;) {
        MPI_OK(MPI_Fetch_and_op(NULL, &cmp, MPI_LONG, 0, 2, MPI_NO_OP, win));
        MPI_OK(MPI_Win_flush(0, win));
        nv = cmp + 10;
        MPI_OK(MPI_Compare_and_swap(&nv, &cmp, &res, MPI_LONG, 0, 2, win));
        MPI_OK(MPI_Win_flush(0, win));
        if (res == cmp)
            break;
    }
    /* request-based: Rput to slot 3+rank%4 of the right neighbour... */
    int         right = (t_rank + 1) % t_size;
    long        v = 100 + t_rank, g = -1, acc = 5, gacc = -1;
    MPI_Request rq[4];
    MPI_OK(MPI_Raccumulate(&acc, 1, MPI_LONG, right, 4, 1, MPI_LONG, MPI_SUM, win, &rq[0]));
    MPI_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_flush_all(win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));
    if (t_rank == 0 || t_size > 1) {
        MPI_OK(MPI_Rput(&v, 1, MPI_LONG, right, 5, 1, MPI_LONG, win, &rq[0]));
        MPI_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        MPI_OK(MPI_Win_flush(right, win));
        MPI_OK(MPI_Rget(&g, 1, MPI_LONG, right, 5, 1, MPI_LONG, win, &rq[1]));
        MPI_OK(MPI_Rget_accumulate(&acc, 1, MPI_LONG, &gacc, 1, MPI_LONG, right, 6, 1, MPI_LONG,
                                  MPI_SUM, win, &rq[2]));
        MPI_OK(MPI_Waitall(2, &rq[1], MPI_STATUSES_IGNORE));
        CHECK(g == v, "Rget read %ld after Rput of %ld", g, v);
        CHECK(gacc == 0, "Rget_accumulate fetched %ld", gacc);
        MPI_OK(MPI_Win_flush_local_all(win));
        MPI_OK(MPI_Win_flush_local(right, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);

    long expect0 = 0;
    for (int r = 0; r < t_size; r++)
        expect0 += 1 + r;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
    CHECK(mem[0] == expect0, "slot 0 = %ld, expected %ld", mem[0], expect0);
    CHECK(mem[1] == t_size, "slot 1 = %ld, expected %d", mem[1], t_size);
    if (t_rank == 0)
        CHECK(mem[2] == 10L * t_size, "slot 2 = %ld, expected %ld", mem[2], 10L * t_size);
    CHECK(mem[4] == 5, "slot 4 = %ld", mem[4]);
    CHECK(mem[5] == 100 + (t_rank + t_size - 1) % t_size, "slot 5 = %ld", mem[5]);
    CHECK(mem[6] == 5, "slot 6 = %ld", mem[6]);
    MPI_OK(MPI_Win_unlock(t_rank, win));
    MPI_OK(MPI_Win_free(&win));
    w_section("passive target: lock, lock_all, flushes, fetch_and_op, CAS, R* requests");
}

/* general active target: even ranks expose, odd ranks access their left
 * neighbour (a ring when the size is even; rank 0 is both with 1 rank) */
static void pscw(void)
{
    MPI_Win   win;
    int      *mem;
    MPI_Group world, g;

    MPI_OK(MPI_Win_allocate(N * (int)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win));
    memset(mem, 0, N * sizeof(int));
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int round = 0; round < 3; round++) {
        /* everybody exposes to its left neighbour and accesses its right */
        int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
        int src[N], flag = 0;
        fill(src, N, t_rank, round);
        MPI_Group_incl(world, 1, &left, &g);
        MPI_OK(MPI_Win_post(g, 0, win));
        MPI_Group_free(&g);
        MPI_Group_incl(world, 1, &right, &g);
        MPI_OK(MPI_Win_start(g, 0, win));
        MPI_Group_free(&g);
        MPI_OK(MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, win));
        MPI_OK(MPI_Win_complete(win));
        if (round == 1)
            while (!flag)
                MPI_OK(MPI_Win_test(win, &flag));
        else
            MPI_OK(MPI_Win_wait(win));
        for (int i = 0; i < N; i++)
            CHECK(mem[i] == left * 1000 + round * 100 + i, "pscw round %d: mem[%d] = %d",
                  round, i, mem[i]);
    }
    MPI_Group_free(&world);
    MPI_OK(MPI_Win_free(&win));
    w_section("post/start/complete/wait/test");
}

/* dynamic windows: each rank attaches a buffer, publishes its address */
static void dynamic(void)
{
    MPI_Win   win;
    int       buf[N], src[N];
    MPI_Aint  mine, *addrs = malloc((size_t)t_size * sizeof(MPI_Aint));
    int       right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;

    memset(buf, 0, sizeof buf);
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_attach(win, buf, sizeof buf));
    MPI_Get_address(buf, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    fill(src, N, t_rank, 7);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, N, MPI_INT, right, addrs[right], N, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        CHECK(buf[i] == left * 1000 + 700 + i, "dynamic: buf[%d] = %d", i, buf[i]);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Win_detach(win, buf));
    MPI_OK(MPI_Win_free(&win));
    free(addrs);
    w_section("dynamic windows: attach, put, detach");
}

/* shared windows: every rank writes its part, reads its neighbours' by
 * load after MPI_Win_sync and a barrier */
static void shared(void)
{
    MPI_Comm node;
    MPI_Win  win;
    int     *mine, nr, me;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &nr);
    MPI_OK(MPI_Win_allocate_shared((me + 1) * (int)sizeof(int), sizeof(int), MPI_INFO_NULL, node,
                                  &mine, &win));
    MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int i = 0; i <= me; i++)
        mine[i] = me * 100 + i;
    MPI_OK(MPI_Win_sync(win));
    MPI_Barrier(node);
    MPI_OK(MPI_Win_sync(win));
    for (int r = 0; r < nr; r++) {
        MPI_Aint sz;
        int      du, *p;
        MPI_OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
        CHECK(sz == (r + 1) * (int)sizeof(int) && du == (int)sizeof(int), "query of %d", r);
        for (int i = 0; i <= r; i++)
            CHECK(p[i] == r * 100 + i, "shared: rank %d's [%d] = %d", r, i, p[i]);
    }
    /* and through MPI_Get */
    int got = -1, t = (me + 1) % nr;
    MPI_OK(MPI_Get(&got, 1, MPI_INT, t, t, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(t, win));
    CHECK(got == t * 100 + t, "shared get: %d", got);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    MPI_Comm_free(&node);
    w_section("shared windows: allocate_shared, shared_query, load/store, get");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    flavors();
    passive();
    pscw();
    dynamic();
    shared();
    MPI_Finalize();
    return 0;
}
