/*
 * omp.c -- kumi-translate --openmp (omp.h says what it does and why): the
 * pass in order -- per function, the escaping allocas and the copyin
 * arguments to the DSM stack; the globals (omp_globals.c); private copies
 * for byval arguments from memory that may be DSM; last the renames of
 * libc, heap and atomic calls (the escape analysis reads the original
 * names).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Transforms/PassBuilder.h>

#include "omp_pass.h"

/* the libc functions that get kumi_omp_libc_ wrappers (T6's table) */
#define OMP_WRAP_NAME(name, ...) #name,
#define KUMI_OMP_WRAP(...)       OMP_WRAP_NAME(__VA_ARGS__, 0)
static const char *const omp_wrap[] = {
#include "../../bindings/openmp/libc_wrap.def"
    NULL};
#undef KUMI_OMP_WRAP
#undef OMP_WRAP_NAME

static const char *const omp_heap[] = {"malloc", "calloc", "realloc", "free", "aligned_alloc",
                                       "posix_memalign", "memalign", "valloc", "strdup", "strndup", NULL};

int kumi_tr_omp_in_list(const char *const *l, const char *n)
{
    for (; *l; l++)
        if (strcmp(*l, n) == 0) return 1;
    return 0;
}

const char *kumi_tr_omp_name(LLVMValueRef v)
{
    size_t n;
    return LLVMGetValueName2(v, &n);
}

void kumi_tr_omp_warn(struct kumi_tr_omp *x, const char *fmt, const char *a, const char *b)
{
    if (!x->o->warn) return;
    fprintf(stderr, "kumi-translate: %s: --openmp: warning: ", x->o->name ? x->o->name : "module");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
}

void kumi_tr_omp_fail(struct kumi_tr_omp *x, const char *fmt, const char *a)
{
    fprintf(stderr, "kumi-translate: %s: --openmp: ", x->o->name ? x->o->name : "module");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    x->err = 1;
}

/* ------------------------------------------------------------ names */
/* the atomic libcalls: __atomic_{load,store,exchange,compare_exchange}[_N] */
static int is_atomic_call(const char *n)
{
    static const char *const base[] = {"__atomic_load", "__atomic_store", "__atomic_exchange",
                                       "__atomic_compare_exchange", NULL};
    for (int i = 0; base[i]; i++) {
        size_t l = strlen(base[i]);
        if (strncmp(n, base[i], l) != 0) continue;
        const char *s = n + l;
        if (*s == 0 || strcmp(s, "_1") == 0 || strcmp(s, "_2") == 0 || strcmp(s, "_4") == 0 ||
            strcmp(s, "_8") == 0 || strcmp(s, "_16") == 0)
            return 1;
    }
    return 0;
}

/* glibc's scanf family is declared under __isoc99_ (__isoc23_) names */
static const char *libc_base(const char *n)
{
    if (kumi_tr_starts(n, "__isoc99_") || kumi_tr_starts(n, "__isoc23_")) return n + 9;
    return n;
}

static int is_wrapped(const char *n) { return kumi_tr_omp_in_list(omp_wrap, libc_base(n)); }

/* libc wrappers that keep a pointer into their argument past the call
 * (strtok's next tokens, setvbuf's buffer) or hand it to a callback
 * (qsort's, bsearch's comparator), which the escape walk cannot follow */
static const char *const omp_keeps[] = {"strtok", "strtok_r", "strsep", "qsort", "bsearch", "setvbuf", "setbuf",
                                        NULL};

/* calls whose pointer arguments the callee only uses during the call, on
 * this PE: the runtime's loop bounds, the libc wrappers (they acquire
 * what they touch), the atomic libcalls */
static int private_ptr_call(const char *n)
{
    return kumi_tr_starts(n, "__kmpc_for_static_init_") || kumi_tr_starts(n, "__kmpc_dispatch_next_") ||
           kumi_tr_starts(n, "__kmpc_dist_for_static_init_") || kumi_tr_starts(n, "__kmpc_team_static_init_") ||
           kumi_tr_starts(n, "__kmpc_dist_dispatch_init_") ||
           (is_wrapped(n) && !kumi_tr_omp_in_list(omp_keeps, libc_base(n))) || is_atomic_call(n);
}

int kumi_tr_omp_excluded(const char *n)
{
    return kumi_tr_starts(n, "llvm.") || kumi_tr_starts(n, "kumi_") || kumi_tr_starts(n, "__kmpc_") ||
           kumi_tr_starts(n, ".gomp_critical_user_");
}

