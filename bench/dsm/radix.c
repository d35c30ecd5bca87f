/*
 * radix.c -- parallel LSD radix sort on the DSM (SPLASH-2 RADIX style).
 *
 * p->n 32-bit keys (key i = kk_hash(seed, i), so the input does not
 * depend on the PE count) are sorted in 4 passes of 8 bits. The key arrays
 * src and dst are split in P contiguous parts, part q homed at PE q (each PE
 * allocates its own part). Each pass:
 *   1. every PE counts the digits of its part of src into its own histogram
 *      (DSM, homed at it: stores hit locally);
 *   2. barrier; every PE reads all P histograms (P * 256 counts: read
 *      misses on the other PEs' lines) and computes, redundantly, the
 *      prefix: where its keys of each digit go in dst;
 *   3. every PE permutes its keys into dst: runs of consecutive positions,
 *      one per digit, spread over every PE's part (write misses on remote
 *      blocks -- up to 4 KiB, a quarter of a run, see RADIX_BLOCK -- and
 *      the blocks at the boundaries of the runs are falsely shared).
 *      This is the communication-heavy step;
 *   4. barrier; src and dst swap.
 * Timed (kk_timer_start/stop around each sort, seconds and DSM counters
 * summed): the 4 passes, p->iters times, the input regenerated untimed in
 * between. Checked by PE 0 against qsort of a private copy of the input
 * (sorted and a permutation). Checksum: sum of key[i] * (i + 1) mod 2^53.
 */
#include <kumi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "kernel.h"

#define RADIX_BITS 8
#define RADIX      (1 << RADIX_BITS)
#define PASSES     (32 / RADIX_BITS)       /* even: the result ends in src */
#define DEF_N      (1L << 22)
/* Largest coherence block of the key arrays. The permutation writes runs
 * of about n / (RADIX * P) consecutive keys: a block of a quarter of a run
 * moves it in few misses while only the blocks at run boundaries are
 * falsely shared; a block larger than a run would be written by several
 * PEs at once and ping-pong (at n = 10^5, P = 2, 1 KiB blocks made the sort
 * 10x slower). */
#define RADIX_BLOCK 4096

static uint32_t radix_key(unsigned long seed, long i)
{
    return (uint32_t)kk_hash(seed, (unsigned long long)i);
}

/* kk_timer_stop sets r->seconds and r->st for one section: add them up
 * over the iterations (the input is regenerated outside the sections). */
static void radix_add(struct kk_result *r, double *sec, struct kk_stats *st)
{
    *sec += r->seconds;
    st->read_misses   += r->st.read_misses;
    st->write_misses  += r->st.write_misses;
    st->upgrades      += r->st.upgrades;
    st->msgs_sent     += r->st.msgs_sent;
    st->msgs_received += r->st.msgs_received;
}

static int radix_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* One pass from src to dst on the digit at shift. lo[q] is the first
 * global index of part q (lo[np] = n); hist[q] is PE q's histogram. */
static void radix_pass(int me, int np, const long *lo, uint32_t **src,
                       uint32_t **dst, long **hist, int shift)
{
    uint32_t *in = src[me];
    long      cnt = lo[me + 1] - lo[me];
    long     *h = hist[me];

    for (int d = 0; d < RADIX; d++)
        h[d] = 0;
    for (long i = 0; i < cnt; i++)
        h[(in[i] >> shift) & (RADIX - 1)]++;
    kumi_barrier(kumi_team_world());

    /* My first position for digit d: all keys of smaller digits, plus the
     * keys of digit d on lower PEs. Then a write cursor per digit that
     * walks from part to part, so the permutation needs no division. */
    uint32_t *ptr[RADIX];
    long      left[RADIX];
    int       part[RADIX];
    long      base = 0;
    for (int d = 0; d < RADIX; d++) {
        long off = base;
        for (int q = 0; q < np; q++) {
            long c = hist[q][d];
            if (q < me)
                off += c;
            base += c;
        }
        int q = 0;
        while (q < np - 1 && off >= lo[q + 1])
            q++;
        part[d] = q;
        ptr[d]  = dst[q] + (off - lo[q]);
        left[d] = lo[q + 1] - off;
    }
    for (long i = 0; i < cnt; i++) {
        uint32_t k = in[i];
        int      d = (k >> shift) & (RADIX - 1);
        *ptr[d]++ = k;
        if (--left[d] == 0 && part[d] < np - 1) {
            int q = ++part[d];
            /* an empty part has lo[q + 1] == lo[q]: skip it */
            while (q < np - 1 && lo[q + 1] == lo[q])
                q++;
            part[d] = q;
            ptr[d]  = dst[q];
            left[d] = lo[q + 1] - lo[q];
        }
    }
    kumi_barrier(kumi_team_world());
}

