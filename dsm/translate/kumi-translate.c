/*
 * kumi-translate -- the DSM translator (issue 6): reads LLVM IR, puts the
 * inline access checks of dsm/check.h before every load and store that may
 * touch the DSM region, a poll at every loop back-edge, and routes memory
 * intrinsics, atomics and wide accesses through the protocol; then
 * optionally runs the O2 pipeline and writes IR, bitcode or an object.
 *
 *   kumi-translate IN.{bc,ll} -o OUT.{o,bc,ll} [-O0..-O3] [--stats] [--no-warn]
 *
 * Written against the LLVM-C API of LLVM 14 (typed pointers). See README.md
 * next to this file for what is checked, skipped, batched, and the limits.
 */
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLAG64      0x7fa5c3e77fa5c3e7ull
#define LINE        64u
#define LINE_SHIFT  6
#define STATE_E     2
#define POLL_MASK   1023u
#define OFF_BASE    0
#define OFF_SIZE    8
#define OFF_STATE   16
#define OFF_TICK    24
#define OFF_PSTATE  32
#define PAGE_SHIFT  12
#define DSM_READ    1
#define DSM_WRITE   2
#define WARN_CAP    4      /* warnings per function */
#define VERSION_POLL_EVERY 1024   /* iterations of an unchecked loop copy between polls */

/* ------------------------------------------------------------ state */
static LLVMContextRef    C;
static LLVMModuleRef     M;
static LLVMTargetDataRef TD;
static LLVMBuilderRef    B;     /* emits checks (carries the access's !dbg) */
static LLVMBuilderRef    MV;    /* moves instructions (never a !dbg)        */
static LLVMTypeRef       T1, T8, T16, T32, T64, TP8, TVOID;
static LLVMValueRef      G;     /* kumi_dsm_g as i8*                        */
static LLVMValueRef      F_LOADMISS, F_STOREMISS, F_POLL, F_ACQUIRE, F_MEMMOVE, F_READY;
static LLVMTypeRef       FT_LOADMISS, FT_STOREMISS, FT_POLL, FT_ACQUIRE, FT_MEMMOVE, FT_READY;
static unsigned          MD_PROF, MD_TBAA;
/* TBAA tags of kumi_dsm_g's fields and of its poll counter: types of their
 * own under clang's "omnipotent char", so program stores of int, double or
 * pointers do not clobber them and the counter's store does not clobber
 * base/size/state (see README, "Optimizations") */
static LLVMValueRef      TBAA_G, TBAA_TICK;
/* per function: allocas shadowing base, size and state (NULL: load the
 * global each time), reloaded only after calls that may change them */
static LLVMValueRef      SHADOW[4];   /* base, size, state, pstate */
/* per function: the poll counter in a register (NULL: the global each
 * time); written back before calls and returns, reloaded after calls */
static LLVMValueRef      SHADOW_TICK;
static LLVMValueRef      UNLIKELY;   /* !{"branch_weights", 1, 2000}    */
static LLVMValueRef      LIKELY;     /* !{"branch_weights", 2000, 1}    */
static int               opt_warn = 1;
static int               opt_version = 1;   /* --no-version: no unchecked loop copies */

static struct {
    unsigned long loads, stores, atomics, memops;
    unsigned long checked_loads, checked_stores, private_, batched, elided;
    unsigned long wide, polls, warnings, rmw, grouped, versioned;
} st;

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "kumi-translate: %s%s%s\n", what, msg ? ": " : "", msg ? msg : "");
    exit(1);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (p == NULL)
        die("out of memory", NULL);
    return p;
}

/* ------------------------------------------------------------ pointer map */
typedef struct { void **k; long *v; size_t cap, n; } pmap;

static size_t ph(void *p, size_t cap) { return (((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ull) & (cap - 1); }

static long *pmap_find(pmap *m, void *k)
{
    if (m->cap == 0)
        return NULL;
    for (size_t i = ph(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->k[i] == k)
            return &m->v[i];
        if (m->k[i] == NULL)
            return NULL;
    }
}

static void pmap_put(pmap *m, void *k, long v)
{
    long *e = pmap_find(m, k);
    if (e) { *e = v; return; }
    if (2 * (m->n + 1) > m->cap) {
        pmap o = *m;
        m->cap = o.cap ? 2 * o.cap : 64;
        m->k = calloc(m->cap, sizeof *m->k);
        m->v = calloc(m->cap, sizeof *m->v);
        if (!m->k || !m->v) die("out of memory", NULL);
        m->n = 0;
        for (size_t i = 0; i < o.cap; i++)
            if (o.k[i]) pmap_put(m, o.k[i], o.v[i]);
        free(o.k); free(o.v);
    }
    size_t i = ph(k, m->cap);
    while (m->k[i]) i = (i + 1) & (m->cap - 1);
    m->k[i] = k; m->v[i] = v; m->n++;
}

static void pmap_free(pmap *m) { free(m->k); free(m->v); memset(m, 0, sizeof *m); }

/* ------------------------------------------------------------ helpers */
static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static const char *callee_name(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    size_t       n;
    if (f == NULL || !LLVMIsAFunction(f))
        return NULL;
    return LLVMGetValueName2(f, &n);
}

/* intrinsics that neither capture a pointer nor touch memory we care about */
static int harmless_intrinsic(const char *n)
{
    return n && (starts(n, "llvm.lifetime.") || starts(n, "llvm.dbg.") ||
                 starts(n, "llvm.invariant.") || starts(n, "llvm.assume") ||
                 starts(n, "llvm.experimental.noalias") || starts(n, "llvm.var.annotation"));
}

static int is_memintr(const char *n)
{
    return n && (starts(n, "llvm.memcpy.") || starts(n, "llvm.memmove.") ||
                 starts(n, "llvm.memset."));
}

static LLVMValueRef strip_casts(LLVMValueRef p)
{
    for (;;) {
        if (LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p) || LLVMIsAGetElementPtrInst(p))
            p = LLVMGetOperand(p, 0);
        else if (LLVMIsAConstantExpr(p) &&
                 (LLVMGetConstOpcode(p) == LLVMBitCast || LLVMGetConstOpcode(p) == LLVMGetElementPtr ||
                  LLVMGetConstOpcode(p) == LLVMAddrSpaceCast))
            p = LLVMGetOperand(p, 0);
        else
            return p;
    }
}

/* ------------------------------------------------------------ privacy */
static pmap escape_memo;   /* alloca -> 1 escapes, 2 private */

static int alloca_escapes(LLVMValueRef a)
{
    long *m = pmap_find(&escape_memo, a);
    if (m)
        return *m == 1;
    LLVMValueRef *work = NULL;
    size_t        nw = 0, cw = 0;
    pmap          seen = {0};
    int           esc = 0;
    work = xrealloc(work, (cw = 16) * sizeof *work);
    work[nw++] = a;
    pmap_put(&seen, a, 1);
    while (nw && !esc) {
        LLVMValueRef v = work[--nw];
        for (LLVMUseRef u = LLVMGetFirstUse(v); u && !esc; u = LLVMGetNextUse(u)) {
            LLVMValueRef us = LLVMGetUser(u);
            if (!LLVMIsAInstruction(us)) { esc = 1; break; }
            switch (LLVMGetInstructionOpcode(us)) {
            case LLVMLoad: case LLVMICmp:
                break;
            case LLVMStore:
                if (LLVMGetOperand(us, 0) == v) esc = 1;
                break;
            case LLVMAtomicRMW: case LLVMAtomicCmpXchg:
                for (unsigned i = 1; i < (unsigned)LLVMGetNumOperands(us); i++)
                    if (LLVMGetOperand(us, i) == v) esc = 1;
                break;
            case LLVMGetElementPtr: case LLVMBitCast: case LLVMAddrSpaceCast:
            case LLVMPHI: case LLVMSelect:
                if (!pmap_find(&seen, us)) {
                    pmap_put(&seen, us, 1);
                    if (nw == cw) work = xrealloc(work, (cw *= 2) * sizeof *work);
                    work[nw++] = us;
                }
                break;
            case LLVMCall: {
                const char *n = callee_name(us);
                if (!(harmless_intrinsic(n) || is_memintr(n))) esc = 1;
                break;
            }
            default:
                esc = 1;   /* ptrtoint, ret, calls, ... */
            }
        }
    }
    free(work);
    pmap_free(&seen);
    pmap_put(&escape_memo, a, esc ? 1 : 2);
    return esc;
}

static unsigned BYVAL_KIND;

static int is_private(LLVMValueRef p, int depth)
{
    p = strip_casts(p);
    if (LLVMIsAGlobalVariable(p) || LLVMIsAFunction(p))
        return 1;                        /* globals, constants: never DSM */
    if (LLVMIsAAllocaInst(p))
        return !alloca_escapes(p);
    if (LLVMIsAArgument(p)) {
        LLVMValueRef f = LLVMGetParamParent(p);
        unsigned     n = LLVMCountParams(f);
        for (unsigned i = 0; i < n; i++)
            if (LLVMGetParam(f, i) == p)
                return LLVMGetEnumAttributeAtIndex(f, i + 1, BYVAL_KIND) != NULL;
        return 0;
    }
    if (depth > 4)
        return 0;
    if (LLVMIsAPHINode(p)) {
        unsigned n = LLVMCountIncoming(p);
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef v = LLVMGetIncomingValue(p, i);
            if (v != p && !is_private(v, depth + 1)) return 0;
        }
        return 1;
    }
    if (LLVMIsASelectInst(p))
        return is_private(LLVMGetOperand(p, 1), depth + 1) &&
               is_private(LLVMGetOperand(p, 2), depth + 1);
    return 0;
}

/* base + constant byte offset through inbounds constant GEPs and casts */
static LLVMValueRef base_of(LLVMValueRef p, long *off)
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
        o += LLVMConstIntGetSExtValue(LLVMGetOperand(p, 1)) * (long)LLVMABISizeOfType(TD, ty);
        for (unsigned i = 2; i < n; i++) {
            long k = LLVMConstIntGetSExtValue(LLVMGetOperand(p, i));
            if (LLVMGetTypeKind(ty) == LLVMStructTypeKind) {
                o += (long)LLVMOffsetOfElement(TD, ty, (unsigned)k);
                ty = LLVMStructGetTypeAtIndex(ty, (unsigned)k);
            } else {
                ty = LLVMGetElementType(ty);
                o += k * (long)LLVMABISizeOfType(TD, ty);
            }
        }
        *off += o;
        p = LLVMGetOperand(p, 0);
    }
}

/* ------------------------------------------------------------ batching cache */
/* base + [lo, hi) checked (w: for a store) in this batch; in: the range
 * check of root, the object the base lies in */
typedef struct { LLVMValueRef base, root, in; long lo, hi; int w; } centry;
static centry *cache;
static size_t  ncache, ccache;

static void cache_reset(void) { ncache = 0; }

static void cache_replace(LLVMValueRef old, LLVMValueRef nw)
{
    for (size_t i = 0; i < ncache; i++)
    for (size_t i = 0; i < ncache; i++) {
        if (cache[i].base == old) cache[i].base = nw;
        if (cache[i].root == old) cache[i].root = nw;
    }
}

static void cache_add(LLVMValueRef base, LLVMValueRef root, LLVMValueRef in, long lo, long hi, int w)
{
    if (ncache == ccache) cache = xrealloc(cache, (ccache = ccache ? 2 * ccache : 16) * sizeof *cache);
    cache[ncache++] = (centry){base, root, in, lo, hi, w};
}

/* A check with a slow path was emitted: its miss, store miss or acquire
 * waits and serves other PEs' requests, which may take any line checked
 * before it in the batch. The checked bytes no longer count (the range
 * checks stay: base and size do not change). */
static void cache_kill_coverage(void)
{
    for (size_t i = 0; i < ncache; i++)
        cache[i].lo = cache[i].hi = 0;
}

static LLVMValueRef cache_in(LLVMValueRef root)
{
    for (size_t i = 0; i < ncache; i++)
        if (cache[i].root == root && cache[i].in) return cache[i].in;
    return NULL;
}

static int cache_covers(LLVMValueRef base, long lo, long hi, int w)
{
    for (size_t i = 0; i < ncache; i++)
        if (cache[i].base == base && cache[i].lo <= lo && hi <= cache[i].hi && (cache[i].w || !w))
            return 1;
    return 0;
}

/* ------------------------------------------------------------ CFG surgery */
static char *name_of(LLVMValueRef v)
{
    size_t      n;
    const char *s = LLVMGetValueName2(v, &n);
    char       *c = xrealloc(NULL, n + 1);
    memcpy(c, s, n);
    c[n] = 0;
    return c;
}

/* In successor S, phi entries from block `from` (at most `limit`) now come
 * from `to`. The C API cannot set an incoming block: rebuild the phi. */
static void phi_retarget(LLVMBasicBlockRef S, LLVMBasicBlockRef from, LLVMBasicBlockRef to, unsigned limit)
{
    LLVMValueRef i = LLVMGetFirstInstruction(S);
    while (i && LLVMIsAPHINode(i)) {
        LLVMValueRef next = LLVMGetNextInstruction(i);
        unsigned     n = LLVMCountIncoming(i), hit = 0;
        for (unsigned k = 0; k < n; k++)
            if (LLVMGetIncomingBlock(i, k) == from) hit = 1;
        if (hit) {
            char *nm = name_of(i);
            LLVMSetValueName2(i, "", 0);
            LLVMPositionBuilderBefore(MV, i);      /* (takes i's !dbg: right for a phi) */
            LLVMValueRef np = LLVMBuildPhi(MV, LLVMTypeOf(i), nm);
            unsigned     done = 0;
            for (unsigned k = 0; k < n; k++) {
                LLVMValueRef      v = LLVMGetIncomingValue(i, k);
                LLVMBasicBlockRef b = LLVMGetIncomingBlock(i, k);
                if (b == from && done < limit) { b = to; done++; }
                if (v == i) v = np;
                LLVMAddIncoming(np, &v, &b, 1);
            }
            LLVMReplaceAllUsesWith(i, np);
            cache_replace(i, np);
            LLVMInstructionEraseFromParent(i);
            free(nm);
        }
        i = next;
    }
}

static LLVMBasicBlockRef new_block_after(LLVMBasicBlockRef after, const char *name)
{
    LLVMValueRef      fn = LLVMGetBasicBlockParent(after);
    LLVMBasicBlockRef nb = LLVMAppendBasicBlockInContext(C, fn, name);
    LLVMMoveBasicBlockAfter(nb, after);
    return nb;
}

/* Moves I and everything after it into a new block right after I's block,
 * which is left without a terminator. Returns the new block. */
