/*
 * barrier_storm.c -- ROUNDS back-to-back barriers (the algorithm comes from
 * KUMI_BARRIER / KUMI_TREE_RADIX / KUMI_TREE_RELEASE). Before each barrier
 * a PE kicks the round number into its right neighbour's LLCM; after it,
 * the kick of its left neighbour must be there: a barrier that lets anyone
 * out early fails this within a few rounds.
 *
 *   barrier_storm ROUNDS
 */
#include <stdint.h>

#include "pe_test.h"

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 100000;

    OK(kumi_init());
    int    me = kumi_rank(), n = kumi_size();
    size_t slot = kumi_llcm_alloc(8);
    volatile uint64_t *mine = kumi_llcm(slot);
    kumi_team_t w = kumi_team_world();

    OK(kumi_barrier(w));
    for (long r = 1; r <= rounds; r++) {
        uint64_t v = (uint64_t)r;
        OK(kumi_kick((me + 1) % n, slot, &v, 8));
        OK(kumi_barrier(w));
        /* the neighbour may already have kicked r + 1, never less than r;
         * so its next kick may land while we read: an atomic load (the tcp
         * transport's progress thread stores LLCM words atomically) */
        uint64_t got = __atomic_load_n(mine, __ATOMIC_ACQUIRE);
        CHECK(got == v || got == v + 1, "round %ld: left neighbour's kick reads %llu", r,
              (unsigned long long)got);
    }
    OK(kumi_barrier(w));
    OK(kumi_finalize());
    return 0;
}
