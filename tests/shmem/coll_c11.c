/*
 * coll_c11.c -- the C11 generic collectives, compiled with -std=c11
 * -pedantic-errors: shmem_broadcast, shmem_collect, shmem_fcollect,
 * shmem_alltoall, shmem_alltoalls for every type of the RMA table, the
 * generic reductions for every type of theirs (fixed-width and size types
 * select their C types' functions) and the bitwise ones for the signed C
 * types too, and shmem_sync with a team and with an active set. Each call
 * is checked on the world.
 */
#include "coll_test.h"

static long psync[SHMEM_BARRIER_SYNC_SIZE];
static char *sbuf, *dbuf;
static int   me, npes;

#define DEF_MOVE(T, N)                                                                       \
    static void move_##N(void)                                                               \
    {                                                                                        \
        T *s = (T *)sbuf, *d = (T *)dbuf;                                                    \
        for (int i = 0; i < npes; i++)                                                       \
            s[i] = (T)test_val(me, i, 1);                                                    \
        CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, d, s, 1, npes - 1) == 0, #N);                \
        CHECK(d[0] == (T)test_val(npes - 1, 0, 1), "%s broadcast", #N);                      \
        CHECK(shmem_collect(SHMEM_TEAM_WORLD, d, s, 1) == 0, #N);                            \
        CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, d, s, 1) == 0, #N);                           \
        CHECK(d[npes - 1] == (T)test_val(npes - 1, 0, 1), "%s fcollect", #N);                \
        CHECK(shmem_alltoall(SHMEM_TEAM_WORLD, d, s, 1) == 0, #N);                           \
        CHECK(d[0] == (T)test_val(0, me, 1), "%s alltoall", #N);                             \
        CHECK(shmem_alltoalls(SHMEM_TEAM_WORLD, d, s, 1, 1, 1) == 0, #N);                    \
        CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, #N);                                        \
    }
KUMI_SHMEM_RMA_TYPES(DEF_MOVE)

#define DEF_RED(T, N, OP, GEN, WANT)                                                         \
    static void red_##N##_##OP(void)                                                         \
    {                                                                                        \
        T *s = (T *)sbuf, *d = (T *)dbuf;                                                    \
        s[0] = (T)1;                                                                         \
        CHECK(GEN(SHMEM_TEAM_WORLD, d, s, 1) == 0, "%s %s", #N, #OP);                        \
        CHECK(d[0] == (T)(WANT), "%s %s: %Lg", #N, #OP, LDV(d[0]));                          \
    }
#define DEF_BIT(T, N)                                                                        \
    DEF_RED(T, N, and, shmem_and_reduce, 1) DEF_RED(T, N, or, shmem_or_reduce, 1)            \
    DEF_RED(T, N, xor, shmem_xor_reduce, npes % 2)
#define DEF_MINMAX(T, N)                                                                     \
    DEF_RED(T, N, max, shmem_max_reduce, 1) DEF_RED(T, N, min, shmem_min_reduce, 1)
#define DEF_ARITH(T, N)                                                                      \
    DEF_RED(T, N, sum, shmem_sum_reduce, npes) DEF_RED(T, N, prod, shmem_prod_reduce, 1)
KUMI_SHMEM_REDUCE_BIT_TYPES(DEF_BIT)
/* the signed C types programs pass to the bitwise ones */
KUMI_SHMEM_TO_ALL_BIT_TYPES(DEF_BIT)
DEF_BIT(signed char, schar)
KUMI_SHMEM_REDUCE_MINMAX_TYPES(DEF_MINMAX)
KUMI_SHMEM_REDUCE_ARITH_TYPES(DEF_ARITH)

int main(void)
{
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    me   = shmem_my_pe();
    npes = shmem_n_pes();
    sbuf = shmem_malloc((size_t)npes * 16);
    dbuf = shmem_malloc((size_t)npes * 16);
    CHECK(sbuf != NULL && dbuf != NULL, "malloc");
#define RUN_MOVE(T, N) move_##N();
    KUMI_SHMEM_RMA_TYPES(RUN_MOVE)
#define RUN_BIT(T, N)    red_##N##_and(); red_##N##_or(); red_##N##_xor();
#define RUN_MINMAX(T, N) red_##N##_max(); red_##N##_min();
#define RUN_ARITH(T, N)  red_##N##_sum(); red_##N##_prod();
    KUMI_SHMEM_REDUCE_BIT_TYPES(RUN_BIT)
    KUMI_SHMEM_TO_ALL_BIT_TYPES(RUN_BIT)
    RUN_BIT(signed char, schar)
    KUMI_SHMEM_REDUCE_MINMAX_TYPES(RUN_MINMAX)
    KUMI_SHMEM_REDUCE_ARITH_TYPES(RUN_ARITH)
    shmem_sync(0, 0, npes, psync);
    if (npes > 1 && me > 0)
        shmem_sync(1, 0, npes - 1, psync);
    shmem_barrier_all();
    shmem_free(dbuf);
    shmem_free(sbuf);
    shmem_finalize();
    return 0;
}
