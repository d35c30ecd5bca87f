/*
 * reduce_types.c -- every team-based reduction: and/or/xor over the
 * bitwise types, max/min over the ordered ones, sum/prod over the
 * arithmetic ones (8/16-bit integers, long double and the complex types
 * included), on the world and on split teams, with exact expected values
 * (computed here in the same type), in place (dest == source) and not,
 * and the result's bytes the same on every member (fcollected and
 * compared). Argument: the element count (default 9).
 */
#include "coll_test.h"

#define MAXN 4096

static int   me, nred = 9;
static char *sbuf, *dbuf, *gbuf;   /* symmetric */

/* the operands: small integers every type holds exactly, chosen so that
 * sums and products of up to 64 PEs stay exact in int8 ... long double */
static int bit_val(int pe, int i)    { return (0x5a ^ (pe * 37 + i * 11)) & 0x7f; }
static int ord_val(int pe, int i)    { return (pe * 7 + i * 13) % 50 - 25; }
static int sum_re(int pe, int i)     { return (pe + i) % 2; }
static int sum_im(int pe, int i)     { return (pe * 3 + i) % 4; }
static int prod_re(int pe, int i)    { return (pe + i) % 7 == 0 ? 2 : 1; }
static int prod_im(int pe, int i)    { return (pe + 2 * i) % 9 == 1 ? 1 : 0; }

static int wpe(shmem_team_t t, int r)
{
    return shmem_team_translate_pe(t, r, SHMEM_TEAM_WORLD);
}

/* the result's bytes must be the same on every member */
static void same_bytes(shmem_team_t t, const void *res, size_t bytes, const char *what)
{
    int n = shmem_team_n_pes(t);

    CHECK(shmem_fcollectmem(t, gbuf, res, bytes) == 0, "%s: fcollect", what);
    for (int q = 1; q < n; q++)
        CHECK(memcmp(gbuf, gbuf + (size_t)q * bytes, bytes) == 0,
              "%s: rank %d's result bytes differ from rank 0's", what, q);
}

/* One op over type T: operands VAL(pe, i), expected FOLD in team rank
 * order, then the reduction out of place and in place. */
#define DEF_OP(T, N, OP, VAL, ACC)                                                           \
    static void test_##N##_##OP(shmem_team_t t, const char *tn)                              \
    {                                                                                        \
        T  *src = (T *)sbuf, *dst = (T *)dbuf;                                               \
        int n = shmem_team_n_pes(t), rc;                                                     \
        char what[96];                                                                       \
        snprintf(what, sizeof(what), "shmem_%s_%s_reduce on %s", #N, #OP, tn);               \
        for (int i = 0; i < nred; i++)                                                       \
            src[i] = VAL(T, me, i);                                                          \
        memset(dst, 0x5c, (size_t)nred * sizeof(T));                                         \
        rc = shmem_##N##_##OP##_reduce(t, dst, src, (size_t)nred);                           \
        CHECK(rc == 0, "%s: rc %d", what, rc);                                               \
        for (int i = 0; i < nred; i++) {                                                     \
            T want = VAL(T, wpe(t, 0), i);                                                   \
            for (int q = 1; q < n; q++) {                                                    \
                T v = VAL(T, wpe(t, q), i);                                                  \
                ACC(want, v);                                                                \
            }                                                                                \
            CHECK(dst[i] == want, "%s: [%d] = %Lg, want %Lg", what, i, LDV(dst[i]),          \
                  LDV(want));                                                                \
        }                                                                                    \
        same_bytes(t, dst, (size_t)nred * sizeof(T), what);                                  \
        /* in place */                                                                       \
        rc = shmem_##N##_##OP##_reduce(t, src, src, (size_t)nred);                           \
        CHECK(rc == 0 && memcmp(src, dst, (size_t)nred * sizeof(T)) == 0,                    \
              "%s: in place differs", what);                                                 \
        CHECK(shmem_##N##_##OP##_reduce(t, dst, src, 0) == 0, "%s: nreduce 0", what);        \
    }

#define V_BIT(T, pe, i)  ((T)bit_val(pe, i))
#define V_ORD(T, pe, i)  ((T)ord_val(pe, i))
#define V_SUM(T, pe, i)  TV(T, sum_re(pe, i), sum_im(pe, i))
#define V_PROD(T, pe, i) TV(T, prod_re(pe, i), prod_im(pe, i))
#define A_AND(a, v)  ((a) = (a) & (v))
#define A_OR(a, v)   ((a) = (a) | (v))
#define A_XOR(a, v)  ((a) = (a) ^ (v))
#define A_MAX(a, v)  ((a) = (v) > (a) ? (v) : (a))
#define A_MIN(a, v)  ((a) = (v) < (a) ? (v) : (a))
#define A_SUM(a, v)  ((a) = (a) + (v))
#define A_PROD(a, v) ((a) = (a) * (v))

#define DEF_BIT(T, N)                                                                        \
    DEF_OP(T, N, and, V_BIT, A_AND) DEF_OP(T, N, or, V_BIT, A_OR) DEF_OP(T, N, xor, V_BIT, A_XOR)
#define DEF_MINMAX(T, N) DEF_OP(T, N, max, V_ORD, A_MAX) DEF_OP(T, N, min, V_ORD, A_MIN)
#define DEF_ARITH(T, N)  DEF_OP(T, N, sum, V_SUM, A_SUM) DEF_OP(T, N, prod, V_PROD, A_PROD)
KUMI_SHMEM_REDUCE_BIT_TYPES(DEF_BIT)
KUMI_SHMEM_REDUCE_MINMAX_TYPES(DEF_MINMAX)
KUMI_SHMEM_REDUCE_ARITH_TYPES(DEF_ARITH)

static void run_team(shmem_team_t t, const char *tn)
{
#define RUN_BIT(T, N)    test_##N##_and(t, tn); test_##N##_or(t, tn); test_##N##_xor(t, tn);
#define RUN_MINMAX(T, N) test_##N##_max(t, tn); test_##N##_min(t, tn);
#define RUN_ARITH(T, N)  test_##N##_sum(t, tn); test_##N##_prod(t, tn);
    KUMI_SHMEM_REDUCE_BIT_TYPES(RUN_BIT)
    KUMI_SHMEM_REDUCE_MINMAX_TYPES(RUN_MINMAX)
    KUMI_SHMEM_REDUCE_ARITH_TYPES(RUN_ARITH)
}

int main(int argc, char **argv)
{
    shmem_team_t teams[TT_COUNT];

    if (argc > 1)
        nred = atoi(argv[1]);
    CHECK(nred >= 1 && nred <= MAXN, "count 1..%d", MAXN);
    shmem_init();
    me   = shmem_my_pe();
    sbuf = shmem_malloc(MAXN * 16);
    dbuf = shmem_malloc(MAXN * 16);
    gbuf = shmem_malloc((size_t)MAXN * 16 * (size_t)shmem_n_pes());
    CHECK(sbuf != NULL && dbuf != NULL && gbuf != NULL, "malloc");
    tt_make(teams);
    for (int k = 0; k < TT_COUNT; k++)
        if (teams[k] != SHMEM_TEAM_INVALID)
            run_team(teams[k], tt_name[k]);
    {
        static long x = 1, y;
        CHECK(shmem_long_sum_reduce(SHMEM_TEAM_INVALID, &y, &x, 1) != 0, "invalid team");
    }
    tt_destroy(teams);
    shmem_free(gbuf);
    shmem_free(dbuf);
    shmem_free(sbuf);
    shmem_finalize();
    return 0;
}
