/*
 * checks.c -- the inline checks of dsm/check.h as IR before the accesses
 * that may touch the DSM region (README.md, "What is checked"), their
 * batching within a basic block ("Batching"), and the back-edge poll.
 * function.c collects the accesses and calls kumi_tr_checks_insert.
 */
#include <stdlib.h>
#include <string.h>

#include "translate.h"

/* ------------------------------------------------------------ batching cache */
static void cache_reset(struct kumi_tr *kt) { kt->batch.n = 0; }

/* a phi the CFG surgery rebuilt (ir.c): the batch's entries name the new one */
void kumi_tr_batch_replace(struct kumi_tr *kt, LLVMValueRef old, LLVMValueRef nw)
{
    for (size_t i = 0; i < kt->batch.n; i++) {
        if (kt->batch.e[i].base == old) kt->batch.e[i].base = nw;
        if (kt->batch.e[i].root == old) kt->batch.e[i].root = nw;
    }
}

static void cache_add(struct kumi_tr *kt, LLVMValueRef base, LLVMValueRef root, LLVMValueRef in, long lo, long hi, int w)
{
    if (kt->batch.n == kt->batch.cap) kt->batch.e = kumi_tr_realloc(kt->batch.e, (kt->batch.cap = kt->batch.cap ? 2 * kt->batch.cap : 16) * sizeof *kt->batch.e);
    kt->batch.e[kt->batch.n++] = (struct kumi_tr_centry){base, root, in, lo, hi, w};
}

/* A check with a slow path was emitted: its miss, store miss or acquire
 * waits and serves other PEs' requests, which may take any line checked
 * before it in the batch. The checked bytes no longer count (the range
 * checks stay: base and size do not change). */
static void cache_kill_coverage(struct kumi_tr *kt)
{
    for (size_t i = 0; i < kt->batch.n; i++)
        kt->batch.e[i].lo = kt->batch.e[i].hi = 0;
}

static LLVMValueRef cache_in(struct kumi_tr *kt, LLVMValueRef root)
{
    for (size_t i = 0; i < kt->batch.n; i++)
        if (kt->batch.e[i].root == root && kt->batch.e[i].in) return kt->batch.e[i].in;
    return NULL;
}

static int cache_covers(struct kumi_tr *kt, LLVMValueRef base, long lo, long hi, int w)
{
    for (size_t i = 0; i < kt->batch.n; i++)
        if (kt->batch.e[i].base == base && kt->batch.e[i].lo <= lo && hi <= kt->batch.e[i].hi && (kt->batch.e[i].w || !w))
            return 1;
    return 0;
}


static void unlikely_br(struct kumi_tr *kt, LLVMValueRef cond, LLVMBasicBlockRef yes, LLVMBasicBlockRef no)
{
    LLVMValueRef br = LLVMBuildCondBr(kt->b, cond, yes, no);
    LLVMSetMetadata(br, kt->md_prof, kt->unlikely);
}

/* The range check's branch is weighted towards "in the region": accesses
 * that remain checked are mostly to shared data in programs written for
 * the DSM (provably private ones were skipped), and marking it unlikely
 * made the optimizer lay the whole checked path out of line, with jumps
 * there and back on every access. */
static void range_br(struct kumi_tr *kt, LLVMValueRef cond, LLVMBasicBlockRef yes, LLVMBasicBlockRef no)
{
    LLVMValueRef br = LLVMBuildCondBr(kt->b, cond, yes, no);
    LLVMSetMetadata(br, kt->md_prof, kt->likely);
}

/* ------------------------------------------------------------ check IR */
/* base, size or state straight from kumi_dsm_g (TBAA-tagged) */
LLVMValueRef kumi_tr_field_load(struct kumi_tr *kt, LLVMBuilderRef b, enum kumi_tr_field f, LLVMTypeRef ty)
{
    LLVMValueRef o = LLVMConstInt(kt->t64, kumi_tr_field_off[f], 0);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(b, kt->t8, kt->dsm_g, &o, 1, "");
    p = LLVMBuildBitCast(b, p, LLVMPointerType(ty, 0), "");
    LLVMValueRef l = LLVMBuildLoad2(b, ty, p, "");
    LLVMSetMetadata(l, kt->md_tbaa, f == KUMI_TR_F_TICK ? kt->tbaa_tick : kt->tbaa_g);
    return l;
}

LLVMValueRef kumi_tr_tick_ptr(struct kumi_tr *kt, LLVMBuilderRef b)
{
    LLVMValueRef o = LLVMConstInt(kt->t64, kumi_tr_field_off[KUMI_TR_F_TICK], 0);
    return LLVMBuildBitCast(b, LLVMBuildInBoundsGEP2(b, kt->t8, kt->dsm_g, &o, 1, ""), LLVMPointerType(kt->t32, 0), "");
}

/* base, size or state as the checks use them: from the function's shadow
 * (promoted to registers by SROA, so loop-invariant where no call that may
 * move the region is in the loop) or from the global */
