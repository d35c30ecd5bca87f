/*
 * team_basic.c -- teams: the predefined teams, shmem_team_split_strided in
 * every shape (positive, negative and zero strides, single PEs, splits of
 * splits), invalid triplets (nonzero and SHMEM_TEAM_INVALID on every PE),
 * shmem_team_split_2d for several xranges (coordinates, sizes, both
 * configurations), translate_pe, get_config, team contexts (PE numbers
 * relative to the team; contexts left alive are destroyed with the team),
 * and a sync and a reduction on every team made.
 */
#include "coll_test.h"

static int me, npes;

/* Checks team t against the world PEs it should hold (team rank r is
 * world PE pes[r]) and runs a sync, a reduction and a ring of puts on a
 * team context over it. keep_ctx: leave the context for team_destroy. */
static void check_team(shmem_team_t t, const int *pes, int size, int keep_ctx, const char *what)
{
    static long   src, sum, ring;
    int           r = -1;
    long          want = 0;
    shmem_ctx_t   ctx;
    shmem_team_t  back;

    for (int i = 0; i < size; i++) {
        if (pes[i] == me)
            r = i;
        want += pes[i];
    }
    if (r < 0) {
        CHECK(t == SHMEM_TEAM_INVALID, "%s: not a member but a team", what);
        return;
    }
    CHECK(t != SHMEM_TEAM_INVALID, "%s: a member but no team", what);
    CHECK(shmem_team_my_pe(t) == r, "%s: my_pe %d, want %d", what, shmem_team_my_pe(t), r);
    CHECK(shmem_team_n_pes(t) == size, "%s: n_pes %d, want %d", what, shmem_team_n_pes(t), size);
    for (int i = 0; i < size; i++) {
        CHECK(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD) == pes[i], "%s: rank %d -> %d",
              what, i, shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD));
        CHECK(shmem_team_translate_pe(t, i, t) == i, "%s: rank %d to itself", what, i);
    }
    CHECK(shmem_team_translate_pe(t, size, SHMEM_TEAM_WORLD) == -1, "%s: rank out of range",
          what);
    CHECK(shmem_team_translate_pe(t, -1, SHMEM_TEAM_WORLD) == -1, "%s: rank -1", what);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, t) == r, "%s: world -> team", what);
    for (int pe = 0; pe < npes; pe++) {
        int idx = -1;
        for (int i = 0; i < size; i++)
            if (pes[i] == pe)
                idx = i;
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, t) == idx, "%s: world %d -> %d",
              what, pe, shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, t));
    }
    CHECK(shmem_team_sync(t) == 0, "%s: sync", what);
    src = me;
    CHECK(shmem_long_sum_reduce(t, &sum, &src, 1) == 0 && sum == want, "%s: sum %ld, want %ld",
          what, sum, want);
    /* a ring on a team context: team rank r puts to r + 1 */
    CHECK(shmem_team_create_ctx(t, 0, &ctx) == 0 && ctx != SHMEM_CTX_INVALID, "%s: ctx", what);
    CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == t, "%s: ctx_get_team", what);
    shmem_ctx_long_p(ctx, &ring, 1000 + me, (r + 1) % size);
    shmem_ctx_quiet(ctx);
    CHECK(shmem_team_sync(t) == 0, "%s: sync", what);
    CHECK(ring == 1000 + pes[(r + size - 1) % size], "%s: ring got %ld", what, ring);
    CHECK(shmem_team_sync(t) == 0, "%s: sync", what);   /* ring is reused next time */
    if (!keep_ctx)
        shmem_ctx_destroy(ctx);
}