/* ------------------------------------------------------------ the DSM stack */
static int is_call_to(LLVMValueRef I, const char *name)
{
    const char *n = LLVMIsACallInst(I) ? kumi_tr_callee_name(I) : NULL;
    return n && strcmp(n, name) == 0;
}

/* v is only given to call as arguments the callee does not capture
 * (byval: it gets a copy; nocapture: no copy of the pointer outlives the
 * call; the optimizer infers it for functions that neither store, return
 * nor pass it on to a function that may, so never through
 * __kmpc_fork_call) */
static int nocapture_use(LLVMValueRef call, LLVMValueRef v)
{
    unsigned     kind  = LLVMGetEnumAttributeKindForName("nocapture", 9);
    unsigned     byval = LLVMGetEnumAttributeKindForName("byval", 5);
    unsigned     na   = (unsigned)LLVMGetNumArgOperands(call);
    LLVMValueRef f    = LLVMGetCalledValue(call);
    if (LLVMGetOperand(call, na) == v) return 0;   /* called */
    for (unsigned i = 0; i < na; i++) {
        if (LLVMGetOperand(call, i) != v) continue;
        if (LLVMGetCallSiteEnumAttribute(call, i + 1, kind) || LLVMGetCallSiteEnumAttribute(call, i + 1, byval))
            continue;   /* byval: the callee gets a copy */
        if (LLVMIsAFunction(f) && i < LLVMCountParams(f) && LLVMGetEnumAttributeAtIndex(f, i + 1, kind)) continue;
        return 0;
    }
    return 1;
}

/* Whether another PE may reach the alloca a: its address (through GEPs,
 * casts, phis, selects) is stored as a value, passed to a call other than
 * an intrinsic or one of private_ptr_call's, returned, turned into an
 * integer (a callee's nocapture argument does not count). A va_list
 * (llvm.va_start/va_copy) is never shared: it stays. */
static enum kumi_tr_use omp_call(LLVMValueRef call, LLVMValueRef v, LLVMValueRef *follow)
{
    const char *n = kumi_tr_callee_name(call);

    if (n && (kumi_tr_starts(n, "llvm.va_start") || kumi_tr_starts(n, "llvm.va_copy")))
        return KUMI_TR_USE_STOP;
    if (n && (kumi_tr_starts(n, "llvm.") || private_ptr_call(n))) {
        if (LLVMGetTypeKind(LLVMTypeOf(call)) == LLVMPointerTypeKind)
            *follow = call;   /* strchr */
        return KUMI_TR_USE_OK;
    }
    return nocapture_use(call, v) ? KUMI_TR_USE_OK : KUMI_TR_USE_ESCAPES;
}

static int escapes(LLVMValueRef a)
{
    int valist = 0, esc = kumi_tr_addr_walk(a, omp_call, 0, &valist);
    return esc && !valist;
}

/* the DSM stack's entry points, declared on first use */
static LLVMValueRef call_rt(struct kumi_tr_omp *x, struct kumi_tr_rt *rt, LLVMValueRef *args, unsigned n, const char *name)
{
    if (rt->fn == NULL) {
        LLVMTypeRef a[2] = {x->t64, x->t64};
        const char *fn   = rt == &x->push ? "kumi_omp_stack_push" : rt == &x->mark ? "kumi_omp_stack_mark"
                                                                                    : "kumi_omp_stack_release";
        LLVMTypeRef ty   = rt == &x->push ? LLVMFunctionType(x->tp8, a, 2, 0)
                         : rt == &x->mark ? LLVMFunctionType(x->tp8, NULL, 0, 0)
                                          : LLVMFunctionType(LLVMVoidTypeInContext(x->c), &x->tp8, 1, 0);
        rt->fn = LLVMGetNamedFunction(x->m, fn);
        if (rt->fn == NULL) rt->fn = LLVMAddFunction(x->m, fn, ty);
        rt->ty = LLVMGlobalGetValueType(rt->fn);
    }
    return LLVMBuildCall2(x->b, rt->ty, rt->fn, args, n, name);
}

static LLVMValueRef stack_push(struct kumi_tr_omp *x, LLVMValueRef size, unsigned align)
{
    LLVMValueRef a[2] = {size, LLVMConstInt(x->t64, align ? align : 1, 0)};
    return call_rt(x, &x->push, a, 2, "kumi.stk");
}

/* a's lifetime markers (directly or through one cast) go: the memory is
 * no longer a stack slot */
