/*
 * amo_generic.c -- the C11 generic interfaces of the atomics and of
 * point-to-point synchronization (compiled with -std=c11 -pedantic-errors):
 * every generic name, with and without a context where the specification
 * has one, on every type of each table (int32_t, size_t, ptrdiff_t ... are
 * found through the C type they are), the result type checked at compile
 * time and the value at run time. Each PE works on its own objects (the
 * races are amo_types' and sync_types' business); the deprecated generic
 * names too, on their listed types and on every type and context form of
 * their replacements. Macros a program may well have (<iso646.h>'s and,
 * or, xor; a "test" or "set" of its own) must not disturb the generic
 * names.
 */
#include <iso646.h>

#include "amo_test.h"

#define test  do_not_expand_test
#define set   do_not_expand_set
#define fetch do_not_expand_fetch
#define wait  do_not_expand_wait

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "amo_generic.c tests the C11 interfaces"
#endif

static int me;
static shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
static int checks;

#define SAME_TYPE(expr, T) _Static_assert(_Generic((expr), T: 1, default: 0), #expr " is " #T)

#define OBJECTS(T, NAME) static T obj_##NAME[4];
KUMI_SHMEM_AMO_EXT_TYPES(OBJECTS)
#define SYNC_OBJECTS(T, NAME) static T sobj_##NAME[4];
KUMI_SHMEM_SYNC_TYPES(SYNC_OBJECTS)