static void check_strided(shmem_team_t parent, const int *ppes, int pn, int start, int stride,
                          int size, int num_ctx)
{
    shmem_team_config_t cfg = { .num_contexts = num_ctx }, got = { .num_contexts = -5 };
    shmem_team_t        t   = (shmem_team_t)&cfg;   /* must be overwritten */
    int                 pes[64], rc, in_parent = 0;
    char                what[96];

    for (int i = 0; i < pn; i++)
        in_parent |= ppes[i] == me;
    if (!in_parent)
        return;
    snprintf(what, sizeof(what), "split(%d, %d, %d) of %d PEs", start, stride, size, pn);
    rc = shmem_team_split_strided(parent, start, stride, size, num_ctx ? &cfg : NULL,
                                  num_ctx ? SHMEM_TEAM_NUM_CONTEXTS : 0, &t);
    CHECK(rc == 0, "%s: rc %d", what, rc);
    for (int i = 0; i < size; i++)
        pes[i] = ppes[start + i * stride];
    if (t != SHMEM_TEAM_INVALID) {
        CHECK(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0
                  && got.num_contexts == num_ctx, "%s: num_contexts %d", what, got.num_contexts);
        CHECK(shmem_team_get_config(t, 0, &got) == 0, "%s: get_config mask 0", what);
    }
    check_team(t, pes, size, (start + stride) % 2 == 0, what);
    shmem_team_destroy(t);
}

static void check_invalid(int start, int stride, int size)
{
    shmem_team_t t = SHMEM_TEAM_WORLD;
    int          rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &t);
    CHECK(rc != 0 && t == SHMEM_TEAM_INVALID, "split(%d, %d, %d): rc %d, team %p", start,
          stride, size, rc, (void *)t);
}

static void check_2d(int xrange)
{
    shmem_team_config_t xc = { .num_contexts = 2 }, got = { 0 };
    shmem_team_t        xt, yt;
    int                 x = me % xrange, y = me / xrange, pes[64], n = 0, rc;
    char                what[64];

    rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, &xc, SHMEM_TEAM_NUM_CONTEXTS, &xt, NULL,
                             0, &yt);
    CHECK(rc == 0, "split_2d(%d): rc %d", xrange, rc);
    CHECK(shmem_team_my_pe(xt) == x && shmem_team_my_pe(yt) == y, "split_2d(%d): (%d, %d)",
          xrange, shmem_team_my_pe(xt), shmem_team_my_pe(yt));
    CHECK(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 2,
          "x config");
    CHECK(shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 0,
          "y config");
    /* the x team: my row; the y team: my column */
    for (int pe = y * xrange; pe < npes && pe < (y + 1) * xrange; pe++)
        pes[n++] = pe;
    snprintf(what, sizeof(what), "2d(%d) x team", xrange);
    check_team(xt, pes, n, 1, what);
    n = 0;
    for (int pe = x; pe < npes; pe += xrange)
        pes[n++] = pe;
    snprintf(what, sizeof(what), "2d(%d) y team", xrange);
    check_team(yt, pes, n, 0, what);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
}

