/*
 * versions.c -- loop versions (README.md, "Loop versions"): an innermost
 * loop without calls, fences, atomics or volatile accesses, whose every
 * access that may touch the region has an address affine in the loop's
 * induction variable, gets an unchecked copy; before the loop a test
 * block makes sure every line the accesses can reach is ready. Made
 * before any check goes in (kumi_tr_versions_make), finished after the
 * checks and polls (kumi_tr_versions_finish).
 */
#include <stdlib.h>
#include <string.h>

#include "translate.h"

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

/* eight state or summary bytes, each x */
#define BYTES8(x) (0x0101010101010101L * (long)(x))
/* "S or E" for eight state bytes: each byte - S must be 0 or 1 */
_Static_assert(KUMI_DSM_STATE_E - KUMI_DSM_STATE_S == 1, "the 8-byte readable test needs E = S + 1");

/* base, size, state or pstate for a loop's test: from kumi_dsm_g now,
 * from the function's shadows once they exist (kumi_tr_versions_finish) */
static LLVMValueRef v_field(struct kumi_tr *kt, enum kumi_tr_field f, LLVMTypeRef ty)
{
    LLVMValueRef l = kumi_tr_field_load(kt, kt->mv, f, ty);
    if (kt->ver.nfields == kt->ver.cfields) kt->ver.fields = kumi_tr_realloc(kt->ver.fields, (kt->ver.cfields = kt->ver.cfields ? 2 * kt->ver.cfields : 16) * sizeof *kt->ver.fields);
    kt->ver.fields[kt->ver.nfields++] = (struct kumi_tr_vfield){l, (int)f};
    return l;
}

static int aff_of(struct kumi_tr *kt, LLVMValueRef v, int depth, aff *a);

/* phi is an induction variable of the loop: start from the way in, and
 * phi + step (or a GEP of phi by a constant) from the latch */
static int iv_of(struct kumi_tr *kt, LLVMValueRef phi, LLVMValueRef *start, LLVMValueRef *next, long *step)
{
    if (!LLVMIsAPHINode(phi) || LLVMGetInstructionParent(phi) != kt->ver.h || LLVMCountIncoming(phi) != 2)
        return 0;
    *start = *next = NULL;
    for (unsigned j = 0; j < 2; j++) {
        if (LLVMGetIncomingBlock(phi, j) == kt->ver.pre) *start = LLVMGetIncomingValue(phi, j);
        else if (LLVMGetIncomingBlock(phi, j) == kt->ver.latch) *next = LLVMGetIncomingValue(phi, j);
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
        long sz = (long)LLVMABISizeOfType(kt->td, LLVMGetGEPSourceElementType(n));
        return !__builtin_mul_overflow(k, sz, step) && *step != 0;
    }
    return 0;
}

static int in_body(struct kumi_tr *kt, LLVMValueRef v)
{
    return LLVMIsAInstruction(v) && kumi_tr_map_find(&kt->ver.body, LLVMGetInstructionParent(v)) != NULL;
}

/* the test block's arithmetic, built once per operation and operands, so
 * equal invariant parts are the same value (ranges merge by identity) */
enum { VO_ADD, VO_MUL, VO_NEG, VO_PTR, VO_SEXT };

static LLVMValueRef v_op(struct kumi_tr *kt, int op, LLVMValueRef a, LLVMValueRef b)
{
    if ((op == VO_ADD || op == VO_MUL) && (uintptr_t)a > (uintptr_t)b) {
        LLVMValueRef t = a; a = b; b = t;
    }
    for (size_t i = 0; i < kt->ver.nmemo; i++)
        if (kt->ver.memo[i].op == op && kt->ver.memo[i].a == a && kt->ver.memo[i].b == b) return kt->ver.memo[i].r;
    LLVMValueRef r;
    switch (op) {
    case VO_ADD: r = LLVMBuildAdd(kt->mv, a, b, ""); break;
    case VO_MUL: r = LLVMBuildMul(kt->mv, a, b, ""); break;
    case VO_NEG: r = LLVMBuildNeg(kt->mv, a, ""); break;
    case VO_PTR: r = LLVMBuildPtrToInt(kt->mv, a, kt->t64, ""); break;
    default:     r = LLVMBuildSExt(kt->mv, a, kt->t64, ""); break;
    }
    if (kt->ver.nmemo == kt->ver.cmemo) kt->ver.memo = kumi_tr_realloc(kt->ver.memo, (kt->ver.cmemo = kt->ver.cmemo ? 2 * kt->ver.cmemo : 32) * sizeof *kt->ver.memo);
    kt->ver.memo[kt->ver.nmemo++] = (struct kumi_tr_vmemo){op, a, b, r};
    return r;
}

static LLVMValueRef v_add(struct kumi_tr *kt, LLVMValueRef a, LLVMValueRef b)
{
    return a == NULL ? b : b == NULL ? a : v_op(kt, VO_ADD, a, b);
}

static LLVMValueRef v_const(struct kumi_tr *kt, long k) { return LLVMConstInt(kt->t64, (unsigned long long)k, 1); }

/* x = a + sign * b */
static int aff_add(struct kumi_tr *kt, aff *x, const aff *a, const aff *b, int sign)
{
    LLVMValueRef bc = b->coef, bi = b->inv;
    long         blo = b->lo, bhi = b->hi;
    if (sign < 0) {
        if (bc) bc = v_op(kt, VO_NEG, bc, NULL);
        if (bi) bi = v_op(kt, VO_NEG, bi, NULL);
        if (__builtin_sub_overflow(0, b->hi, &blo) || __builtin_sub_overflow(0, b->lo, &bhi)) return 0;
    }
    x->coef = v_add(kt, a->coef, bc);
    x->inv  = v_add(kt, a->inv, bi);
    return !__builtin_add_overflow(a->lo, blo, &x->lo) && !__builtin_add_overflow(a->hi, bhi, &x->hi);
}

