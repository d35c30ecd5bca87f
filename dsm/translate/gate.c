/*
 * gate.c -- the function gate (README.md, "The gate: no checks while no
 * DSM exists"). A translated function gets an unchecked copy of its
 * (instrumented) body; a new entry block runs the copy while
 * kumi_dsm_g.size is 0 -- before kumi_init, after kumi_finalize, or when
 * the region could not be mapped: then no address can lie in the DSM and
 * every check would find nothing to do -- and the checked body otherwise.
 *
 * The copy is made from the checked body after the checks went in, so it
 * matches it instruction for instruction; in the copy the loads of
 * kumi_dsm_g.size become 0 (the range checks and the loop versions'
 * tests fold away), kumi_dsm_ready becomes 1, polls and the poll counter's
 * stores go (kumi_dsm_poll does nothing without a region).
 *
 * A function that cannot reach kumi_init gets the copy as a function of
 * its own (gate_twin: NAME.kumi.u, tail-called by the gate; copies call
 * copies, kumi_tr_gate_finish). Otherwise the copy lives in the same
 * function, sharing the entry's allocas: there a call in the copy that
 * may create the region (one that may reach
 * kumi_init: an external function not known to stay out of kumi, an
 * indirect call, a function of this module that makes such a call) is
 * followed by a test of kumi_dsm_g.size: if it is no longer 0, the
 * function goes on in the checked body, right after the same call (where
 * the checked body reloads its shadows of kumi_dsm_g). So a frame that was
 * running unchecked when the region appeared continues checked. For that
 * edge the checked body's values live across such a call are first moved
 * to stack slots (both bodies store to the same slot; the second
 * pipeline's SROA makes them registers again).
 */
#include <stdlib.h>
#include <string.h>

#include "translate.h"

/* External functions that never call kumi_init and never call back into
 * the program (no qsort, atexit, pthread_create: a callback could). Sorted
 * for bsearch. */
static const char *const kumi_tr_gate_libc[] = {
    "__assert_fail", "__ctype_b_loc", "__ctype_tolower_loc", "__ctype_toupper_loc",
    "__errno_location", "__isoc99_fscanf", "__isoc99_scanf", "__isoc99_sscanf",
    "__stack_chk_fail", "_exit", "abort", "abs", "acos", "aligned_alloc", "asin", "atan",
    "atan2", "atof", "atoi", "atol", "atoll", "calloc", "cbrt", "ceil", "clock",
    "clock_gettime", "close", "cos", "cosh", "exit", "exp", "exp2", "fabs", "fclose",
    "feof", "ferror", "fflush", "fgetc", "fgets", "floor", "fmax", "fmin", "fmod",
    "fopen", "fprintf", "fputc", "fputs", "fread", "free", "frexp", "fseek", "ftell",
    "fwrite", "getc", "getchar", "getenv", "gettimeofday", "hypot", "isalnum", "isalpha",
    "isdigit", "isspace", "labs", "ldexp", "llabs", "log", "log10", "log2", "lround",
    "malloc", "memalign", "memchr", "memcmp", "memcpy", "memmove", "memset", "open",
    "perror", "posix_memalign", "pow", "printf", "putc", "putchar", "puts", "rand",
    "read", "realloc", "round", "sin", "sinh", "snprintf", "sprintf", "sqrt", "srand",
    "strcat", "strchr", "strcmp", "strcpy", "strcspn", "strdup", "strerror", "strlen",
    "strncat", "strncmp", "strncpy", "strndup", "strnlen", "strrchr", "strspn", "strstr",
    "strtod", "strtof", "strtol", "strtoll", "strtoul", "strtoull", "tan", "tanh", "time",
    "tolower", "toupper", "trunc", "vfprintf", "vprintf", "vsnprintf", "vsprintf", "write",
};

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int libc_safe(const char *n)
{
    return bsearch(&n, kumi_tr_gate_libc, sizeof kumi_tr_gate_libc / sizeof *kumi_tr_gate_libc,
                   sizeof *kumi_tr_gate_libc, cmp_name) != NULL;
}

