/*
 * rma_types.c -- put, get, put_nbi, get_nbi, p, g, iput and iget for every
 * type of KUMI_SHMEM_RMA_TYPES (the table shmem.h declares them from), on
 * the symmetric heap and on global and static variables, through the
 * plain calls, the shmem_ctx_ calls on a created context and on
 * SHMEM_CTX_DEFAULT. Every PE talks to its right neighbour (itself on 1 PE).
 */
#include <string.h>

#include "core_test.h"

#define N 12

/* static-data targets, one per type: symmetric without any allocation */
#define STATIC_BUF(T, NAME) static T static_##NAME[N];
KUMI_SHMEM_RMA_TYPES(STATIC_BUF)
/* and a global (external linkage) one for long */
long global_long[N];

static int me, npes, right, left;
static int checks;

/* round 0: plain calls; 1: ctx calls on a created context; 2: on the default */
#define CALL(r, ctx, NAME, op, ...) \
    ((r) == 0 ? shmem_##NAME##_##op(__VA_ARGS__) : shmem_ctx_##NAME##_##op(ctx, __VA_ARGS__))

#define TEST_TYPE(T, NAME)                                                                   \
    static void test_##NAME(T *target, const char *where, int r, shmem_ctx_t ctx)            \
    {                                                                                        \
        T src[N], dst[N];                                                                    \
        int phase = r * 10;                                                                  \
        /* put: my pattern into right's target */                                            \
        for (int i = 0; i < N; i++)                                                          \
            src[i] = (T)test_val(me, i, phase);                                              \
        memset(target, 0, sizeof(T) * N);                                                    \
        shmem_barrier_all();                                                                 \
        CALL(r, ctx, NAME, put, target, src, N, right);                                      \
        shmem_barrier_all();                                                                 \
        for (int i = 0; i < N; i++)                                                          \
            CHECK(target[i] == (T)test_val(left, i, phase), #NAME " put %s round %d [%d]: "  \
                  "%g", where, r, i, (double)target[i]);                                     \
        /* get: right's target holds right's left's (= my) pattern */                        \
        memset(dst, 0, sizeof(dst));                                                         \
        CALL(r, ctx, NAME, get, dst, target, N, right);                                      \
        for (int i = 0; i < N; i++)                                                          \
            CHECK(dst[i] == (T)test_val(me, i, phase), #NAME " get %s round %d [%d]", where, \
                  r, i);                                                                     \
        shmem_barrier_all();                                                                 \
        /* put_nbi + quiet, get_nbi + quiet */                                               \
        for (int i = 0; i < N; i++)                                                          \
            src[i] = (T)test_val(me, i, phase + 1);                                          \
        CALL(r, ctx, NAME, put_nbi, target, src, N, right);                                  \
        if (r == 0) shmem_quiet(); else shmem_ctx_quiet(ctx);                                \
        shmem_barrier_all();                                                                 \
        for (int i = 0; i < N; i++)                                                          \
            CHECK(target[i] == (T)test_val(left, i, phase + 1), #NAME " put_nbi %s round %d" \
                  " [%d]", where, r, i);                                                     \
        memset(dst, 0, sizeof(dst));                                                         \
        CALL(r, ctx, NAME, get_nbi, dst, target, N, right);                                  \
        if (r == 0) shmem_quiet(); else shmem_ctx_quiet(ctx);                                \
        for (int i = 0; i < N; i++)                                                          \
            CHECK(dst[i] == (T)test_val(me, i, phase + 1), #NAME " get_nbi %s round %d [%d]", \
                  where, r, i);                                                              \
        shmem_barrier_all();                                                                 \
        /* p and g, element by element */                                                    \
        for (int i = 0; i < N; i++)                                                          \
            CALL(r, ctx, NAME, p, &target[i], (T)test_val(me, i, phase + 2), right);         \
        shmem_barrier_all();                                                                 \
        for (int i = 0; i < N; i++) {                                                        \
            CHECK(target[i] == (T)test_val(left, i, phase + 2), #NAME " p %s round %d [%d]", \
                  where, r, i);                                                              \
            T v = CALL(r, ctx, NAME, g, &target[i], right);                                  \
            CHECK(v == (T)test_val(me, i, phase + 2), #NAME " g %s round %d [%d]", where, r, \
                  i);                                                                        \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
        /* iput: src[0..N/2) at stride 1 into target[0,2,4..] of right; odd ones stay 0 */   \
        memset(target, 0, sizeof(T) * N);                                                    \
        for (int i = 0; i < N; i++)                                                          \
            src[i] = (T)test_val(me, i, phase + 3);                                          \
        shmem_barrier_all();                                                                 \
        CALL(r, ctx, NAME, iput, target, src, 2, 1, N / 2, right);                           \
        shmem_barrier_all();                                                                 \
        for (int i = 0; i < N; i++)                                                          \
            CHECK(target[i] == (i % 2 ? (T)0 : (T)test_val(left, i / 2, phase + 3)),         \
                  #NAME " iput %s round %d [%d]: %g", where, r, i, (double)target[i]);       \
        /* iget: right's target[0,3,6,9] (its left's = my values at 0, 3/2...) into dst  */  \
        /* at stride 2: dst[0,2,4,6]                                                     */  \
        memset(dst, 0, sizeof(dst));                                                         \
        CALL(r, ctx, NAME, iget, dst, target, 2, 3, N / 3, right);                           \
        for (int j = 0; j < N / 3; j++) {                                                    \
            int k = 3 * j; /* element of right's target */                                   \
            T want = k % 2 ? (T)0 : (T)test_val(me, k / 2, phase + 3);                       \
            CHECK(dst[2 * j] == want, #NAME " iget %s round %d [%d]: %g", where, r, j,       \
                  (double)dst[2 * j]);                                                       \
            CHECK(dst[2 * j + 1] == (T)0, #NAME " iget wrote between strides");              \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
        checks++;                                                                            \
    }
KUMI_SHMEM_RMA_TYPES(TEST_TYPE)

int main(void)
{
    shmem_ctx_t ctx;

    shmem_init();
    me    = shmem_my_pe();
    npes  = shmem_n_pes();
    right = (me + 1) % npes;
    left  = (me + npes - 1) % npes;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create");

    for (int r = 0; r < 3; r++) {
        shmem_ctx_t c = r == 2 ? SHMEM_CTX_DEFAULT : ctx;
#define RUN(T, NAME)                                                                         \
        {                                                                                    \
            T *heap = shmem_malloc(N * sizeof(T));                                           \
            CHECK(heap != NULL, "shmem_malloc");                                             \
            test_##NAME(heap, "heap", r, c);                                                 \
            test_##NAME(static_##NAME, "static", r, c);                                      \
            shmem_free(heap);                                                                \
        }
        KUMI_SHMEM_RMA_TYPES(RUN)
        test_long(global_long, "global", r, c);
    }
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("rma_types: %d type/target/round combinations on %d PEs passed\n", checks, npes);
    shmem_finalize();
    return 0;
}