static void drop_lifetime(LLVMValueRef a)
{
    LLVMValueRef dead[64];
    unsigned     nd = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(a); u && nd < 64; u = LLVMGetNextUse(u)) {
        LLVMValueRef us = LLVMGetUser(u);
        if (LLVMIsACallInst(us) && kumi_tr_callee_name(us) && kumi_tr_starts(kumi_tr_callee_name(us), "llvm.lifetime."))
            dead[nd++] = us;
        else if (LLVMIsABitCastInst(us))
            for (LLVMUseRef w = LLVMGetFirstUse(us); w && nd < 64; w = LLVMGetNextUse(w)) {
                LLVMValueRef c = LLVMGetUser(w);
                if (LLVMIsACallInst(c) && kumi_tr_callee_name(c) && kumi_tr_starts(kumi_tr_callee_name(c), "llvm.lifetime."))
                    dead[nd++] = c;
            }
    }
    for (unsigned i = 0; i < nd; i++)
        LLVMInstructionEraseFromParent(dead[i]);
}

/* the stacksave call a stackrestore's operand comes from (directly, or
 * through a slot at -O0 that only stacksave results are stored to) */
static LLVMValueRef saved_by(LLVMValueRef v)
{
    if (is_call_to(v, "llvm.stacksave")) return v;
    if (!LLVMIsALoadInst(v) || !LLVMIsAAllocaInst(LLVMGetOperand(v, 0))) return NULL;
    LLVMValueRef s = NULL, slot = LLVMGetOperand(v, 0);
    for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef us = LLVMGetUser(u);
        if (!LLVMIsAStoreInst(us)) continue;
        LLVMValueRef sv = LLVMGetOperand(us, 0);
        if (!is_call_to(sv, "llvm.stacksave") || (s && s != sv)) return NULL;
        s = sv;
    }
    return s;
}

/* VLAs on the DSM stack: each llvm.stacksave also takes a mark (kept in a
 * slot of its own), each llvm.stackrestore releases to it */
static void pair_stacksaves(struct kumi_tr_omp *x, LLVMValueRef fn, LLVMValueRef mark, LLVMValueRef entry_at)
{
    kumi_tr_map slots = {0};
    LLVMTypeRef tslot = LLVMTypeOf(mark);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
            if (!is_call_to(I, "llvm.stackrestore")) continue;
            LLVMValueRef s = saved_by(LLVMGetOperand(I, 0));
            if (s == NULL) continue;   /* released at the return */
            long *sl = kumi_tr_map_find(&slots, s);
            LLVMValueRef slot;
            if (sl) {
                slot = (LLVMValueRef)(intptr_t)*sl;
            } else {
                LLVMPositionBuilderBefore(x->b, entry_at);
                slot = LLVMBuildAlloca(x->b, tslot, "kumi.mark.slot");
                LLVMBuildStore(x->b, mark, slot);
                LLVMPositionBuilderBefore(x->b, LLVMGetNextInstruction(s));
                LLVMBuildStore(x->b, call_rt(x, &x->mark, NULL, 0, "kumi.mark"), slot);
                kumi_tr_map_put(&slots, s, (long)(intptr_t)slot);
            }
            LLVMPositionBuilderBefore(x->b, I);
            LLVMValueRef m = LLVMBuildLoad2(x->b, tslot, slot, "");
            call_rt(x, &x->release, &m, 1, "");
        }
    kumi_tr_map_free(&slots);
}

/* the thread_local global v is the address of: directly, or the result
 * of its thread wrapper (clang -O0 reaches an external thread_local
 * through a function that returns its address) */
static LLVMValueRef tls_of(LLVMValueRef v)
{
    v = kumi_tr_strip_casts(v);
    if (LLVMIsACallInst(v)) {
        LLVMValueRef f = LLVMGetCalledValue(v);
        if (!LLVMIsAFunction(f) || LLVMIsDeclaration(f) || LLVMCountBasicBlocks(f) != 1) return NULL;
        LLVMValueRef t = LLVMGetBasicBlockTerminator(LLVMGetEntryBasicBlock(f));
        if (t == NULL || LLVMGetInstructionOpcode(t) != LLVMRet || LLVMGetNumOperands(t) != 1) return NULL;
        v = kumi_tr_strip_casts(LLVMGetOperand(t, 0));
    }
    return LLVMIsAGlobalVariable(v) && LLVMIsThreadLocal(v) ? v : NULL;
}

/* copyprivate of a threadprivate variable: the list the single thread
 * hands to the others holds the address of its thread_local copy, which
 * on another PE is that PE's own copy. Each such list entry (stored in
 * the call's block, before it) becomes a DSM stack slot: filled from the
 * variable before the call (the single thread's value is what the others
 * read), copied back into the variable after it (the others' new value;
 * the call ends with a barrier, so every copy is done by then). */