static int is_runtime_check(struct kumi_tr *kt, LLVMValueRef f)
{
    return f == kt->load_miss.fn || f == kt->store_miss.fn || f == kt->poll.fn || f == kt->acquire.fn ||
           f == kt->memmove.fn || f == kt->ready.fn;
}

/* May this call (directly) reach kumi_init? Calls to functions of the
 * module are answered by their entry in kt->gate.unsafe. With --openmp
 * none can: the start-up makes the region before main and kumi_dsm_g.size
 * does not change until the job ends (a job of one PE keeps it 0,
 * KUMI_DSM_SOLO), so every function gets a copy of its own and no switch:
 * the checked body stays as it was without the gate. */
static int call_unsafe(struct kumi_tr *kt, LLVMValueRef call)
{
    if (kt->opts.openmp)
        return 0;
    LLVMValueRef f = LLVMGetCalledValue(call);
    if (f == NULL || !LLVMIsAFunction(f))
        return 1;                       /* indirect, inline asm */
    size_t      n;
    const char *name = LLVMGetValueName2(f, &n);
    if (kumi_tr_starts(name, "llvm.") || is_runtime_check(kt, f))
        return 0;
    if (!LLVMIsDeclaration(f)) {
        long *u = kumi_tr_map_find(&kt->gate.unsafe, f);
        return u && *u;
    }
    return !libc_safe(name);
}

/* Which functions of the module may reach kumi_init: a fixpoint from the
 * calls they make (optimistic for recursion). */
static void gate_prepare(struct kumi_tr *kt)
{
    int changed = 1;
    while (changed) {
        changed = 0;
        for (LLVMValueRef f = LLVMGetFirstFunction(kt->mod); f; f = LLVMGetNextFunction(f)) {
            if (LLVMIsDeclaration(f)) continue;
            long *u = kumi_tr_map_find(&kt->gate.unsafe, f);
            if (u && *u) continue;
            int bad = 0;
            for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b && !bad; b = LLVMGetNextBasicBlock(b))
                for (LLVMValueRef I = LLVMGetFirstInstruction(b); I && !bad; I = LLVMGetNextInstruction(I))
                    if ((LLVMIsACallInst(I) || LLVMIsAInvokeInst(I)) && call_unsafe(kt, I)) bad = 1;
            if (bad) { kumi_tr_map_put(&kt->gate.unsafe, f, 1); changed = 1; }
        }
    }
    kt->gate.ready = 1;
}

/* kumi_dsm_g's field f when p is its address, else -1: a constant GEP
 * into kumi_dsm_g, maybe cast: by byte offset (as checks.c builds it) or,
 * once folded, by field number, or the global itself (offset 0) */
static int field_at(struct kumi_tr *kt, LLVMValueRef p)
{
    LLVMValueRef g = LLVMGetOperand(kt->dsm_g, 0);   /* kt->dsm_g: the global as i8* */
    long         off = -1;
    while (LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMBitCast) p = LLVMGetOperand(p, 0);
    if (p == g) {
        off = 0;
    } else if (LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMGetElementPtr) {
        LLVMValueRef b = LLVMGetOperand(p, 0);
        while (LLVMIsAConstantExpr(b) && LLVMGetConstOpcode(b) == LLVMBitCast) b = LLVMGetOperand(b, 0);
        int n = LLVMGetNumOperands(p);
        if (b != g) return -1;
        for (int k = 1; k < n; k++)
            if (!LLVMIsAConstantInt(LLVMGetOperand(p, (unsigned)k))) return -1;
        if (n == 2 && LLVMGetOperand(p, 0) != g)        /* i8 GEP: a byte offset */
            off = (long)LLVMConstIntGetSExtValue(LLVMGetOperand(p, 1));
        else if (n == 3 && LLVMConstIntGetSExtValue(LLVMGetOperand(p, 1)) == 0)   /* field number */
            off = (long)LLVMOffsetOfElement(kt->td, LLVMGlobalGetValueType(g),
                                            (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(p, 2)));
    }
    for (int f = 0; f < 5; f++)
        if (off >= 0 && (unsigned long)off == kumi_tr_field_off[f]) return f;
    return -1;
}

static LLVMValueRef map_get(kumi_tr_map *m, LLVMValueRef v)
{
    long *e = kumi_tr_map_find(m, v);
    return e ? (LLVMValueRef)(intptr_t)*e : v;
}

