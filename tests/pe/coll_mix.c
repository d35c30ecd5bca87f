/*
 * coll_mix.c -- ROUNDS rounds of small collectives of different kinds back
 * to back, each round's values new: an allreduce (doubles, SUM), a
 * broadcast from a rotating root, a reduce to another root, an allreduce
 * of 7 int64 (MAX), an allgather and an alltoall of longs, an allreduce of
 * 2 doubles; every 1000 rounds a burst of broadcasts from root 0 that the
 * last PE joins late. Collectives that share a team's LLCM lines must not
 * take one call's value for another's: recursive doubling once alternated
 * its lines by a sequence the broadcast also advanced, so with a broadcast
 * between two allreduces a fast partner overwrote a value not yet read
 * (2 PEs: a wrong sum every ~10^4-10^5 rounds).
 *
 *   coll_mix ROUNDS
 */
#include <stdint.h>
#include <unistd.h>

#include "pe_test.h"

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 100000;

    OK(kumi_init());
    int         me = kumi_rank(), n = kumi_size();
    kumi_team_t w  = kumi_team_world();

    for (long r = 0; r < rounds; r++) {
        double x = me + r, sum = -1, want = (double)n * r + (double)n * (n - 1) / 2;
        OK(kumi_allreduce(w, &sum, &x, 1, KUMI_DOUBLE, KUMI_SUM));
        CHECK(sum == want, "round %ld: allreduce sum %.17g, expected %.17g", r, sum, want);

        int  root = (int)(r % n);
        long b    = me == root ? r : -1;
        OK(kumi_broadcast(w, &b, sizeof b, root));
        CHECK(b == r, "round %ld: broadcast from %d carried %ld", r, root, b);

        int  rroot = (int)((r + 1) % n);
        long v = (long)me * r, red = -1;
        OK(kumi_reduce(w, &red, &v, 1, KUMI_INT64, KUMI_SUM, rroot));
        if (me == rroot)
            CHECK(red == r * (long)n * (n - 1) / 2, "round %ld: reduce to %d gave %ld", r,
                  rroot, red);

        int64_t m[7], mx[7];
        for (int i = 0; i < 7; i++)
            m[i] = (int64_t)((me + i) % n) * 1000 + r;
        OK(kumi_allreduce(w, mx, m, 7, KUMI_INT64, KUMI_MAX));
        for (int i = 0; i < 7; i++)
            CHECK(mx[i] == (int64_t)(n - 1) * 1000 + r, "round %ld: max[%d] %lld", r, i,
                  (long long)mx[i]);

        /* gathers through the same lines as the small reductions */
        long g = r * 10 + me, all[KUMI_TEAM_MAX], a2a[KUMI_TEAM_MAX], got[KUMI_TEAM_MAX];
        OK(kumi_allgather(w, all, &g, sizeof g));
        for (int p = 0; p < n; p++)
            CHECK(all[p] == r * 10 + p, "round %ld: allgather[%d] %ld", r, p, all[p]);
        for (int p = 0; p < n; p++)
            a2a[p] = r * 100 + me * 10 + p;   /* block p goes to PE p */
        OK(kumi_alltoall(w, got, a2a, sizeof(long)));
        for (int p = 0; p < n; p++)
            CHECK(got[p] == r * 100 + p * 10 + me, "round %ld: alltoall from %d %ld", r, p,
                  got[p]);

        /* 16 bytes through the shared line's slots after 8-byte calls took
         * them, and before the next round's: a slot's tag must never be
         * read from another call's value bytes (the second value's sign
         * bit makes them a tag larger than any real one) */
        double d[2] = { me + r, -(me + 1.0) * 1e10 }, ds[2] = { -1, -1 };
        OK(kumi_allreduce(w, ds, d, 2, KUMI_DOUBLE, KUMI_SUM));
        CHECK(ds[0] == want && ds[1] == -(double)n * (n + 1) / 2 * 1e10,
              "round %ld: allreduce of 2 doubles %.17g %.17g", r, ds[0], ds[1]);

        /* now and then a burst from root 0 (the eager ring) that the last
         * PE starts late: the root runs ahead until the ring is full and
         * must then wait for it, never overwrite what it has not taken */
        if (r % 1000 == 0) {
            if (me == n - 1)
                usleep(2000);
            for (long k = 0; k < 3 * 16 + 5; k++) {
                long v = me == 0 ? r * 100 + k : -1;
                OK(kumi_broadcast(w, &v, sizeof v, 0));
                CHECK(v == r * 100 + k, "round %ld: burst broadcast %ld carried %ld", r, k, v);
            }
        }
    }
    OK(kumi_barrier(w));
    OK(kumi_finalize());
    return 0;
}