static void copyprivate_tls(struct kumi_tr_omp *x, LLVMValueRef call)
{
    LLVMValueRef list = kumi_tr_strip_casts(LLVMGetOperand(call, 3));
    for (LLVMValueRef I = LLVMGetPreviousInstruction(call), prev; I; I = prev) {
        prev = LLVMGetPreviousInstruction(I);
        if (!LLVMIsAStoreInst(I) || kumi_tr_strip_casts(LLVMGetOperand(I, 1)) != list) continue;
        LLVMValueRef val = LLVMGetOperand(I, 0), g = tls_of(val);
        if (g == NULL) continue;
        LLVMTypeRef  ty = LLVMGlobalGetValueType(g);
        unsigned     al = LLVMGetAlignment(g);
        if (al == 0) al = LLVMABIAlignmentOfType(x->td, ty);
        LLVMValueRef sz = LLVMConstInt(x->t64, LLVMABISizeOfType(x->td, ty), 0);
        LLVMPositionBuilderBefore(x->b, I);
        LLVMValueRef m  = call_rt(x, &x->mark, NULL, 0, "kumi.mark");
        LLVMValueRef p  = stack_push(x, sz, al);
        LLVMValueRef v8 = LLVMBuildPointerCast(x->b, val, x->tp8, "");
        LLVMBuildMemCpy(x->b, p, al, v8, al, sz);
        LLVMSetOperand(I, 0, LLVMBuildPointerCast(x->b, p, LLVMTypeOf(val), ""));
        LLVMPositionBuilderBefore(x->b, LLVMGetNextInstruction(call));
        LLVMBuildMemCpy(x->b, v8, al, p, al, sz);
        call_rt(x, &x->release, &m, 1, "");
        x->st.copyin++;
    }
}

/* ------------------------------------------------------------ reductions */
/* A reduction's private copy (clang's outlined code: an alloca the loop
 * updates) escapes only because its address is stored into the reduce
 * list handed to __kmpc_reduce(_nowait), whose tree (bindings/openmp,
 * sync.c) combines the children's values through those pointers on
 * another PE. Such a copy stays a private alloca (its accesses unchecked,
 * in registers): the list gets a DSM stack slot in its place, filled
 * from the copy right before each reduce call and copied back right
 * after it (thread 0's combined value, which clang's case-1 code reads
 * from the copy). Only for the exact shape: an entry-block alloca of
 * constant size stored as itself (through casts and zero GEPs) into a
 * list that is only stored into and passed as the reduce call's list;
 * anything else (a VLA section, an address that escapes elsewhere, task
 * reductions) stays on the DSM stack. */
enum { RED_MAX = 16 };

struct red_priv {
    LLVMValueRef a;
    LLVMValueRef st[RED_MAX];    /* the stores of a into reduce lists */
    LLVMValueRef call[RED_MAX];  /* the reduce calls those lists go to */
    unsigned     nst, ncall;
};

static int is_reduce_call(LLVMValueRef I)
{
    return is_call_to(I, "__kmpc_reduce") || is_call_to(I, "__kmpc_reduce_nowait");
}

/* v (the list alloca or a cast/GEP of it) is only stored into, given to
 * lifetime markers, and passed as the reduce list (argument 4) of
 * reduce calls, which go to r->call */
static int list_uses(LLVMValueRef v, struct red_priv *r, int depth)
{
    if (depth > 4) return 0;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef us = LLVMGetUser(u);
        if (LLVMIsABitCastInst(us) || LLVMIsAGetElementPtrInst(us)) {
            if (LLVMGetOperand(us, 0) != v || !list_uses(us, r, depth + 1)) return 0;
        } else if (LLVMIsAStoreInst(us)) {
            if (LLVMGetOperand(us, 0) == v) return 0;   /* the list's address stored */
        } else if (is_reduce_call(us)) {
            unsigned na = (unsigned)LLVMGetNumArgOperands(us);
            for (unsigned i = 0; i < na; i++)
                if (LLVMGetOperand(us, i) == v && i != 4) return 0;
            unsigned k = 0;
            while (k < r->ncall && r->call[k] != us) k++;
            if (k == r->ncall) {
                if (r->ncall == RED_MAX) return 0;
                r->call[r->ncall++] = us;
            }
        } else if (!(LLVMIsACallInst(us) && kumi_tr_callee_name(us) &&
                     kumi_tr_starts(kumi_tr_callee_name(us), "llvm.lifetime."))) {
            return 0;
        }
    }
    return 1;
}

/* the stores of v (a or a bitcast / all-zero GEP of it) as a value into
 * reduce lists, into r; 0 if one of them is into anything else that is
 * not a list (the general walk decides on the other uses) */