static void map_set(kumi_tr_map *m, LLVMValueRef k, LLVMValueRef v) { kumi_tr_map_put(m, k, (long)(intptr_t)v); }

static LLVMValueRef size_load(struct kumi_tr *kt, LLVMBuilderRef b)
{
    return kumi_tr_field_load(kt, b, KUMI_TR_F_SIZE, kt->t64);
}

/* Can fn be copied and entered in the middle? No invoke, callbr or
 * indirectbr (blockaddress tables would lead out of the copy), no token
 * values, no returns_twice calls (setjmp). Counts the runtime's check
 * calls in *checks. */
static int gate_possible(struct kumi_tr *kt, LLVMValueRef fn, int *checks)
{
    unsigned rt = LLVMGetEnumAttributeKindForName("returns_twice", 13);
    *checks = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef I = LLVMGetFirstInstruction(b); I; I = LLVMGetNextInstruction(I)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(I);
            if (op == LLVMInvoke || op == LLVMCallBr || op == LLVMIndirectBr || op == LLVMLandingPad ||
                LLVMGetTypeKind(LLVMTypeOf(I)) == LLVMTokenTypeKind)
                return 0;
            if (op != LLVMCall) continue;
            LLVMValueRef f = LLVMGetCalledValue(I);
            if (LLVMGetCallSiteEnumAttribute(I, LLVMAttributeFunctionIndex, rt) ||
                (f && LLVMIsAFunction(f) && LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, rt)))
                return 0;
            if (f && is_runtime_check(kt, f)) (*checks)++;
        }
    return 1;
}

/* the copy of the checked body's blocks bbs[0..nb) at the end of fn (fn
 * itself, or a function of its own whose parameters m already maps to);
 * m maps blocks (as values) and instructions; llvm.dbg calls are left out;
 * nodbg: the copies get no debug locations (a function of its own has no
 * subprogram) */
static void gate_clone(struct kumi_tr *kt, LLVMValueRef fn, LLVMBasicBlockRef *bbs, unsigned nb, kumi_tr_map *m, int nodbg)
{
    LLVMBasicBlockRef *cp = kumi_tr_realloc(NULL, nb * sizeof *cp);
    for (unsigned i = 0; i < nb; i++) {
        cp[i] = LLVMAppendBasicBlockInContext(kt->ctx, fn, "kumi.u");
        map_set(m, LLVMBasicBlockAsValue(bbs[i]), LLVMBasicBlockAsValue(cp[i]));
    }
    for (unsigned i = 0; i < nb; i++) {
        LLVMPositionBuilderAtEnd(kt->mv, cp[i]);
        LLVMSetCurrentDebugLocation2(kt->mv, NULL);
        for (LLVMValueRef I = LLVMGetFirstInstruction(bbs[i]); I; I = LLVMGetNextInstruction(I)) {
            const char *cn = LLVMIsACallInst(I) ? kumi_tr_callee_name(I) : NULL;
            if (cn && kumi_tr_starts(cn, "llvm.dbg.")) continue;
            LLVMValueRef c;
            if (LLVMIsAPHINode(I)) {
                c = LLVMBuildPhi(kt->mv, LLVMTypeOf(I), "");
            } else {
                c = LLVMInstructionClone(I);
                LLVMInsertIntoBuilder(kt->mv, c);
            }
            if (nodbg) LLVMInstructionSetDebugLoc(c, NULL);
            map_set(m, I, c);
        }
    }
    for (unsigned i = 0; i < nb; i++)
        for (LLVMValueRef I = LLVMGetFirstInstruction(bbs[i]); I; I = LLVMGetNextInstruction(I)) {
            long *e = kumi_tr_map_find(m, I);
            if (!e) continue;
            LLVMValueRef c = (LLVMValueRef)(intptr_t)*e;
            if (LLVMIsAPHINode(I)) {
                unsigned n = LLVMCountIncoming(I);
                for (unsigned k = 0; k < n; k++) {
                    LLVMValueRef      v = map_get(m, LLVMGetIncomingValue(I, k));
                    LLVMBasicBlockRef b = LLVMValueAsBasicBlock(map_get(m, LLVMBasicBlockAsValue(LLVMGetIncomingBlock(I, k))));
                    LLVMAddIncoming(c, &v, &b, 1);
                }
                continue;
            }
            int n = LLVMGetNumOperands(c);
            for (int k = 0; k < n; k++) {
                LLVMValueRef o = LLVMGetOperand(c, (unsigned)k);
                if (o == NULL) continue;
                LLVMValueRef r = map_get(m, o);
                if (r != o) LLVMSetOperand(c, (unsigned)k, r);
            }
        }
    free(cp);
}

