/*
 * omp_pass.h -- what the files of the OpenMP pass share (omp.c: the pass,
 * names, the DSM stack, byval copies, renames; omp_globals.c: globals to
 * the sections, rebasing, fixups). Internal to kumi-translate; the driver
 * includes omp.h.
 */
#ifndef KUMI_TR_OMP_PASS_H
#define KUMI_TR_OMP_PASS_H

#include "omp.h"
#include "translate.h"   /* kumi_tr_map, kumi_tr_rt, kumi_tr_starts, ... */

enum { KUMI_TR_OMP_DATA = 1, KUMI_TR_OMP_BSS = 2 };   /* where a moved global goes */

struct kumi_tr_omp {
    const struct kumi_tr_omp_opts *o;
    LLVMModuleRef     m;
    LLVMContextRef    c;
    LLVMTargetDataRef td;
    LLVMBuilderRef    b;
    LLVMTypeRef       t32, t64, tp8;
    int               err;    /* a limit was hit (reported) */

    /* omp_globals.c */
    kumi_tr_map  moved;      /* global -> KUMI_TR_OMP_DATA / _BSS                    */
    kumi_tr_map  refs;       /* constant -> 1: refers to a moved or foreign global, 2: not */
    LLVMValueRef rt[6];      /* the runtime's deltas, ranges (declared on first use)  */
    unsigned     md_inv;     /* !invariant.load */
    LLVMValueRef inv;

    /* omp.c: the DSM stack's entry points (declared on first use) */
    struct kumi_tr_rt push, mark, release;

    struct { unsigned long data, bss, fixups, uses, foreign, allocas, copyin, byval, renamed, pheap, redcopy; } st;
};

/* omp.c */
const char *kumi_tr_omp_name(LLVMValueRef v);
int         kumi_tr_omp_in_list(const char *const *list, const char *name);   /* list ends with NULL */
int         kumi_tr_omp_excluded(const char *name);   /* llvm., kumi_, __kmpc_, lock words */
/* one line "kumi-translate: IN: --openmp: warning: ..." (fmt takes two strings) */
void        kumi_tr_omp_warn(struct kumi_tr_omp *x, const char *fmt, const char *a, const char *b);
/* the same without "warning", and the pass fails */
void        kumi_tr_omp_fail(struct kumi_tr_omp *x, const char *fmt, const char *a);

/* omp_globals.c: moves the globals, rebases every use in code, emits the
 * fixups and the sections */
void kumi_tr_omp_globals(struct kumi_tr_omp *x);

#endif /* KUMI_TR_OMP_PASS_H */
