/*
 * team_limit.c -- the team limit: splits (of the world and of a subset,
 * so members and non-members hold different numbers of teams) until one
 * fails; every PE must fail the same call, at least 64 teams must have
 * been alive at once, every team made must still work, and after
 * destroying them all (in another order) as many can be made again.
 */
#include "coll_test.h"

#define MAX_TRY 300

static shmem_team_t teams[MAX_TRY];

/* Every 4th split is of the PEs 0, 2, 4, ... (the others get
 * SHMEM_TEAM_INVALID): a team of some members only, which (unlike a copy
 * of the world) measures its barrier at its first collective or its
 * destruction, ~50 ms when PEs outnumber cores, so not every other one. */
static int evens_only(int i)
{
    return i % 4 == 3;
}

/* Splits until one fails; returns the number made. */
static int fill(void)
{
    int n = shmem_n_pes(), i, rc = 0;

    for (i = 0; i < MAX_TRY; i++) {
        teams[i] = SHMEM_TEAM_WORLD;
        if (!evens_only(i))
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &teams[i]);
        else
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0,
                                          &teams[i]);
        if (rc != 0) {
            CHECK(teams[i] == SHMEM_TEAM_INVALID, "a failed split left a team");
            break;
        }
        CHECK((teams[i] != SHMEM_TEAM_INVALID) == (!evens_only(i) || shmem_my_pe() % 2 == 0),
              "split %d: membership", i);
    }
    return i;
}

static void same_everywhere(int made)
{
    static int v, lo, hi;

    v = made;
    CHECK(shmem_int_min_reduce(SHMEM_TEAM_WORLD, &lo, &v, 1) == 0, "min");
    CHECK(shmem_int_max_reduce(SHMEM_TEAM_WORLD, &hi, &v, 1) == 0, "max");
    CHECK(lo == hi, "PEs failed different calls: %d..%d", lo, hi);
}

int main(void)
{
    static long one = 1, sum;
    int         made, again, alive = 0;

    shmem_init();
    made = fill();
    CHECK(made < MAX_TRY, "no limit within %d teams", MAX_TRY);
    same_everywhere(made);
    for (int i = 0; i < made; i++)
        alive += !evens_only(i) || shmem_my_pe() % 2 == 0;
    /* PE 0 holds them all */
    if (shmem_my_pe() == 0)
        CHECK(alive >= 64, "only %d teams alive at once", alive);
    /* the teams work: a reduction on the first and last few and every
     * 16th (in creation order, which every member shares) */
    for (int i = 0; i < made; i++)
        if (teams[i] != SHMEM_TEAM_INVALID && (i < 2 || i >= made - 2 || i % 16 == 0)) {
            CHECK(shmem_long_sum_reduce(teams[i], &sum, &one, 1) == 0, "team %d", i);
            CHECK(sum == shmem_team_n_pes(teams[i]), "team %d: sum %ld", i, sum);
        }
    /* destroy: the evens' first, then the others newest first */
    for (int i = 0; i < made; i++)
        if (evens_only(i))
            shmem_team_destroy(teams[i]);
    for (int i = made - 1; i >= 0; i--)
        if (!evens_only(i))
            shmem_team_destroy(teams[i]);
    again = fill();
    same_everywhere(again);
    CHECK(again == made, "made %d after destroying all, %d before", again, made);
    for (int i = 0; i < again; i++)
        shmem_team_destroy(teams[i]);
    CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "world");
    shmem_finalize();
    return 0;
}