/* The blocks reachable from the switch targets cont[0..nsw) without
 * passing through block d (a value defined in d whose use is in one of
 * them would not be dominated by its definition once the switch edges
 * exist). reach[d] is computed once, 1 per reachable block. */
static const char *gate_reach(struct kumi_tr *kt, char **reach, unsigned d, LLVMBasicBlockRef *bbs, unsigned nb,
                              kumi_tr_map *idx, LLVMBasicBlockRef *cont, size_t nsw)
{
    (void)kt;
    if (reach[d]) return reach[d];
    char     *r = calloc(nb, 1);
    unsigned *stk = kumi_tr_realloc(NULL, (nb + 1) * sizeof *stk), sp = 0;
    if (r == NULL) kumi_tr_die("out of memory", NULL);
    for (size_t k = 0; k < nsw; k++) {
        unsigned c = (unsigned)*kumi_tr_map_find(idx, cont[k]);
        if (c != d && !r[c]) { r[c] = 1; stk[sp++] = c; }
    }
    while (sp) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(bbs[stk[--sp]]);
        unsigned     ns = t ? LLVMGetNumSuccessors(t) : 0;
        for (unsigned s = 0; s < ns; s++) {
            long *e = kumi_tr_map_find(idx, LLVMGetSuccessor(t, s));
            if (e == NULL) continue;
            unsigned j = (unsigned)*e;
            if (j != d && !r[j]) { r[j] = 1; stk[sp++] = j; }
        }
    }
    free(stk);
    return reach[d] = r;
}

/* Reg2mem for the checked body, for the values the switch edges need:
 * each value that has a use reachable from a switch target without its
 * definition goes through a stack slot in `entry`, stored right after its
 * definition -- in the checked body and, for its copy, in the copy -- and
 * loaded where it is used in other blocks. Then an edge from the copy
 * into the checked body carries the copy's values; the rest of the checked
 * body (loops without such calls) keeps its SSA form as it is. */