static int list_stores(LLVMValueRef v, struct red_priv *r, int depth)
{
    if (depth > 4) return 1;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef us = LLVMGetUser(u);
        if (LLVMIsABitCastInst(us)) {
            if (!list_stores(us, r, depth + 1)) return 0;
        } else if (LLVMIsAGetElementPtrInst(us) && LLVMGetOperand(us, 0) == v) {
            unsigned n = LLVMGetNumOperands(us), z = 1;
            for (unsigned i = 1; i < n; i++) {
                LLVMValueRef k = LLVMGetOperand(us, i);
                if (!LLVMIsAConstantInt(k) || LLVMConstIntGetZExtValue(k) != 0) z = 0;
            }
            if (z && !list_stores(us, r, depth + 1)) return 0;
        } else if (LLVMIsAStoreInst(us) && LLVMGetOperand(us, 0) == v) {
            LLVMValueRef l = kumi_tr_strip_casts(LLVMGetOperand(us, 1));
            if (!LLVMIsAAllocaInst(l) || !list_uses(l, r, 0) || r->nst == RED_MAX) return 0;
            r->st[r->nst++] = us;
        }
    }
    return 1;
}

/* whether the escaping alloca a is a reduction's private copy (above) */
static int red_private(LLVMValueRef a, LLVMBasicBlockRef entry, struct red_priv *r)
{
    memset(r, 0, sizeof *r);
    r->a = a;
    if (LLVMGetInstructionParent(a) != entry || !LLVMIsAConstantInt(LLVMGetOperand(a, 0)))
        return 0;
    if (!list_stores(a, r, 0) || r->nst == 0 || r->ncall == 0)
        return 0;
    /* a dominates every reduce call (in the entry block: comes before it) */
    for (unsigned i = 0; i < r->ncall; i++) {
        if (LLVMGetInstructionParent(r->call[i]) != entry) continue;
        LLVMValueRef I = a;
        while (I && I != r->call[i]) I = LLVMGetNextInstruction(I);
        if (I == NULL) return 0;
    }
    /* without the list stores, a must not escape */
    LLVMValueRef old[RED_MAX];
    for (unsigned i = 0; i < r->nst; i++) {
        old[i] = LLVMGetOperand(r->st[i], 0);
        LLVMSetOperand(r->st[i], 0, LLVMGetUndef(LLVMTypeOf(old[i])));
    }
    int esc = escapes(a);
    for (unsigned i = 0; i < r->nst; i++)
        LLVMSetOperand(r->st[i], 0, old[i]);
    return !esc;
}

static LLVMValueRef stack_push(struct kumi_tr_omp *x, LLVMValueRef size, unsigned align);

/* the list gets a DSM stack slot for a (pushed where a is), a's bytes go
 * to it before each reduce call and come back after it */
static void red_slot(struct kumi_tr_omp *x, struct red_priv *r)
{
    LLVMValueRef a  = r->a;
    LLVMTypeRef  ty = LLVMGetAllocatedType(a);
    unsigned long long n = LLVMConstIntGetZExtValue(LLVMGetOperand(a, 0));
    LLVMValueRef sz = LLVMConstInt(x->t64, LLVMABISizeOfType(x->td, ty) * n, 0);
    unsigned     al = LLVMGetAlignment(a);
    if (al == 0) al = LLVMABIAlignmentOfType(x->td, ty);
    LLVMPositionBuilderBefore(x->b, a);
    LLVMValueRef slot = stack_push(x, sz, al);
    for (unsigned i = 0; i < r->nst; i++) {
        LLVMValueRef v = LLVMGetOperand(r->st[i], 0);
        LLVMPositionBuilderBefore(x->b, r->st[i]);
        LLVMSetOperand(r->st[i], 0, LLVMBuildPointerCast(x->b, slot, LLVMTypeOf(v), ""));
    }
    for (unsigned i = 0; i < r->ncall; i++) {
        LLVMPositionBuilderBefore(x->b, r->call[i]);
        LLVMBuildMemCpy(x->b, slot, al, LLVMBuildPointerCast(x->b, a, x->tp8, ""), al, sz);
        LLVMPositionBuilderBefore(x->b, LLVMGetNextInstruction(r->call[i]));
        LLVMBuildMemCpy(x->b, LLVMBuildPointerCast(x->b, a, x->tp8, ""), al, slot, al, sz);
    }
    x->st.redcopy++;
}