static LLVMValueRef field(struct kumi_tr *kt, enum kumi_tr_field f, LLVMTypeRef ty)
{
    if (f == KUMI_TR_F_TICK && kt->fn.shadow_tick)
        return LLVMBuildLoad2(kt->b, ty, kt->fn.shadow_tick, "");
    if (f != KUMI_TR_F_TICK && kt->fn.shadow[f])
        return LLVMBuildLoad2(kt->b, ty, kt->fn.shadow[f], "");
    return kumi_tr_field_load(kt, kt->b, f, ty);
}

/* (addr - base) < size */
static LLVMValueRef emit_range(struct kumi_tr *kt, LLVMValueRef addr)
{
    LLVMValueRef base = field(kt, KUMI_TR_F_BASE, kt->t64);
    LLVMValueRef size = field(kt, KUMI_TR_F_SIZE, kt->t64);
    LLVMValueRef off  = LLVMBuildSub(kt->b, addr, base, "kumi.off");
    return LLVMBuildICmp(kt->b, LLVMIntULT, off, size, "kumi.in");
}

static LLVMValueRef emit_crosses(struct kumi_tr *kt, LLVMValueRef addr, unsigned w)
{
    LLVMValueRef lo = LLVMBuildAnd(kt->b, addr, LLVMConstInt(kt->t64, KUMI_DSM_LINE - 1, 0), "");
    return LLVMBuildICmp(kt->b, LLVMIntUGT, lo, LLVMConstInt(kt->t64, KUMI_DSM_LINE - w, 0), "kumi.cross");
}


static LLVMValueRef emit_range_of(struct kumi_tr *kt, LLVMValueRef ptr)
{
    return emit_range(kt, LLVMBuildPtrToInt(kt->b, kumi_tr_root_of(kt, ptr), kt->t64, "kumi.r"));
}

/* an access aligned to its width never crosses a 64-byte line */
static int may_cross(LLVMValueRef I, unsigned w)
{
    return w > 1 && LLVMGetAlignment(I) < w;
}

static void set_dbg(struct kumi_tr *kt, LLVMValueRef I)
{
    LLVMSetCurrentDebugLocation2(kt->b, LLVMInstructionGetDebugLoc(I));
}

/* 1, 2, 4 or 8 for the types the flag check handles, else 0 */
static unsigned fast_width(struct kumi_tr *kt, LLVMTypeRef ty)
{
    LLVMTypeKind k = LLVMGetTypeKind(ty);
    unsigned long long bits = LLVMSizeOfTypeInBits(kt->td, ty), bytes = LLVMStoreSizeOfType(kt->td, ty);
    if (k != LLVMIntegerTypeKind && k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind &&
        k != LLVMPointerTypeKind && k != LLVMHalfTypeKind)
        return 0;
    if (bits != 8 * bytes || !(bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8))
        return 0;
    return (unsigned)bytes;
}

static LLVMValueRef to_bits(struct kumi_tr *kt, LLVMValueRef v, unsigned w)
{
    LLVMTypeRef  ty = LLVMTypeOf(v), it = LLVMIntTypeInContext(kt->ctx, 8 * w);
    LLVMTypeKind k  = LLVMGetTypeKind(ty);
    if (k == LLVMPointerTypeKind)
        v = LLVMBuildPtrToInt(kt->b, v, it, "");
    else if (k != LLVMIntegerTypeKind)
        v = LLVMBuildBitCast(kt->b, v, it, "");
    return w == 8 ? v : LLVMBuildZExt(kt->b, v, kt->t64, "");
}

static LLVMValueRef from_bits(struct kumi_tr *kt, LLVMValueRef r, LLVMTypeRef ty, unsigned w)
{
    LLVMTypeRef  it = LLVMIntTypeInContext(kt->ctx, 8 * w);
    LLVMTypeKind k  = LLVMGetTypeKind(ty);
    if (w != 8) r = LLVMBuildTrunc(kt->b, r, it, "");
    if (k == LLVMPointerTypeKind) return LLVMBuildIntToPtr(kt->b, r, ty, "");
    if (k != LLVMIntegerTypeKind) return LLVMBuildBitCast(kt->b, r, ty, "");
    return r;
}

static LLVMValueRef as_i8p(struct kumi_tr *kt, LLVMValueRef p) { return LLVMBuildPointerCast(kt->b, p, kt->tp8, ""); }

/* The diamond both load checks build around L: bb (the load and the
 * flag test) -> chk (range) -> miss (the slow path) -> cont, where a phi
 * of L, L and the slow path's value replaces L's uses. */
struct ld_diamond {
    LLVMBasicBlockRef bb, cont, chk, miss;
    LLVMValueRef      ptr, phi;
};

static void ld_open(struct kumi_tr *kt, struct ld_diamond *d, LLVMValueRef L, const char *cont, const char *chk,
                    const char *miss)
{
    d->bb   = LLVMGetInstructionParent(L);
    d->cont = kumi_tr_split_before(kt, LLVMGetNextInstruction(L), cont);
    /* operands are read after each split: it may rebuild a phi they name */
    d->ptr  = LLVMGetOperand(L, 0);
    d->chk  = kumi_tr_block_after(kt, d->bb, chk);
    d->miss = kumi_tr_block_after(kt, d->chk, miss);

    LLVMPositionBuilder(kt->b, d->cont, LLVMGetFirstInstruction(d->cont));
    d->phi = LLVMBuildPhi(kt->b, LLVMTypeOf(L), "");
    LLVMReplaceAllUsesWith(L, d->phi);
    set_dbg(kt, L);
    LLVMPositionBuilderAtEnd(kt->b, d->bb);
}

