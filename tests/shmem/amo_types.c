/*
 * amo_types.c -- every atomic of every type of the three AMO tables
 * (KUMI_SHMEM_AMO_STD_TYPES, _EXT_TYPES, _BIT_TYPES, the lists shmem.h
 * declares them from), from every PE, on one target (PE 0) and on every
 * PE's target, with exact expected values: the fetched values of racing
 * PEs must form a serialization of their operations. Signed types use
 * negative operands, unsigned ones cross their largest value, float and
 * double fractional values. Targets: the symmetric heap, a static array
 * and a global one; calls: plain, shmem_ctx_ on SHMEM_CTX_DEFAULT and on
 * a created context; the _nbi fetching forms complete at shmem_quiet.
 */
#include "amo_test.h"

#define K     4    /* operations per PE where a PE repeats one */
#define SLOTS 12   /* words of each target */

static int         me, npes, left, right;
static shmem_ctx_t ctxs[3];

/* round r: 0 plain call, 1 the ctx form on SHMEM_CTX_DEFAULT, 2 on a
 * created context */
#define AMO(r, NAME, op, ...)                                                                \
    ((r) == 0 ? shmem_##NAME##_atomic_##op(__VA_ARGS__)                                      \
              : shmem_ctx_##NAME##_atomic_##op(ctxs[r], __VA_ARGS__))
#define QUIET(r) ((r) == 2 ? shmem_ctx_quiet(ctxs[2]) : shmem_quiet())

#define IS_FLOAT(T)  ((T)0.5 != (T)0)
#define IS_SIGNED(T) ((T)-1 < (T)1)
/* a value per PE p (and one more for p = npes) that every type holds */
#define VAL(T, p)                                                                            \
    (IS_FLOAT(T) ? (T)(-1.5 * ((p) + 1))                                                     \
                 : IS_SIGNED(T) ? (T)(-3 * ((p) + 1) - 1000) : (T)((T)-1 - (T)(3 * (p))))
/* distinct bits per PE (npes <= 10) */
#define BIT(T, p) ((T)((T)1 << (3 * (p) % 31)))

/* static and global targets of every type */
#define TARGETS(T, NAME) static T st_##NAME[SLOTS]; T amo_global_##NAME[SLOTS];
KUMI_SHMEM_AMO_EXT_TYPES(TARGETS)

/* ------------------------------------------------- standard: inc, add, cswap */
#define STD_TEST(T, NAME)                                                                    \
    static void std_##NAME(T *x, int r, const char *where)                                   \
    {                                                                                        \
        const T sign = IS_SIGNED(T) ? (T)-1 : (T)1;                                          \
        const T base = IS_SIGNED(T) ? (T)-7 : (T)((T)-1 - (T)5);                             \
        T       v[2 * AMO_TEST_MAX_PES];                                                     \
                                                                                             \
        /* A: fetch_inc (plain and _nbi) on PE 0: the n*K fetched values are                 \
         * base .. base + n*K - 1 (wrapping for unsigned), each once */                      \
        for (int i = 0; i < SLOTS; i++)                                                      \
            x[i] = 0;                                                                        \
        x[0] = base;                                                                         \
        x[4] = base;                                                                         \
        x[1] = (T)(me + 1);                                                                  \
        shmem_barrier_all();                                                                 \
        for (int k = 0; k < K; k++) {                                                        \
            if (k & 1)                                                                       \
                v[k] = AMO(r, NAME, fetch_inc, &x[0], 0);                                    \
            else                                                                             \
                AMO(r, NAME, fetch_inc_nbi, &v[k], &x[0], 0);                                \
        }                                                                                    \
        QUIET(r);                                                                            \
        amo_test_gather(v, K * sizeof(T));                                                   \
        if (me == 0) {                                                                       \
            CHECK(x[0] == (T)(base + (T)(npes * K)), #NAME " fetch_inc %s r%d: final",       \
                  where, r);                                                                 \
            for (int j = 0; j < npes * K; j++) {                                             \
                int seen = 0;                                                                \
                for (int p = 0; p < npes; p++)                                               \
                    for (int k = 0; k < K; k++)                                              \
                        seen += ((const T *)amo_test_slot(p))[k] == (T)(base + (T)j);        \
                CHECK(seen == 1, #NAME " fetch_inc %s r%d: value base+%d fetched %d times",  \
                      where, r, j, seen);                                                    \
            }                                                                                \
        }                                                                                    \
                                                                                             \
        /* B: add (negative for signed) and inc on every PE's x[1] */                        \
        for (int q = 0; q < npes; q++) {                                                     \
            AMO(r, NAME, add, &x[1], (T)(sign * (T)(me + 1)), q);                            \
            AMO(r, NAME, inc, &x[1], q);                                                     \
        }                                                                                    \
        QUIET(r);                                                                            \
        shmem_barrier_all();                                                                 \
        {                                                                                    \
            T e = (T)(me + 1);                                                               \
            for (int p = 0; p < npes; p++)                                                   \
                e = (T)((T)(e + (T)(sign * (T)(p + 1))) + 1);                                \
            CHECK(x[1] == e, #NAME " add/inc %s r%d", where, r);                             \
        }                                                                                    \
                                                                                             \
        /* C: fetch_add of +-(me+1), twice (plain, _nbi), on PE 0's x[2]: the                \
         * fetched values sorted away from 0 form the running sums */                        \
        v[0] = AMO(r, NAME, fetch_add, &x[2], (T)(sign * (T)(me + 1)), 0);                   \
        AMO(r, NAME, fetch_add_nbi, &v[1], &x[2], (T)(sign * (T)(me + 1)), 0);               \
        QUIET(r);                                                                            \
        amo_test_gather(v, 2 * sizeof(T));                                                   \
        if (me == 0) {                                                                       \
            T   f[2 * AMO_TEST_MAX_PES] = { 0 }, a[2 * AMO_TEST_MAX_PES] = { 0 };            \
            int n = 0;                                                                       \
            for (int p = 0; p < npes; p++)                                                   \
                for (int k = 0; k < 2; k++) {                                                \
                    T ff = ((const T *)amo_test_slot(p))[k], aa = (T)(sign * (T)(p + 1));    \
                    int j = n++;                                                             \
                    for (; j > 0 && (IS_SIGNED(T) ? f[j - 1] < ff : f[j - 1] > ff); j--) {   \
                        f[j] = f[j - 1];                                                     \
                        a[j] = a[j - 1];                                                     \
                    }                                                                        \
                    f[j] = ff;                                                               \
                    a[j] = aa;                                                               \
                }                                                                            \
            CHECK(f[0] == 0, #NAME " fetch_add %s r%d: first fetched not 0", where, r);      \
            for (int j = 0; j + 1 < n; j++)                                                  \
                CHECK(f[j + 1] == (T)(f[j] + a[j]), #NAME " fetch_add %s r%d: step %d",      \
                      where, r, j);                                                          \
            CHECK(x[2] == (T)(f[n - 1] + a[n - 1]), #NAME " fetch_add %s r%d: final", where, \
                  r);                                                                        \
        }                                                                                    \
                                                                                             \
        /* D: compare_swap (plain, _nbi) of 0 -> me+1 on every PE's x[3]:                    \
         * one winner per target, the others fetch its value */                              \
        for (int q = 0; q < npes; q++) {                                                     \
            if (q & 1)                                                                       \
                AMO(r, NAME, compare_swap_nbi, &v[q], &x[3], (T)0, (T)(me + 1), q);          \
            else                                                                             \
                v[q] = AMO(r, NAME, compare_swap, &x[3], (T)0, (T)(me + 1), q);              \
        }                                                                                    \
        QUIET(r);                                                                            \
        amo_test_gather(v, (size_t)npes * sizeof(T));                                        \
        if (me == 0)                                                                         \
            for (int q = 0; q < npes; q++) {                                                 \
                int winners = 0, winner = -1;                                                \
                for (int p = 0; p < npes; p++)                                               \
                    if (((const T *)amo_test_slot(p))[q] == 0) {                             \
                        winners++;                                                           \
                        winner = p;                                                          \
                    }                                                                        \
                CHECK(winners == 1, #NAME " cswap %s r%d: %d winners on PE %d", where, r,    \
                      winners, q);                                                           \
                for (int p = 0; p < npes; p++)                                               \
                    CHECK(p == winner                                                        \
                          || ((const T *)amo_test_slot(p))[q] == (T)(winner + 1),            \
                          #NAME " cswap %s r%d: PE %d fetched a non-winner on PE %d", where, \
                          r, p, q);                                                          \
            }                                                                                \
        CHECK(x[3] >= 1 && x[3] <= (T)npes, #NAME " cswap %s r%d: final", where, r);         \
                                                                                             \
        /* E: increments by compare_swap loops on PE 0's x[4] */                             \
        for (int k = 0; k < K; k++) {                                                        \
            T cur = shmem_##NAME##_atomic_fetch(&x[4], 0), old;                              \
            while ((old = AMO(r, NAME, compare_swap, &x[4], cur, (T)(cur + 1), 0)) != cur)   \
                cur = old;                                                                   \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
        if (me == 0)                                                                         \
            CHECK(x[4] == (T)(base + (T)(npes * K)), #NAME " cswap loop %s r%d", where, r);  \
        shmem_barrier_all();                                                                 \
    }
KUMI_SHMEM_AMO_STD_TYPES(STD_TEST)

/* ---------------------------------------------------- extended: fetch, set, swap */
#define EXT_TEST(T, NAME)                                                                    \
    static void ext_##NAME(T *x, int r, const char *where)                                   \
    {                                                                                        \
        T v[2];                                                                              \
                                                                                             \
        /* F: set my value on my right neighbour; fetch it back from there,                  \
         * and my left neighbour's (fetch_nbi) from me */                                    \
        x[5] = 0;                                                                            \
        x[6] = VAL(T, npes);                                                                 \
        shmem_barrier_all();                                                                 \
        AMO(r, NAME, set, &x[5], VAL(T, me), right);                                         \
        QUIET(r);                                                                            \
        shmem_barrier_all();                                                                 \
        CHECK(x[5] == VAL(T, left), #NAME " set %s r%d: %g", where, r, (double)x[5]);        \
        CHECK(AMO(r, NAME, fetch, &x[5], right) == VAL(T, me), #NAME " fetch %s r%d", where, \
              r);                                                                            \
        CHECK(AMO(r, NAME, fetch, (const T *)&x[5], right) == VAL(T, me),                    \
              #NAME " fetch (const) %s r%d", where, r);                                      \
        AMO(r, NAME, fetch_nbi, &v[0], &x[5], me);                                           \
        QUIET(r);                                                                            \
        CHECK(v[0] == VAL(T, left), #NAME " fetch_nbi %s r%d", where, r);                    \
                                                                                             \
        /* G: swap (plain or _nbi) on PE 0's x[6]: the fetched values and the                \
         * final one are the initial value and every PE's, each once */                      \
        if (me & 1)                                                                          \
            AMO(r, NAME, swap_nbi, &v[0], &x[6], VAL(T, me), 0);                             \
        else                                                                                 \
            v[0] = AMO(r, NAME, swap, &x[6], VAL(T, me), 0);                                 \
        QUIET(r);                                                                            \
        amo_test_gather(v, sizeof(T));                                                       \
        if (me == 0)                                                                         \
            for (int q = 0; q <= npes; q++) {                                                \
                int seen = x[6] == VAL(T, q);                                                \
                for (int p = 0; p < npes; p++)                                               \
                    seen += ((const T *)amo_test_slot(p))[0] == VAL(T, q);                   \
                CHECK(seen == 1, #NAME " swap %s r%d: value of %d seen %d times", where, r,  \
                      q, seen);                                                              \
            }                                                                                \
        shmem_barrier_all();                                                                 \
    }
KUMI_SHMEM_AMO_EXT_TYPES(EXT_TEST)

/* ----------------------------------------------------------- bitwise: and, or, xor */
#define BIT_TEST(T, NAME)                                                                    \
    static void bit_##NAME(T *x, int r, const char *where)                                   \
    {                                                                                        \
        const T pat = (T)0x5a5a5a5a, mine = BIT(T, me);                                      \
        T       all = 0, odd = 0, v[AMO_TEST_MAX_PES];                                       \
                                                                                             \
        for (int p = 0; p < npes; p++) {                                                     \
            all |= BIT(T, p);                                                                \
            if (p & 1)                                                                       \
                odd |= BIT(T, p);                                                            \
        }                                                                                    \
        x[7] = 0;                                                                            \
        x[8] = (T)-1;                                                                        \
        x[9] = pat;                                                                          \
        x[10] = 0;                                                                           \
        shmem_barrier_all();                                                                 \
                                                                                             \
        /* H: fetch_or (plain or _nbi) of my bit on PE 0: sorted by the bits                 \
         * they hold, the fetched values grow one PE's bit at a time */                      \
        if (me & 1)                                                                          \
            AMO(r, NAME, fetch_or_nbi, &v[0], &x[7], mine, 0);                               \
        else                                                                                 \
            v[0] = AMO(r, NAME, fetch_or, &x[7], mine, 0);                                   \
        QUIET(r);                                                                            \
        CHECK((v[0] & mine) == 0, #NAME " fetch_or %s r%d: my bit already set", where, r);   \
        amo_test_gather(v, sizeof(T));                                                       \
        if (me == 0) {                                                                       \
            T acc = 0;                                                                       \
            for (int step = 0; step < npes; step++) {                                        \
                int who = -1;                                                                \
                for (int p = 0; p < npes; p++)                                               \
                    if (((const T *)amo_test_slot(p))[0] == acc)                             \
                        who = p;                                                             \
                CHECK(who >= 0, #NAME " fetch_or %s r%d: no PE fetched step %d", where, r,   \
                      step);                                                                 \
                acc |= BIT(T, who);                                                          \
            }                                                                                \
            CHECK(acc == all && x[7] == all, #NAME " fetch_or %s r%d: final", where, r);     \
        }                                                                                    \
                                                                                             \
        /* I: and out my bit on every PE (plain, fetch_and, fetch_and_nbi) */                \
        for (int q = 0; q < npes; q++) {                                                     \
            switch (q % 3) {                                                                 \
            case 0: AMO(r, NAME, and, &x[8], (T)~mine, q); break;                            \
            case 1: v[q] = AMO(r, NAME, fetch_and, &x[8], (T)~mine, q); break;               \
            default: AMO(r, NAME, fetch_and_nbi, &v[q], &x[8], (T)~mine, q); break;          \
            }                                                                                \
        }                                                                                    \
        QUIET(r);                                                                            \
        for (int q = 0; q < npes; q++)                                                       \
            CHECK(q % 3 == 0 || (v[q] & mine) == mine, #NAME " fetch_and %s r%d: PE %d",     \
                  where, r, q);                                                              \
                                                                                             \
        /* J: xor my bit into every PE's x[9], odd PEs once, even PEs twice                  \
         * (the second a fetch_xor or fetch_xor_nbi that sees my first) */                   \
        for (int q = 0; q < npes; q++) {                                                     \
            AMO(r, NAME, xor, &x[9], mine, q);                                               \
            if (me & 1)                                                                      \
                continue;                                                                    \
            if (q & 1)                                                                       \
                AMO(r, NAME, fetch_xor_nbi, &v[q], &x[9], mine, q);                          \
            else                                                                             \
                v[q] = AMO(r, NAME, fetch_xor, &x[9], mine, q);                              \
        }                                                                                    \
        QUIET(r);                                                                            \
        for (int q = 0; !(me & 1) && q < npes; q++)                                          \
            CHECK((v[q] & mine) == ((pat ^ mine) & mine), #NAME " fetch_xor %s r%d: PE %d",  \
                  where, r, q);                                                              \
                                                                                             \
        /* K: or my bit into every PE's x[10] */                                             \
        for (int q = 0; q < npes; q++)                                                       \
            AMO(r, NAME, or, &x[10], mine, q);                                               \
        QUIET(r);                                                                            \
        shmem_barrier_all();                                                                 \
        CHECK(x[8] == (T)~all, #NAME " and %s r%d", where, r);                               \
        CHECK(x[9] == (T)(pat ^ odd), #NAME " xor %s r%d", where, r);                        \
        CHECK(x[10] == all, #NAME " or %s r%d", where, r);                                   \
        shmem_barrier_all();                                                                 \
    }
KUMI_SHMEM_AMO_BIT_TYPES(BIT_TEST)

/* ------------------------------------------- a context on a reversed team
 * (shmem_team_split_strided with stride -1): the PE of a ctx call is a
 * rank of the context's team, here world PE npes - 1 - rank */
static long   team_long;
static int    team_int;
static double team_double;
static unsigned team_uint;

static void team_ctx(void)
{
    shmem_team_t rev;
    shmem_ctx_t  tctx;
    int          mirror = npes - 1 - me;   /* my team rank */

    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev) == 0,
          "shmem_team_split_strided");
    CHECK(shmem_team_my_pe(rev) == mirror, "team rank %d", shmem_team_my_pe(rev));
    CHECK(shmem_team_create_ctx(rev, 0, &tctx) == 0, "shmem_team_create_ctx");
    team_long = team_int = 0;
    team_uint = 0;
    team_double = 0;
    shmem_barrier_all();
    /* rank 0 is world PE npes - 1 */
    CHECK(shmem_ctx_long_atomic_fetch_add(tctx, &team_long, me + 1, 0) >= 0, "fetch_add");
    shmem_ctx_int_atomic_inc(tctx, &team_int, 0);
    /* rank r is world PE npes - 1 - r: my world number into my mirror's */
    shmem_ctx_double_atomic_set(tctx, &team_double, 0.5 + me, me);
    shmem_ctx_uint_atomic_or(tctx, &team_uint, 1u << (me % 32), me);
    shmem_ctx_quiet(tctx);
    shmem_barrier_all();
    if (me == npes - 1)
        CHECK(team_long == (long)npes * (npes + 1) / 2 && team_int == npes,
              "team ctx: %ld, %d on the last PE", team_long, team_int);
    else
        CHECK(team_long == 0 && team_int == 0, "team ctx: rank 0 was not the last PE");
    CHECK(team_double == 0.5 + mirror && team_uint == 1u << (mirror % 32),
          "team ctx: %g, %#x", team_double, team_uint);
    CHECK(shmem_ctx_double_atomic_fetch(tctx, &team_double, me) == 0.5 + me,
          "team ctx fetch");
    shmem_barrier_all();
    shmem_ctx_destroy(tctx);
    shmem_team_destroy(rev);
}

/* ------------------------------------------------------------------ driver */

static int checks;

#define RUN_ON(T, NAME, FAMILY)                                                              \
    do {                                                                                     \
        T *heap = shmem_malloc(SLOTS * sizeof(T));                                           \
        CHECK(heap != NULL, "shmem_malloc");                                                 \
        for (int r = 0; r < 3; r++) {                                                        \
            FAMILY##_##NAME(heap, r, "heap");                                                \
            FAMILY##_##NAME(st_##NAME, r, "static");                                         \
            FAMILY##_##NAME(amo_global_##NAME, r, "global");                                 \
            checks += 3;                                                                     \
        }                                                                                    \
        shmem_free(heap);                                                                    \
    } while (0);
#define RUN_STD(T, NAME) RUN_ON(T, NAME, std)
#define RUN_EXT(T, NAME) RUN_ON(T, NAME, ext)
#define RUN_BIT(T, NAME) RUN_ON(T, NAME, bit)

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(npes <= 10, "BIT() needs at most 10 PEs");
    ctxs[0] = SHMEM_CTX_DEFAULT;
    ctxs[1] = SHMEM_CTX_DEFAULT;
    CHECK(shmem_ctx_create(0, &ctxs[2]) == 0, "shmem_ctx_create");

    KUMI_SHMEM_AMO_STD_TYPES(RUN_STD)
    KUMI_SHMEM_AMO_EXT_TYPES(RUN_EXT)
    KUMI_SHMEM_AMO_BIT_TYPES(RUN_BIT)

    shmem_ctx_destroy(ctxs[2]);
    team_ctx();
    if (me == 0)
        printf("amo_types: %d type/target/round runs passed on %d PEs\n", checks, npes);
    shmem_finalize();
    return 0;
}
