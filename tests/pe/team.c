/*
 * team.c -- making teams: kumi_team_split (colors and keys), negative and
 * zero strides of kumi_team_split_strided, and the limit on teams alive at
 * once, each followed by collectives on the new teams with checked results.
 *
 *   team split      odd/even, singletons, reversed and equal keys, members
 *                   left out (color < 0), a split of a split; the teams of
 *                   one split share a slot
 *   team strided    negative strides, stride 0, and the bad ones
 *   team limits     teams of all PEs until creation fails: every PE fails
 *                   the same call with KUMI_ERR_NOMEM and one message (PE
 *                   0's); at least 70 were alive (run with KUMI_LLCM_SIZE=2m,
 *                   the SHMEM binding's setting); large collectives on many
 *                   of them (more than there are scratch areas); destroy all
 *                   and do it again
 *
 * INTERNAL: reads the teams' slots (struct kumi_team) to check that the
 * disjoint teams of one split share one.
 */
#include <stdint.h>

#include "pe_test.h"
#include "rt.h"

static int me, npes;

/* Collectives on t whose results depend on who its members are, in order:
 * a sum of world ranks (one element and a large count), a broadcast from
 * the last member, an allgather of world ranks, an alltoall, a barrier. */
static void check_team(kumi_team_t t, const char *what)
{
    int     tr = kumi_team_rank(t), ts = kumi_team_size(t);
    int64_t want = 0, one = me, sum = -1;
    size_t  big = 3000;

    if (tr < 0)
        return;
    CHECK(kumi_team_pe(t, tr) == me, "%s: team rank %d maps to PE %d, not me", what, tr,
          kumi_team_pe(t, tr));
    for (int r = 0; r < ts; r++)
        want += kumi_team_pe(t, r);
    OK(kumi_allreduce(t, &sum, &one, 1, KUMI_INT64, KUMI_SUM));
    CHECK(sum == want, "%s: sum of PEs %lld, expected %lld", what, (long long)sum,
          (long long)want);

    int64_t *v = malloc(big * sizeof(*v)), *s = malloc(big * sizeof(*s));
    CHECK(v && s, "malloc");
    for (size_t i = 0; i < big; i++)
        v[i] = (int64_t)me * 1000 + (int64_t)i;
    OK(kumi_allreduce(t, s, v, big, KUMI_INT64, KUMI_SUM));
    for (size_t i = 0; i < big; i++)
        CHECK(s[i] == want * 1000 + (int64_t)ts * (int64_t)i, "%s: large sum [%zu] %lld", what,
              i, (long long)s[i]);

    int64_t b = tr == ts - 1 ? 4242 + me : -1;
    OK(kumi_broadcast(t, &b, sizeof(b), ts - 1));
    CHECK(b == 4242 + kumi_team_pe(t, ts - 1), "%s: broadcast gave %lld", what, (long long)b);

    int *all = malloc((size_t)ts * sizeof(int)), *a2a = malloc((size_t)ts * sizeof(int)),
        *got = malloc((size_t)ts * sizeof(int));
    CHECK(all && a2a && got, "malloc");
    OK(kumi_allgather(t, all, &me, sizeof(int)));
    for (int r = 0; r < ts; r++)
        CHECK(all[r] == kumi_team_pe(t, r), "%s: allgather[%d] = %d", what, r, all[r]);
    for (int r = 0; r < ts; r++)
        a2a[r] = me * 100 + r;
    OK(kumi_alltoall(t, got, a2a, sizeof(int)));
    for (int r = 0; r < ts; r++)
        CHECK(got[r] == kumi_team_pe(t, r) * 100 + tr, "%s: alltoall from %d = %d", what, r,
              got[r]);
    OK(kumi_barrier(t));
    free(v);
    free(s);
    free(all);
    free(a2a);
    free(got);
}

/* t has the same slot on every PE that is a member of a team of this
 * split (-1 elsewhere): disjoint teams of one call share it */
static void check_shared_slot(kumi_team_t t, const char *what)
{
    int  slot = t->slot, *all = malloc((size_t)npes * sizeof(int)), common = -1;
    CHECK(all != NULL, "malloc");
    OK(kumi_allgather(kumi_team_world(), all, &slot, sizeof(int)));
    for (int p = 0; p < npes; p++) {
        if (all[p] < 0)
            continue;
        if (common < 0)
            common = all[p];
        CHECK(all[p] == common, "%s: PE %d's team has slot %d, another %d", what, p, all[p],
              common);
    }
    free(all);
}

static void split_case(kumi_team_t parent, int color, int key, int want_rank, int want_size,
                       const char *what)
{
    kumi_team_t t;
    OK(kumi_team_split(parent, color, key, &t));
    CHECK(kumi_team_rank(t) == want_rank && kumi_team_size(t) == want_size,
          "%s: rank %d size %d, expected %d and %d", what, kumi_team_rank(t),
          kumi_team_size(t), want_rank, want_size);
    check_shared_slot(t, what);
    check_team(t, what);
    OK(kumi_team_destroy(t));
}

