/*
 * coll_test.h -- what the shmem-coll tests (team_*, coll_*, reduce_*,
 * active_*) share: CHECK (core_test.h: names the PE, file and line, ends
 * the job with status 1), values of any table type built from small
 * integers, and the teams every collective runs on.
 */
#ifndef KUMI_SHMEM_COLL_TEST_H
#define KUMI_SHMEM_COLL_TEST_H

#include <complex.h>
#include <string.h>

#include "core_test.h"

/* A value of type T from small integers: re (and im, the imaginary part of
 * the complex types); exact in every type of the tables. */
#define TV(T, re, im)                                                                        \
    _Generic((T)0, float _Complex: CMPLXF((float)(re), (float)(im)),                         \
             double _Complex: CMPLX((double)(re), (double)(im)), default: (T)(re))
/* for messages: the real part */
#define LDV(x) ((long double)(x))

/* The teams the collective tests run on; a PE outside one holds
 * SHMEM_TEAM_INVALID for it. */
enum { TT_WORLD, TT_SHARED, TT_EVENS, TT_ODDS_REV, TT_ALL_REV, TT_LAST, TT_COUNT };
static const char *const tt_name[TT_COUNT] = { "world", "shared", "evens", "odds reversed",
                                               "all reversed", "last PE" };

static inline void tt_make(shmem_team_t t[TT_COUNT])
{
    int n = shmem_n_pes(), rc;

    t[TT_WORLD]  = SHMEM_TEAM_WORLD;
    t[TT_SHARED] = SHMEM_TEAM_SHARED;
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &t[TT_EVENS]);
    CHECK(rc == 0, "evens: rc %d", rc);
    if (n >= 2) {
        int last_odd = n % 2 == 0 ? n - 1 : n - 2;
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, last_odd, -2, n / 2, NULL, 0,
                                      &t[TT_ODDS_REV]);
        CHECK(rc == 0, "odds: rc %d", rc);
    } else {
        t[TT_ODDS_REV] = SHMEM_TEAM_INVALID;
    }
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &t[TT_ALL_REV]);
    CHECK(rc == 0, "reversed: rc %d", rc);
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 0, 1, NULL, 0, &t[TT_LAST]);
    CHECK(rc == 0, "last: rc %d", rc);
}

static inline void tt_destroy(shmem_team_t t[TT_COUNT])
{
    for (int i = TT_EVENS; i < TT_COUNT; i++)
        shmem_team_destroy(t[i]);
}

#endif