static LLVMBasicBlockRef split_before(LLVMValueRef I, const char *name)
{
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(I);
    LLVMBasicBlockRef nb = new_block_after(bb, name);
    LLVMPositionBuilderAtEnd(MV, nb);
    LLVMSetCurrentDebugLocation2(MV, NULL);   /* keep each moved !dbg as it is */
    for (LLVMValueRef i = I, next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        char *nm = name_of(i);
        LLVMInstructionRemoveFromParent(i);
        LLVMInsertIntoBuilderWithName(MV, i, nm);
        free(nm);
    }
    LLVMValueRef term = LLVMGetBasicBlockTerminator(nb);
    if (term) {
        unsigned ns = LLVMGetNumSuccessors(term);
        for (unsigned k = 0; k < ns; k++) {
            LLVMBasicBlockRef s = LLVMGetSuccessor(term, k);
            int dup = 0;
            for (unsigned j = 0; j < k; j++) if (LLVMGetSuccessor(term, j) == s) dup = 1;
            if (!dup) phi_retarget(s, bb, nb, ~0u);
        }
    }
    return nb;
}

static void unlikely_br(LLVMValueRef cond, LLVMBasicBlockRef yes, LLVMBasicBlockRef no)
{
    LLVMValueRef br = LLVMBuildCondBr(B, cond, yes, no);
    LLVMSetMetadata(br, MD_PROF, UNLIKELY);
}

/* The range check's branch is weighted towards "in the region": accesses
 * that remain checked are mostly to shared data in programs written for
 * the DSM (provably private ones were skipped), and marking it unlikely
 * made the optimizer lay the whole checked path out of line, with jumps
 * there and back on every access. */
static void range_br(LLVMValueRef cond, LLVMBasicBlockRef yes, LLVMBasicBlockRef no)
{
    LLVMValueRef br = LLVMBuildCondBr(B, cond, yes, no);
    LLVMSetMetadata(br, MD_PROF, LIKELY);
}

/* ------------------------------------------------------------ check IR */
/* base, size or state straight from kumi_dsm_g (TBAA-tagged) */
static LLVMValueRef field_global(LLVMBuilderRef b, unsigned off, LLVMTypeRef ty)
{
    LLVMValueRef o = LLVMConstInt(T64, off, 0);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(b, T8, G, &o, 1, "");
    p = LLVMBuildBitCast(b, p, LLVMPointerType(ty, 0), "");
    LLVMValueRef l = LLVMBuildLoad2(b, ty, p, "");
    LLVMSetMetadata(l, MD_TBAA, off == OFF_TICK ? TBAA_TICK : TBAA_G);
    return l;
}

static LLVMValueRef tick_global_ptr(LLVMBuilderRef b)
{
    LLVMValueRef o = LLVMConstInt(T64, OFF_TICK, 0);
    return LLVMBuildBitCast(b, LLVMBuildInBoundsGEP2(b, T8, G, &o, 1, ""), LLVMPointerType(T32, 0), "");
}

/* base, size or state as the checks use them: from the function's shadow
 * (promoted to registers by SROA, so loop-invariant where no call that may
 * move the region is in the loop) or from the global */
static LLVMValueRef field(unsigned off, LLVMTypeRef ty)
{
    if (off == OFF_TICK && SHADOW_TICK)
        return LLVMBuildLoad2(B, ty, SHADOW_TICK, "");
    if (off <= OFF_STATE && SHADOW[off / 8])
        return LLVMBuildLoad2(B, ty, SHADOW[off / 8], "");
    if (off == OFF_PSTATE && SHADOW[3])
        return LLVMBuildLoad2(B, ty, SHADOW[3], "");
    return field_global(B, off, ty);
}

/* (addr - base) < size */
static LLVMValueRef emit_range(LLVMValueRef addr)
{
    LLVMValueRef base = field(OFF_BASE, T64);
    LLVMValueRef size = field(OFF_SIZE, T64);
    LLVMValueRef off  = LLVMBuildSub(B, addr, base, "kumi.off");
    return LLVMBuildICmp(B, LLVMIntULT, off, size, "kumi.in");
}

static LLVMValueRef emit_crosses(LLVMValueRef addr, unsigned w)
{
    LLVMValueRef lo = LLVMBuildAnd(B, addr, LLVMConstInt(T64, LINE - 1, 0), "");
    return LLVMBuildICmp(B, LLVMIntUGT, lo, LLVMConstInt(T64, LINE - w, 0), "kumi.cross");
}

/* The object an address lies in: its pointer through casts and inbounds
 * GEPs (constant or not). An object lies wholly in or wholly out of the
 * DSM region, and an inbounds GEP stays in its object, so the range check
 * of the root decides for every access through it; the root is often loop
 * invariant (an argument, a pointer loaded before the loop), so the check
 * is hoisted out of the loop. */
static LLVMValueRef root_of(LLVMValueRef p)
{
    for (;;) {
        if (LLVMIsABitCastInst(p) || (LLVMIsAGetElementPtrInst(p) && LLVMIsInBounds(p)))
            p = LLVMGetOperand(p, 0);
        else
            return p;
    }
}

static LLVMValueRef emit_range_of(LLVMValueRef ptr)
{
    return emit_range(LLVMBuildPtrToInt(B, root_of(ptr), T64, "kumi.r"));
}

/* an access aligned to its width never crosses a 64-byte line */
static int may_cross(LLVMValueRef I, unsigned w)
{
    return w > 1 && LLVMGetAlignment(I) < w;
}

static void set_dbg(LLVMValueRef I)
{
    LLVMSetCurrentDebugLocation2(B, LLVMInstructionGetDebugLoc(I));
}

/* 1, 2, 4 or 8 for the types the flag check handles, else 0 */
static unsigned fast_width(LLVMTypeRef ty)
{
    LLVMTypeKind k = LLVMGetTypeKind(ty);
    unsigned long long bits = LLVMSizeOfTypeInBits(TD, ty), bytes = LLVMStoreSizeOfType(TD, ty);
    if (k != LLVMIntegerTypeKind && k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind &&
        k != LLVMPointerTypeKind && k != LLVMHalfTypeKind)
        return 0;
    if (bits != 8 * bytes || !(bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8))
        return 0;
    return (unsigned)bytes;
}

static LLVMValueRef to_bits(LLVMValueRef v, unsigned w)
{
    LLVMTypeRef  ty = LLVMTypeOf(v), it = LLVMIntTypeInContext(C, 8 * w);
    LLVMTypeKind k  = LLVMGetTypeKind(ty);
    if (k == LLVMPointerTypeKind)
        v = LLVMBuildPtrToInt(B, v, it, "");
    else if (k != LLVMIntegerTypeKind)
        v = LLVMBuildBitCast(B, v, it, "");
    return w == 8 ? v : LLVMBuildZExt(B, v, T64, "");
}

static LLVMValueRef from_bits(LLVMValueRef r, LLVMTypeRef ty, unsigned w)
{
    LLVMTypeRef  it = LLVMIntTypeInContext(C, 8 * w);
    LLVMTypeKind k  = LLVMGetTypeKind(ty);
    if (w != 8) r = LLVMBuildTrunc(B, r, it, "");
    if (k == LLVMPointerTypeKind) return LLVMBuildIntToPtr(B, r, ty, "");
    if (k != LLVMIntegerTypeKind) return LLVMBuildBitCast(B, r, ty, "");
    return r;
}

static LLVMValueRef as_i8p(LLVMValueRef p) { return LLVMBuildPointerCast(B, p, TP8, ""); }

/* The diamond both load checks build around L: bb (the load and the
 * flag test) -> chk (range) -> miss (the slow path) -> cont, where a phi
 * of L, L and the slow path's value replaces L's uses. */
struct ld_diamond {
    LLVMBasicBlockRef bb, cont, chk, miss;
    LLVMValueRef      ptr, phi;
};

static void ld_open(struct ld_diamond *d, LLVMValueRef L, const char *cont, const char *chk,
                    const char *miss)
{
    d->bb   = LLVMGetInstructionParent(L);
    d->cont = split_before(LLVMGetNextInstruction(L), cont);
    /* operands are read after each split: it may rebuild a phi they name */
    d->ptr  = LLVMGetOperand(L, 0);
    d->chk  = new_block_after(d->bb, chk);
    d->miss = new_block_after(d->chk, miss);

    LLVMPositionBuilder(B, d->cont, LLVMGetFirstInstruction(d->cont));
    d->phi = LLVMBuildPhi(B, LLVMTypeOf(L), "");
    LLVMReplaceAllUsesWith(L, d->phi);
    set_dbg(L);
    LLVMPositionBuilderAtEnd(B, d->bb);
}

/* After the flag test ended bb with a branch to chk or cont: the range
 * check in chk (the batch's, or its own), then the builder in miss. */
static void ld_range(const struct ld_diamond *d, LLVMValueRef in)
{
    LLVMPositionBuilderAtEnd(B, d->chk);
    LLVMBuildCondBr(B, in ? in : emit_range_of(d->ptr), d->miss, d->cont);
    LLVMPositionBuilderAtEnd(B, d->miss);
}

/* The slow path's value nv ends miss; the phi takes it. */
static void ld_close(const struct ld_diamond *d, LLVMValueRef L, LLVMValueRef nv)
{
    LLVMBuildBr(B, d->cont);
    LLVMValueRef      vals[3] = {L, L, nv};
    LLVMBasicBlockRef bbs[3]  = {d->bb, d->chk, d->miss};
    LLVMAddIncoming(d->phi, vals, bbs, 3);
}

/* Load: the program's load first, then: flag match or crossing? and only
 * then in range? -> kumi_dsm_load_miss's value replaces the loaded one.
 * The flag test comes first: it fails for nearly every load, in the region
 * or not, so the fast path is one compare of the loaded value (no range
 * check, no loads of base/size); the range check runs only on a match. A
 * range check of the batch (in) is reused there; the one made here does
 * not dominate later accesses, so the batch gets none back. */
static LLVMValueRef check_load(LLVMValueRef L, unsigned w, LLVMValueRef in)
{
    struct ld_diamond d;
    ld_open(&d, L, "kumi.ld.cont", "kumi.ld.chk", "kumi.ld.miss");
    LLVMValueRef ptr = d.ptr;
    LLVMValueRef addr = LLVMBuildPtrToInt(B, ptr, T64, "kumi.a");
    LLVMValueRef bits = to_bits(L, w), flag;
    if (w == 8) {
        flag = LLVMConstInt(T64, FLAG64, 0);
    } else {
        LLVMValueRef sh = LLVMBuildShl(B, LLVMBuildAnd(B, addr, LLVMConstInt(T64, 3, 0), ""),
                                       LLVMConstInt(T64, 3, 0), "");
        flag = LLVMBuildLShr(B, LLVMConstInt(T64, FLAG64, 0), sh, "");
        flag = LLVMBuildAnd(B, flag, LLVMConstInt(T64, (1ull << (8 * w)) - 1, 0), "kumi.flag");
    }
    LLVMValueRef slow = LLVMBuildICmp(B, LLVMIntEQ, bits, flag, "kumi.isflag");
    if (may_cross(L, w)) slow = LLVMBuildOr(B, slow, emit_crosses(addr, w), "");
    unlikely_br(slow, d.chk, d.cont);

    ld_range(&d, in);
    LLVMValueRef args[2] = {as_i8p(ptr), LLVMConstInt(T32, w, 0)};
    LLVMValueRef r  = LLVMBuildCall2(B, FT_LOADMISS, F_LOADMISS, args, 2, "");
    ld_close(&d, L, from_bits(r, LLVMTypeOf(L), w));
    return in;
}

/* Store (or atomic): in range? state byte != E or crossing? ->
 * kumi_dsm_store_miss, then the program's own instruction. */
static LLVMValueRef check_store(LLVMValueRef S, unsigned pidx, unsigned w, LLVMValueRef in)
{
    LLVMBasicBlockRef bb   = LLVMGetInstructionParent(S);
    LLVMBasicBlockRef cont = split_before(S, "kumi.st.cont");
    LLVMValueRef      ptr  = LLVMGetOperand(S, pidx);
    LLVMBasicBlockRef chk  = new_block_after(bb, "kumi.st.chk");
    LLVMBasicBlockRef miss = new_block_after(chk, "kumi.st.miss");
    set_dbg(S);

    LLVMPositionBuilderAtEnd(B, bb);
    LLVMValueRef addr = LLVMBuildPtrToInt(B, ptr, T64, "kumi.a");
    if (in == NULL) in = emit_range_of(ptr);
    range_br(in, chk, cont);

    /* first the page's summary (1: all 64 lines E; a 64 times smaller
     * table than the line states, which scattered stores keep in L1),
     * then the line's state */
    LLVMPositionBuilderAtEnd(B, chk);
    LLVMValueRef off   = LLVMBuildSub(B, addr, field(OFF_BASE, T64), "");
    LLVMValueRef page  = LLVMBuildLShr(B, off, LLVMConstInt(T64, PAGE_SHIFT, 0), "");
    LLVMValueRef pp    = LLVMBuildInBoundsGEP2(B, T8, field(OFF_PSTATE, TP8), &page, 1, "");
    LLVMValueRef pv    = LLVMBuildLoad2(B, T8, pp, "kumi.pstate");
    LLVMValueRef allE  = LLVMBuildICmp(B, LLVMIntNE, pv, LLVMConstInt(T8, 0, 0), "kumi.pageE");
    LLVMValueRef cross = may_cross(S, w) ? emit_crosses(addr, w) : NULL;
    if (cross)   /* (a crossing access may leave the page) */
        allE = LLVMBuildAnd(B, allE, LLVMBuildNot(B, cross, ""), "");
    LLVMBasicBlockRef lchk = new_block_after(chk, "kumi.st.line");
    LLVMSetMetadata(LLVMBuildCondBr(B, allE, cont, lchk), MD_PROF, LIKELY);
    LLVMPositionBuilderAtEnd(B, lchk);
    LLVMValueRef line  = LLVMBuildLShr(B, off, LLVMConstInt(T64, LINE_SHIFT, 0), "");
    LLVMValueRef state = field(OFF_STATE, TP8);
    LLVMValueRef sp    = LLVMBuildInBoundsGEP2(B, T8, state, &line, 1, "");
    LLVMValueRef sv    = LLVMBuildLoad2(B, T8, sp, "kumi.state");
    LLVMValueRef slow  = LLVMBuildICmp(B, LLVMIntNE, sv, LLVMConstInt(T8, STATE_E, 0), "kumi.notE");
    if (cross) slow = LLVMBuildOr(B, slow, cross, "");
    unlikely_br(slow, miss, cont);

    LLVMPositionBuilderAtEnd(B, miss);
    LLVMValueRef args[2] = {as_i8p(ptr), LLVMConstInt(T32, w, 0)};
    LLVMBuildCall2(B, FT_STOREMISS, F_STOREMISS, args, 2, "");
    LLVMBuildBr(B, cont);
    return in;
}

