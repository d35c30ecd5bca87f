/*
 * coll_types.c -- the team-based collectives in every standard RMA type
 * and the mem forms, on the world, the shared team and split teams
 * (evens, odds in reverse, all in reverse, one PE): broadcast from several
 * roots (the root's dest written too), collect with a different count on
 * each PE (some none), fcollect, alltoall, alltoalls with strides (the
 * gaps untouched), exact values each. Argument: rounds (default 2); the
 * values change every round.
 */
#include "coll_test.h"

#define NE     5          /* elements per PE */
#define MAXPES 64
#define SST    3          /* alltoalls strides */
#define DST    2

static int   me, npes, rounds = 2;
static char *sbuf, *dbuf;   /* symmetric, big enough for every case */
static size_t buf_bytes;

/* world PE of team rank r */
static int wpe(shmem_team_t t, int r)
{
    return shmem_team_translate_pe(t, r, SHMEM_TEAM_WORLD);
}

#define SENTINEL 0x5c

#define DEF_TEST(T, N)                                                                       \
    static void test_##N(shmem_team_t t, const char *tn, int ph)                             \
    {                                                                                        \
        T  *src = (T *)sbuf, *dst = (T *)dbuf;                                               \
        int r = shmem_team_my_pe(t), n = shmem_team_n_pes(t), rc;                            \
        /* broadcast from the first, the last and a middle root */                           \
        int roots[3] = { 0, n - 1, n / 2 };                                                  \
        for (int k = 0; k < 3; k++) {                                                        \
            int root = roots[k];                                                             \
            for (int i = 0; i < NE; i++)                                                     \
                src[i] = TV(T, test_val(me, i, ph + k), 0);                                  \
            memset(dst, SENTINEL, NE * sizeof(T) + 1);                                       \
            rc = shmem_##N##_broadcast(t, dst, src, NE, root);                               \
            CHECK(rc == 0, "%s %s broadcast: rc %d", #N, tn, rc);                            \
            for (int i = 0; i < NE; i++)                                                     \
                CHECK(dst[i] == TV(T, test_val(wpe(t, root), i, ph + k), 0),                 \
                      "%s %s broadcast root %d: [%d] = %Lg", #N, tn, root, i, LDV(dst[i]));  \
            CHECK(((unsigned char *)dst)[NE * sizeof(T)] == SENTINEL, "%s broadcast: beyond", \
                  #N);                                                                       \
        }                                                                                    \
        /* collect: team rank q contributes q % 3 elements */                                \
        for (int i = 0; i < r % 3; i++)                                                      \
            src[i] = TV(T, test_val(me, i, ph), 0);                                          \
        memset(dst, SENTINEL, (size_t)n * 2 * sizeof(T) + 1);                                \
        rc = shmem_##N##_collect(t, dst, src, (size_t)(r % 3));                              \
        CHECK(rc == 0, "%s %s collect: rc %d", #N, tn, rc);                                  \
        {                                                                                    \
            int at = 0;                                                                      \
            for (int q = 0; q < n; q++)                                                      \
                for (int i = 0; i < q % 3; i++, at++)                                        \
                    CHECK(dst[at] == TV(T, test_val(wpe(t, q), i, ph), 0),                   \
                          "%s %s collect: rank %d [%d] = %Lg", #N, tn, q, i, LDV(dst[at]));  \
            CHECK(((unsigned char *)dst)[at * sizeof(T)] == SENTINEL, "%s collect: beyond",  \
                  #N);                                                                       \
        }                                                                                    \
        /* fcollect */                                                                       \
        for (int i = 0; i < NE; i++)                                                         \
            src[i] = TV(T, test_val(me, i, ph + 1), 0);                                      \
        rc = shmem_##N##_fcollect(t, dst, src, NE);                                          \
        CHECK(rc == 0, "%s %s fcollect: rc %d", #N, tn, rc);                                 \
        for (int q = 0; q < n; q++)                                                          \
            for (int i = 0; i < NE; i++)                                                     \
                CHECK(dst[q * NE + i] == TV(T, test_val(wpe(t, q), i, ph + 1), 0),           \
                      "%s %s fcollect: rank %d [%d]", #N, tn, q, i);                         \
        /* alltoall: my block for rank q holds values of (me, q * NE + i) */                 \
        for (int i = 0; i < n * NE; i++)                                                     \
            src[i] = TV(T, test_val(me, i, ph + 2), 0);                                      \
        rc = shmem_##N##_alltoall(t, dst, src, NE);                                          \
        CHECK(rc == 0, "%s %s alltoall: rc %d", #N, tn, rc);                                 \
        for (int q = 0; q < n; q++)                                                          \
            for (int i = 0; i < NE; i++)                                                     \
                CHECK(dst[q * NE + i] == TV(T, test_val(wpe(t, q), r * NE + i, ph + 2), 0),  \
                      "%s %s alltoall: from rank %d [%d]", #N, tn, q, i);                    \
        /* alltoalls: element e at e * SST in src, at e * DST in dst */                      \
        for (int e = 0; e < n * NE; e++)                                                     \
            src[e * SST] = TV(T, test_val(me, e, ph + 3), 0);                                \
        memset(dst, SENTINEL, (size_t)n * NE * DST * sizeof(T));                             \
        rc = shmem_##N##_alltoalls(t, dst, src, DST, SST, NE);                               \
        CHECK(rc == 0, "%s %s alltoalls: rc %d", #N, tn, rc);                                \
        for (int q = 0; q < n; q++)                                                          \
            for (int i = 0; i < NE; i++) {                                                   \
                int e = q * NE + i;                                                          \
                CHECK(dst[e * DST] == TV(T, test_val(wpe(t, q), r * NE + i, ph + 3), 0),     \
                      "%s %s alltoalls: from rank %d [%d]", #N, tn, q, i);                   \
                for (size_t b = 0; b < sizeof(T); b++)                                       \
                    CHECK(((unsigned char *)&dst[e * DST + 1])[b] == SENTINEL,               \
                          "%s %s alltoalls: gap %d written", #N, tn, e);                     \
            }                                                                                \
        /* nothing to move: still fine */                                                    \
        CHECK(shmem_##N##_fcollect(t, dst, src, 0) == 0, "%s fcollect 0", #N);               \
        CHECK(shmem_##N##_broadcast(t, dst, src, 0, 0) == 0, "%s broadcast 0", #N);          \
        /* every member is done reading before the next type's writes */                     \
        CHECK(shmem_team_sync(t) == 0, "sync");                                              \
    }
KUMI_SHMEM_RMA_TYPES(DEF_TEST)
#undef DEF_TEST

/* the mem forms, a size that takes kumi's large paths */
static void test_mem(shmem_team_t t, const char *tn, int ph)
{
    int           r = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
    size_t        big = buf_bytes / (size_t)(2 * n);
    unsigned char *s = (unsigned char *)sbuf, *d = (unsigned char *)dbuf;

    for (size_t i = 0; i < big; i++)
        s[i] = (unsigned char)(i * 7 + (size_t)me + (size_t)ph);
    CHECK(shmem_broadcastmem(t, d, s, big, n - 1) == 0, "broadcastmem");
    for (size_t i = 0; i < big; i++)
        CHECK(d[i] == (unsigned char)(i * 7 + (size_t)wpe(t, n - 1) + (size_t)ph),
              "%s broadcastmem [%zu]", tn, i);
    CHECK(shmem_fcollectmem(t, d, s, big) == 0, "fcollectmem");
    for (int q = 0; q < n; q++)
        for (size_t i = 0; i < big; i += 97)
            CHECK(d[(size_t)q * big + i] == (unsigned char)(i * 7 + (size_t)wpe(t, q) + (size_t)ph),
                  "%s fcollectmem rank %d [%zu]", tn, q, i);
    CHECK(shmem_collectmem(t, d, s, (size_t)(r + 1) * 3) == 0, "collectmem");
    {
        size_t at = 0;
        for (int q = 0; q < n; q++)
            for (size_t i = 0; i < (size_t)(q + 1) * 3; i++, at++)
                CHECK(d[at] == (unsigned char)(i * 7 + (size_t)wpe(t, q) + (size_t)ph),
                      "%s collectmem rank %d [%zu]", tn, q, i);
    }
    big = buf_bytes / (size_t)(2 * n * n);
    for (size_t i = 0; i < big * (size_t)n; i++)
        s[i] = (unsigned char)(i * 5 + (size_t)me * 3 + (size_t)ph);
    CHECK(shmem_alltoallmem(t, d, s, big) == 0, "alltoallmem");
    for (int q = 0; q < n; q++)
        for (size_t i = 0; i < big; i += 89)
            CHECK(d[(size_t)q * big + i] == (unsigned char)(((size_t)r * big + i) * 5
                                                            + (size_t)wpe(t, q) * 3 + (size_t)ph),
                  "%s alltoallmem rank %d [%zu]", tn, q, i);
    CHECK(shmem_alltoallsmem(t, d, s, 1, 1, big) == 0, "alltoallsmem");
    CHECK(shmem_team_sync(t) == 0, "sync");
}

int main(int argc, char **argv)
{
    shmem_team_t teams[TT_COUNT];

    if (argc > 1)
        rounds = atoi(argv[1]);
    shmem_init();
    me   = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPES, "at most %d PEs", MAXPES);
    buf_bytes = (size_t)npes * NE * SST * 16 + 4096;
    if (buf_bytes < ((size_t)1 << 20))
        buf_bytes = (size_t)1 << 20;
    sbuf = shmem_malloc(buf_bytes);
    dbuf = shmem_malloc(buf_bytes);
    CHECK(sbuf != NULL && dbuf != NULL, "malloc");
    tt_make(teams);
    for (int ph = 0; ph < rounds; ph++)
        for (int k = 0; k < TT_COUNT; k++) {
            if (teams[k] == SHMEM_TEAM_INVALID)
                continue;
#define RUN(T, N) test_##N(teams[k], tt_name[k], ph);
            KUMI_SHMEM_RMA_TYPES(RUN)
#undef RUN
            test_mem(teams[k], tt_name[k], ph);
        }
    /* invalid teams and roots: nonzero, no hang */
    CHECK(shmem_int_broadcast(SHMEM_TEAM_INVALID, (int *)dbuf, (int *)sbuf, 1, 0) != 0, "invalid");
    CHECK(shmem_int_broadcast(SHMEM_TEAM_WORLD, (int *)dbuf, (int *)sbuf, 1, npes) != 0, "root");
    CHECK(shmem_int_fcollect(SHMEM_TEAM_INVALID, (int *)dbuf, (int *)sbuf, 1) != 0, "invalid");
    CHECK(shmem_int_alltoalls(SHMEM_TEAM_WORLD, (int *)dbuf, (int *)sbuf, 0, 1, 1) != 0, "dst 0");
    tt_destroy(teams);
    shmem_free(dbuf);
    shmem_free(sbuf);
    shmem_finalize();
    return 0;
}