static void do_function(struct kumi_tr_omp *x, LLVMValueRef fn)
{
    LLVMValueRef *esc = NULL, *cin = NULL, *cpv = NULL;
    unsigned     *cidx = NULL;
    struct red_priv *red = NULL, r;
    size_t        ne = 0, nc = 0, ncp = 0, nr = 0;
    int           dynamic = 0;
    if (kumi_tr_starts(kumi_tr_omp_name(fn), "kumi_")) return;
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
    for (LLVMBasicBlockRef bb = entry; bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
            if (LLVMIsAAllocaInst(I) && escapes(I) && red_private(I, entry, &r)) {
                red = kumi_tr_realloc(red, (nr + 1) * sizeof *red);
                red[nr++] = r;
            } else if (LLVMIsAAllocaInst(I) && escapes(I)) {
                esc = kumi_tr_realloc(esc, (ne + 1) * sizeof *esc);
                esc[ne++] = I;
                if (bb != entry || !LLVMIsAConstantInt(LLVMGetOperand(I, 0))) dynamic = 1;
            } else if (is_call_to(I, "__kmpc_fork_call")) {
                /* copyin: the master passes its threadprivate's address */
                unsigned na = (unsigned)LLVMGetNumArgOperands(I);
                for (unsigned i = 3; i < na; i++) {
                    if (tls_of(LLVMGetOperand(I, i)) == NULL) continue;
                    cin = kumi_tr_realloc(cin, (nc + 1) * sizeof *cin);
                    cidx = kumi_tr_realloc(cidx, (nc + 1) * sizeof *cidx);
                    cin[nc] = I;
                    cidx[nc++] = i;
                }
            } else if (is_call_to(I, "__kmpc_copyprivate")) {
                cpv = kumi_tr_realloc(cpv, (ncp + 1) * sizeof *cpv);
                cpv[ncp++] = I;
            }
        }
    if (ne + nc + ncp + nr == 0) return;

    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    LLVMPositionBuilderBefore(x->b, first);
    LLVMValueRef mark = call_rt(x, &x->mark, NULL, 0, "kumi.mark");
    for (size_t i = 0; i < ne; i++) {
        LLVMValueRef       a  = esc[i];
        LLVMTypeRef        ty = LLVMGetAllocatedType(a);
        LLVMValueRef       sz = LLVMConstInt(x->t64, LLVMABISizeOfType(x->td, ty), 0);
        LLVMValueRef       n  = LLVMGetOperand(a, 0);
        LLVMPositionBuilderBefore(x->b, a);
        if (!LLVMIsAConstantInt(n) || LLVMConstIntGetZExtValue(n) != 1)
            sz = LLVMBuildMul(x->b, sz, LLVMBuildZExtOrBitCast(x->b, n, x->t64, ""), "");
        unsigned al = LLVMGetAlignment(a);
        if (al == 0) al = LLVMABIAlignmentOfType(x->td, ty);
        LLVMValueRef p = LLVMBuildBitCast(x->b, stack_push(x, sz, al), LLVMTypeOf(a), "");
        drop_lifetime(a);
        LLVMReplaceAllUsesWith(a, p);
        LLVMInstructionEraseFromParent(a);
        x->st.allocas++;
    }
    for (size_t i = 0; i < nr; i++)
        red_slot(x, &red[i]);
    for (size_t i = 0; i < nc; i++) {   /* copyin: a DSM copy of the master's bytes */
        if (i == 0 || cin[i] != cin[i - 1]) {
            /* the copies live while the region runs (the fork returns after
             * it): released right after, so a loop of regions does not grow
             * the DSM stack */
            LLVMPositionBuilderBefore(x->b, cin[i]);
            LLVMValueRef m = call_rt(x, &x->mark, NULL, 0, "kumi.mark");
            LLVMPositionBuilderBefore(x->b, LLVMGetNextInstruction(cin[i]));
            call_rt(x, &x->release, &m, 1, "");
        }
        LLVMValueRef arg = LLVMGetOperand(cin[i], cidx[i]);
        LLVMValueRef g   = tls_of(arg);
        LLVMTypeRef  ty  = LLVMGlobalGetValueType(g);
        unsigned     al = LLVMGetAlignment(g);
        if (al == 0) al = LLVMABIAlignmentOfType(x->td, ty);
        LLVMValueRef sz = LLVMConstInt(x->t64, LLVMABISizeOfType(x->td, ty), 0);
        LLVMPositionBuilderBefore(x->b, cin[i]);
        LLVMValueRef p = stack_push(x, sz, al);
        LLVMBuildMemCpy(x->b, p, al, LLVMBuildPointerCast(x->b, arg, x->tp8, ""), al, sz);
        LLVMSetOperand(cin[i], cidx[i], LLVMBuildPointerCast(x->b, p, LLVMTypeOf(arg), ""));
        x->st.copyin++;
    }
    for (size_t i = 0; i < ncp; i++)
        copyprivate_tls(x, cpv[i]);
    if (dynamic) pair_stacksaves(x, fn, mark, LLVMGetNextInstruction(mark));
    for (LLVMBasicBlockRef bb = entry; bb; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
        if (t && LLVMGetInstructionOpcode(t) == LLVMRet) {
            LLVMPositionBuilderBefore(x->b, t);
            call_rt(x, &x->release, &mark, 1, "");
        }
    }
    free(esc);
    free(cin);
    free(cidx);
    free(cpv);
    free(red);
}

