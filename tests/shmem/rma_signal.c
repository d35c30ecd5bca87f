/*
 * rma_signal.c -- put-with-signal for every RMA type, the sized and mem
 * forms, blocking and nbi, plain and shmem_ctx_: SHMEM_SIGNAL_SET and
 * SHMEM_SIGNAL_ADD, the data visible once the signal is, signal words in
 * the heap and in static data; shmem_signal_fetch and
 * shmem_signal_wait_until with every comparison.
 */
#include <string.h>

#include "core_test.h"

#define N 8

static uint64_t static_sig;
static long     static_data[N];
static int      me, npes, right, left;
static uint64_t round_no;   /* signals grow by one per step: waits never see an old value */

/* wait until my signal word reaches want (every comparison in turn) */
static void wait_sig(uint64_t *sig, uint64_t want, int k)
{
    static const int cmps[] = { SHMEM_CMP_EQ, SHMEM_CMP_GE, SHMEM_CMP_GT, SHMEM_CMP_NE };
    int      cmp = cmps[k % 4];
    uint64_t v, arg = cmp == SHMEM_CMP_GT ? want - 1 : cmp == SHMEM_CMP_NE ? want - 1 : want;

    if (cmp == SHMEM_CMP_NE) {
        /* NE: the old value was exactly want - 1 */
        v = shmem_signal_wait_until(sig, SHMEM_CMP_NE, arg);
    } else {
        v = shmem_signal_wait_until(sig, cmp, arg);
    }
    CHECK(v == want, "signal_wait_until cmp %d: got %llu, want %llu", cmp,
          (unsigned long long)v, (unsigned long long)want);
    CHECK(shmem_signal_fetch(sig) == want, "signal_fetch");
}

#define TEST_TYPE(T, NAME)                                                                   \
    static void test_##NAME(T *dest, uint64_t *sig, shmem_ctx_t ctx, int r, int k)           \
    {                                                                                        \
        T src[N];                                                                            \
        uint64_t want = ++round_no;                                                          \
        for (int i = 0; i < N; i++)                                                          \
            src[i] = (T)test_val(me, i, (int)want);                                          \
        /* SET to round_no: the signal word held round_no - 1 */                             \
        switch (r) {                                                                         \
        case 0: shmem_##NAME##_put_signal(dest, src, N, sig, want, SHMEM_SIGNAL_SET, right); \
                break;                                                                       \
        case 1: shmem_ctx_##NAME##_put_signal_nbi(ctx, dest, src, N, sig, want,              \
                                                  SHMEM_SIGNAL_SET, right);                  \
                break;                                                                       \
        case 2: shmem_##NAME##_put_signal_nbi(dest, src, N, sig, 1, SHMEM_SIGNAL_ADD, right); \
                break;                                                                       \
        default: shmem_ctx_##NAME##_put_signal(ctx, dest, src, N, sig, 1, SHMEM_SIGNAL_ADD,  \
                                               right);                                       \
                break;                                                                       \
        }                                                                                    \
        wait_sig(sig, want, k);                                                              \
        for (int i = 0; i < N; i++)                                                          \
            CHECK(dest[i] == (T)test_val(left, i, (int)want), #NAME " put_signal form %d "   \
                  "[%d]", r, i);                                                             \
        shmem_quiet();                                                                       \
        shmem_barrier_all();   /* right has read its data before I overwrite it */           \
    }
KUMI_SHMEM_RMA_TYPES(TEST_TYPE)

#define TEST_SIZED(BITS, BYTES)                                                              \
    static void test_put##BITS(void *dest, uint64_t *sig, shmem_ctx_t ctx, int r)            \
    {                                                                                        \
        unsigned char src[N * BYTES];                                                        \
        uint64_t want = ++round_no;                                                          \
        for (size_t i = 0; i < sizeof(src); i++)                                             \
            src[i] = (unsigned char)(me + i + want);                                         \
        if (r == 0)                                                                          \
            shmem_put##BITS##_signal(dest, src, N, sig, want, SHMEM_SIGNAL_SET, right);      \
        else if (r == 1)                                                                     \
            shmem_ctx_put##BITS##_signal(ctx, dest, src, N, sig, 1, SHMEM_SIGNAL_ADD, right);\
        else if (r == 2)                                                                     \
            shmem_put##BITS##_signal_nbi(dest, src, N, sig, 1, SHMEM_SIGNAL_ADD, right);     \
        else                                                                                 \
            shmem_ctx_put##BITS##_signal_nbi(ctx, dest, src, N, sig, want, SHMEM_SIGNAL_SET, \
                                             right);                                         \
        wait_sig(sig, want, r);                                                              \
        for (size_t i = 0; i < sizeof(src); i++)                                             \
            CHECK(((unsigned char *)dest)[i] == (unsigned char)(left + i + want),            \
                  "put%d_signal form %d byte %zu", BITS, r, i);                              \
        shmem_quiet();                                                                       \
        shmem_barrier_all();                                                                 \
    }
