/*
 * ctx_basic.c -- communication contexts: every option, shmem_ctx_get_team
 * (world for shmem_ctx_create and SHMEM_CTX_DEFAULT, invalid for
 * SHMEM_CTX_INVALID), many contexts at once, per-context fence and quiet
 * ordering and completing puts (a flag after the data), destroy, and the
 * invalid-handle cases that must not crash.
 */
#include <string.h>

#include "core_test.h"

#define NCTX 32
#define N    64

static long data[N];
static uint64_t flag;

int main(void)
{
    shmem_ctx_t  ctx[NCTX];
    shmem_team_t team;
    long         opts[] = { 0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE,
                            SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE };

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    CHECK(SHMEM_CTX_DEFAULT != SHMEM_CTX_INVALID, "SHMEM_CTX_DEFAULT is a valid handle");
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team) == 0 && team == SHMEM_TEAM_WORLD,
          "default context's team is SHMEM_TEAM_WORLD");
    team = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0 && team == SHMEM_TEAM_INVALID,
          "SHMEM_CTX_INVALID has no team");

    for (int i = 0; i < NCTX; i++) {
        long o = opts[i % (int)(sizeof(opts) / sizeof(opts[0]))];
        CHECK(shmem_ctx_create(o, &ctx[i]) == 0, "shmem_ctx_create(0x%lx) #%d", o, i);
        CHECK(ctx[i] != SHMEM_CTX_INVALID && ctx[i] != SHMEM_CTX_DEFAULT, "a new handle");
        CHECK(shmem_ctx_get_team(ctx[i], &team) == 0 && team == SHMEM_TEAM_WORLD,
              "created context's team is SHMEM_TEAM_WORLD");
        for (int j = 0; j < i; j++)
            CHECK(ctx[i] != ctx[j], "contexts %d and %d share a handle", i, j);
    }

    /* data then flag through each context, ordered by its fence; the
     * receiver sees the flag and then all the data */
    for (int i = 0; i < NCTX; i++) {
        long src[N];
        uint64_t f = (uint64_t)i + 1;
        for (int k = 0; k < N; k++)
            src[k] = me * 1000 + i * 10 + k;
        shmem_ctx_long_put(ctx[i], data, src, N, right);
        shmem_ctx_fence(ctx[i]);
        /* the flag by an atomic store: a put would do on any transport,
         * but tcp delivers puts with relaxed stores, which ThreadSanitizer
         * cannot see ordered after the data */
        shmem_ctx_uint64_atomic_set(ctx[i], &flag, f, right);
        shmem_ctx_quiet(ctx[i]);
        shmem_signal_wait_until(&flag, SHMEM_CMP_EQ, f);
        for (int k = 0; k < N; k++)
            CHECK(data[k] == left * 1000 + i * 10 + k, "ctx %d: data[%d] = %ld after the flag",
                  i, k, data[k]);
        shmem_barrier_all();
    }

    /* quiet on one context completes its puts: the target reads them after
     * a barrier without a world quiet */
    for (int i = 0; i < NCTX; i++) {
        shmem_ctx_long_p(ctx[i], &data[i], -i - me, right);
        shmem_ctx_quiet(ctx[i]);
    }
    shmem_barrier_all();
    for (int i = 0; i < NCTX; i++)
        CHECK(data[i] == -i - left, "ctx %d quiet: data[%d] = %ld", i, i, data[i]);

    for (int i = 0; i < NCTX; i++)
        shmem_ctx_destroy(ctx[i]);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);   /* the spec: no effect */

    /* a context made after others were destroyed works as well */
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx[0]) == 0, "create after destroy");
    shmem_ctx_uint64_p(ctx[0], &flag, 0, me);
    CHECK(shmem_ctx_uint64_g(ctx[0], &flag, me) == 0, "ctx p/g to myself");
    shmem_ctx_destroy(ctx[0]);

    shmem_barrier_all();
    if (me == 0)
        printf("ctx_basic: %d contexts on %d PEs passed\n", NCTX, npes);
    shmem_finalize();
    return 0;
}