/* ------------------------------------------------------------ byval */
/* A byval argument is a copy the call makes from the pointer with plain
 * loads the checks never see: one from memory that may be DSM (a moved
 * global, an argument, a loaded pointer, the DSM stack) is first copied
 * by llvm.memcpy (which the checks acquire) into a private temporary. */
static void byval_copies(struct kumi_tr_omp *x)
{
    unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
    for (LLVMValueRef f = LLVMGetFirstFunction(x->m); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f) || kumi_tr_starts(kumi_tr_omp_name(f), "kumi_")) continue;
        LLVMValueRef entry = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f));
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
                if (!LLVMIsACallInst(I)) continue;
                unsigned na = (unsigned)LLVMGetNumArgOperands(I);
                for (unsigned i = 0; i < na; i++) {
                    LLVMValueRef a = LLVMGetOperand(I, i), r = kumi_tr_strip_casts(a);
                    if (!LLVMGetCallSiteEnumAttribute(I, i + 1, byval) || LLVMIsAAllocaInst(r) ||
                        LLVMIsAGlobalValue(r))   /* allocas left are private; globals left are not moved */
                        continue;
                    LLVMTypeRef ty = LLVMGetElementType(LLVMTypeOf(a));
                    unsigned    al = LLVMABIAlignmentOfType(x->td, ty);
                    LLVMPositionBuilderBefore(x->b, entry);
                    LLVMValueRef tmp = LLVMBuildAlloca(x->b, ty, "kumi.byval");
                    LLVMSetAlignment(tmp, al);
                    LLVMPositionBuilderBefore(x->b, I);
                    LLVMBuildMemCpy(x->b, LLVMBuildPointerCast(x->b, tmp, x->tp8, ""), al,
                                    LLVMBuildPointerCast(x->b, a, x->tp8, ""), 1,
                                    LLVMConstInt(x->t64, LLVMABISizeOfType(x->td, ty), 0));
                    LLVMSetOperand(I, i, tmp);
                    x->st.byval++;
                }
            }
    }
}

/* ------------------------------------------------------------ renames */
/* f (a declaration) is now called name: renamed, or replaced by the
 * declaration of that name the module already has */
static void rename_fn(struct kumi_tr_omp *x, LLVMValueRef f, const char *prefix, const char *base)
{
    char name[256];
    snprintf(name, sizeof name, "%s%s", prefix, base);
    LLVMValueRef have = LLVMGetNamedFunction(x->m, name);
    if (have) {
        LLVMReplaceAllUsesWith(f, LLVMConstBitCast(have, LLVMTypeOf(f)));
        LLVMDeleteFunction(f);
    } else {
        LLVMSetValueName2(f, name, strlen(name));
    }
    x->st.renamed++;
}

static void rename_calls(struct kumi_tr_omp *x)
{
    LLVMValueRef next;
    for (LLVMValueRef f = LLVMGetFirstFunction(x->m); f; f = next) {
        next = LLVMGetNextFunction(f);
        const char *n = kumi_tr_omp_name(f);
        if (LLVMGetLinkage(f) == LLVMAvailableExternallyLinkage &&
            (kumi_tr_omp_in_list(omp_heap, n) || is_atomic_call(n) || is_wrapped(n))) {
            /* a header's inline copy of a libc function (glibc's atoi):
             * calls go to the wrapper instead */
            for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f), nb; bb; bb = nb) {
                nb = LLVMGetNextBasicBlock(bb);
                LLVMDeleteBasicBlock(bb);
            }
            LLVMSetLinkage(f, LLVMExternalLinkage);
        }
        if (!LLVMIsDeclaration(f)) continue;
        if (kumi_tr_omp_in_list(omp_heap, n) || is_atomic_call(n))
            rename_fn(x, f, "kumi_omp_", n);
        else if (is_wrapped(n))
            rename_fn(x, f, "kumi_omp_libc_", libc_base(n));
    }
}

