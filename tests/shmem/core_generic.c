/*
 * core_generic.c -- the C11 generic interfaces of the RMA section, as the
 * specification defines them (with and without a context first argument),
 * compiled with -std=c11 -pedantic-errors -Werror: each selects the typed
 * function for every C type, and the results are those of the typed calls.
 */
#include <string.h>

#include "core_test.h"

#define N 6

#define GENERIC_TYPES(X)                                                                     \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)               \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)   \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                  \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)

#define STATIC_BUF(T, NAME) static T buf_##NAME[2 * N];
GENERIC_TYPES(STATIC_BUF)
static uint64_t sig;
static int      me, npes, right, left;

#define TEST(T, NAME)                                                                        \
    static void test_##NAME(shmem_ctx_t ctx)                                                 \
    {                                                                                        \
        T src[N], dst[2 * N];                                                                \
        const T *csrc = buf_##NAME;                                                          \
        for (int i = 0; i < N; i++)                                                          \
            src[i] = (T)test_val(me, i, 0);                                                  \
        memset(buf_##NAME, 0, sizeof(buf_##NAME));                                           \
        shmem_barrier_all();                                                                 \
        shmem_put(buf_##NAME, src, N, right);                                                \
        shmem_barrier_all();                                                                 \
        CHECK(buf_##NAME[N - 1] == (T)test_val(left, N - 1, 0), #NAME " shmem_put");         \
        shmem_get(ctx, dst, buf_##NAME, N, right);                                           \
        CHECK(dst[0] == (T)test_val(me, 0, 0), #NAME " shmem_get(ctx)");                     \
        shmem_get(dst, buf_##NAME, N, right);                                                \
        shmem_get_nbi(dst, buf_##NAME, N, right);                                            \
        shmem_get_nbi(ctx, dst, buf_##NAME, N, right);                                       \
        shmem_quiet();                                                                       \
        CHECK(dst[N - 1] == (T)test_val(me, N - 1, 0), #NAME " shmem_get_nbi");              \
        CHECK(shmem_g(csrc + 1, right) == (T)test_val(me, 1, 0), #NAME " shmem_g(const)");   \
        CHECK(shmem_g(ctx, buf_##NAME + 2, right) == (T)test_val(me, 2, 0),                  \
              #NAME " shmem_g(ctx)");                                                        \
        shmem_barrier_all();                                                                 \
        shmem_p(&buf_##NAME[N], (T)7, right);                                                \
        shmem_p(ctx, &buf_##NAME[N + 1], (T)8, right);                                       \
        shmem_put(ctx, &buf_##NAME[N + 2], src, 1, right);                                   \
        shmem_put_nbi(&buf_##NAME[N + 3], src, 1, right);                                    \
        shmem_put_nbi(ctx, &buf_##NAME[N + 4], src, 1, right);                               \
        shmem_iput(buf_##NAME, src, 2, 1, 3, right);                                         \
        shmem_iput(ctx, buf_##NAME + 1, src, 2, 1, 3, right);                                \
        shmem_quiet();                                                                       \
        shmem_barrier_all();                                                                 \
        CHECK(buf_##NAME[N] == (T)7 && buf_##NAME[N + 1] == (T)8, #NAME " shmem_p");         \
        CHECK(buf_##NAME[N + 4] == (T)test_val(left, 0, 0), #NAME " shmem_put_nbi(ctx)");    \
        CHECK(buf_##NAME[1] == (T)test_val(left, 0, 0) && buf_##NAME[4] == (T)test_val(left, 2, 0), \
              #NAME " shmem_iput");                                                          \
        shmem_iget(dst, buf_##NAME, 1, 2, 3, right);                                         \
        shmem_iget(ctx, dst + 3, buf_##NAME, 1, 2, 3, right);                                \
        CHECK(dst[1] == (T)test_val(me, 1, 0) && dst[4] == dst[1], #NAME " shmem_iget");     \
        shmem_barrier_all();                                                                 \
        shmem_put_signal(buf_##NAME, src, N, &sig, 1, SHMEM_SIGNAL_ADD, right);              \
        shmem_put_signal(ctx, buf_##NAME, src, N, &sig, 1, SHMEM_SIGNAL_ADD, right);         \
        shmem_put_signal_nbi(buf_##NAME, src, N, &sig, 1, SHMEM_SIGNAL_ADD, right);          \
        shmem_put_signal_nbi(ctx, buf_##NAME, src, N, &sig, 1, SHMEM_SIGNAL_ADD, right);     \
        shmem_quiet();                                                                       \
        shmem_barrier_all();                                                                 \
    }
GENERIC_TYPES(TEST)

int main(void)
{
    shmem_ctx_t ctx;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx");
#define RUN(T, NAME) test_##NAME(ctx);
    GENERIC_TYPES(RUN)
    CHECK(shmem_signal_fetch(&sig) == 4 * 14, "signals: %llu", (unsigned long long)sig);
    /* fixed-width types select the same functions */
    int64_t *i64 = shmem_malloc(sizeof(int64_t));
    int64_t  v = me;
    shmem_put(i64, &v, 1, right);
    shmem_barrier_all();
    CHECK(*i64 == left && shmem_g(i64, right) == me, "int64_t through the generic calls");
    shmem_free(i64);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("core_generic: %d PEs passed\n", npes);
    shmem_finalize();
    return 0;
}
