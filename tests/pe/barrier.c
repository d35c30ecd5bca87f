/* barrier.c -- kumi_barrier on the world team, many rounds: everything a PE
 * put, kicked or added before a barrier is visible everywhere after it, and
 * no PE leaves a barrier before every PE has entered it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kumi.h>

#include "pe_test.h"

int main(int argc, char **argv)
{
    OK(kumi_init());
    const int   me = kumi_rank(), npes = kumi_size();
    kumi_team_t world = kumi_team_world();
    const int   rounds = argc > 1 ? atoi(argv[1]) : npes > 4 ? 2000 : 5000;

    CHECK(world != NULL, "no world team");
    CHECK(kumi_team_rank(world) == me && kumi_team_size(world) == npes,
          "world team rank %d size %d, expected %d %d", kumi_team_rank(world),
          kumi_team_size(world), me, npes);

    /* two parities, so a PE already in round r + 1 does not overwrite what a
     * slower PE still checks for round r */
    uint64_t *vals    = kumi_calloc(2 * (size_t)npes, sizeof(uint64_t));
    uint8_t  *blocks  = kumi_calloc(2 * (size_t)npes, 256);
    uint64_t *counter = kumi_calloc(1, sizeof(uint64_t));
    size_t    kicks   = kumi_llcm_alloc(2 * (size_t)npes * sizeof(uint64_t));
    volatile uint64_t *kicked = kumi_llcm(kicks);
    uint8_t   block[256];

    CHECK(vals && blocks && counter && kicks != (size_t)-1, "allocation failed");
    OK(kumi_barrier(world));
    for (int r = 0; r < rounds; r++) {
        size_t   par = (size_t)(r & 1) * (size_t)npes;
        uint64_t v   = (uint64_t)r * 1000003u + (uint64_t)me;

        memset(block, (int)(uint8_t)(r + me), sizeof(block));
        for (int pe = 0; pe < npes; pe++) {
            OK(kumi_put(&vals[par + (size_t)me], &v, sizeof(v), pe));
            OK(kumi_put(blocks + (par + (size_t)me) * 256, block, sizeof(block), pe));
        }
        uint64_t k = v ^ 0xabcdef;
        OK(kumi_kick((me + 1) % npes, kicks + (par + (size_t)me) * 8, &k, 8));
        OK(kumi_atomic_add_u64(counter, 1, 0));

        OK(kumi_barrier(world));

        for (int pe = 0; pe < npes; pe++) {
            uint64_t want = (uint64_t)r * 1000003u + (uint64_t)pe;
            CHECK(vals[par + (size_t)pe] == want, "round %d: put from pe %d before the barrier "
                  "not visible after it (%llu, expected %llu)", r, pe,
                  (unsigned long long)vals[par + (size_t)pe], (unsigned long long)want);
            const uint8_t *b = blocks + (par + (size_t)pe) * 256;
            CHECK(b[0] == (uint8_t)(r + pe) && b[255] == (uint8_t)(r + pe), "round %d: block "
                  "from pe %d incomplete after the barrier", r, pe);
        }
        int left = (me + npes - 1) % npes;
        uint64_t kw = ((uint64_t)r * 1000003u + (uint64_t)left) ^ 0xabcdef;
        CHECK(kicked[par + (size_t)left] == kw, "round %d: kick from pe %d not visible after "
              "the barrier", r, left);
        if (me == 0) {
            /* all adds of rounds <= r are in; some of round r + 1 may be too */
            uint64_t c = __atomic_load_n(counter, __ATOMIC_SEQ_CST);
            CHECK(c >= (uint64_t)(r + 1) * (uint64_t)npes && c <= (uint64_t)(r + 2) * (uint64_t)npes,
                  "round %d: counter %llu, expected %llu..%llu", r, (unsigned long long)c,
                  (unsigned long long)(r + 1) * npes, (unsigned long long)(r + 2) * npes);
        }
    }
    OK(kumi_barrier(world));
    if (me == 0)
        CHECK(*counter == (uint64_t)rounds * (uint64_t)npes, "final counter %llu",
              (unsigned long long)*counter);

    int rc = kumi_barrier(NULL);
    CHECK(rc == KUMI_ERR_INVALID, "kumi_barrier(NULL) = %d", rc);

    kumi_free(counter);
    kumi_free(blocks);
    kumi_free(vals);
    if (me == 0)
        printf("barrier: %d PEs, %d rounds ok\n", npes, rounds);
    OK(kumi_finalize());
    return 0;
}