static void test_split(void)
{
    kumi_team_t w = kumi_team_world(), half, sub;

    /* odd/even, ordered by world rank */
    split_case(w, me % 2, me, me / 2, (npes - me % 2 + 1) / 2, "odd/even");
    /* singletons */
    split_case(w, me, 0, 0, 1, "singletons");
    /* reversed keys: one team, rank n-1-me */
    split_case(w, 7, -me, npes - 1 - me, npes, "reversed keys");
    /* equal keys: parent rank decides */
    split_case(w, 0, 5, me, npes, "equal keys");
    /* keys that repeat in pairs, reversed: (key, rank) order */
    {
        int key = -(me / 2), rank = 0;
        for (int p = 0; p < npes; p++)
            if (-(p / 2) < key || (-(p / 2) == key && p < me))
                rank++;
        split_case(w, 1, key, rank, npes, "paired keys");
    }
    /* PE 0 stays out: a handle with rank -1 that can only be destroyed */
    {
        kumi_team_t t;
        OK(kumi_team_split(w, me == 0 ? -1 : 3, me, &t));
        CHECK(kumi_team_rank(t) == (me == 0 ? -1 : me - 1)
              && kumi_team_size(t) == (me == 0 ? 0 : npes - 1),
              "left out: rank %d size %d", kumi_team_rank(t), kumi_team_size(t));
        check_team(t, "left out");
        if (me == 0) {
            int64_t x = 1, y;
            capture_begin();
            int rc = kumi_allreduce(t, &y, &x, 1, KUMI_INT64, KUMI_SUM);
            const char *err = capture_end();
            CHECK(rc == KUMI_ERR_INVALID && strstr(err, "not a member"), "non-member: %d %s",
                  rc, err);
        }
        OK(kumi_team_destroy(t));
    }
    /* three colors by world rank mod 3, keys reversed, then a split of one
     * of those teams into its halves */
    OK(kumi_team_split(w, me % 3, npes - me, &half));
    {
        int members = 0, rank = 0;
        for (int p = 0; p < npes; p++)
            if (p % 3 == me % 3) {
                members++;
                rank += p > me;
            }
        CHECK(kumi_team_rank(half) == rank && kumi_team_size(half) == members,
              "mod 3: rank %d size %d", kumi_team_rank(half), kumi_team_size(half));
    }
    check_shared_slot(half, "mod 3");
    check_team(half, "mod 3");
    int hr = kumi_team_rank(half), hs = kumi_team_size(half);
    OK(kumi_team_split(half, hr < hs / 2 ? 0 : 1, hr, &sub));
    CHECK(kumi_team_rank(sub) == (hr < hs / 2 ? hr : hr - hs / 2), "sub: rank %d",
          kumi_team_rank(sub));
    check_team(sub, "split of a split");
    OK(kumi_team_destroy(sub));
    OK(kumi_team_destroy(half));

    /* bad argument: out NULL (every PE, so nobody waits) */
    capture_begin();
    int rc = kumi_team_split(w, 0, 0, NULL);
    const char *err = capture_end();
    CHECK(rc == KUMI_ERR_INVALID && strstr(err, "kumi_team_split"), "NULL out: %d %s", rc, err);
}

static void strided_case(int start, int stride, int size, const char *what)
{
    kumi_team_t t;
    int         want = -1;
    OK(kumi_team_split_strided(kumi_team_world(), start, stride, size, &t));
    for (int i = 0; i < size; i++)
        if (start + i * stride == me)
            want = i;
    CHECK(kumi_team_rank(t) == want && kumi_team_size(t) == size, "%s: rank %d size %d (want "
          "%d)", what, kumi_team_rank(t), kumi_team_size(t), want);
    for (int i = 0; i < size; i++)
        CHECK(kumi_team_pe(t, i) == start + i * stride, "%s: member %d is PE %d", what, i,
              kumi_team_pe(t, i));
    check_team(t, what);
    OK(kumi_team_destroy(t));
}

