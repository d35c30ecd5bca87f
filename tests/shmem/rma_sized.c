/*
 * rma_sized.c -- the sized forms (shmem_put8 ... shmem_iget128, from the
 * KUMI_SHMEM_SIZES table) and the mem forms, plain and shmem_ctx_; odd
 * byte counts, 0 elements, 1 MiB transfers, negative and zero strides,
 * static-data targets.
 */
#include <stdint.h>
#include <string.h>

#include "core_test.h"

#define N 16

static unsigned char static_buf[N * 16];
static int me, npes, right, left;

static unsigned char pat(int pe, size_t i, int phase)
{
    return (unsigned char)(pe * 31 + i * 7 + phase * 3 + 1);
}

#define SIZED(BITS, BYTES)                                                                   \
    static void test_##BITS(unsigned char *t, shmem_ctx_t ctx, int r)                        \
    {                                                                                        \
        unsigned char src[N * BYTES], dst[N * BYTES];                                        \
        for (size_t i = 0; i < sizeof(src); i++)                                             \
            src[i] = pat(me, i, BITS + r);                                                   \
        memset(t, 0, N * BYTES);                                                             \
        shmem_barrier_all();                                                                 \
        if (r == 0) shmem_put##BITS(t, src, N, right);                                       \
        else        shmem_ctx_put##BITS(ctx, t, src, N, right);                              \
        shmem_barrier_all();                                                                 \
        for (size_t i = 0; i < N * BYTES; i++)                                               \
            CHECK(t[i] == pat(left, i, BITS + r), "put%d [%zu]", BITS, i);                   \
        memset(dst, 0, sizeof(dst));                                                         \
        if (r == 0) shmem_get##BITS(dst, t, N, right);                                       \
        else        shmem_ctx_get##BITS(ctx, dst, t, N, right);                              \
        CHECK(memcmp(dst, src, sizeof(src)) == 0, "get%d", BITS);                            \
        shmem_barrier_all();                                                                 \
        memset(t, 0, N * BYTES);                                                             \
        shmem_barrier_all();                                                                 \
        if (r == 0) shmem_put##BITS##_nbi(t, src, N / 2, right);                             \
        else        shmem_ctx_put##BITS##_nbi(ctx, t, src, N / 2, right);                    \
        shmem_quiet();                                                                       \
        shmem_barrier_all();                                                                 \
        for (size_t i = 0; i < N * BYTES; i++)                                               \
            CHECK(t[i] == (i < N / 2 * BYTES ? pat(left, i, BITS + r) : 0), "put%d_nbi [%zu]", \
                  BITS, i);                                                                  \
        memset(dst, 0, sizeof(dst));                                                         \
        if (r == 0) shmem_get##BITS##_nbi(dst, t, N / 2, right);                             \
        else        shmem_ctx_get##BITS##_nbi(ctx, dst, t, N / 2, right);                    \
        shmem_quiet();                                                                       \
        CHECK(memcmp(dst, src, N / 2 * BYTES) == 0, "get%d_nbi", BITS);                      \
        shmem_barrier_all();                                                                 \
        /* iput with a negative target stride: element j lands at N-1-2j... */              \
        memset(t, 0, N * BYTES);                                                             \
        shmem_barrier_all();                                                                 \
        if (r == 0) shmem_iput##BITS(t + (N - 1) * BYTES, src, -2, 1, N / 2, right);          \
        else        shmem_ctx_iput##BITS(ctx, t + (N - 1) * BYTES, src, -2, 1, N / 2, right); \
        shmem_barrier_all();                                                                 \
        for (int e = 0; e < N; e++) {                                                        \
            int from = (N - 1 - e) % 2 == 0 ? (N - 1 - e) / 2 : -1;                          \
            for (int b = 0; b < BYTES; b++)                                                  \
                CHECK(t[e * BYTES + b] == (from < 0 ? 0 : pat(left, (size_t)from * BYTES + b, \
                                                              BITS + r)),                    \
                      "iput%d element %d byte %d", BITS, e, b);                              \
        }                                                                                    \
        /* iget with stride 3 from right into dst at stride 1 */                             \
        memset(dst, 0, sizeof(dst));                                                         \
        if (r == 0) shmem_iget##BITS(dst, t, 1, 3, N / 3, right);                            \
        else        shmem_ctx_iget##BITS(ctx, dst, t, 1, 3, N / 3, right);                   \
        for (int j = 0; j < N / 3; j++) {                                                    \
            int e = 3 * j, from = (N - 1 - e) % 2 == 0 ? (N - 1 - e) / 2 : -1;               \
            for (int b = 0; b < BYTES; b++)                                                  \
                CHECK(dst[j * BYTES + b] == (from < 0 ? 0 : pat(me, (size_t)from * BYTES + b, \
                                                                BITS + r)),                  \
                      "iget%d element %d byte %d", BITS, j, b);                              \
        }                                                                                    \
        /* zero elements: nothing happens, no message */                                     \
        if (r == 0) { shmem_put##BITS(t, src, 0, right); shmem_iget##BITS(dst, t, 1, 1, 0, right); } \
        shmem_barrier_all();                                                                 \
    }
KUMI_SHMEM_SIZES(SIZED)

static void test_mem(unsigned char *big, size_t bigsz, shmem_ctx_t ctx, int r)
{
    unsigned char *src = malloc(bigsz), *dst = malloc(bigsz);
    CHECK(src != NULL && dst != NULL, "malloc");
    for (size_t i = 0; i < bigsz; i++)
        src[i] = pat(me, i, r);
    /* odd sizes at odd offsets, then the whole buffer */
    size_t sizes[] = { 1, 3, 7, 8, 9, 15, 17, 63, 65, 4095, 4097, bigsz };
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k], at = n == bigsz ? 0 : 5;
        if (at + n > bigsz)
            continue;
        memset(big, 0, bigsz);
        shmem_barrier_all();
        if (r == 0) shmem_putmem(big + at, src, n, right);
        else        shmem_ctx_putmem(ctx, big + at, src, n, right);
        shmem_barrier_all();
        for (size_t i = 0; i < bigsz; i++)
            CHECK(big[i] == (i >= at && i < at + n ? pat(left, i - at, r) : 0),
                  "putmem %zu bytes: byte %zu", n, i);
        memset(dst, 0, n);
        if (r == 0) shmem_getmem(dst, big + at, n, right);
        else        shmem_ctx_getmem(ctx, dst, big + at, n, right);
        CHECK(memcmp(dst, src, n) == 0, "getmem %zu bytes", n);
        memset(dst, 0, n);
        if (r == 0) shmem_getmem_nbi(dst, big + at, n, right);
        else        shmem_ctx_getmem_nbi(ctx, dst, big + at, n, right);
        shmem_quiet();
        CHECK(memcmp(dst, src, n) == 0, "getmem_nbi %zu bytes", n);
        shmem_barrier_all();
        if (r == 0) shmem_putmem_nbi(big + at, src, n, right);
        else        shmem_ctx_putmem_nbi(ctx, big + at, src, n, right);
        shmem_quiet();
        shmem_barrier_all();
        CHECK(big[at] == pat(left, 0, r), "putmem_nbi");
    }
    free(src);
    free(dst);
}

int main(void)
{
    shmem_ctx_t ctx;

    shmem_init();
    me    = shmem_my_pe();
    npes  = shmem_n_pes();
    right = (me + 1) % npes;
    left  = (me + npes - 1) % npes;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");

    unsigned char *heap = shmem_malloc(N * 16);
    size_t         bigsz = 1 << 20;
    unsigned char *big  = shmem_malloc(bigsz);
    CHECK(heap != NULL && big != NULL, "shmem_malloc");
    for (int r = 0; r < 2; r++) {
#define RUN(BITS, BYTES) test_##BITS(heap, ctx, r); test_##BITS(static_buf, ctx, r);
        KUMI_SHMEM_SIZES(RUN)
        test_mem(big, bigsz, ctx, r);
        test_mem(static_buf, sizeof(static_buf), ctx, r);
    }
    shmem_free(big);
    shmem_free(heap);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("rma_sized: sized and mem forms on %d PEs passed\n", npes);
    shmem_finalize();
    return 0;
}