/* A vector load of 4-byte-aligned lanes (the loop vectorizer's loads of
 * int, float, double): every aligned 4-byte word of an invalid line holds
 * 0x7fa5c3e7, so the loaded vector seen as <n/4 x i32> has such a lane if
 * any byte came from an invalid line (also when it spans two lines). Only
 * then (and in range) kumi_dsm_acquire(p, n, READ) and a reload replace the
 * value; real data with such a word just takes the slow path. Returns the
 * batch's range check (in), as check_load. */
static int vload_fast(LLVMValueRef L)
{
    LLVMTypeRef        ty = LLVMTypeOf(L);
    unsigned long long n  = LLVMStoreSizeOfType(TD, ty);
    return LLVMGetTypeKind(ty) == LLVMVectorTypeKind && LLVMGetAlignment(L) >= 4 &&
           n % 4 == 0 && n >= 4 && n <= 256 && n * 8 == LLVMSizeOfTypeInBits(TD, ty);
}

static LLVMValueRef check_vload(LLVMValueRef L, LLVMValueRef in)
{
    LLVMTypeRef ty = LLVMTypeOf(L);
    unsigned    n  = (unsigned)LLVMStoreSizeOfType(TD, ty);
    struct ld_diamond d;
    ld_open(&d, L, "kumi.vld.cont", "kumi.vld.chk", "kumi.vld.miss");
    LLVMValueRef ptr = d.ptr;
    LLVMTypeRef  vt    = LLVMVectorType(T32, n / 4);
    LLVMValueRef bits  = L;
    if (LLVMGetTypeKind(LLVMGetElementType(ty)) == LLVMPointerTypeKind)   /* no bitcast of pointers */
        bits = LLVMBuildPtrToInt(B, L, LLVMVectorType(T64, LLVMGetVectorSize(ty)), "");
    LLVMValueRef words = LLVMBuildBitCast(B, bits, vt, "");
    LLVMValueRef f32[64];
    for (unsigned i = 0; i < n / 4; i++) f32[i] = LLVMConstInt(T32, (unsigned)FLAG64, 0);
    LLVMValueRef flag  = LLVMConstVector(f32, n / 4);
    LLVMValueRef eq  = LLVMBuildICmp(B, LLVMIntEQ, words, flag, "kumi.vflag");
    LLVMValueRef any = LLVMBuildBitCast(B, eq, LLVMIntTypeInContext(C, n / 4), "");
    LLVMValueRef slow = LLVMBuildICmp(B, LLVMIntNE, any, LLVMConstInt(LLVMTypeOf(any), 0, 0), "kumi.isflag");
    unlikely_br(slow, d.chk, d.cont);   /* the range only on a match, as check_load */

    ld_range(&d, in);
    LLVMValueRef args[3] = {as_i8p(ptr), LLVMConstInt(T64, n, 0), LLVMConstInt(T32, DSM_READ, 0)};
    LLVMBuildCall2(B, FT_ACQUIRE, F_ACQUIRE, args, 3, "");
    LLVMValueRef nv = LLVMBuildLoad2(B, ty, ptr, "kumi.reload");
    LLVMSetAlignment(nv, LLVMGetAlignment(L));
    LLVMSetVolatile(nv, LLVMGetVolatile(L));
    ld_close(&d, L, nv);
    return in;
}

/* At the builder: is the first or the last line of [addr, addr+n) (n <= 64,
 * so at most two lines) not in the state the access needs (E for a write,
 * S or E otherwise)? An i1 for the slow-path branch. */
static LLVMValueRef emit_lines_bad(LLVMValueRef addr, unsigned long long n, int mode)
{
    LLVMValueRef slow = NULL;
    for (int end = 0; end < 2; end++) {
        LLVMValueRef a    = end ? LLVMBuildAdd(B, addr, LLVMConstInt(T64, n - 1, 0), "") : addr;
        LLVMValueRef off  = LLVMBuildSub(B, a, field(OFF_BASE, T64), "");
        LLVMValueRef line = LLVMBuildLShr(B, off, LLVMConstInt(T64, LINE_SHIFT, 0), "");
        LLVMValueRef sp   = LLVMBuildInBoundsGEP2(B, T8, field(OFF_STATE, TP8), &line, 1, "");
        LLVMValueRef sv   = LLVMBuildLoad2(B, T8, sp, "kumi.state");
        LLVMValueRef bad;
        if (mode == DSM_WRITE)
            bad = LLVMBuildICmp(B, LLVMIntNE, sv, LLVMConstInt(T8, STATE_E, 0), "kumi.notE");
        else   /* S = 1, E = 2: readable iff state - 1 <= 1 */
            bad = LLVMBuildICmp(B, LLVMIntUGT, LLVMBuildSub(B, sv, LLVMConstInt(T8, 1, 0), ""),
                                LLVMConstInt(T8, 1, 0), "kumi.notSE");
        slow = slow ? LLVMBuildOr(B, slow, bad, "") : bad;
    }
    return slow;
}

/* in range? -> kumi_dsm_acquire(p, n, mode) right before I. With w (a
 * constant size <= 64: vectors, aggregates, i128, x86_fp80), the state
 * bytes of the first and the last line of [p, p+w) are looked at inline
 * first: both readable (S or E; E for writes) skip the call (a vectorized
 * loop's unaligned accesses cross lines now and then; they need no call). */
static void acquire_before(LLVMValueRef I, unsigned pidx, int nidx, unsigned long long nconst,
                           int mode, unsigned w)
{
    LLVMBasicBlockRef bb   = LLVMGetInstructionParent(I);
    LLVMBasicBlockRef cont = split_before(I, "kumi.acq.cont");
    LLVMValueRef      ptr  = LLVMGetOperand(I, pidx);
    LLVMValueRef      n    = nidx >= 0 ? LLVMGetOperand(I, (unsigned)nidx) : LLVMConstInt(T64, nconst, 0);
    LLVMBasicBlockRef chk  = w ? new_block_after(bb, "kumi.acq.chk") : NULL;
    LLVMBasicBlockRef acq  = new_block_after(w ? chk : bb, "kumi.acq");
    set_dbg(I);
    LLVMPositionBuilderAtEnd(B, bb);
    LLVMValueRef addr = LLVMBuildPtrToInt(B, ptr, T64, "kumi.a");
    range_br(nidx >= 0 ? emit_range(addr) : emit_range_of(ptr), w ? chk : acq, cont);
    if (w) {
        LLVMPositionBuilderAtEnd(B, chk);
        unlikely_br(emit_lines_bad(addr, w, mode), acq, cont);
    }
    LLVMPositionBuilderAtEnd(B, acq);
    if (LLVMTypeOf(n) != T64) n = LLVMBuildZExt(B, n, T64, "");
    LLVMValueRef args[3] = {as_i8p(ptr), n, LLVMConstInt(T32, (unsigned)mode, 0)};
    LLVMBuildCall2(B, FT_ACQUIRE, F_ACQUIRE, args, 3, "");
    LLVMBuildBr(B, cont);
}

/* The state of the lines of [p+delta, p+delta+n) (n <= 64: at most two
 * lines, the first and the last) tested inline before I, p its operand
 * pidx: E for a write (else S or E); otherwise kumi_dsm_acquire of the
 * span. One test for a group of accesses to neighbouring bytes of one
 * object in a batch (an unrolled or vectorized loop's iterations). */
static LLVMValueRef check_span(LLVMValueRef I, unsigned pidx, long delta, unsigned n, int mode, LLVMValueRef in)
{
    LLVMBasicBlockRef bb   = LLVMGetInstructionParent(I);
    LLVMBasicBlockRef cont = split_before(I, "kumi.span.cont");
    LLVMValueRef      ptr  = LLVMGetOperand(I, pidx);
    LLVMBasicBlockRef chk  = new_block_after(bb, "kumi.span.chk");
    LLVMBasicBlockRef acq  = new_block_after(chk, "kumi.span.acq");
    set_dbg(I);
    LLVMPositionBuilderAtEnd(B, bb);
    LLVMValueRef addr = LLVMBuildAdd(B, LLVMBuildPtrToInt(B, ptr, T64, "kumi.a"),
                                     LLVMConstInt(T64, (unsigned long long)delta, 1), "kumi.span");
    if (in == NULL) in = emit_range_of(ptr);
    range_br(in, chk, cont);
    LLVMPositionBuilderAtEnd(B, chk);
    unlikely_br(emit_lines_bad(addr, n, mode), acq, cont);
    LLVMPositionBuilderAtEnd(B, acq);
    LLVMValueRef args[3] = {LLVMBuildIntToPtr(B, addr, TP8, ""), LLVMConstInt(T64, n, 0),
                            LLVMConstInt(T32, (unsigned)mode, 0)};
    LLVMBuildCall2(B, FT_ACQUIRE, F_ACQUIRE, args, 3, "");
    LLVMBuildBr(B, cont);
    return in;
}

/* memcpy/memmove whose source and destination both may be DSM:
 *   if (in(dst) | in(src)) kumi_dsm_memmove(dst, src, n); else the intrinsic.
 * Acquiring both ranges one after the other is not enough: the second
 * acquire may serve a request that takes a line of the first. The runtime
 * copies line by line through a private bounce buffer, each line valid at
 * the moment its bytes move. */
static void mem_both(LLVMValueRef I)
{
    LLVMBasicBlockRef bb    = LLVMGetInstructionParent(I);
    LLVMBasicBlockRef cont  = split_before(I, "kumi.mem.plain");
    LLVMBasicBlockRef after = split_before(LLVMGetNextInstruction(I), "kumi.mem.cont");
    LLVMBasicBlockRef call  = new_block_after(bb, "kumi.mem.dsm");
    LLVMValueRef      dst = LLVMGetOperand(I, 0), src = LLVMGetOperand(I, 1), n = LLVMGetOperand(I, 2);
    set_dbg(I);
    LLVMPositionBuilderAtEnd(B, cont);
    LLVMBuildBr(B, after);
    LLVMPositionBuilderAtEnd(B, bb);
    LLVMValueRef any = LLVMBuildOr(B, emit_range(LLVMBuildPtrToInt(B, dst, T64, "kumi.a")),
                                   emit_range(LLVMBuildPtrToInt(B, src, T64, "kumi.a")), "kumi.anyin");
    unlikely_br(any, call, cont);
    LLVMPositionBuilderAtEnd(B, call);
    if (LLVMTypeOf(n) != T64) n = LLVMBuildZExt(B, n, T64, "");
    LLVMValueRef args[3] = {as_i8p(dst), as_i8p(src), n};
    LLVMBuildCall2(B, FT_MEMMOVE, F_MEMMOVE, args, 3, "");
    LLVMBuildBr(B, after);
}

/* the back-edge term->succ(idx): if ((++tick & 1023) == 0) kumi_dsm_poll(); */
static void poll_on_edge(LLVMValueRef term, unsigned idx)
{
    LLVMBasicBlockRef src = LLVMGetInstructionParent(term);
    LLVMBasicBlockRef h   = LLVMGetSuccessor(term, idx);
    LLVMBasicBlockRef e   = new_block_after(src, "kumi.poll");
    LLVMBasicBlockRef c   = new_block_after(e, "kumi.poll.call");
    LLVMBasicBlockRef j   = new_block_after(c, "kumi.poll.done");
    set_dbg(term);
    LLVMSetSuccessor(term, idx, e);
    LLVMPositionBuilderAtEnd(B, e);
    LLVMValueRef tp = SHADOW_TICK ? SHADOW_TICK : tick_global_ptr(B);
    LLVMValueRef tl = LLVMBuildLoad2(B, T32, tp, "");
    LLVMValueRef t  = LLVMBuildAdd(B, tl, LLVMConstInt(T32, 1, 0), "kumi.tick");
    LLVMValueRef ts = LLVMBuildStore(B, t, tp);
    if (!SHADOW_TICK) {
        LLVMSetMetadata(tl, MD_TBAA, TBAA_TICK);
        LLVMSetMetadata(ts, MD_TBAA, TBAA_TICK);
    }
    LLVMValueRef z  = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildAnd(B, t, LLVMConstInt(T32, POLL_MASK, 0), ""),
                                    LLVMConstInt(T32, 0, 0), "");
    unlikely_br(z, c, j);
    LLVMPositionBuilderAtEnd(B, c);
    LLVMBuildCall2(B, FT_POLL, F_POLL, NULL, 0, "");
    LLVMBuildBr(B, j);
    LLVMPositionBuilderAtEnd(B, j);
    LLVMBuildBr(B, h);
    phi_retarget(h, src, j, 1);
    st.polls++;
}

/* ------------------------------------------------------------ loop versions */
/* An innermost loop without calls, fences, atomics or volatile accesses,
 * whose every access that may touch the region has an address affine in
 * the loop's induction variable, gets an unchecked copy: before the loop,
 * kumi_dsm_ready tests every line the accesses can reach (bounded from the
 * exit test); when all are ready the copy runs, else the checked loop. The
 * copy serves no requests (no polls, no misses, no calls), so no line can
 * change state while it runs, and its trip count is bounded. */

/* v = coef * t + inv + k, k in [lo, hi], t the iteration (0, 1, ...);
 * coef/inv NULL for 0 (i64) */
typedef struct { LLVMValueRef coef, inv; long lo, hi; } aff;

static pmap              V_BODY;   /* the loop's blocks                */
static struct vers { LLVMBasicBlockRef d; LLVMValueRef tmax; LLVMMetadataRef dbg; } *VERS;   /* test block, tmax (in it, or constant) */
static struct vfield { LLVMValueRef load; int k; } *VFIELDS;   /* the tests' loads of base/size/state */
static size_t            nvfields, cvfields;

/* base (k 0), size (1) or state (2) for a loop's test: from kumi_dsm_g
 * now, from the function's shadows once they exist (step 4) */
static LLVMValueRef v_field(unsigned off, LLVMTypeRef ty)
{
    LLVMValueRef l = field_global(MV, off, ty);
    if (nvfields == cvfields) VFIELDS = xrealloc(VFIELDS, (cvfields = cvfields ? 2 * cvfields : 16) * sizeof *VFIELDS);
    VFIELDS[nvfields++] = (struct vfield){l, off == OFF_PSTATE ? 3 : (int)(off / 8)};
    return l;
}
static size_t            nvers, cvers;
static LLVMBasicBlockRef V_H, V_PRE, V_LATCH;   /* header, the way in, latch */

static int aff_of(LLVMValueRef v, int depth, aff *a);

/* phi is an induction variable of the loop: start from the way in, and
 * phi + step (or a GEP of phi by a constant) from the latch */
