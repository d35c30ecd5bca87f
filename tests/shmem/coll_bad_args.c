/*
 * coll_bad_args.c -- bad arguments to the teams and collectives: each
 * prints one line naming the shmem call and returns (nonzero where the
 * call returns a value), on every PE alike, with no crash and no hang;
 * afterwards the collectives still work. CTest checks one of the lines.
 */
#include "coll_test.h"

static long psync[SHMEM_SYNC_SIZE];
static int  src[64], dst[64 * 64];

int main(void)
{
    int          me, npes, local[64];
    long         local_psync[SHMEM_SYNC_SIZE];
    shmem_team_t t = SHMEM_TEAM_WORLD;

    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        psync[i] = local_psync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    me   = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= 64, "at most 64 PEs");

    /* team-based: invalid team, root, strides, NULL, non-symmetric dest */
    CHECK(shmem_int_broadcast(SHMEM_TEAM_INVALID, dst, src, 1, 0) != 0, "invalid team");
    CHECK(shmem_int_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, -1) != 0, "root -1");
    CHECK(shmem_int_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, npes) != 0, "root npes");
    CHECK(shmem_int_fcollect(SHMEM_TEAM_WORLD, NULL, src, 1) != 0, "NULL dest");
    CHECK(shmem_int_alltoall(SHMEM_TEAM_WORLD, dst, NULL, 1) != 0, "NULL source");
    CHECK(shmem_int_alltoalls(SHMEM_TEAM_WORLD, dst, src, 1, 0, 1) != 0, "sst 0");
    CHECK(shmem_int_collect(SHMEM_TEAM_WORLD, local, src, 1) != 0, "local dest");
    CHECK(shmem_int_sum_reduce(SHMEM_TEAM_INVALID, dst, src, 1) != 0, "reduce invalid");
    CHECK(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, NULL, src, 1) != 0, "reduce NULL");
    CHECK(shmem_int_broadcast(SHMEM_TEAM_WORLD, dst, src, (size_t)-1, 0) != 0, "overflow");
    CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0, "sync invalid");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &t) != 0
              && t == SHMEM_TEAM_INVALID, "split");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, NULL) != 0, "NULL out");
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL) != 0, "config NULL");
    shmem_team_destroy(SHMEM_TEAM_WORLD);            /* refused with a message */

    /* active sets: a PE outside the set, sets leaving the job, a pSync that
     * is not symmetric, a root outside the set, negative nreduce */
    if (npes > 1) {
        if (me == 0)
            shmem_barrier(1, 0, npes - 1, psync);    /* PE 0 is not in it */
        shmem_barrier(1, 0, npes, psync);            /* reaches PE npes */
        shmem_barrier(0, 31, 2, psync);              /* stride out of range */
        shmem_broadcast32(dst, src, 1, 0, 0, 0, npes, local_psync);   /* world: fine */
        if (me < 2)
            shmem_barrier(0, 0, 2, local_psync);     /* not symmetric */
    }
    shmem_broadcast64(dst, src, 1, npes, 0, 0, npes, psync);
    shmem_int_sum_to_all(dst, src, -1, 0, 0, npes, NULL, psync);
    shmem_alltoalls32(dst, src, 0, 1, 1, 0, 0, npes, psync);
    shmem_fcollect64(NULL, src, 1, 0, 0, npes, psync);

    /* everything still works */
    src[0] = me + 1;
    CHECK(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0
              && dst[0] == npes * (npes + 1) / 2, "sum %d", dst[0]);
    shmem_barrier_all();
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        CHECK(psync[i] == SHMEM_SYNC_VALUE, "pSync[%d] changed", i);
    shmem_finalize();
    return 0;
}