static void test_strided(void)
{
    kumi_team_t w = kumi_team_world(), t = NULL;

    strided_case(npes - 1, -1, npes, "reversed world");
    strided_case(npes - 1, -2, (npes + 1) / 2, "every other, from the top");
    if (npes >= 3)
        strided_case(npes - 2, -1, npes - 1, "reversed, from the second last");
    strided_case(npes - 1, 0, 1, "stride 0, one member");
    strided_case(0, 0, 1, "stride 0 at 0");
    strided_case(0, 1, npes, "the world again");

    /* bad ones, on every PE alike: nothing made, nobody waits */
    static const int bad[][3] = {
        { 0, 0, 2 },     /* stride 0 with two members */
        { 0, -1, 2 },    /* runs below 0 */
        { 1, -1, 3 },
        { 0, 1, 0 },     /* size 0 */
        { -1, 1, 1 },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        capture_begin();
        int rc = kumi_team_split_strided(w, bad[i][0], bad[i][1], bad[i][2], &t);
        const char *err = capture_end();
        CHECK(rc == KUMI_ERR_INVALID && strstr(err, "do not fit"), "bad case %zu: %d %s", i, rc,
              err);
    }
    /* beyond the top, with any stride sign */
    capture_begin();
    int rc1 = kumi_team_split_strided(w, npes - 1, 1, 2, &t);
    int rc2 = kumi_team_split_strided(w, npes, -1, 1, &t);
    int rc3 = kumi_team_split_strided(w, 0, 1 << 30, 3, &t);
    int rc4 = kumi_team_split_strided(w, npes - 1, -(1 << 30), 3, &t);
    capture_end();
    CHECK(rc1 == KUMI_ERR_INVALID && rc2 == KUMI_ERR_INVALID && rc3 == KUMI_ERR_INVALID
          && rc4 == KUMI_ERR_INVALID, "out of range: %d %d %d %d", rc1, rc2, rc3, rc4);
}

/* Teams of every PE until one call fails; returns how many were made.
 * Most are copies of the world (they take its barrier choice); every 32nd
 * is the world reversed, which measures its own at its first collective. */
static int fill(kumi_team_t *teams, int cap, int *nomem_msgs)
{
    int made = 0, rc = KUMI_OK;
    while (made < cap) {
        capture_begin();
        if (made % 32 == 31)
            rc = kumi_team_split_strided(kumi_team_world(), npes - 1, -1, npes, &teams[made]);
        else
            rc = kumi_team_split_strided(kumi_team_world(), 0, 1, npes, &teams[made]);
        const char *err = capture_end();
        if (rc != KUMI_OK) {
            CHECK(rc == KUMI_ERR_NOMEM, "team %d: %s, expected KUMI_ERR_NOMEM", made,
                  kumi_strerror(rc));
            *nomem_msgs = strstr(err, "too many teams") != NULL;
            CHECK(*nomem_msgs == (me == 0), "team %d: PE %d's message: '%s'", made, me, err);
            break;
        }
        CHECK(err[0] == '\0', "team %d: unexpected message '%s'", made, err);
        made++;
    }
    CHECK(rc != KUMI_OK, "no failure after %d teams", made);
    return made;
}

static void test_limits(void)
{
    enum { CAP = KUMI_TEAM_MAX + 8 };
    kumi_team_t teams[CAP];
    int         made[2], msgs = 0, *all = malloc((size_t)npes * sizeof(int));
    CHECK(all != NULL, "malloc");

    for (int round = 0; round < 2; round++) {
        made[round] = fill(teams, CAP, &msgs);
        /* every PE failed the same call */
        OK(kumi_allgather(kumi_team_world(), all, &made[round], sizeof(int)));
        for (int p = 0; p < npes; p++)
            CHECK(all[p] == made[round], "round %d: PE %d failed after %d teams, I after %d",
                  round, p, all[p], made[round]);
        CHECK(made[round] >= 70, "round %d: only %d teams at once", round, made[round]);
        OK(kumi_allreduce(kumi_team_world(), &msgs, &msgs, 1, KUMI_INT32, KUMI_SUM));
        CHECK(msgs == 1, "round %d: %d PEs printed the message", round, msgs);
        /* every team works; the large collectives of the first 24 take
         * scratch areas (16 by default, the world's included), the rest
         * move in pieces */
        capture_begin();
        for (int k = 0; k < made[round]; k++) {
            int64_t x = me + k, s;
            OK(kumi_allreduce(teams[k], &s, &x, 1, KUMI_INT64, KUMI_SUM));
            CHECK(s == (int64_t)npes * (npes - 1) / 2 + (int64_t)npes * k, "team %d: sum %lld",
                  k, (long long)s);
            if (k < 24)
                check_team(teams[k], "one of many");
        }
        capture_end();
        /* destroy in an order other than creation, then all again */
        for (int k = made[round] - 1; k >= 0; k -= 2)
            OK(kumi_team_destroy(teams[k]));
        for (int k = made[round] - 2; k >= 0; k -= 2)
            OK(kumi_team_destroy(teams[k]));
    }
    CHECK(made[0] == made[1], "%d teams the first time, %d the second", made[0], made[1]);
    /* with the slots back, teams work as ever */
    strided_case(0, 1, npes, "after the limit");
    if (me == 0)
        printf("team limits: %d teams besides the world at once, on %d PEs\n", made[0], npes);
    free(all);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "split";

    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();
    if (strcmp(mode, "split") == 0)
        test_split();
    else if (strcmp(mode, "strided") == 0)
        test_strided();
    else if (strcmp(mode, "limits") == 0)
        test_limits();
    else
        CHECK(0, "unknown mode %s", mode);
    OK(kumi_finalize());
    return 0;
}