static int iv_of(LLVMValueRef phi, LLVMValueRef *start, LLVMValueRef *next, long *step)
{
    if (!LLVMIsAPHINode(phi) || LLVMGetInstructionParent(phi) != V_H || LLVMCountIncoming(phi) != 2)
        return 0;
    *start = *next = NULL;
    for (unsigned j = 0; j < 2; j++) {
        if (LLVMGetIncomingBlock(phi, j) == V_PRE) *start = LLVMGetIncomingValue(phi, j);
        else if (LLVMGetIncomingBlock(phi, j) == V_LATCH) *next = LLVMGetIncomingValue(phi, j);
    }
    LLVMValueRef n = *next;
    if (!*start || !n || !LLVMIsAInstruction(n) || LLVMGetOperand(n, 0) != phi)
        return 0;
    if (LLVMGetInstructionOpcode(n) == LLVMAdd && LLVMIsAConstantInt(LLVMGetOperand(n, 1))) {
        *step = LLVMConstIntGetSExtValue(LLVMGetOperand(n, 1));
        return LLVMGetTypeKind(LLVMTypeOf(phi)) == LLVMIntegerTypeKind &&
               LLVMGetIntTypeWidth(LLVMTypeOf(phi)) == 64 && *step != 0;
    }
    if (LLVMIsAGetElementPtrInst(n) && LLVMGetNumOperands(n) == 2 && LLVMIsAConstantInt(LLVMGetOperand(n, 1))) {
        long k = LLVMConstIntGetSExtValue(LLVMGetOperand(n, 1));
        long sz = (long)LLVMABISizeOfType(TD, LLVMGetGEPSourceElementType(n));
        return !__builtin_mul_overflow(k, sz, step) && *step != 0;
    }
    return 0;
}

static int in_body(LLVMValueRef v)
{
    return LLVMIsAInstruction(v) && pmap_find(&V_BODY, LLVMGetInstructionParent(v)) != NULL;
}

/* the test block's arithmetic, built once per operation and operands, so
 * equal invariant parts are the same value (ranges merge by identity) */
enum { VO_ADD, VO_MUL, VO_NEG, VO_PTR, VO_SEXT };
static struct vmemo { int op; LLVMValueRef a, b, r; } *VMEMO;
static size_t nvmemo, cvmemo;

static LLVMValueRef v_op(int op, LLVMValueRef a, LLVMValueRef b)
{
    if ((op == VO_ADD || op == VO_MUL) && (uintptr_t)a > (uintptr_t)b) {
        LLVMValueRef t = a; a = b; b = t;
    }
    for (size_t i = 0; i < nvmemo; i++)
        if (VMEMO[i].op == op && VMEMO[i].a == a && VMEMO[i].b == b) return VMEMO[i].r;
    LLVMValueRef r;
    switch (op) {
    case VO_ADD: r = LLVMBuildAdd(MV, a, b, ""); break;
    case VO_MUL: r = LLVMBuildMul(MV, a, b, ""); break;
    case VO_NEG: r = LLVMBuildNeg(MV, a, ""); break;
    case VO_PTR: r = LLVMBuildPtrToInt(MV, a, T64, ""); break;
    default:     r = LLVMBuildSExt(MV, a, T64, ""); break;
    }
    if (nvmemo == cvmemo) VMEMO = xrealloc(VMEMO, (cvmemo = cvmemo ? 2 * cvmemo : 32) * sizeof *VMEMO);
    VMEMO[nvmemo++] = (struct vmemo){op, a, b, r};
    return r;
}

static LLVMValueRef v_add(LLVMValueRef a, LLVMValueRef b)
{
    return a == NULL ? b : b == NULL ? a : v_op(VO_ADD, a, b);
}

static LLVMValueRef v_const(long k) { return LLVMConstInt(T64, (unsigned long long)k, 1); }

/* x = a + sign * b */
static int aff_add(aff *x, const aff *a, const aff *b, int sign)
{
    LLVMValueRef bc = b->coef, bi = b->inv;
    long         blo = b->lo, bhi = b->hi;
    if (sign < 0) {
        if (bc) bc = v_op(VO_NEG, bc, NULL);
        if (bi) bi = v_op(VO_NEG, bi, NULL);
        if (__builtin_sub_overflow(0, b->hi, &blo) || __builtin_sub_overflow(0, b->lo, &bhi)) return 0;
    }
    x->coef = v_add(a->coef, bc);
    x->inv  = v_add(a->inv, bi);
    return !__builtin_add_overflow(a->lo, blo, &x->lo) && !__builtin_add_overflow(a->hi, bhi, &x->hi);
}

/* x = a * k, k a constant */
static int aff_scale(aff *x, const aff *a, long k)
{
    LLVMValueRef kv = v_const(k);
    long         l, h;
    x->coef = a->coef ? v_op(VO_MUL, a->coef, kv) : NULL;
    x->inv  = a->inv ? v_op(VO_MUL, a->inv, kv) : NULL;
    if (__builtin_mul_overflow(a->lo, k, &l) || __builtin_mul_overflow(a->hi, k, &h)) return 0;
    x->lo = l < h ? l : h;
    x->hi = l < h ? h : l;
    return 1;
}

static int aff_of(LLVMValueRef v, int depth, aff *a)
{
    memset(a, 0, sizeof *a);
    LLVMTypeRef ty = LLVMTypeOf(v);
    LLVMTypeKind tk = LLVMGetTypeKind(ty);
    if (tk == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(ty) > 64)
        return 0;
    if (tk != LLVMIntegerTypeKind && tk != LLVMPointerTypeKind)
        return 0;
    LLVMValueRef st0, nx;
    long         step;
    if (iv_of(v, &st0, &nx, &step)) {   /* start + step * t */
        if (in_body(st0) || !aff_of(st0, depth + 1, a)) return 0;
        a->coef = v_const(step);
        return 1;
    }
    if (!in_body(v)) {   /* loop-invariant: defined before the loop */
        if (LLVMIsAConstantInt(v)) {
            a->lo = a->hi = LLVMConstIntGetSExtValue(v);
            return 1;
        }
        if (LLVMIsAInstruction(v) || LLVMIsAArgument(v) || LLVMIsAGlobalValue(v) ||
            LLVMIsAConstantPointerNull(v)) {
            if (tk == LLVMPointerTypeKind) a->inv = v_op(VO_PTR, v, NULL);
            else a->inv = LLVMGetIntTypeWidth(ty) < 64 ? v_op(VO_SEXT, v, NULL) : v;
            return 1;
        }
        return 0;   /* constant expressions and the like: not worth it */
    }
    if (depth > 12 || (tk == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(ty) != 64))
        return 0;   /* narrower arithmetic may wrap */
    aff        x, y;
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    switch (op) {
    case LLVMBitCast:
    case LLVMPtrToInt:
    case LLVMIntToPtr:
        return aff_of(LLVMGetOperand(v, 0), depth + 1, a);
    case LLVMAdd:
    case LLVMSub:
        return aff_of(LLVMGetOperand(v, 0), depth + 1, &x) && aff_of(LLVMGetOperand(v, 1), depth + 1, &y) &&
               aff_add(a, &x, &y, op == LLVMAdd ? 1 : -1);
    case LLVMShl:
    case LLVMMul: {
        LLVMValueRef k = LLVMGetOperand(v, 1), o = LLVMGetOperand(v, 0);
        if (op == LLVMMul && !in_body(o) && in_body(k)) { LLVMValueRef t = k; k = o; o = t; }
        if (!aff_of(o, depth + 1, &x)) return 0;
        if (LLVMIsAConstantInt(k)) {
            long kc = LLVMConstIntGetSExtValue(k);
            if (op == LLVMShl) {
                if (kc < 0 || kc > 40) return 0;
                kc = 1L << kc;
            }
            return aff_scale(a, &x, kc);
        }
        if (op == LLVMShl || in_body(k) || !aff_of(k, depth + 1, &y) || y.inv == NULL || y.lo != y.hi)
            return 0;
        LLVMValueRef kv = v_add(y.inv, y.lo ? v_const(y.lo) : NULL);
        if (x.lo != x.hi) return 0;   /* a range times an unknown sign */
        LLVMValueRef xi = v_add(x.inv, x.lo ? v_const(x.lo) : NULL);
        a->coef = x.coef ? v_op(VO_MUL, x.coef, kv) : NULL;
        a->inv  = xi ? v_op(VO_MUL, xi, kv) : NULL;
        return 1;
    }
    case LLVMOr: {   /* x | c lies in [x, x + c] for c >= 0 */
        LLVMValueRef c = LLVMGetOperand(v, 1);
        if (!LLVMIsAConstantInt(c) || LLVMConstIntGetSExtValue(c) < 0 ||
            !aff_of(LLVMGetOperand(v, 0), depth + 1, a))
            return 0;
        return !__builtin_add_overflow(a->hi, LLVMConstIntGetSExtValue(c), &a->hi);
    }
    case LLVMGetElementPtr: {
        if (!aff_of(LLVMGetOperand(v, 0), depth + 1, a)) return 0;
        unsigned    n  = LLVMGetNumOperands(v);
        LLVMTypeRef et = LLVMGetGEPSourceElementType(v);
        for (unsigned i = 1; i < n; i++) {
            LLVMValueRef ix = LLVMGetOperand(v, i);
            if (LLVMGetTypeKind(LLVMTypeOf(ix)) != LLVMIntegerTypeKind) return 0;   /* vector GEP */
            if (i > 1 && LLVMGetTypeKind(et) == LLVMStructTypeKind) {
                unsigned f = (unsigned)LLVMConstIntGetZExtValue(ix);
                long     o = (long)LLVMOffsetOfElement(TD, et, f);
                if (__builtin_add_overflow(a->lo, o, &a->lo) || __builtin_add_overflow(a->hi, o, &a->hi))
                    return 0;
                et = LLVMStructGetTypeAtIndex(et, f);
                continue;
            }
            if (i > 1) {
                LLVMTypeKind k = LLVMGetTypeKind(et);
                if (k != LLVMArrayTypeKind && k != LLVMVectorTypeKind) return 0;
                et = LLVMGetElementType(et);
            }
            aff s, t = *a;
            if (!aff_of(ix, depth + 1, &x) || !aff_scale(&s, &x, (long)LLVMABISizeOfType(TD, et)) ||
                !aff_add(a, &t, &s, 1))
                return 0;
        }
        return 1;
    }
    default:
        return 0;
    }
}

/* one range to test before the loop: accesses with the same coef, inv
 * and mode, their constant parts merged */
typedef struct { LLVMValueRef coef, inv; long lo, hi; int write; } vrange;

static LLVMValueRef v_smax(LLVMValueRef a, LLVMValueRef b, int max)
{
    return LLVMBuildSelect(MV, LLVMBuildICmp(MV, max ? LLVMIntSGT : LLVMIntSLT, a, b, ""), a, b, "");
}

static LLVMIntPredicate swap_pred(LLVMIntPredicate p)
{
    switch (p) {
    case LLVMIntSLT: return LLVMIntSGT; case LLVMIntSGT: return LLVMIntSLT;
    case LLVMIntSLE: return LLVMIntSGE; case LLVMIntSGE: return LLVMIntSLE;
    case LLVMIntULT: return LLVMIntUGT; case LLVMIntUGT: return LLVMIntULT;
    case LLVMIntULE: return LLVMIntUGE; case LLVMIntUGE: return LLVMIntULE;
    default: return p;
    }
}

static LLVMIntPredicate not_pred(LLVMIntPredicate p)
{
    switch (p) {
    case LLVMIntEQ: return LLVMIntNE;   case LLVMIntNE: return LLVMIntEQ;
    case LLVMIntSLT: return LLVMIntSGE; case LLVMIntSGE: return LLVMIntSLT;
    case LLVMIntSGT: return LLVMIntSLE; case LLVMIntSLE: return LLVMIntSGT;
    case LLVMIntULT: return LLVMIntUGE; case LLVMIntUGE: return LLVMIntULT;
    case LLVMIntUGT: return LLVMIntULE; case LLVMIntULE: return LLVMIntUGT;
    default: return p;
    }
}

typedef struct { LLVMBasicBlockRef from, to; } edge;

static LLVMValueRef map_get(pmap *m, LLVMValueRef v)
{
    long *p = pmap_find(m, v);
    return p ? (LLVMValueRef)(intptr_t)*p : v;
}

