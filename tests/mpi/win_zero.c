/*
 * win_zero.c -- one-sided operations that move no data: a count of 0, or
 * datatypes of size 0, with origin, result and target datatypes whose
 * basic types differ (MPI_INT against MPI_DOUBLE, a zero-length
 * contiguous type), under MPI_SUM as well as MPI_REPLACE, with NULL
 * buffers. An empty type signature matches any other empty one, so each
 * call succeeds and changes nothing (MPI-3.1 11.3, as a zero-count send
 * does); the request forms complete. On every window flavor.
 */
#include "win_util.h"

#define N 16

static int zero_ops(MPI_Win win, int target, MPI_Datatype o, int oc, MPI_Datatype r, int rc,
                    MPI_Datatype t, int tc)
{
    static int src[N], res[N];
    int        fails = 0;

#define Z(call) fails += (call) != MPI_SUCCESS
    Z(MPI_Put(src, oc, o, target, 0, tc, t, win));
    Z(MPI_Get(src, oc, o, target, 0, tc, t, win));
    Z(MPI_Accumulate(src, oc, o, target, 0, tc, t, MPI_SUM, win));
    Z(MPI_Accumulate(NULL, oc, o, target, 0, tc, t, MPI_MAX, win));
    Z(MPI_Get_accumulate(src, oc, o, res, rc, r, target, 0, tc, t, MPI_SUM, win));
    Z(MPI_Get_accumulate(NULL, oc, o, NULL, rc, r, target, 0, tc, t, MPI_PROD, win));
    Z(MPI_Get_accumulate(NULL, oc, o, res, rc, r, target, 0, tc, t, MPI_NO_OP, win));
    MPI_Request q[4];
    Z(MPI_Rput(src, oc, o, target, 0, tc, t, win, &q[0]));
    Z(MPI_Rget(src, oc, o, target, 0, tc, t, win, &q[1]));
    Z(MPI_Raccumulate(src, oc, o, target, 0, tc, t, MPI_SUM, win, &q[2]));
    Z(MPI_Rget_accumulate(src, oc, o, res, rc, r, target, 0, tc, t, MPI_MIN, win, &q[3]));
    MPI_OK(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
#undef Z
    return fails;
}

static void run(MPI_Win win, int *base, const char *what)
{
    MPI_Datatype empty, types[3];
    int          target = (t_rank + 1) % t_size, fails = 0;

    MPI_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
    MPI_OK(MPI_Type_commit(&empty));
    types[0] = empty;
    types[1] = MPI_INT;
    types[2] = MPI_DOUBLE;
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    for (int i = 0; i < N; i++)
        base[i] = 1000 * t_rank + i;

    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                fails += zero_ops(win, target, types[i], 0, types[j], 0, types[k], 0);
                /* a non-zero count of the empty type is still no data */
                fails += zero_ops(win, target, empty, 2, types[j], 0, types[k], 0);
                fails += zero_ops(win, target, types[i], 0, empty, 3, empty, 1);
            }
    MPI_OK(MPI_Win_fence(0, win));
    CHECK(fails == 0, "%s: %d calls that move no data returned an error", what, fails);

    /* the same under a lock */
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    fails = zero_ops(win, target, MPI_INT, 0, empty, 1, MPI_DOUBLE, 0);
    MPI_OK(MPI_Win_unlock(target, win));
    CHECK(fails == 0, "%s: %d calls under a lock returned an error", what, fails);

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(base[i] == 1000 * t_rank + i, "%s: base[%d] = %d changed", what, i, base[i]);
    MPI_OK(MPI_Type_free(&empty));
    w_section(what);
}

int main(int argc, char **argv)
{
    MPI_Win win;
    int    *base;

    t_init(&argc, &argv);

    MPI_OK(MPI_Alloc_mem(N * sizeof(int), MPI_INFO_NULL, &base));
    MPI_OK(MPI_Win_create(base, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &win));
    run(win, base, "MPI_Win_create: zero-size operations succeed and change nothing");
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Free_mem(base));

    MPI_OK(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                            &win));
    run(win, base, "MPI_Win_allocate: zero-size operations succeed and change nothing");
    MPI_OK(MPI_Win_free(&win));

    MPI_Comm shm;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm));
    int shm_size;
    MPI_OK(MPI_Comm_size(shm, &shm_size));
    if (shm_size == t_size) {
        MPI_OK(MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL, shm, &base,
                                       &win));
        run(win, base, "MPI_Win_allocate_shared: zero-size operations succeed and change nothing");
        MPI_OK(MPI_Win_free(&win));
    }
    MPI_OK(MPI_Comm_free(&shm));

    MPI_Finalize();
    return 0;
}
