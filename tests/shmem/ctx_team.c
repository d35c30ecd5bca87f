/*
 * ctx_team.c -- contexts on a team: PE numbers of a team context's RMA and
 * signal calls are ranks in that team (shmem_team_create_ctx on the
 * odd-numbered PEs, a team whose rank order differs from the world's),
 * shmem_ctx_get_team names the team, a rank outside the team is refused
 * with one message naming the call, shmem_ptr-style access through
 * shmem_team_ptr uses team ranks, and destroying the context before the
 * team works.
 */
#include <string.h>

#include "core_test.h"

static long     data[4];
static uint64_t sig;

int main(void)
{
    shmem_team_t odd = SHMEM_TEAM_INVALID, got;
    shmem_ctx_t  ctx = SHMEM_CTX_INVALID;

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {                       /* no odd PE: nothing to test */
        if (me == 0)
            printf("ctx_team: 1 PE, skipped\n");
        shmem_finalize();
        return 0;
    }
    /* PEs 1, 3, 5, ...: team rank r is world PE 2r + 1 */
    int nodd = npes / 2;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, nodd, NULL, 0, &odd) == 0, "split");
    if (me % 2 == 1) {
        int r = shmem_team_my_pe(odd);
        CHECK(r == me / 2, "team rank %d", r);
        CHECK(shmem_team_create_ctx(odd, SHMEM_CTX_PRIVATE, &ctx) == 0, "team_create_ctx");
        CHECK(shmem_ctx_get_team(ctx, &got) == 0 && got == odd, "ctx_get_team");
        int right = (r + 1) % nodd, left = (r + nodd - 1) % nodd;   /* team ranks */
        long v[4] = { me, me, me, me };
        shmem_ctx_long_put_signal(ctx, data, v, 4, &sig, 1, SHMEM_SIGNAL_ADD, right);
        shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
        for (int i = 0; i < 4; i++)
            CHECK(data[i] == 2 * left + 1, "data from team rank %d (world %d): %ld", left,
                  2 * left + 1, data[i]);
        CHECK(shmem_ctx_long_g(ctx, &data[0], right) == me, "g through the team context");
        long *p = shmem_team_ptr(odd, data, right);
        const char *tp = getenv("KUMI_TRANSPORT");
        if (tp == NULL || strcmp(tp, "shm") == 0)
            CHECK(p != NULL && *p == me, "shmem_team_ptr to team rank %d", right);
        /* team rank nodd is outside the team even where world PE nodd exists */
        shmem_ctx_long_p(ctx, &data[0], -1, nodd);
        shmem_ctx_quiet(ctx);
        shmem_team_sync(odd);
        CHECK(data[0] == 2 * left + 1, "a refused put landed");
        shmem_ctx_destroy(ctx);
    } else {
        CHECK(odd == SHMEM_TEAM_INVALID, "even PEs are not in the team");
        CHECK(shmem_team_create_ctx(odd, 0, &ctx) != 0 && ctx == SHMEM_CTX_INVALID,
              "no context on SHMEM_TEAM_INVALID");
    }
    shmem_barrier_all();
    if (odd != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odd);
    if (me == 0)
        printf("ctx_team: %d PEs passed\n", npes);
    shmem_finalize();
    return 0;
}