static int version_loop(LLVMValueRef fn, LLVMValueRef latch_term, unsigned k, const edge *e, size_t ne,
                        LLVMValueRef *terms, size_t nterms)
{
    LLVMBasicBlockRef H = LLVMGetSuccessor(latch_term, k), L = LLVMGetInstructionParent(latch_term);
    int               ok = 0;
    if (LLVMGetInstructionOpcode(latch_term) != LLVMBr || LLVMGetNumSuccessors(latch_term) != 2 ||
        LLVMGetSuccessor(latch_term, 1 - k) == H)
        return 0;
    /* the body: H and the blocks that reach the latch without H */
    LLVMBasicBlockRef *wl = NULL;
    size_t             nwl = 0, cwl = 0, nbody = 0;
    pmap_put(&V_BODY, H, 1);
    nbody = 1;
    if (L != H) {
        pmap_put(&V_BODY, L, 1);
        nbody++;
        wl = xrealloc(wl, (cwl = 16) * sizeof *wl);
        wl[nwl++] = L;
    }
    while (nwl) {
        LLVMBasicBlockRef w = wl[--nwl];
        for (size_t i = 0; i < ne; i++)
            if (e[i].to == w && !pmap_find(&V_BODY, e[i].from)) {
                pmap_put(&V_BODY, e[i].from, 1);
                nbody++;
                if (nwl == cwl) wl = xrealloc(wl, (cwl *= 2) * sizeof *wl);
                wl[nwl++] = e[i].from;
            }
        if (nbody > 64) goto out;
    }
    /* one way in (through P), one latch, no inner loop */
    V_PRE = NULL;
    for (size_t i = 0; i < ne; i++) {
        int fin = pmap_find(&V_BODY, e[i].from) != NULL, tin = pmap_find(&V_BODY, e[i].to) != NULL;
        if (!tin || fin) {
            if (fin && tin && e[i].to == H && e[i].from != L) goto out;   /* a second latch */
            continue;
        }
        if (e[i].to != H || V_PRE) goto out;   /* a second entry */
        V_PRE = e[i].from;
    }
    if (V_PRE == NULL) goto out;
    {
        LLVMValueRef pt = LLVMGetBasicBlockTerminator(V_PRE);
        unsigned     hits = 0, pn = LLVMGetNumSuccessors(pt);
        for (unsigned s = 0; s < pn; s++) hits += LLVMGetSuccessor(pt, s) == H;
        if (hits != 1 || LLVMGetInstructionOpcode(pt) != LLVMBr) goto out;
    }
    for (size_t i = 0; i < nterms; i++)
        if (terms[i] != latch_term && in_body(terms[i])) goto out;
    /* the exit test at the latch: an induction variable (or its next
     * value) against a loop-invariant bound */
    V_H = H;
    V_LATCH = L;
    nvmemo = 0;
    LLVMValueRef cond = LLVMGetCondition(latch_term);
    if (!LLVMIsAICmpInst(cond)) goto out;
    LLVMIntPredicate pred = LLVMGetICmpPredicate(cond);
    LLVMValueRef     N = NULL, next = NULL, start = NULL, iv = NULL;
    long             step = 0;
    int              on_next = 0;
    for (int s = 0; s < 2 && !iv; s++) {
        LLVMValueRef c = LLVMGetOperand(cond, (unsigned)s), o = LLVMGetOperand(cond, 1u - (unsigned)s);
        if (in_body(o) || LLVMIsAConstantExpr(o) || LLVMGetTypeKind(LLVMTypeOf(c)) != LLVMIntegerTypeKind)
            continue;
        LLVMValueRef phi = c;
        if (LLVMIsABinaryOperator(c) && LLVMGetInstructionOpcode(c) == LLVMAdd)
            phi = LLVMGetOperand(c, 0);
        if (!iv_of(phi, &start, &next, &step) || (c != phi && c != next))
            continue;
        iv      = phi;
        N       = o;
        on_next = c == next;
        if (s == 1) pred = swap_pred(pred);
    }
    if (!iv) goto out;
    if (LLVMGetSuccessor(latch_term, 0) != H) pred = not_pred(pred);   /* now: go on while pred */
    int up = step > 0, uns = pred == LLVMIntULT || pred == LLVMIntULE || pred == LLVMIntUGT || pred == LLVMIntUGE;
    long extra;   /* the last iv is at most N + extra (up) or at least N + extra (down) */
    if (up) {
        if (pred == LLVMIntSLT || pred == LLVMIntULT) extra = on_next ? -1 : step - 1;
        else if (pred == LLVMIntSLE || pred == LLVMIntULE) extra = on_next ? 0 : step;
        else if (pred == LLVMIntNE) extra = on_next ? -1 : 0;
        else goto out;
    } else {
        if (pred == LLVMIntSGT || pred == LLVMIntUGT) extra = on_next ? 1 : step + 1;
        else if (pred == LLVMIntSGE || pred == LLVMIntUGE) extra = on_next ? 0 : step;
        else if (pred == LLVMIntNE) extra = on_next ? 1 : 0;
        else goto out;
    }

    /* values of the loop used after it only by the exits' phis (LCSSA):
     * those take the copy's values from the copy's blocks */
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b)) {
        if (!pmap_find(&V_BODY, b)) continue;
        for (LLVMValueRef I = LLVMGetFirstInstruction(b); I; I = LLVMGetNextInstruction(I))
            for (LLVMUseRef u = LLVMGetFirstUse(I); u; u = LLVMGetNextUse(u)) {
                LLVMValueRef U = LLVMGetUser(u);
                if (in_body(U)) continue;
                if (!LLVMIsAPHINode(U)) goto out;
                unsigned n = LLVMCountIncoming(U);
                for (unsigned j = 0; j < n; j++)
                    if (LLVMGetIncomingValue(U, j) == I && !pmap_find(&V_BODY, LLVMGetIncomingBlock(U, j)))
                        goto out;
            }
    }

    /* the test block D on the edge P -> H; the analysis builds its values there */
    LLVMBasicBlockRef D = LLVMInsertBasicBlockInContext(C, H, "kumi.ver");
    /* the calls the test and the bail make carry the loop's location (a
     * call in a function with debug info must have one) */
    LLVMMetadataRef dbg = LLVMInstructionGetDebugLoc(latch_term);
    for (LLVMValueRef I = LLVMGetFirstInstruction(H); I && !dbg; I = LLVMGetNextInstruction(I))
        dbg = LLVMInstructionGetDebugLoc(I);
    LLVMPositionBuilderAtEnd(MV, D);
    LLVMSetCurrentDebugLocation2(MV, NULL);
    vrange *rg = NULL;
    size_t  nrg = 0, crg = 0;
    int     fail = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b && !fail; b = LLVMGetNextBasicBlock(b)) {
        if (!pmap_find(&V_BODY, b)) continue;
        for (LLVMValueRef I = LLVMGetFirstInstruction(b); I && !fail; I = LLVMGetNextInstruction(I)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(I);
            if (op == LLVMCall) {
                const char *n = callee_name(I);
                if (!n || !starts(n, "llvm.") || is_memintr(n) || starts(n, "llvm.masked.")) fail = 1;
                continue;
            }
            if (op == LLVMInvoke || op == LLVMFence || op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg ||
                op == LLVMRet || op == LLVMCallBr) { fail = 1; continue; }
            if (op != LLVMLoad && op != LLVMStore) continue;
            int          store = op == LLVMStore;
            LLVMValueRef p = LLVMGetOperand(I, store ? 1 : 0);
            if (LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != 0 || is_private(p, 0)) continue;
            if (LLVMGetVolatile(I) || LLVMGetOrdering(I) != LLVMAtomicOrderingNotAtomic) { fail = 1; continue; }
            aff a;
            if (!aff_of(p, 0, &a)) {
                fail = 1; continue; }
            long n = (long)LLVMStoreSizeOfType(TD, store ? LLVMTypeOf(LLVMGetOperand(I, 0)) : LLVMTypeOf(I));
            size_t r;
            for (r = 0; r < nrg; r++)
                if (rg[r].coef == a.coef && rg[r].inv == a.inv && rg[r].write == store) break;
            if (r == nrg) {
                if (nrg == crg) rg = xrealloc(rg, (crg = crg ? 2 * crg : 8) * sizeof *rg);
                rg[nrg++] = (vrange){a.coef, a.inv, a.lo, a.hi + n, store};
            } else {
                if (a.lo < rg[r].lo) rg[r].lo = a.lo;
                if (a.hi + n > rg[r].hi) rg[r].hi = a.hi + n;
            }
        }
    }
    /* a range read and written (a[i] += ...): one test for E (E implies
     * readable) */
    for (size_t r = 0; r < nrg; r++) {
        if (rg[r].write) continue;
        for (size_t q = 0; q < nrg; q++)
            if (rg[q].write && rg[q].coef == rg[r].coef && rg[q].inv == rg[r].inv) {
                if (rg[r].lo < rg[q].lo) rg[q].lo = rg[r].lo;
                if (rg[r].hi > rg[q].hi) rg[q].hi = rg[r].hi;
                rg[r--] = rg[--nrg];
                break;
            }
    }
    if (fail || nrg == 0 || nrg > 16) {
        for (LLVMValueRef I = LLVMGetLastInstruction(D), p; I; I = p) {
            p = LLVMGetPreviousInstruction(I);
            LLVMInstructionEraseFromParent(I);
        }
        LLVMDeleteBasicBlock(D);
        free(rg);
        goto out;
    }
    /* the iterations: the tested variable runs from start to at most (at
     * least) N + extra, so t runs from 0 to tmax */
    LLVMValueRef lim  = LLVMBuildAdd(MV, N, v_const(extra), "");
    LLVMValueRef tmax = LLVMBuildSDiv(MV, up ? LLVMBuildSub(MV, lim, start, "") : LLVMBuildSub(MV, start, lim, ""),
                                      v_const(up ? step : -step), "");
    tmax = v_smax(tmax, v_const(0), 1);
    LLVMValueRef ready = LLVMConstInt(T1, 1, 0);
    if (uns)   /* an unsigned bound above 2^63 is no bound here */
        ready = LLVMBuildAnd(MV, ready, LLVMBuildAnd(MV, LLVMBuildICmp(MV, LLVMIntSGE, start, v_const(0), ""),
                                                     LLVMBuildICmp(MV, LLVMIntSGE, N, v_const(0), ""), ""), "");
    LLVMBasicBlockRef Dend = D;   /* the test's last block */
    LLVMValueRef     *vargs = xrealloc(NULL, 3 * nrg * sizeof *vargs);   /* each range's lo, hi, write */
    size_t            nargs = nrg;
    for (size_t r = 0; r < nrg; r++) {
        LLVMValueRef a1 = rg[r].inv ? rg[r].inv : v_const(0), a2 = a1;
        if (rg[r].coef)
            a2 = LLVMBuildAdd(MV, a2, LLVMBuildMul(MV, rg[r].coef, tmax, ""), "");
        LLVMValueRef lo = LLVMBuildAdd(MV, v_smax(a1, a2, 0), v_const(rg[r].lo), "kumi.lo");
        LLVMValueRef hi = LLVMBuildAdd(MV, v_smax(a1, a2, 1), v_const(rg[r].hi), "kumi.hi");
        /* inline, in the region: a range within eight 4 KiB pages whose
         * summaries say "all E" (one word of pstate); else a range of at
         * most eight lines by their state bytes (one word of state); else
         * kumi_dsm_ready (dsm.c pads both tables by 8 bytes) */
        LLVMValueRef base = v_field(OFF_BASE, T64), size = v_field(OFF_SIZE, T64);
        LLVMValueRef o0 = LLVMBuildSub(MV, lo, base, ""), o1 = LLVMBuildSub(MV, LLVMBuildSub(MV, hi, v_const(1), ""), base, "");
        LLVMValueRef inreg = LLVMBuildAnd(MV, LLVMBuildICmp(MV, LLVMIntULT, o0, size, ""),
                                          LLVMBuildICmp(MV, LLVMIntULT, o1, size, ""), "");
        LLVMValueRef p0 = LLVMBuildLShr(MV, o0, v_const(PAGE_SHIFT), "");
        LLVMValueRef np = LLVMBuildSub(MV, LLVMBuildLShr(MV, o1, v_const(PAGE_SHIFT), ""), p0, "");
        LLVMValueRef l0 = LLVMBuildLShr(MV, o0, v_const(LINE_SHIFT), ""), l1 = LLVMBuildLShr(MV, o1, v_const(LINE_SHIFT), "");
        LLVMValueRef nl = LLVMBuildSub(MV, l1, l0, "");
        LLVMBasicBlockRef bp = new_block_after(Dend, "kumi.ver.pages");
        LLVMBasicBlockRef bl = new_block_after(bp, "kumi.ver.lines");
        LLVMBasicBlockRef bs = new_block_after(bl, "kumi.ver.small");
        LLVMBasicBlockRef bc = new_block_after(bs, "kumi.ver.call");
        LLVMBasicBlockRef bj = new_block_after(bc, "kumi.ver.join");
        LLVMBuildCondBr(MV, LLVMBuildAnd(MV, inreg, LLVMBuildICmp(MV, LLVMIntULT, np, v_const(8), ""), ""), bp, bl);
        LLVMPositionBuilderAtEnd(MV, bp);
        LLVMValueRef pw = LLVMBuildBitCast(MV, LLVMBuildGEP2(MV, T8, v_field(OFF_PSTATE, TP8), &p0, 1, ""),
                                           LLVMPointerType(T64, 0), "");
        LLVMValueRef p8 = LLVMBuildLoad2(MV, T64, pw, "kumi.pstates");
        LLVMSetAlignment(p8, 1);
        LLVMValueRef pmask = LLVMBuildLShr(MV, v_const(-1), LLVMBuildMul(MV, LLVMBuildSub(MV, v_const(7), np, ""),
                                                                         v_const(8), ""), "");
        LLVMValueRef pall = LLVMBuildICmp(MV, LLVMIntEQ,
                                          LLVMBuildAnd(MV, LLVMBuildXor(MV, p8, v_const(0x0101010101010101L), ""),
                                                       pmask, ""), v_const(0), "");
        LLVMBuildCondBr(MV, pall, bj, bl);
        LLVMPositionBuilderAtEnd(MV, bl);
        LLVMBuildCondBr(MV, LLVMBuildAnd(MV, inreg, LLVMBuildICmp(MV, LLVMIntULT, nl, v_const(8), ""), ""), bs, bc);
        LLVMPositionBuilderAtEnd(MV, bs);
        LLVMValueRef stp = v_field(OFF_STATE, TP8);
        LLVMValueRef wp  = LLVMBuildBitCast(MV, LLVMBuildGEP2(MV, T8, stp, &l0, 1, ""), LLVMPointerType(T64, 0), "");
        LLVMValueRef w8  = LLVMBuildLoad2(MV, T64, wp, "kumi.states");
        LLVMSetAlignment(w8, 1);
        LLVMValueRef mask = LLVMBuildLShr(MV, v_const(-1), LLVMBuildMul(MV, LLVMBuildSub(MV, v_const(7), nl, ""),
                                                                        v_const(8), ""), "");
        LLVMValueRef bad = rg[r].write ? LLVMBuildXor(MV, w8, v_const(0x0202020202020202L), "")
                                       : LLVMBuildAnd(MV, LLVMBuildSub(MV, w8, v_const(0x0101010101010101L), ""),
                                                      v_const((long)0xfefefefefefefefeull), "");   /* S or E */
        LLVMValueRef good = LLVMBuildICmp(MV, LLVMIntEQ, LLVMBuildAnd(MV, bad, mask, ""), v_const(0), "");
        LLVMBuildBr(MV, bj);
        LLVMPositionBuilderAtEnd(MV, bc);
        LLVMValueRef args[3] = {lo, hi, LLVMConstInt(T32, (unsigned long long)rg[r].write, 0)};
        memcpy(&vargs[3 * r], args, sizeof args);
        LLVMValueRef c = LLVMBuildCall2(MV, FT_READY, F_READY, args, 3, "");
        LLVMInstructionSetDebugLoc(c, dbg);
        LLVMValueRef good2 = LLVMBuildICmp(MV, LLVMIntNE, c, LLVMConstInt(T32, 0, 0), "");
        LLVMBuildBr(MV, bj);
        LLVMPositionBuilderAtEnd(MV, bj);
        LLVMValueRef      ph = LLVMBuildPhi(MV, T1, "");
        LLVMValueRef      iv2[3] = {LLVMConstInt(T1, 1, 0), good, good2};
        LLVMBasicBlockRef ib2[3] = {bp, bs, bc};
        LLVMAddIncoming(ph, iv2, ib2, 3);
        ready = LLVMBuildAnd(MV, ready, ph, "");
        Dend = bj;
    }
    free(rg);

    /* two copies (blocks after the function's last, same instructions):
     * kumi.fast for runs of fewer than VERSION_POLL_EVERY iterations, with
     * nothing added; kumi.fastl for longer runs, which leaves its loop
     * every VERSION_POLL_EVERY iterations to poll (a call in the one copy
     * for all runs made the register allocator slow short loops down, sor
     * 1.2x -> 2.2x); Dsel picks one */
    LLVMBasicBlockRef  Dsel = new_block_after(Dend, "kumi.ver.sel"), Hcs[2];
    LLVMBasicBlockRef *bb = xrealloc(NULL, nbody * sizeof *bb);
    size_t             nb = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        if (pmap_find(&V_BODY, b)) bb[nb++] = b;
    LLVMBasicBlockRef *cb = xrealloc(NULL, nbody * sizeof *cb);
    for (int cp = 0; cp < 2; cp++) {
    pmap vm = {0};
    for (size_t i = 0; i < nb; i++) {
        cb[i] = LLVMAppendBasicBlockInContext(C, fn, cp ? "kumi.fastl" : "kumi.fast");
        pmap_put(&vm, LLVMBasicBlockAsValue(bb[i]), (long)(intptr_t)LLVMBasicBlockAsValue(cb[i]));
    }
    for (size_t i = 0; i < nb; i++) {
        LLVMPositionBuilderAtEnd(MV, cb[i]);
        LLVMSetCurrentDebugLocation2(MV, NULL);
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb[i]); I; I = LLVMGetNextInstruction(I)) {
            LLVMValueRef c;
            if (LLVMIsAPHINode(I)) {
                c = LLVMBuildPhi(MV, LLVMTypeOf(I), "");
            } else {
                c = LLVMInstructionClone(I);
                LLVMInsertIntoBuilderWithName(MV, c, "");
            }
            pmap_put(&vm, I, (long)(intptr_t)c);
        }
    }
    for (size_t i = 0; i < nb; i++) {
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb[i]); I; I = LLVMGetNextInstruction(I)) {
            LLVMValueRef c = map_get(&vm, I);
            if (LLVMIsAPHINode(I)) {
                unsigned n = LLVMCountIncoming(I);
                for (unsigned j = 0; j < n; j++) {
                    LLVMBasicBlockRef ib = LLVMGetIncomingBlock(I, j);
                    LLVMValueRef      iv = map_get(&vm, LLVMGetIncomingValue(I, j));
                    ib = ib == V_PRE ? Dsel : LLVMValueAsBasicBlock(map_get(&vm, LLVMBasicBlockAsValue(ib)));
                    LLVMAddIncoming(c, &iv, &ib, 1);
                }
                continue;
            }
            unsigned n = (unsigned)LLVMGetNumOperands(c);
            for (unsigned j = 0; j < n; j++) {
                LLVMValueRef o = LLVMGetOperand(c, j), m = map_get(&vm, o);
                if (m != o) LLVMSetOperand(c, j, m);
            }
        }
    }
    /* exits: their phis take the copy's values from the copy's blocks */
    for (size_t i = 0; i < nb; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(bb[i]);
        unsigned     ns = t ? LLVMGetNumSuccessors(t) : 0;
        for (unsigned s = 0; s < ns; s++) {
            LLVMBasicBlockRef x = LLVMGetSuccessor(t, s);
            int               dup = 0;
            for (unsigned q = 0; q < s; q++) dup |= LLVMGetSuccessor(t, q) == x;
            if (dup || pmap_find(&V_BODY, x)) continue;
            for (LLVMValueRef p = LLVMGetFirstInstruction(x); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
                unsigned n = LLVMCountIncoming(p);
                for (unsigned j = 0; j < n; j++)
                    if (LLVMGetIncomingBlock(p, j) == bb[i]) {
                        LLVMValueRef      v  = map_get(&vm, LLVMGetIncomingValue(p, j));
                        LLVMBasicBlockRef ib = cb[i];
                        LLVMAddIncoming(p, &v, &ib, 1);
                    }
            }
        }
    }
    LLVMBasicBlockRef Hc = LLVMValueAsBasicBlock(map_get(&vm, LLVMBasicBlockAsValue(H)));
    Hcs[cp] = Hc;
    /* every VERSION_POLL_EVERY iterations the long copy leaves its loop: poll,
     * test the ranges again, and go on in the copy if all are still ready,
     * else in the checked loop at the same iteration (the header's phis
     * take the copy's next values) */
    if (cp == 1) {
        LLVMBasicBlockRef Lc = LLVMValueAsBasicBlock(map_get(&vm, LLVMBasicBlockAsValue(L)));
        LLVMValueRef      lt = LLVMGetBasicBlockTerminator(Lc);
        unsigned          bk = LLVMGetSuccessor(lt, 0) == Hc ? 0 : 1;
        LLVMBasicBlockRef cnt_b = new_block_after(Lc, "kumi.fast.count");
        LLVMBasicBlockRef bail  = new_block_after(cnt_b, "kumi.ver.bail");
        LLVMSetSuccessor(lt, bk, cnt_b);
        phi_retarget(Hc, Lc, cnt_b, ~0u);
        LLVMPositionBuilder(MV, Hc, LLVMGetFirstInstruction(Hc));
        LLVMSetCurrentDebugLocation2(MV, NULL);
        LLVMValueRef cnt = LLVMBuildPhi(MV, T64, "kumi.fast.n");
        LLVMPositionBuilderAtEnd(MV, cnt_b);
        LLVMValueRef c1 = LLVMBuildAdd(MV, cnt, v_const(1), "");
        LLVMValueRef due = LLVMBuildICmp(MV, LLVMIntEQ, LLVMBuildAnd(MV, c1, v_const(VERSION_POLL_EVERY - 1), ""),
                                         v_const(0), "");
        LLVMSetMetadata(LLVMBuildCondBr(MV, due, bail, Hc), MD_PROF, UNLIKELY);
        LLVMPositionBuilderAtEnd(MV, bail);
        LLVMInstructionSetDebugLoc(LLVMBuildCall2(MV, FT_POLL, F_POLL, NULL, 0, ""), dbg);
        LLVMValueRef again = LLVMConstInt(T1, 1, 0);
        for (size_t r = 0; r < nargs; r++) {
            LLVMValueRef c = LLVMBuildCall2(MV, FT_READY, F_READY, &vargs[3 * r], 3, "");
            LLVMInstructionSetDebugLoc(c, dbg);
            again = LLVMBuildAnd(MV, again, LLVMBuildICmp(MV, LLVMIntNE, c, LLVMConstInt(T32, 0, 0), ""), "");
        }
        LLVMSetMetadata(LLVMBuildCondBr(MV, again, Hc, H), MD_PROF, LIKELY);
        /* the copy's header: from the count block and the bail the same
         * values; the counter from 0 on entry and after a bail */
        for (LLVMValueRef ph = LLVMGetFirstInstruction(Hc); ph && LLVMIsAPHINode(ph); ph = LLVMGetNextInstruction(ph)) {
            if (ph == cnt) continue;
            unsigned n = LLVMCountIncoming(ph);
            for (unsigned j = 0; j < n; j++)
                if (LLVMGetIncomingBlock(ph, j) == cnt_b) {
                    LLVMValueRef      v  = LLVMGetIncomingValue(ph, j);
                    LLVMBasicBlockRef ib = bail;
                    LLVMAddIncoming(ph, &v, &ib, 1);
                }
        }
        LLVMValueRef      cv[3] = {v_const(0), c1, v_const(0)};
        LLVMBasicBlockRef cbk[3] = {Dsel, cnt_b, bail};
        LLVMAddIncoming(cnt, cv, cbk, 3);
        /* the checked loop's header: from the bail the copy's next values */
        for (LLVMValueRef ph = LLVMGetFirstInstruction(H); ph && LLVMIsAPHINode(ph); ph = LLVMGetNextInstruction(ph)) {
            unsigned n = LLVMCountIncoming(ph);
            for (unsigned j = 0; j < n; j++)
                if (LLVMGetIncomingBlock(ph, j) == L) {
                    LLVMValueRef      v  = map_get(&vm, LLVMGetIncomingValue(ph, j));
                    LLVMBasicBlockRef ib = bail;
                    LLVMAddIncoming(ph, &v, &ib, 1);
                    break;
                }
        }
    }
    pmap_free(&vm);
    }
    free(vargs);
    free(bb);
    free(cb);
    /* wire: P -> D -> (ready ? copy : loop) */
    LLVMValueRef pt = LLVMGetBasicBlockTerminator(V_PRE);
    unsigned     pn = LLVMGetNumSuccessors(pt);
    for (unsigned s = 0; s < pn; s++)
        if (LLVMGetSuccessor(pt, s) == H) LLVMSetSuccessor(pt, s, D);
    LLVMPositionBuilderAtEnd(MV, Dend);
    LLVMSetMetadata(LLVMBuildCondBr(MV, ready, Dsel, H), MD_PROF, LIKELY);
    LLVMPositionBuilderAtEnd(MV, Dsel);
    LLVMBuildCondBr(MV, LLVMBuildICmp(MV, LLVMIntSLT, tmax, v_const(VERSION_POLL_EVERY), ""), Hcs[0], Hcs[1]);
    phi_retarget(H, V_PRE, Dend, ~0u);
    /* the poll budget is charged in D once the tick's home is known (step 4) */
    if (nvers == cvers) VERS = xrealloc(VERS, (cvers = cvers ? 2 * cvers : 16) * sizeof *VERS);
    VERS[nvers++] = (struct vers){D, tmax, dbg};
    ok = 1;
