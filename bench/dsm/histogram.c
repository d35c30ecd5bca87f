/*
 * histogram.c -- a shared histogram under locks on the DSM.
 *
 * p->n samples (sample i from kk_hash(seed, i); each PE generates its
 * contiguous share) are binned into HIST_BINS bins. The bins are cut into
 * HIST_GROUPS groups, each with its own kumi_mutex_t in front of its bins
 * in one DSM allocation, homed round-robin on the PEs (the lock and the
 * data it guards move together). The bin of a sample is the product of two
 * uniform values scaled to the bins, so low bins are hot: their groups'
 * locks see the most contention. Timed (one kk_timer section), p->iters
 * times:
 *   1. every PE counts its samples into a private histogram, except every
 *      HIST_DIRECT-th sample, then adds the private histogram to the shared
 *      one group by group under the group's lock, starting at a different
 *      group on each PE (coarse-grain: a lock pass moves the group's lines
 *      to the adder, write misses);
 *   2. the remaining samples are added one by one under their group's lock
 *      (fine-grain: lock, one increment, unlock: the lock's lines and one
 *      bin line ping-pong between the PEs).
 * Checked by PE 0: every count equals p->iters times a sequential
 * histogram. Checksum: sum of count[b] * (b + 1).
 */
#include <kumi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

#define HIST_BINS   4096
#define HIST_GROUPS 16
#define HIST_GBINS  (HIST_BINS / HIST_GROUPS)
#define HIST_DIRECT 1024                /* 1 in 1024 samples: fine-grain */
#define DEF_N       (1L << 24)

struct hist_group {
    kumi_mutex_t lock;                  /* guards bins[] */
    long         bins[HIST_GBINS];
};

/* the bin of sample i: the product of two uniform 12-bit values */
static int hist_bin(unsigned long seed, long i)
{
    uint64_t z = kk_hash(seed, (unsigned long long)i);
    uint64_t u = z & (HIST_BINS - 1), v = (z >> 32) & (HIST_BINS - 1);
    return (int)(u * v / HIST_BINS);
}

int KK_FN(histogram)(const struct kk_params *p, struct kk_result *r)
{
    int  me = kumi_rank(), np = kumi_size();
    long n = p->n > 0 ? p->n : DEF_N, iters = p->iters > 0 ? p->iters : 1;
    /* a local copy: loads through p would be reloaded (and checked) in
     * every iteration, since the histogram stores may alias *p */
    unsigned long seed = p->seed;
    long lo = n * me / np, hi = n * (me + 1) / np;
    int  fail = 0;

    r->ok = 1;
    r->seconds = 0;
    struct hist_group *g[HIST_GROUPS];
    /* The private partial histogram is a local array (32 KiB of stack):
     * kumi-translate proves a non-escaping local private and leaves its
     * accesses unchecked; from malloc it would range-check every count. */
    long part[HIST_BINS];
    /* group k is allocated (and homed) by PE k % np, which initializes it */
    for (int k = 0; k < HIST_GROUPS; k++) {
        struct hist_group *mine = NULL;
        if (k % np == me) {
            mine = kumi_dsm_malloc(sizeof *mine);
            if (mine != NULL) {
                kumi_mutex_init(&mine->lock);
                for (int b = 0; b < HIST_GBINS; b++)
                    mine->bins[b] = 0;
            }
        }
        g[k] = kk_share(mine, k % np);
        if (g[k] == NULL)
            fail = 1;
    }
    /* my part of the checksum, on a line of its own */
    long *sums = NULL;
    if (me == 0)
        sums = kumi_dsm_malloc(np * 64);
    if ((sums = kk_share(sums, 0)) == NULL)
        fail = 1;
    if (fail) {
        snprintf(r->why, sizeof r->why, "histogram: kumi_dsm_malloc failed");
        kumi_barrier(kumi_team_world());
        for (int k = 0; k < HIST_GROUPS; k++)
            if (k % np == me && g[k] != NULL)
                kumi_dsm_free(g[k]);
        if (me == 0 && sums != NULL)
            kumi_dsm_free(sums);
        kumi_barrier(kumi_team_world());
        return -1;
    }

    kk_timer_start(r);      /* its barrier: the groups are initialized */
    for (long it = 0; it < iters; it++) {
        /* 1. private histogram, merged group by group under the locks */
        memset(part, 0, sizeof part);
        for (long i = lo; i < hi; i++)
            if (i % HIST_DIRECT != 0)
                part[hist_bin(seed, i)]++;
        for (int j = 0; j < HIST_GROUPS; j++) {
            int                k = (j + me * HIST_GROUPS / np) % HIST_GROUPS;
            struct hist_group *gk = g[k];
            const long        *pk = part + k * HIST_GBINS;
            kumi_mutex_lock(&gk->lock);
            for (int b = 0; b < HIST_GBINS; b++)
                gk->bins[b] += pk[b];
            kumi_mutex_unlock(&gk->lock);
        }
        /* 2. the rest, one locked increment each */
        for (long i = (lo + HIST_DIRECT - 1) / HIST_DIRECT * HIST_DIRECT; i < hi;
             i += HIST_DIRECT) {
            int                b = hist_bin(seed, i);
            struct hist_group *gk = g[b / HIST_GBINS];
            kumi_mutex_lock(&gk->lock);
            gk->bins[b % HIST_GBINS]++;
            kumi_mutex_unlock(&gk->lock);
        }
    }
    kk_timer_stop(r);

    /* checksum: each PE sums the groups it is home of */
    long cs = 0;
    for (int k = me; k < HIST_GROUPS; k += np)
        for (int b = 0; b < HIST_GBINS; b++)
            cs += g[k]->bins[b] * (long)(k * HIST_GBINS + b + 1);
    sums[me * 8] = cs;
    kumi_barrier(kumi_team_world());
    cs = 0;
    for (int q = 0; q < np; q++)
        cs += sums[q * 8];
    r->checksum = (double)cs;

    if (me == 0 && p->verify) {
        memset(part, 0, sizeof part);
        for (long i = 0; i < n; i++)
            part[hist_bin(seed, i)]++;
        for (int b = 0; b < HIST_BINS; b++) {
            long got = g[b / HIST_GBINS]->bins[b % HIST_GBINS];
            if (got != iters * part[b]) {
                r->ok = 0;
                snprintf(r->why, sizeof r->why,
                         "histogram: bin %d holds %ld, sequential %ld x %ld iterations",
                         b, got, part[b], iters);
                break;
            }
        }
    }

    kumi_barrier(kumi_team_world());
    for (int k = 0; k < HIST_GROUPS; k++)
        if (k % np == me)
            kumi_dsm_free(g[k]);
    if (me == 0)
        kumi_dsm_free(sums);
    kumi_barrier(kumi_team_world());
    return 0;
}