/* ------------------------------------------------------------ private heap */
/* A malloc or calloc whose result no other PE can ever reach comes from
 * libc's heap instead of the DSM (kumi_omp_private_malloc/calloc,
 * memory.c): its accesses need no check (privacy.c) and it costs no DSM
 * allocation. The proof is the DSM stack's (escapes above): the pointer
 * (through GEPs, casts, phis, selects) is only loaded through, stored
 * through, compared, freed, or given to intrinsics, the runtime's and
 * libc wrappers' private calls and arguments the callee does not capture;
 * stored as a value, returned, turned into an integer or passed to any
 * other call (__kmpc_fork_call, a task), it stays DSM memory. free and
 * realloc of such a pointer reach kumi_omp_free/realloc, which take
 * pointers that are not DSM memory. */

static enum kumi_tr_use heap_call(LLVMValueRef call, LLVMValueRef v, LLVMValueRef *follow)
{
    const char *n = kumi_tr_callee_name(call);

    if (n && strcmp(n, "free") == 0 && LLVMGetNumArgOperands(call) == 1 && LLVMGetOperand(call, 0) == v)
        return KUMI_TR_USE_OK;
    if (n && (kumi_tr_starts(n, "llvm.va_start") || kumi_tr_starts(n, "llvm.va_copy")))
        return KUMI_TR_USE_ESCAPES;
    return omp_call(call, v, follow);
}

static void private_heap(struct kumi_tr_omp *x)
{
    LLVMValueRef pm = NULL, pc = NULL;
    for (LLVMValueRef f = LLVMGetFirstFunction(x->m); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
                const char *n = LLVMIsACallInst(I) ? kumi_tr_callee_name(I) : NULL;
                if (n == NULL || (strcmp(n, "malloc") != 0 && strcmp(n, "calloc") != 0)) continue;
                LLVMValueRef callee = LLVMGetCalledValue(I);
                if (!LLVMIsDeclaration(callee) || LLVMGetTypeKind(LLVMTypeOf(I)) != LLVMPointerTypeKind) continue;
                if (kumi_tr_addr_walk(I, heap_call, 1, NULL)) continue;
                int           cal = n[0] == 'c';
                LLVMValueRef *to  = cal ? &pc : &pm;
                if (*to == NULL) {
                    const char *pn = cal ? "kumi_omp_private_calloc" : "kumi_omp_private_malloc";
                    *to            = LLVMGetNamedFunction(x->m, pn);
                    if (*to == NULL) *to = LLVMAddFunction(x->m, pn, LLVMGlobalGetValueType(callee));
                }
                LLVMSetOperand(I, (unsigned)LLVMGetNumArgOperands(I),
                               LLVMConstBitCast(*to, LLVMTypeOf(callee)));
                x->st.pheap++;
            }
}

/* ------------------------------------------------------------ the pass */
int kumi_tr_omp_pass(LLVMModuleRef m, const struct kumi_tr_omp_opts *o)
{
    struct kumi_tr_omp x = {.o = o, .m = m, .c = LLVMGetModuleContext(m)};
    x.td  = LLVMCreateTargetData(LLVMGetDataLayoutStr(m));
    x.b   = LLVMCreateBuilderInContext(x.c);
    x.t32 = LLVMInt32TypeInContext(x.c);
    x.t64 = LLVMInt64TypeInContext(x.c);
    x.tp8 = LLVMPointerType(LLVMInt8TypeInContext(x.c), 0);

    /* the attributes LLVM knows for libc's functions (the -O pipelines
     * add them too): an argument that libc does not capture, such as
     * gettimeofday's, keeps its local private; libc writing a DSM local
     * without the protocol would be wrong */
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef              e  = LLVMRunPasses(m, "inferattrs", NULL, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
        char *msg = LLVMGetErrorMessage(e);
        kumi_tr_omp_fail(&x, "inferattrs: %s", msg);
        LLVMDisposeErrorMessage(msg);
    }
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f)) do_function(&x, f);
    kumi_tr_omp_globals(&x);
    byval_copies(&x);   /* after: a moved global's uses are rebased by now */
    private_heap(&x);   /* before the renames: the walk reads the original names */
    rename_calls(&x);   /* last: the escape analysis reads the original names */

    if (o->stats)
        fprintf(stderr,
                "kumi-translate: %s: openmp: globals data %lu bss %lu fixups %lu | uses rebased %lu foreign %lu | "
                "dsm stack allocas %lu copyin %lu byval copies %lu reduction slots %lu | calls renamed %lu private heap %lu\n",
                o->name ? o->name : "module", x.st.data, x.st.bss, x.st.fixups, x.st.uses, x.st.foreign,
                x.st.allocas, x.st.copyin, x.st.byval, x.st.redcopy, x.st.renamed, x.st.pheap);
    LLVMDisposeBuilder(x.b);
    LLVMDisposeTargetData(x.td);
    return x.err ? -1 : 0;
}