out:
    free(wl);
    pmap_free(&V_BODY);
    return ok;
}

/* ------------------------------------------------------------ per function */
enum { A_LOAD, A_STORE, A_ATOMIC, A_MEM, A_BARRIER };
typedef struct { LLVMValueRef I; LLVMBasicBlockRef bb; int kind; } access;

static void warn_call(LLVMValueRef call, const char *fname, const char *callee, unsigned arg, int *nwarn)
{
    if (!opt_warn) return;
    (*nwarn)++;
    st.warnings++;
    if (*nwarn > WARN_CAP) {
        if (*nwarn == WARN_CAP + 1)
            fprintf(stderr, "kumi-translate: %s: more calls passing possibly-DSM pointers to "
                    "untranslated code (warnings capped)\n", fname);
        return;
    }
    unsigned    len = 0;
    const char *file = LLVMGetDebugLocFilename(call, &len);
    unsigned    line = file ? LLVMGetDebugLocLine(call) : 0;
    if (file && len && line)
        fprintf(stderr, "%.*s:%u: warning: ", (int)len, file, line);
    else
        fprintf(stderr, "kumi-translate: in %s: warning: ", fname);
    fprintf(stderr, "argument %u of '%s' may point to DSM memory, and '%s' is not translated: "
            "call kumi_dsm_acquire(p, n, KUMI_DSM_READ or KUMI_DSM_WRITE) before it\n",
            arg + 1, callee, callee);
}

/* main's argv or envp: the program's arguments, set up by the system. */
static int is_main_args(LLVMValueRef v)
{
    if (!LLVMIsAArgument(v)) return 0;
    LLVMValueRef f = LLVMGetParamParent(v);
    size_t       len;
    const char  *n = LLVMGetValueName2(f, &len);
    if (len != 4 || memcmp(n, "main", 4) != 0) return 0;
    return LLVMCountParams(f) >= 2 && (LLVMGetParam(f, 1) == v ||
                                       (LLVMCountParams(f) >= 3 && LLVMGetParam(f, 2) == v));
}

/* A pointer argument the untranslated-call warning need not name: it
 * cannot hold a DSM address. main's argv/envp and what they point to
 * (argv[i] is a string the system wrote); a pointer loaded from a
 * constant global (a table of strings: its initializer names only
 * constants, never the DSM region, which exists only at run time); the
 * strings kumi_strerror, kumi_transport_name, strerror and getenv
 * return. */
static int never_dsm_arg(LLVMValueRef v)
{
    for (int i = 0; i < 8 && (LLVMIsAGetElementPtrInst(v) || LLVMIsABitCastInst(v)); i++)
        v = LLVMGetOperand(v, 0);
    if (is_main_args(v))
        return 1;
    if (LLVMIsALoadInst(v)) {
        LLVMValueRef a = LLVMGetOperand(v, 0);
        for (int i = 0; i < 8 && (LLVMIsAGetElementPtrInst(a) || LLVMIsABitCastInst(a)); i++)
            a = LLVMGetOperand(a, 0);
        a = strip_casts(a);
        return is_main_args(a) || (LLVMIsAGlobalVariable(a) && LLVMIsGlobalConstant(a));
    }
    if (LLVMIsACallInst(v)) {
        LLVMValueRef f = LLVMGetCalledValue(v);
        size_t       len;
        const char  *n = LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : NULL;
        static const char *str[] = {"kumi_strerror", "kumi_transport_name", "strerror", "getenv", NULL};
        for (int i = 0; n && str[i]; i++)
            if (strcmp(n, str[i]) == 0) return 1;
    }
    return 0;
}

static int no_deref_callee(const char *n)
{
    static const char *ok[] = {"free", "kumi_", "__assert_fail", NULL};   /* never read the data */
    for (int i = 0; ok[i]; i++)
        if (strcmp(n, ok[i]) == 0 || (ok[i][strlen(ok[i]) - 1] == '_' && starts(n, ok[i])))
            return 1;
    return 0;
}

/* calls after which base/size/state need no reload: the runtime's check
 * entry points (they never move the region) */
static int shadow_kept(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    return f == F_LOADMISS || f == F_STOREMISS || f == F_POLL || f == F_ACQUIRE || f == F_MEMMOVE || f == F_READY;
}

/* Is the next access of acc[i]'s batch (same original block, no call,
 * fence, atomic or memory intrinsic in between) a store writing all of
 * base + [off, off+n)? Only the next: any other checked access in between
 * could take a slow path that serves requests and takes the line. */
static int store_follows(const access *acc, size_t nacc, size_t i, LLVMValueRef base, long off, long n)
{
    size_t j = i + 1;
    if (j >= nacc || acc[j].bb != acc[i].bb || acc[j].kind != A_STORE)
        return 0;
    long         o;
    LLVMValueRef v = LLVMGetOperand(acc[j].I, 0);
    return base_of(LLVMGetOperand(acc[j].I, 1), &o) == base && o <= off &&
           off + n <= o + (long)LLVMStoreSizeOfType(TD, LLVMTypeOf(v));
}

/* The group of acc[i] (at base+off, n bytes, a write when wr): the other
 * loads and stores of its batch through the same base whose bytes, with
 * the group's, span at most one line's size [*lo, *hi); *wr becomes 1 if
 * one of them is a store. Returns how many joined. */
