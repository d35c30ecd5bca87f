/*
 * kernel.h -- the interface of the SPLASH-2-style DSM kernels (issue 6).
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
};

typedef int kk_fn(const struct kk_params *p, struct kk_result *r);

/* Harness helpers (bench/dsm/kernel_common.c, NOT translated). */
/* p as PE root has it, on every PE (a kumi_broadcast of the pointer). */
void *kk_share(void *p, int root);

#endif /* KUMI_BENCH_DSM_KERNEL_H */
