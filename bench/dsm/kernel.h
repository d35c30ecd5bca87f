/*
 * kernel.h -- the interface of the SPLASH-2-style DSM kernels.
 *
 * Each kernel (bench/dsm/<name>.c) is plain C SPMD shared-memory code:
 * kumi_dsm_malloc / kumi_dsm_malloc_block, ordinary loads and stores,
 * kumi_barrier and kumi_mutex. It is compiled twice: by kumicc with the
 * translator (KK_SUFFIX=_x, the DSM checks in) and by kumicc with
 * KUMI_TRANSLATE=0 (KK_SUFFIX=_p, the baseline: same source, no checks,
 * only meaningful at 1 PE). Both objects are linked into kumi-bench, whose
 * `kernels` op calls them; the harness code around them is not translated.
 *
 * Contract of a kernel function (called by every PE, after kumi_init):
 *   - allocate and initialize its shared data (not timed), then a barrier;
 *   - run the parallel section, timed with kumi_wtime between barriers
 *     (r->seconds: PE-local time of the timed section);
 *   - verify: PE 0 recomputes the result sequentially in private memory
 *     (malloc) from the same inputs and compares (exactly where the
 *     parallel algorithm does the same arithmetic per element, else with a
 *     stated tolerance); r->ok = 1 on success, else 0 and r->why says what
 *     differed (first index, values). Other PEs set r->ok = 1.
 *     With p->verify == 0 the sequential check is skipped (r->ok = 1).
 *   - free its DSM memory (kumi_dsm_free) and end with a barrier;
 *   - return 0, or -1 on a setup failure (allocation) with r->why set.
 * r->checksum: a value derived from the result (same on every PE count).
 */
#ifndef KUMI_BENCH_DSM_KERNEL_H
#define KUMI_BENCH_DSM_KERNEL_H

#include <stddef.h>

#ifndef KK_SUFFIX
#define KK_SUFFIX _x
#endif
#define KK_CAT2(a, b) a##b
#define KK_CAT(a, b)  KK_CAT2(a, b)
#define KK_FN(name)   KK_CAT(kk_##name, KK_SUFFIX)

/* DSM counters of one PE (kumi_dsm_stats deltas; see kk_timer_start). */
struct kk_stats {
    unsigned long long read_misses, write_misses, upgrades;
    unsigned long long msgs_sent, msgs_received;
};

struct kk_params {
    long          n;        /* problem size (kernel-specific meaning)  */
    long          iters;    /* iterations where the kernel has them    */
    unsigned long seed;     /* input data                              */
    int           verify;   /* 1: PE 0 checks against a sequential run */
};

struct kk_result {
    double seconds;         /* the timed parallel section, this PE    */
    double checksum;        /* of the result                          */
    int    ok;              /* verification passed (or skipped)       */
    char   why[192];        /* failure text                           */
    /* set by kk_timer_start/kk_timer_stop (not by the kernel itself) */
    double          t0_;    /* start time of the timed section        */
    struct kk_stats st0_;   /* counters at kk_timer_start             */
    struct kk_stats st;     /* deltas over the timed section          */
    int             has_st; /* 1: st is valid                         */
};

typedef int kk_fn(const struct kk_params *p, struct kk_result *r);

/* Harness helpers (bench/dsm/kernel_common.c, NOT translated). */
/* p as PE root has it, on every PE (a kumi_broadcast of the pointer). */
void *kk_share(void *p, int root);

/* Optional brackets of the timed section (kernel_common.c), so the harness
 * can report the DSM misses and messages of that section alone (else it
 * takes kumi_dsm_stats around the whole call: set-up and verification
 * included, and says so):
 *   kk_timer_start(r): kumi_barrier, snapshot of kumi_dsm_stats, then
 *                      the start time;
 *   kk_timer_stop(r):  r->seconds = now - start; then kumi_barrier (the
 *                      end of the section: requests served while waiting
 *                      for the slower PEs count) and the counters' deltas
 *                      into r->st, r->has_st = 1.
 * The harness zeroes *r (these fields too) before each call. */
void kk_timer_start(struct kk_result *r);
void kk_timer_stop(struct kk_result *r);

/* Input data by index, so every PE can fill its own part of an array and
 * the sequential check can rebuild any element: a splitmix64 hash of
 * (seed, i). Inline, no DSM access: the same in translated code. Kernel
 * files are compiled twice into one program (_x and _p), so everything in
 * them other than KK_FN(name) must be static. */
static inline unsigned long long kk_hash(unsigned long seed, unsigned long long i)
{
    unsigned long long z = (unsigned long long)seed * 0x9e3779b97f4a7c15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* in [0, 1), 53 random bits */
static inline double kk_unit(unsigned long seed, unsigned long long i)
{
    return (double)(kk_hash(seed, i) >> 11) * (1.0 / 9007199254740992.0);
}

#endif /* KUMI_BENCH_DSM_KERNEL_H */