static void gate_demote(struct kumi_tr *kt, LLVMBasicBlockRef entry, LLVMBasicBlockRef *bbs, unsigned nb, kumi_tr_map *m,
                        LLVMBasicBlockRef *cont, size_t nsw)
{
    kumi_tr_map idx = {0};
    char      **reach = calloc(nb, sizeof *reach);
    if (reach == NULL) kumi_tr_die("out of memory", NULL);
    for (unsigned i = 0; i < nb; i++) kumi_tr_map_put(&idx, bbs[i], i);
    struct use { LLVMValueRef user; unsigned k; } *uses = NULL;
    size_t cuses = 0, nv = 0, cv = 0;
    LLVMValueRef *vals = NULL;          /* the values as they are now (not the loads made here) */
    for (unsigned i = 0; i < nb; i++)
        for (LLVMValueRef V = LLVMGetFirstInstruction(bbs[i]); V; V = LLVMGetNextInstruction(V)) {
            if (LLVMGetTypeKind(LLVMTypeOf(V)) == LLVMVoidTypeKind) continue;
            if (nv == cv) vals = kumi_tr_realloc(vals, (cv = cv ? 2 * cv : 256) * sizeof *vals);
            vals[nv++] = V;
        }
    for (size_t vi = 0; vi < nv; vi++) {
        LLVMValueRef      V = vals[vi];
        LLVMBasicBlockRef bb = LLVMGetInstructionParent(V);
        LLVMTypeRef       ty = LLVMTypeOf(V);
        LLVMValueRef      first_np = LLVMGetFirstInstruction(bb);
        while (first_np && LLVMIsAPHINode(first_np)) first_np = LLVMGetNextInstruction(first_np);
        {
            size_t nu = 0;
            for (LLVMUseRef u = LLVMGetFirstUse(V); u; u = LLVMGetNextUse(u)) {
                LLVMValueRef U = LLVMGetUser(u);
                int phi = LLVMIsAPHINode(U) != NULL;
                if (!phi && LLVMGetInstructionParent(U) == bb) continue;
                unsigned nops = (unsigned)LLVMGetNumOperands(U);
                for (unsigned k = 0; k < nops; k++) {
                    if (LLVMGetOperand(U, k) != V) continue;
                    int dup = 0;
                    for (size_t j = 0; j < nu; j++) if (uses[j].user == U && uses[j].k == k) dup = 1;
                    if (dup) continue;
                    if (nu == cuses) uses = kumi_tr_realloc(uses, (cuses = cuses ? 2 * cuses : 16) * sizeof *uses);
                    uses[nu++] = (struct use){U, k};
                }
            }
            if (nu == 0) continue;
            const char *r = gate_reach(kt, reach, (unsigned)*kumi_tr_map_find(&idx, bb), bbs, nb, &idx, cont, nsw);
            int live = 0;
            for (size_t j = 0; j < nu && !live; j++) {
                LLVMValueRef      U = uses[j].user;
                LLVMBasicBlockRef ub = LLVMIsAPHINode(U) ? LLVMGetIncomingBlock(U, uses[j].k) : LLVMGetInstructionParent(U);
                long             *e = kumi_tr_map_find(&idx, ub);
                live = e && r[*e];
            }
            if (!live) continue;
            LLVMPositionBuilder(kt->mv, entry, LLVMGetFirstInstruction(entry));
            LLVMSetCurrentDebugLocation2(kt->mv, NULL);
            LLVMValueRef slot = LLVMBuildAlloca(kt->mv, ty, "kumi.gate.slot");
            /* the stores: after the phis for a phi, else right after V */
            LLVMValueRef at = LLVMIsAPHINode(V) ? first_np : LLVMGetNextInstruction(V);
            LLVMPositionBuilderBefore(kt->mv, at);
            LLVMBuildStore(kt->mv, V, slot);
            LLVMValueRef c = map_get(m, V);
            if (c != V) {
                LLVMValueRef cat = LLVMGetNextInstruction(c);
                if (LLVMIsAPHINode(c))
                    while (cat && LLVMIsAPHINode(cat)) cat = LLVMGetNextInstruction(cat);
                LLVMPositionBuilderBefore(kt->mv, cat);
                LLVMBuildStore(kt->mv, c, slot);
            }
            for (size_t j = 0; j < nu; j++) {
                LLVMValueRef U = uses[j].user;
                if (LLVMIsAPHINode(U))
                    LLVMPositionBuilderBefore(kt->mv, LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(U, uses[j].k)));
                else
                    LLVMPositionBuilderBefore(kt->mv, U);
                LLVMSetCurrentDebugLocation2(kt->mv, NULL);
                LLVMSetOperand(U, uses[j].k, LLVMBuildLoad2(kt->mv, ty, slot, ""));
            }
        }
    }
    free(uses);
    free(vals);
    for (unsigned i = 0; i < nb; i++) free(reach[i]);
    free(reach);
    kumi_tr_map_free(&idx);
}

/* In the copy: kumi_dsm_g.size reads 0, kumi_dsm_ready says 1, no polls,
 * the poll counter is not written back. */
static void gate_neutralize(struct kumi_tr *kt, LLVMBasicBlockRef first)
{
    for (LLVMBasicBlockRef b = first; b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef I = LLVMGetFirstInstruction(b), next; I; I = next) {
            next = LLVMGetNextInstruction(I);
            if (LLVMIsALoadInst(I) && field_at(kt, LLVMGetOperand(I, 0)) == KUMI_TR_F_SIZE) {
                LLVMReplaceAllUsesWith(I, LLVMConstInt(LLVMTypeOf(I), 0, 0));
                LLVMInstructionEraseFromParent(I);
            } else if (LLVMIsAStoreInst(I) && field_at(kt, LLVMGetOperand(I, 1)) == KUMI_TR_F_TICK) {
                LLVMInstructionEraseFromParent(I);
            } else if (LLVMIsACallInst(I) && LLVMGetCalledValue(I) == kt->poll.fn) {
                LLVMInstructionEraseFromParent(I);
            } else if (LLVMIsACallInst(I) && LLVMGetCalledValue(I) == kt->ready.fn) {
                LLVMReplaceAllUsesWith(I, LLVMConstInt(LLVMTypeOf(I), 1, 0));
                LLVMInstructionEraseFromParent(I);
            }
        }
}