/* standard AMOs: compare_swap, fetch_inc, inc, fetch_add, add (+ _nbi) */
#define STD(T, NAME)                                                                         \
    static void std_##NAME(void)                                                             \
    {                                                                                        \
        T *x = obj_##NAME, f = 0;                                                            \
        SAME_TYPE(shmem_atomic_fetch_add(x, (T)1, me), T);                                   \
        SAME_TYPE(shmem_atomic_fetch_add(ctx, x, (T)1, me), T);                              \
        SAME_TYPE(shmem_atomic_fetch_inc(x, me), T);                                         \
        SAME_TYPE(shmem_atomic_fetch_inc(ctx, x, me), T);                                    \
        SAME_TYPE(shmem_atomic_compare_swap(x, (T)0, (T)1, me), T);                          \
        SAME_TYPE(shmem_atomic_compare_swap(ctx, x, (T)0, (T)1, me), T);                     \
        x[0] = 0;                                                                            \
        CHECK(shmem_atomic_fetch_add(x, (T)2, me) == 0, #NAME);                              \
        CHECK(shmem_atomic_fetch_add(ctx, x, (T)3, me) == 2, #NAME);                         \
        shmem_atomic_add(x, (T)1, me);                                                       \
        shmem_atomic_add(ctx, x, (T)1, me);                                                  \
        shmem_atomic_inc(x, me);                                                             \
        shmem_atomic_inc(ctx, x, me);                                                        \
        shmem_quiet();                                                                       \
        CHECK(shmem_atomic_fetch_inc(x, me) == 9, #NAME);                                    \
        CHECK(shmem_atomic_fetch_inc(ctx, x, me) == 10, #NAME);                              \
        CHECK(shmem_atomic_compare_swap(x, (T)11, (T)20, me) == 11, #NAME);                  \
        CHECK(shmem_atomic_compare_swap(ctx, x, (T)11, (T)30, me) == 20, #NAME);             \
        shmem_atomic_fetch_inc_nbi(&f, x, me);                                               \
        shmem_quiet();                                                                       \
        CHECK(f == 20, #NAME);                                                               \
        shmem_atomic_fetch_inc_nbi(ctx, &f, x, me);                                          \
        shmem_quiet();                                                                       \
        CHECK(f == 21, #NAME);                                                               \
        shmem_atomic_fetch_add_nbi(&f, x, (T)5, me);                                         \
        shmem_quiet();                                                                       \
        CHECK(f == 22, #NAME);                                                               \
        shmem_atomic_fetch_add_nbi(ctx, &f, x, (T)5, me);                                    \
        shmem_quiet();                                                                       \
        CHECK(f == 27, #NAME);                                                               \
        shmem_atomic_compare_swap_nbi(&f, x, (T)32, (T)40, me);                              \
        shmem_quiet();                                                                       \
        CHECK(f == 32, #NAME);                                                               \
        shmem_atomic_compare_swap_nbi(ctx, &f, x, (T)40, (T)41, me);                         \
        shmem_quiet();                                                                       \
        CHECK(f == 40 && x[0] == 41, #NAME);                                                 \
        checks++;                                                                            \
    }
KUMI_SHMEM_AMO_STD_TYPES(STD)

/* extended AMOs: fetch, set, swap (+ _nbi) */
#define EXT(T, NAME)                                                                         \
    static void ext_##NAME(void)                                                             \
    {                                                                                        \
        T *x = obj_##NAME, f = 0;                                                            \
        const T *cx = x;                                                                     \
        SAME_TYPE(shmem_atomic_fetch(x, me), T);                                             \
        SAME_TYPE(shmem_atomic_fetch(cx, me), T);                                            \
        SAME_TYPE(shmem_atomic_fetch(ctx, cx, me), T);                                       \
        SAME_TYPE(shmem_atomic_swap(x, (T)1, me), T);                                        \
        SAME_TYPE(shmem_atomic_swap(ctx, x, (T)1, me), T);                                   \
        shmem_atomic_set(x, (T)3, me);                                                       \
        shmem_quiet();                                                                       \
        CHECK(shmem_atomic_fetch(x, me) == (T)3, #NAME);                                     \
        shmem_atomic_set(ctx, x, (T)4, me);                                                  \
        shmem_quiet();                                                                       \
        CHECK(shmem_atomic_fetch(ctx, cx, me) == (T)4, #NAME);                               \
        CHECK(shmem_atomic_swap(x, (T)5, me) == (T)4, #NAME);                                \
        CHECK(shmem_atomic_swap(ctx, x, (T)6, me) == (T)5, #NAME);                           \
        shmem_atomic_fetch_nbi(&f, cx, me);                                                  \
        shmem_quiet();                                                                       \
        CHECK(f == (T)6, #NAME);                                                             \
        shmem_atomic_fetch_nbi(ctx, &f, x, me);                                              \
        shmem_quiet();                                                                       \
        CHECK(f == (T)6, #NAME);                                                             \
        shmem_atomic_swap_nbi(&f, x, (T)7, me);                                              \
        shmem_quiet();                                                                       \
        CHECK(f == (T)6, #NAME);                                                             \
        shmem_atomic_swap_nbi(ctx, &f, x, (T)8, me);                                         \
        shmem_quiet();                                                                       \
        CHECK(f == (T)7 && x[0] == (T)8, #NAME);                                             \
        checks++;                                                                            \
    }
KUMI_SHMEM_AMO_EXT_TYPES(EXT)

/* bitwise AMOs: and, or, xor and their fetching forms (+ _nbi) */
#define BIT(T, NAME)                                                                         \
    static void bit_##NAME(void)                                                             \
    {                                                                                        \
        T *x = obj_##NAME, f = 0;                                                            \
        SAME_TYPE(shmem_atomic_fetch_and(x, (T)1, me), T);                                   \
        SAME_TYPE(shmem_atomic_fetch_or(ctx, x, (T)1, me), T);                               \
        SAME_TYPE(shmem_atomic_fetch_xor(x, (T)1, me), T);                                   \
        x[0] = (T)0xf0;                                                                      \
        shmem_atomic_or(x, (T)0x0f, me);                                                     \
        shmem_atomic_and(ctx, x, (T)0x3c, me);                                               \
        shmem_atomic_xor(x, (T)0x01, me);                                                    \
        shmem_atomic_or(ctx, x, (T)0x100, me);                                               \
        shmem_atomic_and(x, (T)0x1ff, me);                                                   \
        shmem_atomic_xor(ctx, x, (T)0x02, me);                                               \
        shmem_quiet();                                                                       \
        CHECK(x[0] == (T)0x13f, #NAME ": %#llx", (unsigned long long)x[0]);                  \
        CHECK(shmem_atomic_fetch_and(x, (T)0xff, me) == (T)0x13f, #NAME);                    \
        CHECK(shmem_atomic_fetch_and(ctx, x, (T)0xf, me) == (T)0x3f, #NAME);                 \
        CHECK(shmem_atomic_fetch_or(x, (T)0x10, me) == (T)0xf, #NAME);                       \
        CHECK(shmem_atomic_fetch_or(ctx, x, (T)0x20, me) == (T)0x1f, #NAME);                 \
        CHECK(shmem_atomic_fetch_xor(x, (T)0x1, me) == (T)0x3f, #NAME);                      \
        CHECK(shmem_atomic_fetch_xor(ctx, x, (T)0x2, me) == (T)0x3e, #NAME);                 \
        shmem_atomic_fetch_and_nbi(&f, x, (T)0x30, me);                                      \
        shmem_quiet();                                                                       \
        CHECK(f == (T)0x3c, #NAME);                                                          \
        shmem_atomic_fetch_and_nbi(ctx, &f, x, (T)0x10, me);                                 \
        shmem_quiet();                                                                       \
        CHECK(f == (T)0x30, #NAME);                                                          \
        shmem_atomic_fetch_or_nbi(&f, x, (T)0x1, me);                                        \
        shmem_quiet();                                                                       \
        CHECK(f == (T)0x10, #NAME);                                                          \
        shmem_atomic_fetch_or_nbi(ctx, &f, x, (T)0x2, me);                                   \
        shmem_quiet();                                                                       \
        CHECK(f == (T)0x11, #NAME);                                                          \
        shmem_atomic_fetch_xor_nbi(&f, x, (T)0x4, me);                                       \
        shmem_quiet();                                                                       \
        CHECK(f == (T)0x13, #NAME);                                                          \
        shmem_atomic_fetch_xor_nbi(ctx, &f, x, (T)0x8, me);                                  \
        shmem_quiet();                                                                       \
        CHECK(f == (T)0x17 && x[0] == (T)0x1f, #NAME);                                       \
        checks++;                                                                            \
    }
KUMI_SHMEM_AMO_BIT_TYPES(BIT)

/* point-to-point synchronization on conditions that hold (my own objects) */
#define SYNC(T, NAME)                                                                        \
    static void sync_##NAME(void)                                                            \
    {                                                                                        \
        T     *x = sobj_##NAME, cv[4] = { (T)1, (T)2, (T)3, (T)4 };                          \
        size_t idx[4];                                                                       \
        int    st[4] = { 0, 0, 1, 1 }, st2[4] = { 1, 1, 0, 1 };                              \
        SAME_TYPE(shmem_test(x, SHMEM_CMP_EQ, (T)0), int);                                   \
        SAME_TYPE(shmem_test_all(x, 4, st, SHMEM_CMP_EQ, (T)0), int);                        \
        SAME_TYPE(shmem_test_any(x, 4, st, SHMEM_CMP_EQ, (T)0), size_t);                     \
        SAME_TYPE(shmem_test_some(x, 4, idx, st, SHMEM_CMP_EQ, (T)0), size_t);               \
        SAME_TYPE(shmem_test_all_vector(x, 4, st, SHMEM_CMP_EQ, cv), int);                   \
        SAME_TYPE(shmem_test_any_vector(x, 4, st, SHMEM_CMP_EQ, cv), size_t);                \
        SAME_TYPE(shmem_test_some_vector(x, 4, idx, st, SHMEM_CMP_EQ, cv), size_t);          \
        SAME_TYPE(shmem_wait_until_any(x, 4, st, SHMEM_CMP_EQ, (T)0), size_t);               \
        SAME_TYPE(shmem_wait_until_some(x, 4, idx, st, SHMEM_CMP_EQ, (T)0), size_t);         \
        SAME_TYPE(shmem_wait_until_any_vector(x, 4, st, SHMEM_CMP_EQ, cv), size_t);          \
        SAME_TYPE(shmem_wait_until_some_vector(x, 4, idx, st, SHMEM_CMP_EQ, cv), size_t);    \
        x[0] = (T)1;                                                                         \
        x[1] = (T)2;                                                                         \
        x[2] = x[3] = (T)9;                                                                  \
        shmem_wait_until(&x[0], SHMEM_CMP_EQ, (T)1);                                         \
        shmem_wait_until_all(x, 4, (const int[4]){ 1, 0, 1, 1 }, SHMEM_CMP_GE, (T)2);        \
        CHECK(shmem_wait_until_any(x, 4, st, SHMEM_CMP_EQ, (T)2) == 1, #NAME);               \
        CHECK(shmem_wait_until_some(x, 4, idx, NULL, SHMEM_CMP_GT, (T)2) == 2, #NAME);       \
        shmem_wait_until_all_vector(x, 4, st, SHMEM_CMP_EQ, cv);                             \
        CHECK(shmem_wait_until_any_vector(x, 4, (const int[4]){ 1, 0, 1, 1 }, SHMEM_CMP_EQ,  \
                                          cv) == 1, #NAME);                                  \
        CHECK(shmem_wait_until_some_vector(x, 4, idx, NULL, SHMEM_CMP_EQ, cv) == 2, #NAME);  \
        CHECK(shmem_test(&x[1], SHMEM_CMP_LT, (T)3) == 1, #NAME);                            \
        CHECK(shmem_test_all(x, 4, NULL, SHMEM_CMP_NE, (T)3) == 1, #NAME);                   \
        CHECK(shmem_test_any(x, 4, st, SHMEM_CMP_EQ, (T)9) == SIZE_MAX, #NAME);              \
        CHECK(shmem_test_some(x, 4, idx, st, SHMEM_CMP_EQ, (T)2) == 1 && idx[0] == 1,        \
              #NAME);                                                                        \
        CHECK(shmem_test_all_vector(x, 4, st, SHMEM_CMP_EQ, cv) == 1, #NAME);                \
        CHECK(shmem_test_any_vector(x, 4, st2, SHMEM_CMP_GT, cv) == 2, #NAME);               \
        CHECK(shmem_test_some_vector(x, 4, idx, NULL, SHMEM_CMP_NE, cv) == 2, #NAME);        \
        checks++;                                                                            \
    }
KUMI_SHMEM_SYNC_TYPES(SYNC)

/* deprecated generic names */
static int   dint[2];
static long  dlong[2];
static long long dll[2];
static float dfloat[2];
static double ddouble[2];
static short dshort[2];
static unsigned int duint[2];
static unsigned long long dull[2];
static size_t dsize[2];

static void deprecated(void)
{
    SAME_TYPE(shmem_cswap(dint, 0, 1, me), int);
    SAME_TYPE(shmem_fadd(dlong, 1L, me), long);
    SAME_TYPE(shmem_finc(dll, me), long long);
    SAME_TYPE(shmem_swap(dfloat, 1.0f, me), float);
    SAME_TYPE(shmem_fetch(ddouble, me), double);
    CHECK(shmem_cswap(dint, 0, 5, me) == 0 && dint[0] == 5, "shmem_cswap");
    CHECK(shmem_fadd(dlong, -3L, me) == 0 && dlong[0] == -3, "shmem_fadd");
    CHECK(shmem_finc(dll, me) == 0 && dll[0] == 1, "shmem_finc");
    shmem_add(dint, 2, me);
    shmem_inc(dlong, me);
    shmem_set(dfloat, 2.5f, me);
    shmem_set(ddouble, -0.25, me);
    shmem_quiet();
    CHECK(dint[0] == 7 && dlong[0] == -2, "shmem_add, shmem_inc");
    CHECK(shmem_swap(dfloat, 1.5f, me) == 2.5f && dfloat[0] == 1.5f, "shmem_swap float");
    CHECK(shmem_swap(dll, 9LL, me) == 1 && dll[0] == 9, "shmem_swap long long");
    CHECK(shmem_fetch(ddouble, me) == -0.25, "shmem_fetch");
    CHECK(shmem_fetch((const int *)dint, me) == 7, "shmem_fetch const");
    dshort[0] = 3;
    shmem_wait(dshort, (short)4);
    shmem_wait(dlong, -5L);

    /* beyond the listed types: every type and the context form of the
     * replacement (shmem_cswap is shmem_atomic_compare_swap) */
    SAME_TYPE(shmem_cswap(duint, 0u, 1u, me), unsigned int);
    SAME_TYPE(shmem_fadd(ctx, dull, 1ULL, me), unsigned long long);
    SAME_TYPE(shmem_fetch(ctx, (const size_t *)dsize, me), size_t);
    CHECK(shmem_cswap(duint, 0u, 4u, me) == 0 && duint[0] == 4, "shmem_cswap unsigned int");
    CHECK(shmem_cswap(ctx, dint, 7, 8, me) == 7 && dint[0] == 8, "shmem_cswap ctx");
    CHECK(shmem_fadd(ctx, dull, 5ULL, me) == 0 && dull[0] == 5, "shmem_fadd ctx");
    CHECK(shmem_finc(dsize, me) == 0 && dsize[0] == 1, "shmem_finc size_t");
    shmem_add(duint, 2u, me);
    shmem_inc(ctx, dsize, me);
    shmem_set(ctx, dull, 9ULL, me);
    shmem_quiet();
    CHECK(duint[0] == 6 && dsize[0] == 2 && dull[0] == 9, "shmem_add, shmem_inc, shmem_set");
    CHECK(shmem_swap(ctx, duint, 1u, me) == 6 && duint[0] == 1, "shmem_swap ctx");
    CHECK(shmem_fetch(ctx, (const size_t *)dsize, me) == 2, "shmem_fetch ctx const");
}

#define RUN_STD(T, NAME)  std_##NAME();
#define RUN_EXT(T, NAME)  ext_##NAME();
#define RUN_BIT(T, NAME)  bit_##NAME();
#define RUN_SYNC(T, NAME) sync_##NAME();

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    KUMI_SHMEM_AMO_STD_TYPES(RUN_STD)
    KUMI_SHMEM_AMO_EXT_TYPES(RUN_EXT)
    KUMI_SHMEM_AMO_BIT_TYPES(RUN_BIT)
    KUMI_SHMEM_SYNC_TYPES(RUN_SYNC)
    deprecated();
    shmem_barrier_all();
    if (me == 0)
        printf("amo_generic: %d type checks passed on %d PEs\n", checks, shmem_n_pes());
    shmem_finalize();
    return 0;
}
