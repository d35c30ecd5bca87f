/*
 * privacy.c -- which pointers can never point into the DSM region, so
 * their accesses need no check (README.md, "What is skipped"): allocas
 * whose address does not escape, globals, functions, byval arguments,
 * and phis/selects of those; plus the base/offset and root-object views
 * of an address the batching and the range checks use.
 *
 * With the OpenMP pass (omp.c, --openmp) globals are not all private: the
 * pass moves the program's mutable globals into the sections
 * kumi_omp_data/kumi_omp_bss, whose templates are rebased to their live
 * copies in the DSM by adding a run-time delta, and an extern global
 * another module may have moved is rebased at run time. Such globals
 * (and any pointer computed from them) are treated as possibly shared, as
 * are the results of kumi_omp_* calls (DSM stack, heap: call results are
 * never private here), except kumi_omp_private_malloc/calloc: the pass
 * gives them the allocations whose pointer never leaves this PE (libc's
 * heap, omp.c).
 */
#include <stdlib.h>
#include <string.h>

#include "translate.h"

/* intrinsics that neither capture a pointer nor touch memory we care about */
/* intrinsics that neither capture a pointer nor touch memory we care about */
static int harmless_intrinsic(const char *n)
{
    return n && (kumi_tr_starts(n, "llvm.lifetime.") || kumi_tr_starts(n, "llvm.dbg.") ||
                 kumi_tr_starts(n, "llvm.invariant.") || kumi_tr_starts(n, "llvm.assume") ||
                 kumi_tr_starts(n, "llvm.experimental.noalias") || kumi_tr_starts(n, "llvm.var.annotation"));
}

/* Without --openmp only intrinsics that do not capture keep an alloca
 * private (any other call may hand its address to another PE). */
static enum kumi_tr_use plain_call(LLVMValueRef call, LLVMValueRef v, LLVMValueRef *follow)
{
    const char *n = kumi_tr_callee_name(call);

    (void)v;
    (void)follow;
    return harmless_intrinsic(n) || kumi_tr_is_memintr(n) ? KUMI_TR_USE_OK : KUMI_TR_USE_ESCAPES;
}

static int alloca_escapes(struct kumi_tr *kt, LLVMValueRef a)
{
    long *m = kumi_tr_map_find(&kt->escape_memo, a);
    if (m)
        return *m == 1;
    int esc = kumi_tr_addr_walk(a, plain_call, 1, NULL);
    kumi_tr_map_put(&kt->escape_memo, a, esc ? 1 : 2);
    return esc;
}

/* A global whose address may stand for DSM memory: one the OpenMP pass
 * moved (its template in kumi_omp_data/kumi_omp_bss, its live copy in the
 * DSM), and, with --openmp, an extern mutable global another module may
 * have moved (the pass rebases its uses at run time). Not thread_local
 * ones, constants, or the runtimes' own data (kumi_*, __kmpc_*, llvm.*,
 * the .gomp_critical_user_* lock words): the pass leaves those alone. */
int kumi_tr_global_shared(struct kumi_tr *kt, LLVMValueRef g)
{
    if (!LLVMIsAGlobalVariable(g))
        return 0;
    const char *sec = LLVMGetSection(g);
    if (sec && (strcmp(sec, "kumi_omp_data") == 0 || strcmp(sec, "kumi_omp_bss") == 0))
        return 1;
    if (!kt->opts.openmp || !LLVMIsDeclaration(g) || LLVMIsThreadLocal(g) || LLVMIsGlobalConstant(g))
        return 0;
    size_t      n;
    const char *name = LLVMGetValueName2(g, &n);
    return !(kumi_tr_starts(name, "kumi_") || kumi_tr_starts(name, "__kmpc_") || kumi_tr_starts(name, "llvm.") ||
             kumi_tr_starts(name, ".gomp_critical_user_"));
}

