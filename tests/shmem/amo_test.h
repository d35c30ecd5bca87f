/*
 * amo_test.h -- what the shmem-amo tests (amo_*, sync_*, lock_*) share:
 * CHECK (names the PE, file and line; ends the job with status 1, and
 * kumirun ends the others) and gathering each PE's results on PE 0.
 */
#ifndef KUMI_SHMEM_AMO_TEST_H
#define KUMI_SHMEM_AMO_TEST_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CHECK: the one the shmem-core tests use */
#include "core_test.h"

#define AMO_TEST_MAX_PES 64

/* PE 0's gather area: every PE's n bytes at pe * AMO_TEST_SLOT */
#define AMO_TEST_SLOT 256
static unsigned char amo_test_gathered[AMO_TEST_MAX_PES * AMO_TEST_SLOT];

/* Every PE's n bytes (<= AMO_TEST_SLOT) land on PE 0; on return (on
 * every PE) PE 0 may read them with amo_test_slot(pe). Collective. */
static inline void amo_test_gather(const void *mine, size_t n)
{
    CHECK(n <= AMO_TEST_SLOT && shmem_n_pes() <= AMO_TEST_MAX_PES, "gather too big");
    shmem_barrier_all();   /* PE 0 is done with the last round's */
    shmem_putmem(amo_test_gathered + (size_t)shmem_my_pe() * AMO_TEST_SLOT, mine, n, 0);
    shmem_barrier_all();
}

/* seconds (C11 timespec_get: the tests compile as strict C11 too) */
static inline double amo_test_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline const void *amo_test_slot(int pe)
{
    return amo_test_gathered + (size_t)pe * AMO_TEST_SLOT;
}

#endif
