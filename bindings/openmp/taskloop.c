/*
 * taskloop.c -- the taskloop construct: __kmpc_taskloop (and
 * __kmpc_taskloop_5, with OpenMP 5.1's strict grainsize). The pattern task
 * clang fills is copied once per chunk of iterations (its privates, its
 * own shareds block, the task_dup routine for firstprivate and
 * lastprivate), each copy a task of its own (task.c); without nogroup the
 * loop is a taskgroup.
 */
#include <string.h>

#include "omp_libc.h"
#include "task_int.h"

typedef struct kumi_omp_task_hdr task_hdr;
typedef void (*kmp_task_dup_t)(void *dst, void *src, int32_t lastpriv);

static uint64_t ld_u64(const void *p)
{
    uint64_t v;
    if (kumi_dsm_read(&v, p, sizeof v) != KUMI_OK)
        kumi_global_exit(1);
    return v;
}

static void st_u64(void *p, uint64_t v)
{
    if (kumi_dsm_write(p, &v, sizeof v) != KUMI_OK)
        kumi_global_exit(1);
}

/* A copy of the taskloop's pattern task with its own shareds block. */
static kmp_task_t *task_clone(kumi_omp_ident_t *loc, int32_t gtid, kmp_task_t *src,
                              const task_hdr *hd, const kmp_task_t *tk)
{
    kmp_task_t *dst = __kmpc_omp_task_alloc(loc, gtid, hd->final ? KMP_TASK_FINAL : 0,
                                            hd->task_bytes, hd->shareds_bytes, tk->routine);
    size_t      n   = hd->task_bytes + (hd->shareds_bytes ? ((hd->task_bytes + 15) & ~(size_t)15)
                                                              - hd->task_bytes + hd->shareds_bytes
                                                            : 0);
    kumi_dsm_memmove(dst, src, n);
    void *sh = hd->shareds_bytes ? (char *)dst + ((hd->task_bytes + 15) & ~(size_t)15) : NULL;
    st_u64(&dst->shareds, (uint64_t)(uintptr_t)sh);
    return dst;
}

/* sched: 0 none, 1 grainsize, 2 num_tasks; strict (OpenMP 5.1): a
 * grainsize is the exact size of every chunk but the last; nogroup: no
 * implicit taskgroup (clang passes 1 when it wraps the loop in one
 * itself, for reductions) */
static void taskloop(kumi_omp_ident_t *loc, int32_t gtid, void *task, int32_t if_val, uint64_t *lb,
                     uint64_t *ub, int64_t st, int32_t nogroup, int32_t sched, uint64_t grainsize,
                     int strict, void *task_dup)
{
    kmp_task_t *t = task;
    task_hdr    hd;
    kmp_task_t  tk;

    kumi_omp_task_hdr_read(t, &hd);
    if (kumi_dsm_read(&tk, t, sizeof tk) != KUMI_OK)
        kumi_global_exit(1);
    /* the bounds are fields of the task (clang: right after kmp_task_t);
     * each chunk's task has them at the same offsets */
    size_t lb_off = (size_t)((char *)lb - (char *)t), ub_off = (size_t)((char *)ub - (char *)t);
    if ((char *)lb < (char *)t || (char *)ub < (char *)t || lb_off + 8 > hd.task_bytes
        || ub_off + 8 > hd.task_bytes)
        kumi_omp_fatal("__kmpc_taskloop", "the loop bounds %p, %p are not in the task %p (%llu bytes)",
                       (void *)lb, (void *)ub, task, (unsigned long long)hd.task_bytes);
    if (st == 0)
        kumi_omp_fatal("__kmpc_taskloop", "loop stride 0");
    if (!nogroup)
        __kmpc_taskgroup(loc, gtid);
    int64_t  lo = (int64_t)ld_u64(lb), hi = (int64_t)ld_u64(ub);
    uint64_t tc = st > 0 ? (hi < lo ? 0 : (uint64_t)(hi - lo) / (uint64_t)st + 1)
                         : (lo < hi ? 0 : (uint64_t)(lo - hi) / (uint64_t)(-st) + 1);
    uint64_t ntasks;
    if (sched == 1)          /* grainsize: chunks of grainsize..2*grainsize-1 */
        ntasks = grainsize == 0 || grainsize > tc ? 1 : tc / grainsize;
    else if (sched == 2)     /* num_tasks */
        ntasks = grainsize == 0 ? 1 : grainsize < tc ? grainsize : tc;
    else
        ntasks = (uint64_t)kumi_omp_th.nth * 4 < tc ? (uint64_t)kumi_omp_th.nth * 4 : tc;
    if (ntasks == 0)
        ntasks = 1;
    uint64_t chunk = tc / ntasks, extra = tc % ntasks;
    if (strict && sched == 1 && grainsize > 0) {
        ntasks = (tc + grainsize - 1) / grainsize;
        chunk  = grainsize;
        extra  = 0;
    }
    int64_t at = lo;
    for (uint64_t k = 0; k < ntasks && tc > 0; k++) {
        uint64_t its = chunk + (k < extra);
        if (k == ntasks - 1 && strict && sched == 1 && grainsize > 0)
            its = tc - k * grainsize;
        kmp_task_t *c   = task_clone(loc, gtid, t, &hd, &tk);
        st_u64((char *)c + lb_off, (uint64_t)at);
        st_u64((char *)c + ub_off, (uint64_t)(at + (int64_t)(its - 1) * st));
        if (task_dup != NULL)
            ((kmp_task_dup_t)task_dup)(c, t, k == ntasks - 1);
        at += (int64_t)its * st;
        if (if_val)
            __kmpc_omp_task(loc, gtid, c);
        else
            kumi_omp_task_run(c);
    }
    kumi_omp_free(kumi_omp_task_hdr_of(t));   /* the pattern never runs */
    if (!nogroup)
        __kmpc_end_taskgroup(loc, gtid);
}

void __kmpc_taskloop(kumi_omp_ident_t *loc, int32_t gtid, void *task, int32_t if_val,
                     uint64_t *lb, uint64_t *ub, int64_t st, int32_t nogroup, int32_t sched,
                     uint64_t grainsize, void *task_dup)
{
    taskloop(loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, 0, task_dup);
}

/* modifier: 1 for strict */
void __kmpc_taskloop_5(kumi_omp_ident_t *loc, int32_t gtid, void *task, int32_t if_val,
                       uint64_t *lb, uint64_t *ub, int64_t st, int32_t nogroup, int32_t sched,
                       uint64_t grainsize, int32_t modifier, void *task_dup)
{
    taskloop(loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, modifier != 0,
             task_dup);
}