int KK_FN(radix)(const struct kk_params *p, struct kk_result *r)
{
    int  me = kumi_rank(), np = kumi_size();
    long n = p->n > 0 ? p->n : DEF_N, iters = p->iters > 0 ? p->iters : 1;
    unsigned long seed = p->seed;
    int  fail = 0;

    r->ok = 1;
    r->seconds = 0;
    long      *lo = malloc((np + 1) * sizeof *lo);
    uint32_t **a = malloc(np * sizeof *a), **b = malloc(np * sizeof *b);
    long     **hist = malloc(np * sizeof *hist);
    if (lo == NULL || a == NULL || b == NULL || hist == NULL) {
        snprintf(r->why, sizeof r->why, "radix: PE %d: malloc failed", me);
        free(lo); free(a); free(b); free(hist);
        return -1;
    }
    for (int q = 0; q <= np; q++)
        lo[q] = n * q / np;

    /* My parts (at least one line: a size of 0 is not an allocation);
     * hist[me][RADIX] carries my part of the checksum. */
    long      mine = lo[me + 1] - lo[me];
    size_t    run = (size_t)(n / ((long)RADIX * np)) * sizeof(uint32_t), blk = 64;
    while (blk < RADIX_BLOCK && 2 * blk <= run / 4)
        blk *= 2;
    size_t    bytes = (mine > 16 ? (size_t)mine : 16) * sizeof(uint32_t);
    uint32_t *ma = kumi_dsm_malloc_block(bytes, blk);
    uint32_t *mb = kumi_dsm_malloc_block(bytes, blk);
    /* one block: the other PEs read the whole histogram */
    long     *mh = kumi_dsm_malloc_block((RADIX + 1) * sizeof(long), 4096);
    if (ma == NULL || mb == NULL || mh == NULL)
        fail = 1;
    for (int q = 0; q < np; q++) {
        a[q] = kk_share(ma, q);
        b[q] = kk_share(mb, q);
        hist[q] = kk_share(mh, q);
        if (a[q] == NULL || b[q] == NULL || hist[q] == NULL)
            fail = 1;
    }
    if (fail) {
        snprintf(r->why, sizeof r->why, "radix: kumi_dsm_malloc of %ld keys failed", n);
        if (ma) kumi_dsm_free(ma);
        if (mb) kumi_dsm_free(mb);
        if (mh) kumi_dsm_free(mh);
        kumi_barrier(kumi_team_world());
        free(lo); free(a); free(b); free(hist);
        return -1;
    }

    /* first touch of my part of dst out of the timed section (the region's
     * pages are copied on first write) */
    for (long i = 0; i < mine; i++)
        mb[i] = 0;

    double          sec = 0;
    struct kk_stats st = {0};
    for (long it = 0; it < iters; it++) {
        for (long i = 0; i < mine; i++)
            ma[i] = radix_key(seed, lo[me] + i);
        kk_timer_start(r);
        for (int pass = 0; pass < PASSES; pass++) {
            if (pass % 2 == 0)
                radix_pass(me, np, lo, a, b, hist, pass * RADIX_BITS);
            else
                radix_pass(me, np, lo, b, a, hist, pass * RADIX_BITS);
        }
        kk_timer_stop(r);
        radix_add(r, &sec, &st);
    }
    r->seconds = sec;
    r->st = st;

    /* checksum: my part, then every PE adds the P partial sums */
    uint64_t cs = 0;
    for (long i = 0; i < mine; i++)
        cs += (uint64_t)ma[i] * (uint64_t)(lo[me] + i + 1);
    mh[RADIX] = (long)cs;
    kumi_barrier(kumi_team_world());
    cs = 0;
    for (int q = 0; q < np; q++)
        cs += (uint64_t)hist[q][RADIX];
    r->checksum = (double)(cs & ((1ull << 53) - 1));

    if (me == 0 && p->verify) {
        uint32_t *ref = malloc(n * sizeof *ref);
        if (ref == NULL) {
            r->ok = 0;
            snprintf(r->why, sizeof r->why, "radix: no memory for the check");
        } else {
            for (long i = 0; i < n; i++)
                ref[i] = radix_key(seed, i);
            qsort(ref, n, sizeof *ref, radix_cmp);
            for (int q = 0; q < np && r->ok; q++)
                for (long i = lo[q]; i < lo[q + 1]; i++) {
                    uint32_t got = a[q][i - lo[q]];
                    if (got != ref[i]) {
                        r->ok = 0;
                        snprintf(r->why, sizeof r->why,
                                 "radix: key %ld (PE %d's part) is %u, sequential sort has %u",
                                 i, q, got, ref[i]);
                        break;
                    }
                }
            free(ref);
        }
    }

    kumi_barrier(kumi_team_world());
    kumi_dsm_free(ma);
    kumi_dsm_free(mb);
    kumi_dsm_free(mh);
    kumi_barrier(kumi_team_world());
    free(lo); free(a); free(b); free(hist);
    return 0;
}