/* After the flag test ended bb with a branch to chk or cont: the range
 * check in chk (the batch's, or its own), then the builder in miss. */
static void ld_range(struct kumi_tr *kt, const struct ld_diamond *d, LLVMValueRef in)
{
    LLVMPositionBuilderAtEnd(kt->b, d->chk);
    LLVMBuildCondBr(kt->b, in ? in : emit_range_of(kt, d->ptr), d->miss, d->cont);
    LLVMPositionBuilderAtEnd(kt->b, d->miss);
}

/* The slow path's value nv ends miss; the phi takes it. */
static void ld_close(struct kumi_tr *kt, const struct ld_diamond *d, LLVMValueRef L, LLVMValueRef nv)
{
    LLVMBuildBr(kt->b, d->cont);
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
static LLVMValueRef check_load(struct kumi_tr *kt, LLVMValueRef L, unsigned w, LLVMValueRef in)
{
    struct ld_diamond d;
    ld_open(kt, &d, L, "kumi.ld.cont", "kumi.ld.chk", "kumi.ld.miss");
    LLVMValueRef ptr = d.ptr;
    LLVMValueRef addr = LLVMBuildPtrToInt(kt->b, ptr, kt->t64, "kumi.a");
    LLVMValueRef bits = to_bits(kt, L, w), flag;
    if (w == 8 || LLVMGetAlignment(L) >= 4) {
        /* at a multiple of 4 the flag's bytes are its first w: a constant
         * (a shift by the address's low bits cost four instructions and a
         * register on every int load of an interpreter's dispatch loop) */
        flag = LLVMConstInt(kt->t64, w == 8 ? KUMI_DSM_FLAG64 : KUMI_DSM_FLAG64 & ((1ull << (8 * w)) - 1), 0);
    } else {
        LLVMValueRef sh = LLVMBuildShl(kt->b, LLVMBuildAnd(kt->b, addr, LLVMConstInt(kt->t64, 3, 0), ""),
                                       LLVMConstInt(kt->t64, 3, 0), "");
        flag = LLVMBuildLShr(kt->b, LLVMConstInt(kt->t64, KUMI_DSM_FLAG64, 0), sh, "");
        flag = LLVMBuildAnd(kt->b, flag, LLVMConstInt(kt->t64, (1ull << (8 * w)) - 1, 0), "kumi.flag");
    }
    LLVMValueRef slow = LLVMBuildICmp(kt->b, LLVMIntEQ, bits, flag, "kumi.isflag");
    if (may_cross(L, w)) slow = LLVMBuildOr(kt->b, slow, emit_crosses(kt, addr, w), "");
    unlikely_br(kt, slow, d.chk, d.cont);

    ld_range(kt, &d, in);
    LLVMValueRef args[2] = {as_i8p(kt, ptr), LLVMConstInt(kt->t32, w, 0)};
    LLVMValueRef r  = LLVMBuildCall2(kt->b, kt->load_miss.ty, kt->load_miss.fn, args, 2, "");
    ld_close(kt, &d, L, from_bits(kt, r, LLVMTypeOf(L), w));
    return in;
}

/* Store (or atomic): in range? state byte != E or crossing? ->
 * kumi_dsm_store_miss, then the program's own instruction. */
static LLVMValueRef check_store(struct kumi_tr *kt, LLVMValueRef S, unsigned pidx, unsigned w, LLVMValueRef in)
{
    LLVMBasicBlockRef bb   = LLVMGetInstructionParent(S);
    LLVMBasicBlockRef cont = kumi_tr_split_before(kt, S, "kumi.st.cont");
    LLVMValueRef      ptr  = LLVMGetOperand(S, pidx);
    LLVMBasicBlockRef chk  = kumi_tr_block_after(kt, bb, "kumi.st.chk");
    LLVMBasicBlockRef miss = kumi_tr_block_after(kt, chk, "kumi.st.miss");
    set_dbg(kt, S);

    LLVMPositionBuilderAtEnd(kt->b, bb);
    LLVMValueRef addr = LLVMBuildPtrToInt(kt->b, ptr, kt->t64, "kumi.a");
    if (in == NULL) in = emit_range_of(kt, ptr);
    range_br(kt, in, chk, cont);

    /* first the page's summary (KUMI_DSM_PSTATE_ALL_E: all 64 lines E; a 64 times smaller
     * table than the line states, which scattered stores keep in L1),
     * then the line's state */
    LLVMPositionBuilderAtEnd(kt->b, chk);
    LLVMValueRef off   = LLVMBuildSub(kt->b, addr, field(kt, KUMI_TR_F_BASE, kt->t64), "");
    LLVMValueRef page  = LLVMBuildLShr(kt->b, off, LLVMConstInt(kt->t64, KUMI_DSM_PAGE_SHIFT, 0), "");
    LLVMValueRef pp    = LLVMBuildInBoundsGEP2(kt->b, kt->t8, field(kt, KUMI_TR_F_PSTATE, kt->tp8), &page, 1, "");
    LLVMValueRef pv    = LLVMBuildLoad2(kt->b, kt->t8, pp, "kumi.pstate");
    LLVMValueRef allE  = LLVMBuildICmp(kt->b, LLVMIntEQ, pv, LLVMConstInt(kt->t8, KUMI_DSM_PSTATE_ALL_E, 0), "kumi.pageE");
    LLVMValueRef cross = may_cross(S, w) ? emit_crosses(kt, addr, w) : NULL;
    if (cross)   /* (a crossing access may leave the page) */
        allE = LLVMBuildAnd(kt->b, allE, LLVMBuildNot(kt->b, cross, ""), "");
    LLVMBasicBlockRef lchk = kumi_tr_block_after(kt, chk, "kumi.st.line");
    LLVMSetMetadata(LLVMBuildCondBr(kt->b, allE, cont, lchk), kt->md_prof, kt->likely);
    LLVMPositionBuilderAtEnd(kt->b, lchk);
    LLVMValueRef line  = LLVMBuildLShr(kt->b, off, LLVMConstInt(kt->t64, KUMI_DSM_LINE_SHIFT, 0), "");
    LLVMValueRef state = field(kt, KUMI_TR_F_STATE, kt->tp8);
    LLVMValueRef sp    = LLVMBuildInBoundsGEP2(kt->b, kt->t8, state, &line, 1, "");
    LLVMValueRef sv    = LLVMBuildLoad2(kt->b, kt->t8, sp, "kumi.state");
    LLVMValueRef slow  = LLVMBuildICmp(kt->b, LLVMIntNE, sv, LLVMConstInt(kt->t8, KUMI_DSM_STATE_E, 0), "kumi.notE");
    if (cross) slow = LLVMBuildOr(kt->b, slow, cross, "");
    unlikely_br(kt, slow, miss, cont);

    LLVMPositionBuilderAtEnd(kt->b, miss);
    LLVMValueRef args[2] = {as_i8p(kt, ptr), LLVMConstInt(kt->t32, w, 0)};
    LLVMBuildCall2(kt->b, kt->store_miss.ty, kt->store_miss.fn, args, 2, "");
    LLVMBuildBr(kt->b, cont);
    return in;
}

/* A vector load of 4-byte-aligned lanes (the loop vectorizer's loads of
 * int, float, double): every aligned 4-byte word of an invalid line holds
 * 0x7fa5c3e7, so the loaded vector seen as <n/4 x i32> has such a lane if
 * any byte came from an invalid line (also when it spans two lines). Only
 * then (and in range) kumi_dsm_acquire(p, n, READ) and a reload replace the
 * value; real data with such a word just takes the slow path. Returns the
 * batch's range check (in), as check_load. */
static int vload_fast(struct kumi_tr *kt, LLVMValueRef L)
{
    LLVMTypeRef        ty = LLVMTypeOf(L);
    unsigned long long n  = LLVMStoreSizeOfType(kt->td, ty);
    return LLVMGetTypeKind(ty) == LLVMVectorTypeKind && LLVMGetAlignment(L) >= 4 &&
           n % 4 == 0 && n >= 4 && n <= 256 && n * 8 == LLVMSizeOfTypeInBits(kt->td, ty);
}

static LLVMValueRef check_vload(struct kumi_tr *kt, LLVMValueRef L, LLVMValueRef in)
{
    LLVMTypeRef ty = LLVMTypeOf(L);
    unsigned    n  = (unsigned)LLVMStoreSizeOfType(kt->td, ty);
    struct ld_diamond d;
    ld_open(kt, &d, L, "kumi.vld.cont", "kumi.vld.chk", "kumi.vld.miss");
    LLVMValueRef ptr = d.ptr;
    LLVMTypeRef  vt    = LLVMVectorType(kt->t32, n / 4);
    LLVMValueRef bits  = L;
    if (LLVMGetTypeKind(LLVMGetElementType(ty)) == LLVMPointerTypeKind)   /* no bitcast of pointers */
        bits = LLVMBuildPtrToInt(kt->b, L, LLVMVectorType(kt->t64, LLVMGetVectorSize(ty)), "");
    LLVMValueRef words = LLVMBuildBitCast(kt->b, bits, vt, "");
    LLVMValueRef f32[64];
    for (unsigned i = 0; i < n / 4; i++) f32[i] = LLVMConstInt(kt->t32, (unsigned)KUMI_DSM_FLAG64, 0);
    LLVMValueRef flag  = LLVMConstVector(f32, n / 4);
    LLVMValueRef eq  = LLVMBuildICmp(kt->b, LLVMIntEQ, words, flag, "kumi.vflag");
    LLVMValueRef any = LLVMBuildBitCast(kt->b, eq, LLVMIntTypeInContext(kt->ctx, n / 4), "");
    LLVMValueRef slow = LLVMBuildICmp(kt->b, LLVMIntNE, any, LLVMConstInt(LLVMTypeOf(any), 0, 0), "kumi.isflag");
    unlikely_br(kt, slow, d.chk, d.cont);   /* the range only on a match, as check_load */

    ld_range(kt, &d, in);
    LLVMValueRef args[3] = {as_i8p(kt, ptr), LLVMConstInt(kt->t64, n, 0), LLVMConstInt(kt->t32, KUMI_DSM_READ, 0)};
    LLVMBuildCall2(kt->b, kt->acquire.ty, kt->acquire.fn, args, 3, "");
    LLVMValueRef nv = LLVMBuildLoad2(kt->b, ty, ptr, "kumi.reload");
    LLVMSetAlignment(nv, LLVMGetAlignment(L));
    LLVMSetVolatile(nv, LLVMGetVolatile(L));
    ld_close(kt, &d, L, nv);
    return in;
}

/* At the builder: is the first or the last line of [addr, addr+n) (n <= 64,
 * so at most two lines) not in the state the access needs (E for a write,
 * S or E otherwise)? An i1 for the slow-path branch. */
static LLVMValueRef emit_lines_bad(struct kumi_tr *kt, LLVMValueRef addr, unsigned long long n, int mode)
{
    LLVMValueRef slow = NULL;
    for (int end = 0; end < 2; end++) {
        LLVMValueRef a    = end ? LLVMBuildAdd(kt->b, addr, LLVMConstInt(kt->t64, n - 1, 0), "") : addr;
        LLVMValueRef off  = LLVMBuildSub(kt->b, a, field(kt, KUMI_TR_F_BASE, kt->t64), "");
        LLVMValueRef line = LLVMBuildLShr(kt->b, off, LLVMConstInt(kt->t64, KUMI_DSM_LINE_SHIFT, 0), "");
        LLVMValueRef sp   = LLVMBuildInBoundsGEP2(kt->b, kt->t8, field(kt, KUMI_TR_F_STATE, kt->tp8), &line, 1, "");
        LLVMValueRef sv   = LLVMBuildLoad2(kt->b, kt->t8, sp, "kumi.state");
        LLVMValueRef bad;
        if (mode == KUMI_DSM_WRITE)
            bad = LLVMBuildICmp(kt->b, LLVMIntNE, sv, LLVMConstInt(kt->t8, KUMI_DSM_STATE_E, 0), "kumi.notE");
        else   /* S = 1, E = 2 (layout.h): readable iff state - S <= E - S */
            bad = LLVMBuildICmp(kt->b, LLVMIntUGT,
                                LLVMBuildSub(kt->b, sv, LLVMConstInt(kt->t8, KUMI_DSM_STATE_S, 0), ""),
                                LLVMConstInt(kt->t8, KUMI_DSM_STATE_E - KUMI_DSM_STATE_S, 0), "kumi.notSE");
        slow = slow ? LLVMBuildOr(kt->b, slow, bad, "") : bad;
    }
    return slow;
}

/* in range? -> kumi_dsm_acquire(p, n, mode) right before I. With w (a
 * constant size <= 64: vectors, aggregates, i128, x86_fp80), the state
 * bytes of the first and the last line of [p, p+w) are looked at inline
 * first: both readable (S or E; E for writes) skip the call (a vectorized
 * loop's unaligned accesses cross lines now and then; they need no call). */
static void acquire_before(struct kumi_tr *kt, LLVMValueRef I, unsigned pidx, int nidx, unsigned long long nconst,
                           int mode, unsigned w)
{
    LLVMBasicBlockRef bb   = LLVMGetInstructionParent(I);
    LLVMBasicBlockRef cont = kumi_tr_split_before(kt, I, "kumi.acq.cont");
    LLVMValueRef      ptr  = LLVMGetOperand(I, pidx);
    LLVMValueRef      n    = nidx >= 0 ? LLVMGetOperand(I, (unsigned)nidx) : LLVMConstInt(kt->t64, nconst, 0);
    LLVMBasicBlockRef chk  = w ? kumi_tr_block_after(kt, bb, "kumi.acq.chk") : NULL;
    LLVMBasicBlockRef acq  = kumi_tr_block_after(kt, w ? chk : bb, "kumi.acq");
    set_dbg(kt, I);
    LLVMPositionBuilderAtEnd(kt->b, bb);
    LLVMValueRef addr = LLVMBuildPtrToInt(kt->b, ptr, kt->t64, "kumi.a");
    range_br(kt, nidx >= 0 ? emit_range(kt, addr) : emit_range_of(kt, ptr), w ? chk : acq, cont);
    if (w) {
        LLVMPositionBuilderAtEnd(kt->b, chk);
        unlikely_br(kt, emit_lines_bad(kt, addr, w, mode), acq, cont);
    }
    LLVMPositionBuilderAtEnd(kt->b, acq);
    if (LLVMTypeOf(n) != kt->t64) n = LLVMBuildZExt(kt->b, n, kt->t64, "");
    LLVMValueRef args[3] = {as_i8p(kt, ptr), n, LLVMConstInt(kt->t32, (unsigned)mode, 0)};
    LLVMBuildCall2(kt->b, kt->acquire.ty, kt->acquire.fn, args, 3, "");
    LLVMBuildBr(kt->b, cont);
}

/* The state of the lines of [p+delta, p+delta+n) (n <= 64: at most two
 * lines, the first and the last) tested inline before I, p its operand
 * pidx: E for a write (else S or E); otherwise kumi_dsm_acquire of the
 * span. One test for a group of accesses to neighbouring bytes of one
 * object in a batch (an unrolled or vectorized loop's iterations). */
static LLVMValueRef check_span(struct kumi_tr *kt, LLVMValueRef I, unsigned pidx, long delta, unsigned n, int mode, LLVMValueRef in)
{
    LLVMBasicBlockRef bb   = LLVMGetInstructionParent(I);
    LLVMBasicBlockRef cont = kumi_tr_split_before(kt, I, "kumi.span.cont");
    LLVMValueRef      ptr  = LLVMGetOperand(I, pidx);
    LLVMBasicBlockRef chk  = kumi_tr_block_after(kt, bb, "kumi.span.chk");
    LLVMBasicBlockRef acq  = kumi_tr_block_after(kt, chk, "kumi.span.acq");
    set_dbg(kt, I);
    LLVMPositionBuilderAtEnd(kt->b, bb);
    LLVMValueRef addr = LLVMBuildAdd(kt->b, LLVMBuildPtrToInt(kt->b, ptr, kt->t64, "kumi.a"),
                                     LLVMConstInt(kt->t64, (unsigned long long)delta, 1), "kumi.span");
    if (in == NULL) in = emit_range_of(kt, ptr);
    range_br(kt, in, chk, cont);
    LLVMPositionBuilderAtEnd(kt->b, chk);
    unlikely_br(kt, emit_lines_bad(kt, addr, n, mode), acq, cont);
    LLVMPositionBuilderAtEnd(kt->b, acq);
    LLVMValueRef args[3] = {LLVMBuildIntToPtr(kt->b, addr, kt->tp8, ""), LLVMConstInt(kt->t64, n, 0),
                            LLVMConstInt(kt->t32, (unsigned)mode, 0)};
    LLVMBuildCall2(kt->b, kt->acquire.ty, kt->acquire.fn, args, 3, "");
    LLVMBuildBr(kt->b, cont);
    return in;
}

/* memcpy/memmove whose source and destination both may be DSM:
 *   if (in(dst) | in(src)) kumi_dsm_memmove(dst, src, n); else the intrinsic.
 * Acquiring both ranges one after the other is not enough: the second
 * acquire may serve a request that takes a line of the first. The runtime
 * copies line by line through a private bounce buffer, each line valid at
 * the moment its bytes move. */
static void mem_both(struct kumi_tr *kt, LLVMValueRef I)
{
    LLVMBasicBlockRef bb    = LLVMGetInstructionParent(I);
    LLVMBasicBlockRef cont  = kumi_tr_split_before(kt, I, "kumi.mem.plain");
    LLVMBasicBlockRef after = kumi_tr_split_before(kt, LLVMGetNextInstruction(I), "kumi.mem.cont");
    LLVMBasicBlockRef call  = kumi_tr_block_after(kt, bb, "kumi.mem.dsm");
    LLVMValueRef      dst = LLVMGetOperand(I, 0), src = LLVMGetOperand(I, 1), n = LLVMGetOperand(I, 2);
    set_dbg(kt, I);
    LLVMPositionBuilderAtEnd(kt->b, cont);
    LLVMBuildBr(kt->b, after);
    LLVMPositionBuilderAtEnd(kt->b, bb);
    LLVMValueRef any = LLVMBuildOr(kt->b, emit_range(kt, LLVMBuildPtrToInt(kt->b, dst, kt->t64, "kumi.a")),
                                   emit_range(kt, LLVMBuildPtrToInt(kt->b, src, kt->t64, "kumi.a")), "kumi.anyin");
    unlikely_br(kt, any, call, cont);
    LLVMPositionBuilderAtEnd(kt->b, call);
    if (LLVMTypeOf(n) != kt->t64) n = LLVMBuildZExt(kt->b, n, kt->t64, "");
    LLVMValueRef args[3] = {as_i8p(kt, dst), as_i8p(kt, src), n};
    LLVMBuildCall2(kt->b, kt->memmove.ty, kt->memmove.fn, args, 3, "");
    LLVMBuildBr(kt->b, after);
}

/* the back-edge term->succ(idx): if ((++tick & 1023) == 0) kumi_dsm_poll(); */
void kumi_tr_poll_edge(struct kumi_tr *kt, LLVMValueRef term, unsigned idx)
{
    LLVMBasicBlockRef src = LLVMGetInstructionParent(term);
    LLVMBasicBlockRef h   = LLVMGetSuccessor(term, idx);
    LLVMBasicBlockRef e   = kumi_tr_block_after(kt, src, "kumi.poll");
    LLVMBasicBlockRef c   = kumi_tr_block_after(kt, e, "kumi.poll.call");
    LLVMBasicBlockRef j   = kumi_tr_block_after(kt, c, "kumi.poll.done");
    set_dbg(kt, term);
    LLVMSetSuccessor(term, idx, e);
    LLVMPositionBuilderAtEnd(kt->b, e);
    LLVMValueRef tp = kt->fn.shadow_tick ? kt->fn.shadow_tick : kumi_tr_tick_ptr(kt, kt->b);
    LLVMValueRef tl = LLVMBuildLoad2(kt->b, kt->t32, tp, "");
    LLVMValueRef t  = LLVMBuildAdd(kt->b, tl, LLVMConstInt(kt->t32, 1, 0), "kumi.tick");
    LLVMValueRef ts = LLVMBuildStore(kt->b, t, tp);
    if (!kt->fn.shadow_tick) {
        LLVMSetMetadata(tl, kt->md_tbaa, kt->tbaa_tick);
        LLVMSetMetadata(ts, kt->md_tbaa, kt->tbaa_tick);
    }
    LLVMValueRef z  = LLVMBuildICmp(kt->b, LLVMIntEQ, LLVMBuildAnd(kt->b, t, LLVMConstInt(kt->t32, KUMI_TR_POLL_MASK, 0), ""),
                                    LLVMConstInt(kt->t32, 0, 0), "");
    unlikely_br(kt, z, c, j);
    LLVMPositionBuilderAtEnd(kt->b, c);
    LLVMBuildCall2(kt->b, kt->poll.ty, kt->poll.fn, NULL, 0, "");
    LLVMBuildBr(kt->b, j);
    LLVMPositionBuilderAtEnd(kt->b, j);
    LLVMBuildBr(kt->b, h);
    kumi_tr_phi_retarget(kt, h, src, j, 1);
    kt->st.polls++;
}


/* ------------------------------------------------------------ instrumenting a function */

/* Is the next access of acc[i]'s batch (same original block, no call,
 * fence, atomic or memory intrinsic in between) a store writing all of
 * base + [off, off+n)? Only the next: any other checked access in between
 * could take a slow path that serves requests and takes the line. */
static int store_follows(struct kumi_tr *kt, const struct kumi_tr_access *acc, size_t nacc, size_t i, LLVMValueRef base, long off, long n)
{
    size_t j = i + 1;
    if (j >= nacc || acc[j].bb != acc[i].bb || acc[j].kind != KUMI_TR_STORE)
        return 0;
    long         o;
    LLVMValueRef v = LLVMGetOperand(acc[j].I, 0);
    return kumi_tr_base_of(kt, LLVMGetOperand(acc[j].I, 1), &o) == base && o <= off &&
           off + n <= o + (long)LLVMStoreSizeOfType(kt->td, LLVMTypeOf(v));
}

/* The group of acc[i] (at base+off, n bytes, a write when wr): the other
 * loads and stores of its batch through the same base whose bytes, with
 * the group's, span at most one line's size [*lo, *hi); *wr becomes 1 if
 * one of them is a store. Returns how many joined. */
static int group_of(struct kumi_tr *kt, const struct kumi_tr_access *acc, size_t nacc, size_t i, LLVMValueRef base, long off, long n,
                    long *lo, long *hi, int *wr)
{
    int k = 0;
    *lo = off; *hi = off + n;
    for (size_t j = i + 1; j < nacc && j < i + 64 && acc[j].bb == acc[i].bb; j++) {
        if (acc[j].kind != KUMI_TR_LOAD && acc[j].kind != KUMI_TR_STORE)
            break;
        int          st_ = acc[j].kind == KUMI_TR_STORE;
        LLVMValueRef J = acc[j].I;
        LLVMTypeRef  ty = st_ ? LLVMTypeOf(LLVMGetOperand(J, 0)) : LLVMTypeOf(J);
        long         o, m = (long)LLVMStoreSizeOfType(kt->td, ty);
        /* members must follow each other: an access in between would be
         * checked, and its slow path may serve a request that takes the
         * group's lines */
        if (kumi_tr_base_of(kt, LLVMGetOperand(J, st_ ? 1 : 0), &o) != base)
            break;
        long nlo = o < *lo ? o : *lo, nhi = o + m > *hi ? o + m : *hi;
        if (nhi - nlo > (long)KUMI_DSM_LINE)
            break;
        *lo = nlo; *hi = nhi; *wr |= st_; k++;
    }
    return k;
}
/* Instruments acc[0..nacc) (function.c: the loads, stores, atomics,
 * memory intrinsics of a function in order, and the calls and fences that
 * end a batch), in order; the batching cache lives while the accesses
 * stay in one original block with no call or fence between them. */
void kumi_tr_checks_insert(struct kumi_tr *kt, const struct kumi_tr_access *acc, size_t nacc)
{
    LLVMBasicBlockRef cur = NULL;
    cache_reset(kt);
    for (size_t i = 0; i < nacc; i++) {
        LLVMValueRef I = acc[i].I;
        if (acc[i].bb != cur) { cache_reset(kt); cur = acc[i].bb; }
        switch (acc[i].kind) {
        case KUMI_TR_BARRIER:
            cache_reset(kt);
            break;
        case KUMI_TR_LOAD: case KUMI_TR_STORE: {
            int                store = acc[i].kind == KUMI_TR_STORE;
            LLVMValueRef       p  = LLVMGetOperand(I, store ? 1 : 0);
            LLVMTypeRef        ty = store ? LLVMTypeOf(LLVMGetOperand(I, 0)) : LLVMTypeOf(I);
            unsigned           w  = fast_width(kt, ty);
            unsigned long long n  = LLVMStoreSizeOfType(kt->td, ty);
            long               off;
            LLVMValueRef       base = kumi_tr_base_of(kt, p, &off), in;
            if (cache_covers(kt, base, off, off + (long)n, store)) {
                kt->st.elided++;   /* already checked in the batch, nothing served since */
                break;
            }
            /* read-modify-write: a store later in the batch writes these
             * bytes, so check for the store now (E implies readable) and
             * neither the load nor the store needs another test */
            int rmw = !store && store_follows(kt, acc, nacc, i, base, off, (long)n);
            if (rmw) kt->st.rmw++;
            long lo = off, hi = off + (long)n;
            int  gw = store || rmw;
            int  members = n <= KUMI_DSM_LINE && (gw || w == 0) ? group_of(kt, acc, nacc, i, base, off, (long)n, &lo, &hi, &gw) : 0;
            /* a group of only loads of lane-aligned vectors: two state
             * lookups pay off from three loads on (each lane-wise flag test
             * is a compare and a mask, no memory access) */
            int  grouped = members > 0 && (gw || !vload_fast(kt, I) || members >= 2);
            /* (a scalar whose group is its own bytes: the one state test
             * of check_store below is cheaper than two) */
            cache_kill_coverage(kt);   /* a check with a slow path follows */
            if (grouped && (gw || w == 0) && (w == 0 || hi - lo > (long)n)) {
                /* one test of the group's first and last line: later
                 * members find their bytes checked (cache) and need none */
                in = check_span(kt, I, store ? 1 : 0, lo - off, (unsigned)(hi - lo),
                                gw ? KUMI_DSM_WRITE : KUMI_DSM_READ, cache_in(kt, kumi_tr_root_of(kt, p)));
                kt->st.grouped++;
                p    = LLVMGetOperand(I, store ? 1 : 0);   /* after the surgery */
                base = kumi_tr_base_of(kt, p, &off);
                cache_add(kt, base, kumi_tr_root_of(kt, p), in, lo, hi, gw);
                break;
            }
            if (w == 0 && !store && !rmw && vload_fast(kt, I)) {   /* lane-wise flag test */
                in = cache_in(kt, kumi_tr_root_of(kt, p));
                if (in) kt->st.batched++;
                in = check_vload(kt, I, in);
                kt->st.wide++;
            } else if (w == 0) {   /* vectors, aggregates, wider: acquire the range */
                acquire_before(kt, I, store ? 1 : 0, -1, n, store || rmw ? KUMI_DSM_WRITE : KUMI_DSM_READ,
                               n <= KUMI_DSM_LINE ? (unsigned)n : 0);
                in = NULL;
                kt->st.wide++;
            } else {
                in = cache_in(kt, kumi_tr_root_of(kt, p));
                if (in) kt->st.batched++;
                if (store || rmw) { in = check_store(kt, I, store ? 1 : 0, w, in); kt->st.checked_stores++; }
                else              { in = check_load(kt, I, w, in);                 kt->st.checked_loads++; }
            }
            p    = LLVMGetOperand(I, store ? 1 : 0);   /* after the surgery */
            base = kumi_tr_base_of(kt, p, &off);
            cache_add(kt, base, kumi_tr_root_of(kt, p), in, off, off + (long)n, store || rmw);
            break;
        }
        case KUMI_TR_ATOMIC: {
            LLVMTypeRef  ty = LLVMTypeOf(LLVMGetOperand(I, 1));
            unsigned     w  = fast_width(kt, ty);
            if (w) check_store(kt, I, 0, w, NULL);
            else acquire_before(kt, I, 0, -1, LLVMStoreSizeOfType(kt->td, ty), KUMI_DSM_WRITE, 0);
            cache_reset(kt);
            break;
        }
        case KUMI_TR_MEM: {
            const char  *n   = kumi_tr_callee_name(I);
            int          set = kumi_tr_starts(n, "llvm.memset.");
            int          dpriv = kumi_tr_is_private(kt, LLVMGetOperand(I, 0), 0);
            int          spriv = set || kumi_tr_is_private(kt, LLVMGetOperand(I, 1), 0);
            if (!dpriv && !spriv) {
                mem_both(kt, I);   /* two acquires would not stay valid together */
            } else {
                if (!dpriv) acquire_before(kt, I, 0, 2, 0, KUMI_DSM_WRITE, 0);
                if (!spriv) acquire_before(kt, I, 1, 2, 0, KUMI_DSM_READ, 0);
            }
            cache_reset(kt);
            break;
        }
        }
    }
}

