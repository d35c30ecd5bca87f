/*
 * team_oversub.c -- shmem_init and team creation when the PEs share
 * cores (run pinned to one core, so kumirun tells the PEs they are
 * oversubscribed): the collectives do not time their barrier algorithms
 * then (thousands of barriers that each yield and sleep: a minute of
 * shmem_init at 4 PEs on 2 loaded cores) but take the one timing picks
 * there, and every team still works.
 * The test's command checks KUMI_LOG=info's line for that.
 */
#include "core_test.h"

static long x;

int main(void)
{
    shmem_team_t evens;
    int          me, npes;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0,
                                   &evens) == 0, "split");
    CHECK((evens != SHMEM_TEAM_INVALID) == (me % 2 == 0), "membership");
    if (evens != SHMEM_TEAM_INVALID) {
        int tme = shmem_team_my_pe(evens), tn = shmem_team_n_pes(evens);
        shmem_long_p(&x, me, shmem_team_translate_pe(evens, (tme + 1) % tn, SHMEM_TEAM_WORLD));
        shmem_quiet();
        shmem_team_sync(evens);
        CHECK(x == shmem_team_translate_pe(evens, (tme + tn - 1) % tn, SHMEM_TEAM_WORLD),
              "x %ld", x);
        shmem_team_destroy(evens);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