static int group_of(const access *acc, size_t nacc, size_t i, LLVMValueRef base, long off, long n,
                    long *lo, long *hi, int *wr)
{
    int k = 0;
    *lo = off; *hi = off + n;
    for (size_t j = i + 1; j < nacc && j < i + 64 && acc[j].bb == acc[i].bb; j++) {
        if (acc[j].kind != A_LOAD && acc[j].kind != A_STORE)
            break;
        int          st_ = acc[j].kind == A_STORE;
        LLVMValueRef J = acc[j].I;
        LLVMTypeRef  ty = st_ ? LLVMTypeOf(LLVMGetOperand(J, 0)) : LLVMTypeOf(J);
        long         o, m = (long)LLVMStoreSizeOfType(TD, ty);
        /* members must follow each other: an access in between would be
         * checked, and its slow path may serve a request that takes the
         * group's lines */
        if (base_of(LLVMGetOperand(J, st_ ? 1 : 0), &o) != base)
            break;
        long nlo = o < *lo ? o : *lo, nhi = o + m > *hi ? o + m : *hi;
        if (nhi - nlo > (long)LINE)
            break;
        *lo = nlo; *hi = nhi; *wr |= st_; k++;
    }
    return k;
}

static void do_function(LLVMValueRef fn)
{
    size_t      nlen;
    const char *fname = LLVMGetValueName2(fn, &nlen);
    if (LLVMCountBasicBlocks(fn) == 0 || starts(fname, "kumi_dsm_"))
        return;

    /* 1. blocks and back edges (iterative DFS; an edge to a block on the stack) */
    unsigned           nb = LLVMCountBasicBlocks(fn);
    LLVMBasicBlockRef *bbs = xrealloc(NULL, nb * sizeof *bbs);
    LLVMGetBasicBlocks(fn, bbs);
    pmap idx = {0};
    for (unsigned i = 0; i < nb; i++) pmap_put(&idx, bbs[i], i);
    char     *color = calloc(nb, 1);
    unsigned *stk = xrealloc(NULL, nb * sizeof *stk), *next = calloc(nb, sizeof *next), sp = 0;
    struct { LLVMValueRef term; unsigned k; } *back = NULL;
    size_t nback = 0;
    stk[sp++] = 0; color[0] = 1;
    while (sp) {
        unsigned     b = stk[sp - 1];
        LLVMValueRef t = LLVMGetBasicBlockTerminator(bbs[b]);
        unsigned     ns = t ? LLVMGetNumSuccessors(t) : 0;
        if (next[b] < ns) {
            unsigned k = next[b]++;
            unsigned s = (unsigned)*pmap_find(&idx, LLVMGetSuccessor(t, k));
            if (color[s] == 1) {
                LLVMOpcode op = LLVMGetInstructionOpcode(t);
                if (op == LLVMBr || op == LLVMSwitch) {
                    back = xrealloc(back, (nback + 1) * sizeof *back);
                    back[nback].term = t; back[nback].k = k; nback++;
                }
            } else if (color[s] == 0) {
                color[s] = 1;
                stk[sp++] = s;
            }
        } else {
            color[b] = 2;
            sp--;
        }
    }
    free(color); free(stk); free(next); pmap_free(&idx);

    /* 1b. loop versions, before any check goes in (the copies stay as the
     *     optimizer left them); the checked loops keep their back edges */
    nvers = nvfields = 0;
    if (opt_version && nback) {
        LLVMValueRef *terms = xrealloc(NULL, nback * sizeof *terms);
        for (size_t i = 0; i < nback; i++) terms[i] = back[i].term;
        for (size_t i = 0; i < nback; i++) {
            edge  *e = NULL;
            size_t ne = 0, ce = 0;
            for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b)) {
                LLVMValueRef t = LLVMGetBasicBlockTerminator(b);
                unsigned     ns = t ? LLVMGetNumSuccessors(t) : 0;
                for (unsigned k = 0; k < ns; k++) {
                    if (ne == ce) e = xrealloc(e, (ce = ce ? 2 * ce : 64) * sizeof *e);
                    e[ne++] = (edge){b, LLVMGetSuccessor(t, k)};
                }
            }
            if (version_loop(fn, back[i].term, back[i].k, e, ne, terms, nback)) st.versioned++;
            free(e);
        }
        free(terms);
    }

    /* 2. the accesses, in order, before any surgery */
    access *acc = NULL;
    size_t  nacc = 0, cacc = 0;
    int     nwarn = 0, has_invoke = 0;
    LLVMValueRef *calls = NULL;
    size_t        ncalls = 0, ccalls = 0;
    for (unsigned b = 0; b < nb; b++) {
        for (LLVMValueRef I = LLVMGetFirstInstruction(bbs[b]); I; I = LLVMGetNextInstruction(I)) {
            int        kind = -1;
            LLVMOpcode op = LLVMGetInstructionOpcode(I);
            if (op == LLVMLoad) {
                st.loads++;
                kind = A_LOAD;
            } else if (op == LLVMStore) {
                st.stores++;
                kind = A_STORE;
            } else if (op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) {
                st.atomics++;
                kind = A_ATOMIC;
            } else if (op == LLVMFence) {
                kind = A_BARRIER;
            } else if (op == LLVMCall || op == LLVMInvoke) {
                if (op == LLVMInvoke) has_invoke = 1;
                const char *n = callee_name(I);
                if (is_memintr(n)) {
                    st.memops++;
                    kind = A_MEM;
                } else if (n && starts(n, "llvm.masked.")) {
                    /* only with -march flags that give masked vector ops;
                     * their lanes' range is not known here */
                    if (opt_warn)
                        fprintf(stderr, "kumi-translate: in %s: warning: %s is not checked "
                                "(masked vector access; compile without -march)\n", fname, n);
                    st.warnings++;
                } else if (n && starts(n, "llvm.")) {
                    /* other intrinsics (sqrt, fmuladd, vector reductions,
                     * lifetime, ...) never reach the runtime: they serve no
                     * requests, so they neither end a batch nor move the
                     * region */
                } else {
                    if (!shadow_kept(I)) {
                        if (ncalls == ccalls) calls = xrealloc(calls, (ccalls = ccalls ? 2 * ccalls : 16) * sizeof *calls);
                        calls[ncalls++] = I;
                    }
                    kind = A_BARRIER;
                    LLVMValueRef f = LLVMGetCalledValue(I);
                    if (n && LLVMIsDeclaration(f) && !starts(n, "llvm.") && !no_deref_callee(n)) {
                        unsigned na = LLVMGetNumArgOperands(I);
                        for (unsigned a = 0; a < na; a++) {
                            LLVMValueRef v = LLVMGetOperand(I, a);
                            if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind &&
                                !LLVMIsAConstant(v) && !is_private(v, 0) &&
                                !(LLVMIsALoadInst(v) && LLVMIsAGlobalVariable(strip_casts(LLVMGetOperand(v, 0)))) &&
                                !never_dsm_arg(v)) {
                                warn_call(I, fname, n, a, &nwarn);
                                break;
                            }
                        }
                    }
                }
            }
            if (kind < 0) continue;
            if (kind == A_LOAD || kind == A_STORE || kind == A_ATOMIC) {
                LLVMValueRef p = LLVMGetOperand(I, kind == A_STORE ? 1 : 0);
                if (LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != 0 || is_private(p, 0)) {
                    st.private_++;
                    if (kind != A_ATOMIC) continue;
                    kind = A_BARRIER;
                }
            }
            if (nacc == cacc) acc = xrealloc(acc, (cacc = cacc ? 2 * cacc : 64) * sizeof *acc);
            acc[nacc++] = (access){I, bbs[b], kind};
        }
    }

    /* 2b. the shadows of base, size and state: loaded at the entry and
     *     again after every call that may move the region (kumi_init,
     *     kumi_finalize, or anything that calls them); SROA turns them into
     *     registers, loop-invariant in loops without such calls */
    SHADOW[0] = SHADOW[1] = SHADOW[2] = SHADOW[3] = NULL;
    int checks = 0;
    for (size_t i = 0; i < nacc; i++) {
        LLVMValueRef I = acc[i].I;
        if (acc[i].kind == A_MEM)
            checks |= !is_private(LLVMGetOperand(I, 0), 0) ||
                      (!starts(callee_name(I), "llvm.memset.") && !is_private(LLVMGetOperand(I, 1), 0));
        else
            checks |= acc[i].kind != A_BARRIER;
    }
    if (!has_invoke && checks) {
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
        LLVMPositionBuilder(MV, entry, LLVMGetFirstInstruction(entry));
        LLVMSetCurrentDebugLocation2(MV, NULL);
        LLVMTypeRef ty[4] = {T64, T64, TP8, TP8};
        static const char *nm[4] = {"kumi.base", "kumi.size", "kumi.statep", "kumi.pstatep"};
        static const unsigned offs[4] = {OFF_BASE, OFF_SIZE, OFF_STATE, OFF_PSTATE};
        for (int k = 0; k < 4; k++) SHADOW[k] = LLVMBuildAlloca(MV, ty[k], nm[k]);
        for (int k = 0; k < 4; k++) LLVMBuildStore(MV, field_global(MV, offs[k], ty[k]), SHADOW[k]);
        for (size_t c = 0; c < ncalls; c++) {
            LLVMValueRef nx = LLVMGetNextInstruction(calls[c]);
            if (nx == NULL || LLVMGetInstructionOpcode(nx) == LLVMRet ||
                LLVMGetInstructionOpcode(nx) == LLVMUnreachable)
                continue;   /* nothing after it to check (and a musttail must stay last) */
            LLVMPositionBuilderBefore(MV, nx);
            LLVMSetCurrentDebugLocation2(MV, NULL);
            for (int k = 0; k < 4; k++) LLVMBuildStore(MV, field_global(MV, offs[k], ty[k]), SHADOW[k]);
        }
    }
    /* the poll counter in a register: a loop's back-edge then costs an add,
     * a test and a branch, no load and store of the global. The global is
     * brought up to date before every call and return (callees and later
     * loops go on counting from it) and reloaded after calls. */
    SHADOW_TICK = NULL;
    if (!has_invoke && nback) {
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
        LLVMPositionBuilder(MV, entry, LLVMGetFirstInstruction(entry));
        LLVMSetCurrentDebugLocation2(MV, NULL);
        SHADOW_TICK = LLVMBuildAlloca(MV, T32, "kumi.tickp");
        LLVMBuildStore(MV, field_global(MV, OFF_TICK, T32), SHADOW_TICK);
        for (size_t c = 0; c < ncalls; c++) {
            LLVMPositionBuilderBefore(MV, calls[c]);
            LLVMSetCurrentDebugLocation2(MV, NULL);
            LLVMValueRef v = LLVMBuildLoad2(MV, T32, SHADOW_TICK, "");
            LLVMSetMetadata(LLVMBuildStore(MV, v, tick_global_ptr(MV)), MD_TBAA, TBAA_TICK);
            LLVMValueRef nx = LLVMGetNextInstruction(calls[c]);
            if (nx == NULL || LLVMGetInstructionOpcode(nx) == LLVMRet ||
                LLVMGetInstructionOpcode(nx) == LLVMUnreachable)
                continue;
            LLVMPositionBuilderBefore(MV, nx);
            LLVMSetCurrentDebugLocation2(MV, NULL);
            LLVMBuildStore(MV, field_global(MV, OFF_TICK, T32), SHADOW_TICK);
        }
        for (unsigned b = 0; b < nb; b++) {
            LLVMValueRef t = LLVMGetBasicBlockTerminator(bbs[b]);
            if (t == NULL || LLVMGetInstructionOpcode(t) != LLVMRet)
                continue;
            LLVMPositionBuilderBefore(MV, t);
            LLVMSetCurrentDebugLocation2(MV, NULL);
            LLVMValueRef v = LLVMBuildLoad2(MV, T32, SHADOW_TICK, "");
            LLVMSetMetadata(LLVMBuildStore(MV, v, tick_global_ptr(MV)), MD_TBAA, TBAA_TICK);
        }
    }
    free(calls);

    /* 3. instrument, in order; the batching cache lives while the accesses
     *    stay in one original block with no call or fence between them */
    LLVMBasicBlockRef cur = NULL;
    cache_reset();
    for (size_t i = 0; i < nacc; i++) {
        LLVMValueRef I = acc[i].I;
        if (acc[i].bb != cur) { cache_reset(); cur = acc[i].bb; }
        switch (acc[i].kind) {
        case A_BARRIER:
            cache_reset();
            break;
        case A_LOAD: case A_STORE: {
            int                store = acc[i].kind == A_STORE;
            LLVMValueRef       p  = LLVMGetOperand(I, store ? 1 : 0);
            LLVMTypeRef        ty = store ? LLVMTypeOf(LLVMGetOperand(I, 0)) : LLVMTypeOf(I);
            unsigned           w  = fast_width(ty);
            unsigned long long n  = LLVMStoreSizeOfType(TD, ty);
            long               off;
            LLVMValueRef       base = base_of(p, &off), in;
            if (cache_covers(base, off, off + (long)n, store)) {
                st.elided++;   /* already checked in the batch, nothing served since */
                break;
            }
            /* read-modify-write: a store later in the batch writes these
             * bytes, so check for the store now (E implies readable) and
             * neither the load nor the store needs another test */
            int rmw = !store && store_follows(acc, nacc, i, base, off, (long)n);
            if (rmw) st.rmw++;
            long lo = off, hi = off + (long)n;
            int  gw = store || rmw;
            int  members = n <= LINE && (gw || w == 0) ? group_of(acc, nacc, i, base, off, (long)n, &lo, &hi, &gw) : 0;
            /* a group of only loads of lane-aligned vectors: two state
             * lookups pay off from three loads on (each lane-wise flag test
             * is a compare and a mask, no memory access) */
            int  grouped = members > 0 && (gw || !vload_fast(I) || members >= 2);
            /* (a scalar whose group is its own bytes: the one state test
             * of check_store below is cheaper than two) */
            cache_kill_coverage();   /* a check with a slow path follows */
            if (grouped && (gw || w == 0) && (w == 0 || hi - lo > (long)n)) {
                /* one test of the group's first and last line: later
                 * members find their bytes checked (cache) and need none */
                in = check_span(I, store ? 1 : 0, lo - off, (unsigned)(hi - lo),
                                gw ? DSM_WRITE : DSM_READ, cache_in(root_of(p)));
                st.grouped++;
                p    = LLVMGetOperand(I, store ? 1 : 0);   /* after the surgery */
                base = base_of(p, &off);
                cache_add(base, root_of(p), in, lo, hi, gw);
                break;
            }
            if (w == 0 && !store && !rmw && vload_fast(I)) {   /* lane-wise flag test */
                in = cache_in(root_of(p));
                if (in) st.batched++;
                in = check_vload(I, in);
                st.wide++;
            } else if (w == 0) {   /* vectors, aggregates, wider: acquire the range */
                acquire_before(I, store ? 1 : 0, -1, n, store || rmw ? DSM_WRITE : DSM_READ,
                               n <= LINE ? (unsigned)n : 0);
                in = NULL;
                st.wide++;
            } else {
                in = cache_in(root_of(p));
                if (in) st.batched++;
                if (store || rmw) { in = check_store(I, store ? 1 : 0, w, in); st.checked_stores++; }
                else              { in = check_load(I, w, in);                 st.checked_loads++; }
            }
            p    = LLVMGetOperand(I, store ? 1 : 0);   /* after the surgery */
            base = base_of(p, &off);
            cache_add(base, root_of(p), in, off, off + (long)n, store || rmw);
            break;
        }
        case A_ATOMIC: {
            LLVMTypeRef  ty = LLVMTypeOf(LLVMGetOperand(I, 1));
            unsigned     w  = fast_width(ty);
            if (w) check_store(I, 0, w, NULL);
            else acquire_before(I, 0, -1, LLVMStoreSizeOfType(TD, ty), DSM_WRITE, 0);
            cache_reset();
            break;
        }
        case A_MEM: {
            const char  *n   = callee_name(I);
            int          set = starts(n, "llvm.memset.");
            int          dpriv = is_private(LLVMGetOperand(I, 0), 0);
            int          spriv = set || is_private(LLVMGetOperand(I, 1), 0);
            if (!dpriv && !spriv) {
                mem_both(I);   /* two acquires would not stay valid together */
            } else {
                if (!dpriv) acquire_before(I, 0, 2, 0, DSM_WRITE, 0);
                if (!spriv) acquire_before(I, 1, 2, 0, DSM_READ, 0);
            }
            cache_reset();
            break;
        }
        }
    }
    free(acc);

    /* 4. polls on the back edges found in 1.; a versioned loop's test
     *    charges its iterations to the tick up front (its unchecked copy
     *    ticks nothing) and polls first when that crosses a multiple of
     *    1024, so a run of short loops polls as often as their back edges
     *    would */
    for (size_t i = 0; i < nback; i++)
        poll_on_edge(back[i].term, back[i].k);
    for (size_t i = 0; i < nvfields; i++) {   /* (in registers, hoistable) */
        LLVMValueRef l = VFIELDS[i].load;
        if (SHADOW[VFIELDS[i].k] == NULL) continue;
        LLVMPositionBuilderBefore(MV, l);
        LLVMSetCurrentDebugLocation2(MV, NULL);
        LLVMValueRef r = LLVMBuildLoad2(MV, LLVMTypeOf(l), SHADOW[VFIELDS[i].k], "");
        LLVMReplaceAllUsesWith(l, r);
        LLVMInstructionEraseFromParent(l);
    }
    for (size_t i = 0; i < nvers; i++) {
        LLVMValueRef      tm = VERS[i].tmax;
        LLVMBasicBlockRef d1 = VERS[i].d;
        LLVMBasicBlockRef d2 = split_before(LLVMIsAInstruction(tm) ? LLVMGetNextInstruction(tm) : LLVMGetFirstInstruction(d1),
                                            "kumi.ver.test");
        LLVMBasicBlockRef pc = new_block_after(d1, "kumi.ver.poll");
        LLVMPositionBuilderAtEnd(MV, d1);
        LLVMSetCurrentDebugLocation2(MV, NULL);
        LLVMValueRef tp = SHADOW_TICK ? SHADOW_TICK : tick_global_ptr(MV);
        LLVMValueRef t0 = LLVMBuildLoad2(MV, T32, tp, "");
        LLVMValueRef n  = v_smax(LLVMBuildAdd(MV, tm, v_const(1), ""), v_const(VERSION_POLL_EVERY), 0);
        LLVMValueRef t1 = LLVMBuildAdd(MV, t0, LLVMBuildTrunc(MV, n, T32, ""), "kumi.tick");
        LLVMValueRef ts = LLVMBuildStore(MV, t1, tp);
        if (!SHADOW_TICK) {
            LLVMSetMetadata(t0, MD_TBAA, TBAA_TICK);
            LLVMSetMetadata(ts, MD_TBAA, TBAA_TICK);
        }
        LLVMValueRef x = LLVMBuildAnd(MV, LLVMBuildXor(MV, t0, t1, ""), LLVMConstInt(T32, ~POLL_MASK, 0), "");
        LLVMSetMetadata(LLVMBuildCondBr(MV, LLVMBuildICmp(MV, LLVMIntNE, x, LLVMConstInt(T32, 0, 0), ""), pc, d2),
                        MD_PROF, UNLIKELY);
        LLVMPositionBuilderAtEnd(MV, pc);
        LLVMInstructionSetDebugLoc(LLVMBuildCall2(MV, FT_POLL, F_POLL, NULL, 0, ""), VERS[i].dbg);
        LLVMBuildBr(MV, d2);
    }
    free(back);
    free(bbs);
    LLVMSetCurrentDebugLocation2(B, NULL);
}