/* A function that cannot reach kumi_init: its copy is a function of its
 * own, FN.kumi.u (internal, noinline), which the gate tail-calls; copies
 * call each other directly (kumi_tr_gate_finish), so a call tree of such
 * functions pays one test at its root, and the copy is laid out and
 * register-allocated as the plain function would be (a copy sharing the
 * frame paid the checked body's saved registers on every call). The copy
 * has no debug locations (a subprogram belongs to one function). */
static void gate_twin(struct kumi_tr *kt, LLVMValueRef fn)
{
    size_t      n;
    const char *name = LLVMGetValueName2(fn, &n);
    char       *tn = kumi_tr_realloc(NULL, n + 8);
    memcpy(tn, name, n);
    memcpy(tn + n, ".kumi.u", 8);
    LLVMValueRef tw = LLVMAddFunction(kt->mod, tn, LLVMGlobalGetValueType(fn));
    free(tn);
    LLVMSetLinkage(tw, LLVMInternalLinkage);
    LLVMSetUnnamedAddress(tw, LLVMGlobalUnnamedAddr);
    LLVMSetFunctionCallConv(tw, LLVMGetFunctionCallConv(fn));
    if (LLVMGetSection(fn)) LLVMSetSection(tw, LLVMGetSection(fn));
    unsigned np = LLVMCountParams(fn);
    for (long idx = -1; idx <= (long)np; idx++) {       /* function, return, parameters */
        LLVMAttributeIndex ai = idx < 0 ? (LLVMAttributeIndex)LLVMAttributeFunctionIndex : (LLVMAttributeIndex)idx;
        unsigned           na = LLVMGetAttributeCountAtIndex(fn, ai);
        if (na == 0) continue;
        LLVMAttributeRef *a = kumi_tr_realloc(NULL, na * sizeof *a);
        LLVMGetAttributesAtIndex(fn, ai, a);
        for (unsigned k = 0; k < na; k++) LLVMAddAttributeAtIndex(tw, ai, a[k]);
        free(a);
    }
    unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
    unsigned ai_ = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    LLVMRemoveEnumAttributeAtIndex(tw, LLVMAttributeFunctionIndex, ai_);
    LLVMAddAttributeAtIndex(tw, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(kt->ctx, ni, 0));

    kumi_tr_map m = {0};
    for (unsigned i = 0; i < np; i++) map_set(&m, LLVMGetParam(fn, i), LLVMGetParam(tw, i));
    unsigned           nb = LLVMCountBasicBlocks(fn);
    LLVMBasicBlockRef *bbs = kumi_tr_realloc(NULL, nb * sizeof *bbs);
    LLVMGetBasicBlocks(fn, bbs);
    gate_clone(kt, tw, bbs, nb, &m, 1);
    gate_neutralize(kt, LLVMGetFirstBasicBlock(tw));

    /* the gate: no region -> the copy */
    LLVMBasicBlockRef old = LLVMGetEntryBasicBlock(fn);
    LLVMBasicBlockRef entry = LLVMInsertBasicBlockInContext(kt->ctx, old, "kumi.gate");
    LLVMBasicBlockRef call = LLVMInsertBasicBlockInContext(kt->ctx, old, "kumi.gate.u");
    LLVMPositionBuilderAtEnd(kt->mv, entry);
    LLVMSetCurrentDebugLocation2(kt->mv, NULL);
    /* the checked body's fixed-size allocas move up into the new entry:
     * left in the old one (no longer the entry) they would be dynamic --
     * a frame pointer, stack adjustments, and no SROA in the second
     * pipeline */
    for (LLVMValueRef I = LLVMGetFirstInstruction(old), nx; I; I = nx) {
        nx = LLVMGetNextInstruction(I);
        if (LLVMIsAAllocaInst(I) && LLVMIsAConstant(LLVMGetOperand(I, 0))) {
            LLVMInstructionRemoveFromParent(I);
            LLVMInsertIntoBuilder(kt->mv, I);
        }
    }
    LLVMValueRef none = LLVMBuildICmp(kt->mv, LLVMIntEQ, size_load(kt, kt->mv), LLVMConstInt(kt->t64, 0, 0), "kumi.gate.none");
    LLVMBuildCondBr(kt->mv, none, call, old);
    LLVMPositionBuilderAtEnd(kt->mv, call);
    LLVMValueRef *args = kumi_tr_realloc(NULL, (np + 1) * sizeof *args);
    for (unsigned i = 0; i < np; i++) args[i] = LLVMGetParam(fn, i);
    LLVMTypeRef  fty = LLVMGlobalGetValueType(fn);
    LLVMValueRef r = LLVMBuildCall2(kt->mv, fty, tw, args, np, "");
    LLVMSetInstructionCallConv(r, LLVMGetFunctionCallConv(fn));
    LLVMSetTailCall(r, 1);
    if (LLVMGetTypeKind(LLVMGetReturnType(fty)) == LLVMVoidTypeKind) LLVMBuildRetVoid(kt->mv);
    else LLVMBuildRet(kt->mv, r);
    free(args);
    free(bbs);
    kumi_tr_map_free(&m);
    kumi_tr_map_put(&kt->gate.twin, fn, (long)(intptr_t)tw);
    kt->st.gated++;
}