/* x = a * k, k a constant */
static int aff_scale(struct kumi_tr *kt, aff *x, const aff *a, long k)
{
    LLVMValueRef kv = v_const(kt, k);
    long         l, h;
    x->coef = a->coef ? v_op(kt, VO_MUL, a->coef, kv) : NULL;
    x->inv  = a->inv ? v_op(kt, VO_MUL, a->inv, kv) : NULL;
    if (__builtin_mul_overflow(a->lo, k, &l) || __builtin_mul_overflow(a->hi, k, &h)) return 0;
    x->lo = l < h ? l : h;
    x->hi = l < h ? h : l;
    return 1;
}

static int aff_of(struct kumi_tr *kt, LLVMValueRef v, int depth, aff *a)
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
    if (iv_of(kt, v, &st0, &nx, &step)) {   /* start + step * t */
        if (in_body(kt, st0) || !aff_of(kt, st0, depth + 1, a)) return 0;
        a->coef = v_const(kt, step);
        return 1;
    }
    if (!in_body(kt, v)) {   /* loop-invariant: defined before the loop */
        if (LLVMIsAConstantInt(v)) {
            a->lo = a->hi = LLVMConstIntGetSExtValue(v);
            return 1;
        }
        if (LLVMIsAInstruction(v) || LLVMIsAArgument(v) || LLVMIsAGlobalValue(v) ||
            LLVMIsAConstantPointerNull(v)) {
            if (tk == LLVMPointerTypeKind) a->inv = v_op(kt, VO_PTR, v, NULL);
            else a->inv = LLVMGetIntTypeWidth(ty) < 64 ? v_op(kt, VO_SEXT, v, NULL) : v;
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
        return aff_of(kt, LLVMGetOperand(v, 0), depth + 1, a);
    case LLVMAdd:
    case LLVMSub:
        return aff_of(kt, LLVMGetOperand(v, 0), depth + 1, &x) && aff_of(kt, LLVMGetOperand(v, 1), depth + 1, &y) &&
               aff_add(kt, a, &x, &y, op == LLVMAdd ? 1 : -1);
    case LLVMShl:
    case LLVMMul: {
        LLVMValueRef k = LLVMGetOperand(v, 1), o = LLVMGetOperand(v, 0);
        if (op == LLVMMul && !in_body(kt, o) && in_body(kt, k)) { LLVMValueRef t = k; k = o; o = t; }
        if (!aff_of(kt, o, depth + 1, &x)) return 0;
        if (LLVMIsAConstantInt(k)) {
            long kc = LLVMConstIntGetSExtValue(k);
            if (op == LLVMShl) {
                if (kc < 0 || kc > 40) return 0;
                kc = 1L << kc;
            }
            return aff_scale(kt, a, &x, kc);
        }
        if (op == LLVMShl || in_body(kt, k) || !aff_of(kt, k, depth + 1, &y) || y.inv == NULL || y.lo != y.hi)
            return 0;
        LLVMValueRef kv = v_add(kt, y.inv, y.lo ? v_const(kt, y.lo) : NULL);
        if (x.lo != x.hi) return 0;   /* a range times an unknown sign */
        LLVMValueRef xi = v_add(kt, x.inv, x.lo ? v_const(kt, x.lo) : NULL);
        a->coef = x.coef ? v_op(kt, VO_MUL, x.coef, kv) : NULL;
        a->inv  = xi ? v_op(kt, VO_MUL, xi, kv) : NULL;
        return 1;
    }
    case LLVMOr: {   /* x | c lies in [x, x + c] for c >= 0 */
        LLVMValueRef c = LLVMGetOperand(v, 1);
        if (!LLVMIsAConstantInt(c) || LLVMConstIntGetSExtValue(c) < 0 ||
            !aff_of(kt, LLVMGetOperand(v, 0), depth + 1, a))
            return 0;
        return !__builtin_add_overflow(a->hi, LLVMConstIntGetSExtValue(c), &a->hi);
    }
    case LLVMGetElementPtr: {
        if (!aff_of(kt, LLVMGetOperand(v, 0), depth + 1, a)) return 0;
        unsigned    n  = LLVMGetNumOperands(v);
        LLVMTypeRef et = LLVMGetGEPSourceElementType(v);
        for (unsigned i = 1; i < n; i++) {
            LLVMValueRef ix = LLVMGetOperand(v, i);
            if (LLVMGetTypeKind(LLVMTypeOf(ix)) != LLVMIntegerTypeKind) return 0;   /* vector GEP */
            if (i > 1 && LLVMGetTypeKind(et) == LLVMStructTypeKind) {
                unsigned f = (unsigned)LLVMConstIntGetZExtValue(ix);
                long     o = (long)LLVMOffsetOfElement(kt->td, et, f);
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
            if (!aff_of(kt, ix, depth + 1, &x) || !aff_scale(kt, &s, &x, (long)LLVMABISizeOfType(kt->td, et)) ||
                !aff_add(kt, a, &t, &s, 1))
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

static LLVMValueRef v_smax(struct kumi_tr *kt, LLVMValueRef a, LLVMValueRef b, int max)
{
    return LLVMBuildSelect(kt->mv, LLVMBuildICmp(kt->mv, max ? LLVMIntSGT : LLVMIntSLT, a, b, ""), a, b, "");
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

static LLVMValueRef map_get(kumi_tr_map *m, LLVMValueRef v)
{
    long *p = kumi_tr_map_find(m, v);
    return p ? (LLVMValueRef)(intptr_t)*p : v;
}

static int version_loop(struct kumi_tr *kt, LLVMValueRef fn, LLVMValueRef latch_term, unsigned k, const edge *e, size_t ne,
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
    kumi_tr_map_put(&kt->ver.body, H, 1);
    nbody = 1;
    if (L != H) {
        kumi_tr_map_put(&kt->ver.body, L, 1);
        nbody++;
        wl = kumi_tr_realloc(wl, (cwl = 16) * sizeof *wl);
        wl[nwl++] = L;
    }
    while (nwl) {
        LLVMBasicBlockRef w = wl[--nwl];
        for (size_t i = 0; i < ne; i++)
            if (e[i].to == w && !kumi_tr_map_find(&kt->ver.body, e[i].from)) {
                kumi_tr_map_put(&kt->ver.body, e[i].from, 1);
                nbody++;
                if (nwl == cwl) wl = kumi_tr_realloc(wl, (cwl *= 2) * sizeof *wl);
                wl[nwl++] = e[i].from;
            }
        if (nbody > 64) goto out;
    }
    /* one way in (through P), one latch, no inner loop */
    kt->ver.pre = NULL;
    for (size_t i = 0; i < ne; i++) {
        int fin = kumi_tr_map_find(&kt->ver.body, e[i].from) != NULL, tin = kumi_tr_map_find(&kt->ver.body, e[i].to) != NULL;
        if (!tin || fin) {
            if (fin && tin && e[i].to == H && e[i].from != L) goto out;   /* a second latch */
            continue;
        }
        if (e[i].to != H || kt->ver.pre) goto out;   /* a second entry */
        kt->ver.pre = e[i].from;
    }
    if (kt->ver.pre == NULL) goto out;
    {
        LLVMValueRef pt = LLVMGetBasicBlockTerminator(kt->ver.pre);
        unsigned     hits = 0, pn = LLVMGetNumSuccessors(pt);
        for (unsigned s = 0; s < pn; s++) hits += LLVMGetSuccessor(pt, s) == H;
        if (hits != 1 || LLVMGetInstructionOpcode(pt) != LLVMBr) goto out;
    }
    for (size_t i = 0; i < nterms; i++)
        if (terms[i] != latch_term && in_body(kt, terms[i])) goto out;
    /* the exit test at the latch: an induction variable (or its next
     * value) against a loop-invariant bound */
    kt->ver.h = H;
    kt->ver.latch = L;
    kt->ver.nmemo = 0;
    LLVMValueRef cond = LLVMGetCondition(latch_term);
    if (!LLVMIsAICmpInst(cond)) goto out;
    LLVMIntPredicate pred = LLVMGetICmpPredicate(cond);
    LLVMValueRef     N = NULL, next = NULL, start = NULL, iv = NULL;
    long             step = 0;
    int              on_next = 0;
    for (int s = 0; s < 2 && !iv; s++) {
        LLVMValueRef c = LLVMGetOperand(cond, (unsigned)s), o = LLVMGetOperand(cond, 1u - (unsigned)s);
        if (in_body(kt, o) || LLVMIsAConstantExpr(o) || LLVMGetTypeKind(LLVMTypeOf(c)) != LLVMIntegerTypeKind)
            continue;
        LLVMValueRef phi = c;
        if (LLVMIsABinaryOperator(c) && LLVMGetInstructionOpcode(c) == LLVMAdd)
            phi = LLVMGetOperand(c, 0);
        if (!iv_of(kt, phi, &start, &next, &step) || (c != phi && c != next))
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
        if (!kumi_tr_map_find(&kt->ver.body, b)) continue;
        for (LLVMValueRef I = LLVMGetFirstInstruction(b); I; I = LLVMGetNextInstruction(I))
            for (LLVMUseRef u = LLVMGetFirstUse(I); u; u = LLVMGetNextUse(u)) {
                LLVMValueRef U = LLVMGetUser(u);
                if (in_body(kt, U)) continue;
                if (!LLVMIsAPHINode(U)) goto out;
                unsigned n = LLVMCountIncoming(U);
                for (unsigned j = 0; j < n; j++)
                    if (LLVMGetIncomingValue(U, j) == I && !kumi_tr_map_find(&kt->ver.body, LLVMGetIncomingBlock(U, j)))
                        goto out;
            }
    }

    /* the test block D on the edge P -> H; the analysis builds its values there */
    LLVMBasicBlockRef D = LLVMInsertBasicBlockInContext(kt->ctx, H, "kumi.ver");
    /* the calls the test and the bail make carry the loop's location (a
     * call in a function with debug info must have one) */
    LLVMMetadataRef dbg = LLVMInstructionGetDebugLoc(latch_term);
    for (LLVMValueRef I = LLVMGetFirstInstruction(H); I && !dbg; I = LLVMGetNextInstruction(I))
        dbg = LLVMInstructionGetDebugLoc(I);
    LLVMPositionBuilderAtEnd(kt->mv, D);
    LLVMSetCurrentDebugLocation2(kt->mv, NULL);
    vrange *rg = NULL;
    size_t  nrg = 0, crg = 0;
    int     fail = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b && !fail; b = LLVMGetNextBasicBlock(b)) {
        if (!kumi_tr_map_find(&kt->ver.body, b)) continue;
        for (LLVMValueRef I = LLVMGetFirstInstruction(b); I && !fail; I = LLVMGetNextInstruction(I)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(I);
            if (op == LLVMCall) {
                const char *n = kumi_tr_callee_name(I);
                if (!n || !kumi_tr_starts(n, "llvm.") || kumi_tr_is_memintr(n) || kumi_tr_starts(n, "llvm.masked.")) fail = 1;
                continue;
            }
            if (op == LLVMInvoke || op == LLVMFence || op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg ||
                op == LLVMRet || op == LLVMCallBr) { fail = 1; continue; }
            if (op != LLVMLoad && op != LLVMStore) continue;
            int          store = op == LLVMStore;
            LLVMValueRef p = LLVMGetOperand(I, store ? 1 : 0);
            if (LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != 0 || kumi_tr_is_private(kt, p, 0)) continue;
            if (LLVMGetVolatile(I) || LLVMGetOrdering(I) != LLVMAtomicOrderingNotAtomic) { fail = 1; continue; }
            aff a;
            if (!aff_of(kt, p, 0, &a)) {
                fail = 1; continue; }
            long n = (long)LLVMStoreSizeOfType(kt->td, store ? LLVMTypeOf(LLVMGetOperand(I, 0)) : LLVMTypeOf(I));
            size_t r;
            for (r = 0; r < nrg; r++)
                if (rg[r].coef == a.coef && rg[r].inv == a.inv && rg[r].write == store) break;
            if (r == nrg) {
                if (nrg == crg) rg = kumi_tr_realloc(rg, (crg = crg ? 2 * crg : 8) * sizeof *rg);
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
    LLVMValueRef lim  = LLVMBuildAdd(kt->mv, N, v_const(kt, extra), "");
    LLVMValueRef tmax = LLVMBuildSDiv(kt->mv, up ? LLVMBuildSub(kt->mv, lim, start, "") : LLVMBuildSub(kt->mv, start, lim, ""),
                                      v_const(kt, up ? step : -step), "");
    tmax = v_smax(kt, tmax, v_const(kt, 0), 1);
    LLVMValueRef ready = LLVMConstInt(kt->t1, 1, 0);
    if (uns)   /* an unsigned bound above 2^63 is no bound here */
        ready = LLVMBuildAnd(kt->mv, ready, LLVMBuildAnd(kt->mv, LLVMBuildICmp(kt->mv, LLVMIntSGE, start, v_const(kt, 0), ""),
                                                     LLVMBuildICmp(kt->mv, LLVMIntSGE, N, v_const(kt, 0), ""), ""), "");
    LLVMBasicBlockRef Dend = D;   /* the test's last block */
    LLVMValueRef     *vargs = kumi_tr_realloc(NULL, 3 * nrg * sizeof *vargs);   /* each range's lo, hi, write */
    size_t            nargs = nrg;
    /* the window cache: per range, pages [clo, chi) that a test found
     * ready at epoch cep (kumi_dsm_g.epoch counts state changes), kept in
     * allocas (registers after SROA); while the epoch is the same no line
     * has changed state, so a range inside its window needs no test (the
     * next run of an inner loop in a nest usually lies in the same pages) */
    LLVMValueRef *clo = kumi_tr_realloc(NULL, 2 * nrg * sizeof *clo), *chi = clo + nrg, cep;
    {
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
        LLVMBuilderRef    eb    = LLVMCreateBuilderInContext(kt->ctx);
        LLVMPositionBuilder(eb, entry, LLVMGetFirstInstruction(entry));
        for (size_t r = 0; r < nrg; r++) {
            clo[r] = LLVMBuildAlloca(eb, kt->t64, "kumi.wlo");
            chi[r] = LLVMBuildAlloca(eb, kt->t64, "kumi.whi");
            LLVMBuildStore(eb, v_const(kt, 1), clo[r]);   /* empty */
            LLVMBuildStore(eb, v_const(kt, 0), chi[r]);
        }
        cep = LLVMBuildAlloca(eb, kt->t32, "kumi.wep");
        LLVMBuildStore(eb, LLVMConstInt(kt->t32, 0, 0), cep);
        LLVMDisposeBuilder(eb);
    }
    LLVMValueRef ep  = kumi_tr_field_load(kt, kt->mv, KUMI_TR_F_EPOCH, kt->t32);
    LLVMValueRef hit = LLVMBuildAnd(kt->mv, ready, LLVMBuildICmp(kt->mv, LLVMIntEQ, ep, LLVMBuildLoad2(kt->mv, kt->t32, cep, ""), ""), "");
    LLVMValueRef *rlo = kumi_tr_realloc(NULL, 2 * nrg * sizeof *rlo), *rhi = rlo + nrg;
    for (size_t r = 0; r < nrg; r++) {
        LLVMValueRef a1 = rg[r].inv ? rg[r].inv : v_const(kt, 0), a2 = a1;
        if (rg[r].coef)
            a2 = LLVMBuildAdd(kt->mv, a2, LLVMBuildMul(kt->mv, rg[r].coef, tmax, ""), "");
        rlo[r] = LLVMBuildAdd(kt->mv, v_smax(kt, a1, a2, 0), v_const(kt, rg[r].lo), "kumi.lo");
        rhi[r] = LLVMBuildAdd(kt->mv, v_smax(kt, a1, a2, 1), v_const(kt, rg[r].hi), "kumi.hi");
        hit = LLVMBuildAnd(kt->mv, hit, LLVMBuildAnd(kt->mv,
                  LLVMBuildICmp(kt->mv, LLVMIntUGE, rlo[r], LLVMBuildLoad2(kt->mv, kt->t64, clo[r], ""), ""),
                  LLVMBuildICmp(kt->mv, LLVMIntULE, rhi[r], LLVMBuildLoad2(kt->mv, kt->t64, chi[r], ""), ""), ""), "");
    }
    LLVMBasicBlockRef Dhit = kumi_tr_block_after(kt, D, "kumi.ver.cached");   /* -> Dsel, wired below */
    LLVMBasicBlockRef Dtst = kumi_tr_block_after(kt, Dhit, "kumi.ver.ranges");
    LLVMSetMetadata(LLVMBuildCondBr(kt->mv, hit, Dhit, Dtst), kt->md_prof, kt->likely);
    LLVMPositionBuilderAtEnd(kt->mv, Dtst);
    Dend = Dtst;
    for (size_t r = 0; r < nrg; r++) {
        LLVMValueRef lo = rlo[r], hi = rhi[r];
        /* inline, in the region: a range within eight 4 KiB pages whose
         * summaries say "all E" (a read: or "all S or E"; one word of pstate); else a range of at
         * most eight lines by their state bytes (one word of state); else
         * kumi_dsm_ready (dsm.c pads both tables by 8 bytes) */
        LLVMValueRef base = v_field(kt, KUMI_TR_F_BASE, kt->t64), size = v_field(kt, KUMI_TR_F_SIZE, kt->t64);
        LLVMValueRef o0 = LLVMBuildSub(kt->mv, lo, base, ""), o1 = LLVMBuildSub(kt->mv, LLVMBuildSub(kt->mv, hi, v_const(kt, 1), ""), base, "");
        LLVMValueRef inreg = LLVMBuildAnd(kt->mv, LLVMBuildICmp(kt->mv, LLVMIntULT, o0, size, ""),
                                          LLVMBuildICmp(kt->mv, LLVMIntULT, o1, size, ""), "");
        LLVMValueRef p0 = LLVMBuildLShr(kt->mv, o0, v_const(kt, KUMI_DSM_PAGE_SHIFT), "");
        LLVMValueRef np = LLVMBuildSub(kt->mv, LLVMBuildLShr(kt->mv, o1, v_const(kt, KUMI_DSM_PAGE_SHIFT), ""), p0, "");
        LLVMValueRef l0 = LLVMBuildLShr(kt->mv, o0, v_const(kt, KUMI_DSM_LINE_SHIFT), ""), l1 = LLVMBuildLShr(kt->mv, o1, v_const(kt, KUMI_DSM_LINE_SHIFT), "");
        LLVMValueRef nl = LLVMBuildSub(kt->mv, l1, l0, "");
        LLVMBasicBlockRef bp = kumi_tr_block_after(kt, Dend, "kumi.ver.pages");
        LLVMBasicBlockRef bl = kumi_tr_block_after(kt, bp, "kumi.ver.lines");
        LLVMBasicBlockRef bs = kumi_tr_block_after(kt, bl, "kumi.ver.small");
        LLVMBasicBlockRef bc = kumi_tr_block_after(kt, bs, "kumi.ver.call");
        LLVMBasicBlockRef bj = kumi_tr_block_after(kt, bc, "kumi.ver.join");
        LLVMBuildCondBr(kt->mv, LLVMBuildAnd(kt->mv, inreg, LLVMBuildICmp(kt->mv, LLVMIntULT, np, v_const(kt, 8), ""), ""), bp, bl);
        LLVMPositionBuilderAtEnd(kt->mv, bp);
        LLVMValueRef pw = LLVMBuildBitCast(kt->mv, LLVMBuildGEP2(kt->mv, kt->t8, v_field(kt, KUMI_TR_F_PSTATE, kt->tp8), &p0, 1, ""),
                                           LLVMPointerType(kt->t64, 0), "");
        LLVMValueRef p8 = LLVMBuildLoad2(kt->mv, kt->t64, pw, "kumi.pstates");
        LLVMSetAlignment(p8, 1);
        LLVMValueRef pmask = LLVMBuildLShr(kt->mv, v_const(kt, -1), LLVMBuildMul(kt->mv, LLVMBuildSub(kt->mv, v_const(kt, 7), np, ""),
                                                                         v_const(kt, 8), ""), "");
        LLVMValueRef pall;
        if (rg[r].write)   /* every page "all E" */
            pall = LLVMBuildICmp(kt->mv, LLVMIntEQ,
                                 LLVMBuildAnd(kt->mv, LLVMBuildXor(kt->mv, p8, v_const(kt, BYTES8(KUMI_DSM_PSTATE_ALL_E)), ""),
                                              pmask, ""), v_const(kt, 0), "");
        else {             /* every page "all E" or "all S or E": summary bytes 1 or 2 */
            LLVMValueRef ones = LLVMBuildAnd(kt->mv, v_const(kt, BYTES8(1)), pmask, "");
            LLVMValueRef nz   = LLVMBuildOr(kt->mv, p8, LLVMBuildLShr(kt->mv, p8, v_const(kt, 1), ""), "");
            pall = LLVMBuildICmp(kt->mv, LLVMIntEQ, LLVMBuildAnd(kt->mv, nz, ones, ""), ones, "");
        }
        /* the window: the pages from p0 on that the word says are ready */
        {
            LLVMValueRef bad = rg[r].write ? LLVMBuildXor(kt->mv, p8, v_const(kt, BYTES8(KUMI_DSM_PSTATE_ALL_E)), "")
                                           : LLVMBuildXor(kt->mv, LLVMBuildAnd(kt->mv, LLVMBuildOr(kt->mv, p8,
                                                              LLVMBuildLShr(kt->mv, p8, v_const(kt, 1), ""), ""),
                                                              v_const(kt, BYTES8(1)), ""), v_const(kt, BYTES8(1)), "");
            unsigned     id = LLVMLookupIntrinsicID("llvm.cttz", 9);
            LLVMTypeRef  ity[1] = {kt->t64};
            LLVMValueRef cz[2] = {bad, LLVMConstInt(kt->t1, 0, 0)};
            LLVMValueRef tz = LLVMBuildCall2(kt->mv, LLVMIntrinsicGetType(kt->ctx, id, ity, 1),
                                             LLVMGetIntrinsicDeclaration(kt->mod, id, ity, 1), cz, 2, "");
            LLVMInstructionSetDebugLoc(tz, dbg);
            LLVMValueRef ngood = LLVMBuildLShr(kt->mv, tz, v_const(kt, 3), "");
            LLVMValueRef wlo = LLVMBuildAdd(kt->mv, base, LLVMBuildShl(kt->mv, p0, v_const(kt, KUMI_DSM_PAGE_SHIFT), ""), "");
            LLVMValueRef whi = LLVMBuildAdd(kt->mv, wlo, LLVMBuildShl(kt->mv, ngood, v_const(kt, KUMI_DSM_PAGE_SHIFT), ""), "");
            LLVMBuildStore(kt->mv, LLVMBuildSelect(kt->mv, pall, wlo, v_const(kt, 1), ""), clo[r]);
            LLVMBuildStore(kt->mv, LLVMBuildSelect(kt->mv, pall, whi, v_const(kt, 0), ""), chi[r]);
        }
        LLVMBuildCondBr(kt->mv, pall, bj, bl);
        LLVMPositionBuilderAtEnd(kt->mv, bl);
        /* not cached: empty window */
        LLVMBuildStore(kt->mv, v_const(kt, 1), clo[r]);
        LLVMBuildStore(kt->mv, v_const(kt, 0), chi[r]);
        LLVMBuildCondBr(kt->mv, LLVMBuildAnd(kt->mv, inreg, LLVMBuildICmp(kt->mv, LLVMIntULT, nl, v_const(kt, 8), ""), ""), bs, bc);
        LLVMPositionBuilderAtEnd(kt->mv, bs);
        LLVMValueRef stp = v_field(kt, KUMI_TR_F_STATE, kt->tp8);
        LLVMValueRef wp  = LLVMBuildBitCast(kt->mv, LLVMBuildGEP2(kt->mv, kt->t8, stp, &l0, 1, ""), LLVMPointerType(kt->t64, 0), "");
        LLVMValueRef w8  = LLVMBuildLoad2(kt->mv, kt->t64, wp, "kumi.states");
        LLVMSetAlignment(w8, 1);
        LLVMValueRef mask = LLVMBuildLShr(kt->mv, v_const(kt, -1), LLVMBuildMul(kt->mv, LLVMBuildSub(kt->mv, v_const(kt, 7), nl, ""),
                                                                        v_const(kt, 8), ""), "");
        LLVMValueRef bad = rg[r].write ? LLVMBuildXor(kt->mv, w8, v_const(kt, BYTES8(KUMI_DSM_STATE_E)), "")
                                       : LLVMBuildAnd(kt->mv, LLVMBuildSub(kt->mv, w8, v_const(kt, BYTES8(KUMI_DSM_STATE_S)), ""),
                                                      v_const(kt, ~BYTES8(1)), "");   /* S or E */
        LLVMValueRef good = LLVMBuildICmp(kt->mv, LLVMIntEQ, LLVMBuildAnd(kt->mv, bad, mask, ""), v_const(kt, 0), "");
        LLVMBuildBr(kt->mv, bj);
        LLVMPositionBuilderAtEnd(kt->mv, bc);
        LLVMValueRef args[3] = {lo, hi, LLVMConstInt(kt->t32, (unsigned long long)rg[r].write, 0)};
        memcpy(&vargs[3 * r], args, sizeof args);
        LLVMValueRef c = LLVMBuildCall2(kt->mv, kt->ready.ty, kt->ready.fn, args, 3, "");
        LLVMInstructionSetDebugLoc(c, dbg);
        LLVMValueRef good2 = LLVMBuildICmp(kt->mv, LLVMIntNE, c, LLVMConstInt(kt->t32, 0, 0), "");
        LLVMBuildBr(kt->mv, bj);
        LLVMPositionBuilderAtEnd(kt->mv, bj);
        LLVMValueRef      ph = LLVMBuildPhi(kt->mv, kt->t1, "");
        LLVMValueRef      iv2[3] = {LLVMConstInt(kt->t1, 1, 0), good, good2};
        LLVMBasicBlockRef ib2[3] = {bp, bs, bc};
        LLVMAddIncoming(ph, iv2, ib2, 3);
        ready = LLVMBuildAnd(kt->mv, ready, ph, "");
        Dend = bj;
    }
    free(rg);
    /* every window now holds what this test found (or is empty) */
    LLVMBuildStore(kt->mv, ep, cep);
    free(clo);
    free(rlo);

    /* two copies (blocks after the function's last, same instructions):
     * kumi.fast for runs of fewer than VERSION_POLL_EVERY iterations, with
     * nothing added; kumi.fastl for longer runs, which leaves its loop
     * every VERSION_POLL_EVERY iterations to poll (a call in the one copy
     * for all runs made the register allocator slow short loops down, sor
     * 1.2x -> 2.2x); Dsel picks one */
    LLVMBasicBlockRef  Dsel = kumi_tr_block_after(kt, Dend, "kumi.ver.sel"), Hcs[2];
    LLVMBasicBlockRef *bb = kumi_tr_realloc(NULL, nbody * sizeof *bb);
    size_t             nb = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        if (kumi_tr_map_find(&kt->ver.body, b)) bb[nb++] = b;
    LLVMBasicBlockRef *cb = kumi_tr_realloc(NULL, nbody * sizeof *cb);
    for (int cp = 0; cp < 2; cp++) {
    kumi_tr_map vm = {0};
    for (size_t i = 0; i < nb; i++) {
        cb[i] = LLVMAppendBasicBlockInContext(kt->ctx, fn, cp ? "kumi.fastl" : "kumi.fast");
        kumi_tr_map_put(&vm, LLVMBasicBlockAsValue(bb[i]), (long)(intptr_t)LLVMBasicBlockAsValue(cb[i]));
    }
    for (size_t i = 0; i < nb; i++) {
        LLVMPositionBuilderAtEnd(kt->mv, cb[i]);
        LLVMSetCurrentDebugLocation2(kt->mv, NULL);
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb[i]); I; I = LLVMGetNextInstruction(I)) {
            LLVMValueRef c;
            if (LLVMIsAPHINode(I)) {
                c = LLVMBuildPhi(kt->mv, LLVMTypeOf(I), "");
            } else {
                c = LLVMInstructionClone(I);
                LLVMInsertIntoBuilderWithName(kt->mv, c, "");
            }
            kumi_tr_map_put(&vm, I, (long)(intptr_t)c);
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
                    ib = ib == kt->ver.pre ? Dsel : LLVMValueAsBasicBlock(map_get(&vm, LLVMBasicBlockAsValue(ib)));
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
            if (dup || kumi_tr_map_find(&kt->ver.body, x)) continue;
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
        LLVMBasicBlockRef cnt_b = kumi_tr_block_after(kt, Lc, "kumi.fast.count");
        LLVMBasicBlockRef bail  = kumi_tr_block_after(kt, cnt_b, "kumi.ver.bail");
        LLVMSetSuccessor(lt, bk, cnt_b);
        kumi_tr_phi_retarget(kt, Hc, Lc, cnt_b, ~0u);
        /* the retarget rebuilt Hc's phis (same order as H's): the map must
         * follow, the bail below takes the copy's values through it, and a
         * header phi can be the latch value of another (prev = cur; cur =
         * next: after -O2, one phi carries the other) */
        for (LLVMValueRef p = LLVMGetFirstInstruction(H), q = LLVMGetFirstInstruction(Hc);
             p && q && LLVMIsAPHINode(p) && LLVMIsAPHINode(q);
             p = LLVMGetNextInstruction(p), q = LLVMGetNextInstruction(q))
            kumi_tr_map_put(&vm, p, (long)(intptr_t)q);
        LLVMPositionBuilder(kt->mv, Hc, LLVMGetFirstInstruction(Hc));
        LLVMSetCurrentDebugLocation2(kt->mv, NULL);
        LLVMValueRef cnt = LLVMBuildPhi(kt->mv, kt->t64, "kumi.fast.n");
        LLVMPositionBuilderAtEnd(kt->mv, cnt_b);
        LLVMValueRef c1 = LLVMBuildAdd(kt->mv, cnt, v_const(kt, 1), "");
        LLVMValueRef due = LLVMBuildICmp(kt->mv, LLVMIntEQ, LLVMBuildAnd(kt->mv, c1, v_const(kt, KUMI_TR_VERSION_POLL_EVERY - 1), ""),
                                         v_const(kt, 0), "");
        LLVMSetMetadata(LLVMBuildCondBr(kt->mv, due, bail, Hc), kt->md_prof, kt->unlikely);
        LLVMPositionBuilderAtEnd(kt->mv, bail);
        LLVMInstructionSetDebugLoc(LLVMBuildCall2(kt->mv, kt->poll.ty, kt->poll.fn, NULL, 0, ""), dbg);
        LLVMValueRef again = LLVMConstInt(kt->t1, 1, 0);
        for (size_t r = 0; r < nargs; r++) {
            LLVMValueRef c = LLVMBuildCall2(kt->mv, kt->ready.ty, kt->ready.fn, &vargs[3 * r], 3, "");
            LLVMInstructionSetDebugLoc(c, dbg);
            again = LLVMBuildAnd(kt->mv, again, LLVMBuildICmp(kt->mv, LLVMIntNE, c, LLVMConstInt(kt->t32, 0, 0), ""), "");
        }
        LLVMSetMetadata(LLVMBuildCondBr(kt->mv, again, Hc, H), kt->md_prof, kt->likely);
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
        LLVMValueRef      cv[3] = {v_const(kt, 0), c1, v_const(kt, 0)};
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
    kumi_tr_map_free(&vm);
    }
    free(vargs);
    free(bb);
    free(cb);
    /* wire: P -> D -> (ready ? copy : loop) */
    LLVMValueRef pt = LLVMGetBasicBlockTerminator(kt->ver.pre);
    unsigned     pn = LLVMGetNumSuccessors(pt);
    for (unsigned s = 0; s < pn; s++)
        if (LLVMGetSuccessor(pt, s) == H) LLVMSetSuccessor(pt, s, D);
    LLVMPositionBuilderAtEnd(kt->mv, Dend);
    LLVMSetMetadata(LLVMBuildCondBr(kt->mv, ready, Dsel, H), kt->md_prof, kt->likely);
    LLVMPositionBuilderAtEnd(kt->mv, Dhit);
    LLVMBuildBr(kt->mv, Dsel);
    LLVMPositionBuilderAtEnd(kt->mv, Dsel);
    LLVMBuildCondBr(kt->mv, LLVMBuildICmp(kt->mv, LLVMIntSLT, tmax, v_const(kt, KUMI_TR_VERSION_POLL_EVERY), ""), Hcs[0], Hcs[1]);
    kumi_tr_phi_retarget(kt, H, kt->ver.pre, Dend, ~0u);
    /* the poll budget is charged in D once the tick's home is known (kumi_tr_versions_finish) */
    if (kt->ver.nvers == kt->ver.cvers) kt->ver.vers = kumi_tr_realloc(kt->ver.vers, (kt->ver.cvers = kt->ver.cvers ? 2 * kt->ver.cvers : 16) * sizeof *kt->ver.vers);
    kt->ver.vers[kt->ver.nvers++] = (struct kumi_tr_vers){D, tmax, dbg};
    ok = 1;
out:
    free(wl);
    kumi_tr_map_free(&kt->ver.body);
    return ok;
}


/* Before any check goes in (the copies stay as the optimizer left them):
 * each back edge's loop, if it qualifies, gets its copies and test; the
 * checked loops keep their back edges. */
void kumi_tr_versions_make(struct kumi_tr *kt, LLVMValueRef fn, const struct kumi_tr_backedge *back, size_t nback)
{
    kt->ver.nvers = kt->ver.nfields = 0;
    if (kt->opts.version && nback) {
        LLVMValueRef *terms = kumi_tr_realloc(NULL, nback * sizeof *terms);
        for (size_t i = 0; i < nback; i++) terms[i] = back[i].term;
        for (size_t i = 0; i < nback; i++) {
            edge  *e = NULL;
            size_t ne = 0, ce = 0;
            for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b)) {
                LLVMValueRef t = LLVMGetBasicBlockTerminator(b);
                unsigned     ns = t ? LLVMGetNumSuccessors(t) : 0;
                for (unsigned k = 0; k < ns; k++) {
                    if (ne == ce) e = kumi_tr_realloc(e, (ce = ce ? 2 * ce : 64) * sizeof *e);
                    e[ne++] = (edge){b, LLVMGetSuccessor(t, k)};
                }
            }
            if (version_loop(kt, fn, back[i].term, back[i].k, e, ne, terms, nback)) kt->st.versioned++;
            free(e);
        }
        free(terms);
    }
}

/* After the checks and the back edges' polls: the tests read base, size,
 * state and pstate from the function's shadows (in registers, hoistable);
 * each test charges its loop's iterations to the poll counter up front
 * (the unchecked copy ticks nothing) and polls first when that crosses a
 * multiple of 1024, so a run of short loops polls as often as their back
 * edges would. */
void kumi_tr_versions_finish(struct kumi_tr *kt)
{
    for (size_t i = 0; i < kt->ver.nfields; i++) {
        LLVMValueRef l = kt->ver.fields[i].load;
        if (kt->fn.shadow[kt->ver.fields[i].k] == NULL) continue;
        LLVMPositionBuilderBefore(kt->mv, l);
        LLVMSetCurrentDebugLocation2(kt->mv, NULL);
        LLVMValueRef r = LLVMBuildLoad2(kt->mv, LLVMTypeOf(l), kt->fn.shadow[kt->ver.fields[i].k], "");
        LLVMReplaceAllUsesWith(l, r);
        LLVMInstructionEraseFromParent(l);
    }
    for (size_t i = 0; i < kt->ver.nvers; i++) {
        LLVMValueRef      tm = kt->ver.vers[i].tmax;
        LLVMBasicBlockRef d1 = kt->ver.vers[i].d;
        LLVMBasicBlockRef d2 = kumi_tr_split_before(kt, LLVMIsAInstruction(tm) ? LLVMGetNextInstruction(tm) : LLVMGetFirstInstruction(d1),
                                            "kumi.ver.test");
        LLVMBasicBlockRef pc = kumi_tr_block_after(kt, d1, "kumi.ver.poll");
        LLVMPositionBuilderAtEnd(kt->mv, d1);
        LLVMSetCurrentDebugLocation2(kt->mv, NULL);
        LLVMValueRef tp = kt->fn.shadow_tick ? kt->fn.shadow_tick : kumi_tr_tick_ptr(kt, kt->mv);
        LLVMValueRef t0 = LLVMBuildLoad2(kt->mv, kt->t32, tp, "");
        LLVMValueRef n  = v_smax(kt, LLVMBuildAdd(kt->mv, tm, v_const(kt, 1), ""), v_const(kt, KUMI_TR_VERSION_POLL_EVERY), 0);
        LLVMValueRef t1 = LLVMBuildAdd(kt->mv, t0, LLVMBuildTrunc(kt->mv, n, kt->t32, ""), "kumi.tick");
        LLVMValueRef ts = LLVMBuildStore(kt->mv, t1, tp);
        if (!kt->fn.shadow_tick) {
            LLVMSetMetadata(t0, kt->md_tbaa, kt->tbaa_tick);
            LLVMSetMetadata(ts, kt->md_tbaa, kt->tbaa_tick);
        }
        LLVMValueRef x = LLVMBuildAnd(kt->mv, LLVMBuildXor(kt->mv, t0, t1, ""), LLVMConstInt(kt->t32, ~KUMI_TR_POLL_MASK, 0), "");
        LLVMSetMetadata(LLVMBuildCondBr(kt->mv, LLVMBuildICmp(kt->mv, LLVMIntNE, x, LLVMConstInt(kt->t32, 0, 0), ""), pc, d2),
                        kt->md_prof, kt->unlikely);
        LLVMPositionBuilderAtEnd(kt->mv, pc);
        LLVMInstructionSetDebugLoc(LLVMBuildCall2(kt->mv, kt->poll.ty, kt->poll.fn, NULL, 0, ""), kt->ver.vers[i].dbg);
        LLVMBuildBr(kt->mv, d2);
    }
}