KUMI_SHMEM_SIZES(TEST_SIZED)

int main(void)
{
    shmem_ctx_t ctx;
    int         k = 0;

    shmem_init();
    me    = shmem_my_pe();
    npes  = shmem_n_pes();
    right = (me + 1) % npes;
    left  = (me + npes - 1) % npes;
    CHECK(shmem_ctx_create(SHMEM_CTX_SERIALIZED, &ctx) == 0, "shmem_ctx_create");

    uint64_t *heap_sig = shmem_calloc(1, sizeof(uint64_t));
    void     *heap_dst = shmem_malloc(N * 16);
    CHECK(heap_sig != NULL && heap_dst != NULL, "shmem_malloc");
    CHECK(shmem_signal_fetch(heap_sig) == 0 && shmem_signal_fetch(&static_sig) == 0,
          "signal words start at 0");
    shmem_barrier_all();

    /* both words must follow round_no: each step bumps one; keep the other in step */
    for (int w = 0; w < 2; w++) {
        uint64_t *sig = w == 0 ? heap_sig : &static_sig;
        /* bring this word to round_no first (SET from the left, one step) */
        uint64_t sync = ++round_no;
        shmem_putmem_signal(heap_dst, &sync, 0, sig, sync, SHMEM_SIGNAL_SET, right);
        wait_sig(sig, sync, 0);
        shmem_barrier_all();
        for (int r = 0; r < 4; r++) {
#define RUN(T, NAME) test_##NAME((T *)heap_dst, sig, ctx, r, k++);
            KUMI_SHMEM_RMA_TYPES(RUN)
            test_long(static_data, sig, ctx, r, k++);
#define RUN_SIZED(BITS, BYTES) test_put##BITS(heap_dst, sig, ctx, r);
            KUMI_SHMEM_SIZES(RUN_SIZED)
        }
        /* mem forms */
        char     msg[32], *dst = heap_dst;
        uint64_t want = ++round_no;
        snprintf(msg, sizeof(msg), "from %d round %llu", me, (unsigned long long)want);
        shmem_putmem_signal_nbi(dst, msg, sizeof(msg), sig, want, SHMEM_SIGNAL_SET, right);
        wait_sig(sig, want, 1);
        snprintf(msg, sizeof(msg), "from %d round %llu", left, (unsigned long long)want);
        CHECK(strcmp(dst, msg) == 0, "putmem_signal_nbi: '%s'", dst);
        shmem_barrier_all();
        want = ++round_no;
        shmem_ctx_putmem_signal(ctx, dst, msg, sizeof(msg), sig, 1, SHMEM_SIGNAL_ADD, right);
        wait_sig(sig, want, 2);
        shmem_barrier_all();
        want = ++round_no;
        shmem_ctx_putmem_signal_nbi(ctx, dst, msg, 0, sig, 1, SHMEM_SIGNAL_ADD, right);
        wait_sig(sig, want, 3);
        shmem_barrier_all();
    }
    /* LT and LE: a word counting down */
    *heap_sig = 10;
    shmem_barrier_all();
    shmem_putmem_signal(heap_dst, heap_dst, 0, heap_sig, 3, SHMEM_SIGNAL_SET, right);
    CHECK(shmem_signal_wait_until(heap_sig, SHMEM_CMP_LT, 4) == 3, "CMP_LT");
    CHECK(shmem_signal_wait_until(heap_sig, SHMEM_CMP_LE, 3) == 3, "CMP_LE");
    shmem_barrier_all();

    shmem_free(heap_dst);
    shmem_free(heap_sig);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("rma_signal: %d typed and every sized/mem put-with-signal form on %d PEs passed\n",
               k, npes);
    shmem_finalize();
    return 0;
}