int kumi_tr_is_private(struct kumi_tr *kt, LLVMValueRef p, int depth)
{
    p = kumi_tr_strip_casts(p);
    if (LLVMIsAGlobalVariable(p) || LLVMIsAFunction(p))
        return !kumi_tr_global_shared(kt, p);   /* globals, constants: never DSM (but see above) */
    if (LLVMIsAAllocaInst(p))   /* --openmp: the pass moved every alloca another PE may reach
                                   to the DSM stack, the ones left are private (omp.c) */
        return kt->opts.openmp || !alloca_escapes(kt, p);
    if (LLVMIsAArgument(p)) {
        LLVMValueRef f = LLVMGetParamParent(p);
        unsigned     n = LLVMCountParams(f);
        for (unsigned i = 0; i < n; i++)
            if (LLVMGetParam(f, i) == p)
                return LLVMGetEnumAttributeAtIndex(f, i + 1, kt->byval_kind) != NULL;
        return 0;
    }
    if (LLVMIsACallInst(p)) {   /* the OpenMP pass's private heap (omp.c) */
        const char *n = kumi_tr_callee_name(p);
        return n && (strcmp(n, "kumi_omp_private_malloc") == 0 || strcmp(n, "kumi_omp_private_calloc") == 0);
    }
    if (depth > 4)
        return 0;
    if (LLVMIsAPHINode(p)) {
        unsigned n = LLVMCountIncoming(p);
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef v = LLVMGetIncomingValue(p, i);
            if (v != p && !kumi_tr_is_private(kt, v, depth + 1)) return 0;
        }
        return 1;
    }
    if (LLVMIsASelectInst(p))
        return kumi_tr_is_private(kt, LLVMGetOperand(p, 1), depth + 1) &&
               kumi_tr_is_private(kt, LLVMGetOperand(p, 2), depth + 1);
    return 0;
}

/* base + constant byte offset through inbounds constant GEPs and casts */
LLVMValueRef kumi_tr_base_of(struct kumi_tr *kt, LLVMValueRef p, long *off)
{
    *off = 0;
    for (;;) {
        if (LLVMIsABitCastInst(p)) { p = LLVMGetOperand(p, 0); continue; }
        if (!LLVMIsAGetElementPtrInst(p) || !LLVMIsInBounds(p))
            return p;
        unsigned    n  = LLVMGetNumOperands(p);
        LLVMTypeRef ty = LLVMGetGEPSourceElementType(p);
        long        o  = 0;
        for (unsigned i = 1; i < n; i++)
            if (!LLVMIsAConstantInt(LLVMGetOperand(p, i)))
                return p;
        o += LLVMConstIntGetSExtValue(LLVMGetOperand(p, 1)) * (long)LLVMABISizeOfType(kt->td, ty);
        for (unsigned i = 2; i < n; i++) {
            long k = LLVMConstIntGetSExtValue(LLVMGetOperand(p, i));
            if (LLVMGetTypeKind(ty) == LLVMStructTypeKind) {
                o += (long)LLVMOffsetOfElement(kt->td, ty, (unsigned)k);
                ty = LLVMStructGetTypeAtIndex(ty, (unsigned)k);
            } else {
                ty = LLVMGetElementType(ty);
                o += k * (long)LLVMABISizeOfType(kt->td, ty);
            }
        }
        *off += o;
        p = LLVMGetOperand(p, 0);
    }
}


/* A GEP from a moved global's template by a non-constant offset: the
 * OpenMP pass's rebase to the live copy, which leaves the template's
 * object (even if marked inbounds); its root is itself. */
static int rebases(struct kumi_tr *kt, LLVMValueRef gep)
{
    unsigned n = LLVMGetNumOperands(gep);
    for (unsigned i = 1; i < n; i++)
        if (!LLVMIsAConstant(LLVMGetOperand(gep, i)))
            return kumi_tr_global_shared(kt, kumi_tr_strip_casts(LLVMGetOperand(gep, 0)));
    return 0;
}

/* The object an address lies in: its pointer through casts and inbounds
 * GEPs (constant or not). An object lies wholly in or wholly out of the
 * DSM region, and an inbounds GEP stays in its object, so the range check
 * of the root decides for every access through it; the root is often loop
 * invariant (an argument, a pointer loaded before the loop), so the check
 * is hoisted out of the loop. */
LLVMValueRef kumi_tr_root_of(struct kumi_tr *kt, LLVMValueRef p)
{
    for (;;) {
        if (LLVMIsABitCastInst(p) || (LLVMIsAGetElementPtrInst(p) && LLVMIsInBounds(p) && !rebases(kt, p)))
            p = LLVMGetOperand(p, 0);
        else
            return p;
    }
}