int main(void)
{
    shmem_team_config_t cfg = { .num_contexts = 7 };
    int                 world[64], evens[64], ne = 0, sn;
    shmem_team_t        t, u;

    shmem_init();
    me   = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= 64, "at most 64 PEs");
    for (int i = 0; i < npes; i++)
        world[i] = i;
    for (int i = 0; i < npes; i += 2)
        evens[ne++] = i;

    /* predefined teams */
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes,
          "world");
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1 && shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1,
          "invalid");
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0
              && cfg.num_contexts == 0, "world config %d", cfg.num_contexts);
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, 0, &cfg) != 0, "invalid config");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1, "translate");
    sn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(sn >= 1 && sn <= npes && shmem_team_my_pe(SHMEM_TEAM_SHARED) >= 0, "shared: %d", sn);
    {
        /* the shared team: in world order, me included, every member's
         * memory reachable by load/store (tcp: me alone) */
        static int probe;
        int        prev = -1, have_me = 0, pe;
        for (int r = 0; r < sn; r++) {
            pe = shmem_team_translate_pe(SHMEM_TEAM_SHARED, r, SHMEM_TEAM_WORLD);
            CHECK(pe > prev, "shared: rank %d is PE %d after %d", r, pe, prev);
            have_me |= pe == me;
            prev = pe;
            CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, &probe, r) != NULL, "shared ptr %d", r);
            CHECK(shmem_ptr(&probe, pe) != NULL, "shared: no pointer to PE %d", pe);
        }
        CHECK(have_me, "shared: without me");
        /* on shm (one node) it is every PE */
        if (npes > 1 && shmem_ptr(&probe, (me + 1) % npes) != NULL)
            CHECK(sn == npes, "shared: %d of %d PEs", sn, npes);
        CHECK(shmem_team_sync(SHMEM_TEAM_SHARED) == 0, "shared sync");
    }

    /* strided shapes of the world */
    check_strided(SHMEM_TEAM_WORLD, world, npes, 0, 1, npes, 0);
    check_strided(SHMEM_TEAM_WORLD, world, npes, 0, 2, (npes + 1) / 2, 3);
    if (npes >= 2)
        check_strided(SHMEM_TEAM_WORLD, world, npes, 1, 2, npes / 2, 0);
    check_strided(SHMEM_TEAM_WORLD, world, npes, npes - 1, -1, npes, 1);
    check_strided(SHMEM_TEAM_WORLD, world, npes, npes - 1, -2, (npes + 1) / 2, 0);
    check_strided(SHMEM_TEAM_WORLD, world, npes, npes / 2, 0, 1, 0);
    check_strided(SHMEM_TEAM_WORLD, world, npes, npes - 1, -3, (npes - 1) / 3 + 1, 0);
    check_strided(SHMEM_TEAM_WORLD, world, npes, 0, 3, (npes - 1) / 3 + 1, 2);
    check_strided(SHMEM_TEAM_WORLD, world, npes, npes - 1, 1, 1, 0);

    /* splits of a split: the evens, then every other of them, backwards */
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, ne, NULL, 0, &t) == 0, "evens");
    if (t != SHMEM_TEAM_INVALID) {
        check_strided(t, evens, ne, ne - 1, -2, (ne + 1) / 2, 0);
        check_strided(t, evens, ne, 0, 1, ne, 4);
    }
    shmem_team_destroy(t);
    /* and of the shared team */
    {
        int shared[64];
        for (int r = 0; r < sn; r++)
            shared[r] = shmem_team_translate_pe(SHMEM_TEAM_SHARED, r, SHMEM_TEAM_WORLD);
        check_strided(SHMEM_TEAM_SHARED, shared, sn, sn - 1, -1, sn, 0);
    }

    /* invalid triplets: nonzero and SHMEM_TEAM_INVALID on every PE */
    check_invalid(0, 1, npes + 1);
    check_invalid(-1, 1, 1);
    check_invalid(npes, 1, 1);
    check_invalid(0, 1, 0);
    check_invalid(0, 0, 2);
    check_invalid(0, -1, 2);
    check_invalid(npes - 1, 1, 2);
    u = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &u) != 0
              && u == SHMEM_TEAM_INVALID, "parent invalid");
    /* a bad configuration */
    u = SHMEM_TEAM_WORLD;
    cfg.num_contexts = -1;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS,
                                   &u) != 0 && u == SHMEM_TEAM_INVALID, "bad config");

    /* 2d */
    check_2d(1);
    check_2d(2);
    check_2d(3);
    check_2d(npes);
    check_2d(npes + 1);
    t = u = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &t, NULL, 0, &u) != 0
              && t == SHMEM_TEAM_INVALID && u == SHMEM_TEAM_INVALID, "xrange 0");
    t = u = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &t, NULL, 0, &u) != 0
              && t == SHMEM_TEAM_INVALID && u == SHMEM_TEAM_INVALID, "2d parent invalid");

    /* destroying SHMEM_TEAM_INVALID does nothing; the world still works */
    shmem_team_destroy(SHMEM_TEAM_INVALID);
    CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "world sync");
    CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0, "sync of an invalid team");
    /* a team context on a team alive at finalize: finalize destroys both */
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) == 0, "last");
    {
        shmem_ctx_t c;
        CHECK(shmem_team_create_ctx(t, SHMEM_CTX_PRIVATE, &c) == 0, "ctx");
        CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0 && c == SHMEM_CTX_INVALID,
              "ctx on an invalid team");
    }
    shmem_finalize();
    return 0;
}