/* After every function: a call in an unchecked copy (a twin, or the kumi.u
 * blocks of a function that may reach kumi_init) to a function that has a
 * twin calls the twin: no region now, and none until it returns. */
int kumi_tr_gate_is_twin(LLVMValueRef fn)
{
    size_t      n;
    const char *name = LLVMGetValueName2(fn, &n);
    return n > 7 && memcmp(name + n - 7, ".kumi.u", 7) == 0;
}

void kumi_tr_gate_finish(struct kumi_tr *kt)
{
    if (kt->gate.twin.n == 0) return;
    for (LLVMValueRef f = LLVMGetFirstFunction(kt->mod); f; f = LLVMGetNextFunction(f)) {
        int twin = kumi_tr_gate_is_twin(f);
        for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
            if (!twin && !kumi_tr_starts(LLVMGetBasicBlockName(b), "kumi.u")) continue;
            for (LLVMValueRef I = LLVMGetFirstInstruction(b); I; I = LLVMGetNextInstruction(I)) {
                if (!LLVMIsACallInst(I)) continue;
                LLVMValueRef callee = LLVMGetCalledValue(I);
                long        *e = callee ? kumi_tr_map_find(&kt->gate.twin, callee) : NULL;
                if (e) LLVMSetOperand(I, (unsigned)LLVMGetNumOperands(I) - 1, (LLVMValueRef)(intptr_t)*e);
            }
        }
    }
}