/* ------------------------------------------------------------ module */
static LLVMValueRef get_fn(const char *name, LLVMTypeRef ty, LLVMTypeRef *fty)
{
    LLVMValueRef f = LLVMGetNamedFunction(M, name);
    if (f == NULL)
        f = LLVMAddFunction(M, name, ty);
    *fty = LLVMGlobalGetValueType(f);
    return f;
}

static void setup(void)
{
    T1 = LLVMInt1TypeInContext(C);  T8 = LLVMInt8TypeInContext(C);
    T16 = LLVMInt16TypeInContext(C); T32 = LLVMInt32TypeInContext(C);
    T64 = LLVMInt64TypeInContext(C); TP8 = LLVMPointerType(T8, 0);
    TVOID = LLVMVoidTypeInContext(C);
    LLVMValueRef g = LLVMGetNamedGlobal(M, "kumi_dsm_g");
    if (g == NULL) {
        LLVMTypeRef f[5] = {T64, T64, TP8, T32, TP8};
        LLVMTypeRef sty = LLVMStructCreateNamed(C, "kumi.dsm_g");
        LLVMStructSetBody(sty, f, 5, 0);
        g = LLVMAddGlobal(M, sty, "kumi_dsm_g");
        LLVMSetLinkage(g, LLVMExternalLinkage);
    }
    G = LLVMConstBitCast(g, TP8);
    LLVMTypeRef a2[2] = {TP8, T32}, a3[3] = {TP8, T64, T32};
    F_LOADMISS  = get_fn("kumi_dsm_load_miss", LLVMFunctionType(T64, a2, 2, 0), &FT_LOADMISS);
    F_STOREMISS = get_fn("kumi_dsm_store_miss", LLVMFunctionType(TVOID, a2, 2, 0), &FT_STOREMISS);
    F_POLL      = get_fn("kumi_dsm_poll", LLVMFunctionType(TVOID, NULL, 0, 0), &FT_POLL);
    F_ACQUIRE   = get_fn("kumi_dsm_acquire", LLVMFunctionType(T32, a3, 3, 0), &FT_ACQUIRE);
    LLVMTypeRef a4[3] = {TP8, TP8, T64};
    F_MEMMOVE   = get_fn("kumi_dsm_memmove", LLVMFunctionType(TVOID, a4, 3, 0), &FT_MEMMOVE);
    LLVMTypeRef a5[3] = {T64, T64, T32};
    F_READY     = get_fn("kumi_dsm_ready", LLVMFunctionType(T32, a5, 3, 0), &FT_READY);
    /* TBAA: clang's root and "omnipotent char" are uniqued by content, so
     * these nodes are the ones in clang's own tags */
    MD_TBAA = LLVMGetMDKindIDInContext(C, "tbaa", 4);
    LLVMMetadataRef rs   = LLVMMDStringInContext2(C, "Simple C/C++ TBAA", 17);
    LLVMMetadataRef root = LLVMMDNodeInContext2(C, &rs, 1);
    LLVMMetadataRef zero = LLVMValueAsMetadata(LLVMConstInt(T64, 0, 0));
    LLVMMetadataRef ch[3] = {LLVMMDStringInContext2(C, "omnipotent char", 15), root, zero};
    LLVMMetadataRef chr  = LLVMMDNodeInContext2(C, ch, 3);
    const char *tn[2] = {"kumi dsm_g", "kumi dsm tick"};
    for (int k = 0; k < 2; k++) {
        LLVMMetadataRef t[3] = {LLVMMDStringInContext2(C, tn[k], strlen(tn[k])), chr, zero};
        LLVMMetadataRef ty   = LLVMMDNodeInContext2(C, t, 3);
        LLVMMetadataRef tag[3] = {ty, ty, zero};
        LLVMValueRef    v    = LLVMMetadataAsValue(C, LLVMMDNodeInContext2(C, tag, 3));
        if (k == 0) TBAA_G = v; else TBAA_TICK = v;
    }
    MD_PROF = LLVMGetMDKindIDInContext(C, "prof", 4);
    LLVMMetadataRef w[3] = {LLVMMDStringInContext2(C, "branch_weights", 14),
                            LLVMValueAsMetadata(LLVMConstInt(T32, 1, 0)),
                            LLVMValueAsMetadata(LLVMConstInt(T32, 2000, 0))};
    UNLIKELY = LLVMMetadataAsValue(C, LLVMMDNodeInContext2(C, w, 3));
    w[1] = LLVMValueAsMetadata(LLVMConstInt(T32, 2000, 0));
    w[2] = LLVMValueAsMetadata(LLVMConstInt(T32, 1, 0));
    LIKELY = LLVMMetadataAsValue(C, LLVMMDNodeInContext2(C, w, 3));
    BYVAL_KIND = LLVMGetEnumAttributeKindForName("byval", 5);
    B  = LLVMCreateBuilderInContext(C);
    MV = LLVMCreateBuilderInContext(C);
}

static void run_pipeline(LLVMTargetMachineRef tm, int olevel)
{
    char                      pipe[32];
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    snprintf(pipe, sizeof pipe, "default<O%d>", olevel);
    LLVMPassBuilderOptionsSetLoopVectorization(po, olevel >= 2);
    LLVMPassBuilderOptionsSetSLPVectorization(po, olevel >= 2);
    LLVMPassBuilderOptionsSetLoopUnrolling(po, 1);
    LLVMErrorRef e = LLVMRunPasses(M, pipe, tm, po);
    if (e) die("optimization", LLVMGetErrorMessage(e));
    LLVMDisposePassBuilderOptions(po);
}

static const char *suffix(const char *p)
{
    const char *d = strrchr(p, '.');
    return d ? d : "";
}

static void usage(int rc)
{
    fprintf(rc ? stderr : stdout,
            "usage: kumi-translate IN.{bc,ll} -o OUT.{o,bc,ll,s} [-O0|-O1|-O2|-O3] [--stats] [--no-warn] [--no-version]\n"
            "Inserts kumi's DSM access checks (dsm/check.h) into LLVM IR; see dsm/translate/README.md.\n");
    exit(rc);
}

int main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    int         olevel = 0, stats = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 && i + 1 < argc) out = argv[++i];
        else if (starts(a, "-O")) olevel = a[2] == '0' ? 0 : a[2] == '1' ? 1 : a[2] == '3' ? 3 : 2;
        else if (strcmp(a, "--stats") == 0) stats = 1;
        else if (strcmp(a, "--no-warn") == 0) opt_warn = 0;
        else if (strcmp(a, "--no-version") == 0) opt_version = 0;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) usage(0);
        else if (a[0] == '-' && a[1]) { fprintf(stderr, "kumi-translate: unknown option %s\n", a); usage(2); }
        else if (in == NULL) in = a;
        else usage(2);
    }
    if (in == NULL || out == NULL) usage(2);

    char                *msg = NULL;
    LLVMMemoryBufferRef  buf;
    C = LLVMContextCreate();
    if (strcmp(in, "-") == 0 ? LLVMCreateMemoryBufferWithSTDIN(&buf, &msg)
                             : LLVMCreateMemoryBufferWithContentsOfFile(in, &buf, &msg))
        die(in, msg);
    if (LLVMParseIRInContext(C, buf, &M, &msg))
        die(in, msg);

    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    char *triple = NULL;
    if (LLVMGetTarget(M)[0] == 0) {
        triple = LLVMGetDefaultTargetTriple();
        LLVMSetTarget(M, triple);
    } else {
        triple = strdup(LLVMGetTarget(M));
    }
    LLVMTargetRef target;
    if (LLVMGetTargetFromTriple(triple, &target, &msg))
        die(triple, msg);
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
        target, triple, "", "", olevel ? LLVMCodeGenLevelDefault : LLVMCodeGenLevelNone,
        LLVMRelocPIC, LLVMCodeModelDefault);
    if (LLVMGetDataLayoutStr(M)[0] == 0) {
        LLVMTargetDataRef d = LLVMCreateTargetDataLayout(tm);
        char             *s = LLVMCopyStringRepOfTargetData(d);
        LLVMSetDataLayout(M, s);
        LLVMDisposeMessage(s);
        LLVMDisposeTargetData(d);
    }
    TD = LLVMCreateTargetData(LLVMGetDataLayoutStr(M));

    /* With -O1..3 the program is optimized first (inlining, vectorization,
     * unrolling as by plain clang -O2), then instrumented, then optimized
     * again: the checks go on the accesses that remain, vector accesses get
     * the lane-wise tests, and the checks do not keep the loop vectorizer
     * from its work (README, "Optimizations") */
    if (olevel)
        run_pipeline(tm, olevel);
    setup();   /* after: the pipeline drops unused declarations */
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f))
        do_function(f);

    if (LLVMVerifyModule(M, LLVMReturnStatusAction, &msg))
        die("the translated module does not verify (a translator bug)", msg);
    LLVMDisposeMessage(msg);

    if (olevel)
        run_pipeline(tm, olevel);

    const char *sx = suffix(out);
    if (strcmp(sx, ".ll") == 0) {
        if (LLVMPrintModuleToFile(M, out, &msg)) die(out, msg);
    } else if (strcmp(sx, ".bc") == 0) {
        if (LLVMWriteBitcodeToFile(M, out)) die(out, "cannot write bitcode");
    } else {
        if (LLVMTargetMachineEmitToFile(tm, M, (char *)out,
                                        strcmp(sx, ".s") == 0 ? LLVMAssemblyFile : LLVMObjectFile, &msg))
            die(out, msg);
    }
    if (stats)
        fprintf(stderr,
                "kumi-translate: %s: loads %lu stores %lu atomics %lu memops %lu | checked loads %lu "
                "stores %lu | private %lu batched %lu elided %lu wide %lu rmw %lu grouped %lu | polls %lu versioned loops %lu warnings %lu\n",
                in, st.loads, st.stores, st.atomics, st.memops, st.checked_loads, st.checked_stores,
                st.private_, st.batched, st.elided, st.wide, st.rmw, st.grouped, st.polls, st.versioned, st.warnings);
    LLVMDisposeTargetData(TD);
    LLVMDisposeTargetMachine(tm);
    LLVMDisposeBuilder(B);
    LLVMDisposeBuilder(MV);
    LLVMDisposeModule(M);
    LLVMContextDispose(C);
    LLVMDisposeMessage(triple);
    return 0;
}