void kumi_tr_gate(struct kumi_tr *kt, LLVMValueRef fn)
{
    int checks;
    if (!kt->opts.gate || !gate_possible(kt, fn, &checks) || checks == 0)
        return;
    if (!kt->gate.ready) gate_prepare(kt);
    long *unsafe = kumi_tr_map_find(&kt->gate.unsafe, fn);
    if (!(unsafe && *unsafe)) {
        gate_twin(kt, fn);
        return;
    }

    /* 1. the calls after which the copy may have to go on checked; the
     *    checked body is split right after each (it reloads its shadows
     *    there), so both bodies have the block boundary */
    LLVMValueRef *sw = NULL;
    size_t        nsw = 0, csw = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef I = LLVMGetFirstInstruction(b); I; I = LLVMGetNextInstruction(I)) {
            if (!LLVMIsACallInst(I) || !call_unsafe(kt, I)) continue;
            LLVMValueRef nx = LLVMGetNextInstruction(I);
            if (nx == NULL || LLVMGetInstructionOpcode(nx) == LLVMRet || LLVMGetInstructionOpcode(nx) == LLVMUnreachable)
                continue;
            if (nsw == csw) sw = kumi_tr_realloc(sw, (csw = csw ? 2 * csw : 8) * sizeof *sw);
            sw[nsw++] = I;
        }
    LLVMBasicBlockRef *cont = kumi_tr_realloc(NULL, (nsw + 1) * sizeof *cont);
    for (size_t i = 0; i < nsw; i++) {
        LLVMBasicBlockRef bb = LLVMGetInstructionParent(sw[i]);
        cont[i] = kumi_tr_split_before(kt, LLVMGetNextInstruction(sw[i]), "kumi.gate.cont");
        LLVMPositionBuilderAtEnd(kt->mv, bb);
        LLVMBuildBr(kt->mv, cont[i]);
    }

    /* 2. a new entry block with the entry's allocas, shared by both bodies */
    LLVMBasicBlockRef old = LLVMGetEntryBasicBlock(fn);
    LLVMBasicBlockRef entry = LLVMInsertBasicBlockInContext(kt->ctx, old, "kumi.gate");
    LLVMPositionBuilderAtEnd(kt->mv, entry);
    LLVMSetCurrentDebugLocation2(kt->mv, NULL);
    for (LLVMValueRef I = LLVMGetFirstInstruction(old), next; I; I = next) {
        next = LLVMGetNextInstruction(I);
        if (!LLVMIsAAllocaInst(I)) continue;
        LLVMInstructionRemoveFromParent(I);
        LLVMInsertIntoBuilder(kt->mv, I);
    }

    /* 3. the copy */
    unsigned           nb = LLVMCountBasicBlocks(fn) - 1;
    LLVMBasicBlockRef *bbs = kumi_tr_realloc(NULL, (nb + 1) * sizeof *bbs);
    LLVMGetBasicBlocks(fn, bbs);                     /* bbs[0] is the new entry */
    memmove(bbs, bbs + 1, nb * sizeof *bbs);
    kumi_tr_map m = {0};
    gate_clone(kt, fn, bbs, nb, &m, 0);
    LLVMBasicBlockRef ucopy = LLVMValueAsBasicBlock(map_get(&m, LLVMBasicBlockAsValue(old)));

    /* 4. values across the switch edges, then the copy made unchecked */
    if (nsw) gate_demote(kt, entry, bbs, nb, &m, cont, nsw);
    gate_neutralize(kt, ucopy);

    /* 5. the switches: after each such call in the copy, go on checked
     *    when the region exists now */
    for (size_t i = 0; i < nsw; i++) {
        LLVMBasicBlockRef cb = LLVMValueAsBasicBlock(map_get(&m, LLVMBasicBlockAsValue(LLVMGetInstructionParent(sw[i]))));
        LLVMBasicBlockRef cc = LLVMValueAsBasicBlock(map_get(&m, LLVMBasicBlockAsValue(cont[i])));
        LLVMInstructionEraseFromParent(LLVMGetBasicBlockTerminator(cb));
        LLVMPositionBuilderAtEnd(kt->mv, cb);
        LLVMSetCurrentDebugLocation2(kt->mv, NULL);
        LLVMValueRef now = LLVMBuildICmp(kt->mv, LLVMIntNE, size_load(kt, kt->mv), LLVMConstInt(kt->t64, 0, 0), "kumi.gate.now");
        LLVMValueRef br = LLVMBuildCondBr(kt->mv, now, cont[i], cc);
        LLVMSetMetadata(br, kt->md_prof, kt->unlikely);
    }

    /* 6. the gate */
    LLVMPositionBuilderAtEnd(kt->mv, entry);
    LLVMSetCurrentDebugLocation2(kt->mv, NULL);
    LLVMValueRef none = LLVMBuildICmp(kt->mv, LLVMIntEQ, size_load(kt, kt->mv), LLVMConstInt(kt->t64, 0, 0), "kumi.gate.none");
    LLVMBuildCondBr(kt->mv, none, ucopy, old);

    kt->st.gated++;
    kt->st.gate_switches += nsw;
    kumi_tr_map_free(&m);
    free(bbs);
    free(cont);
    free(sw);
}
