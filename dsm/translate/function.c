/*
 * function.c -- translating one function, in order: its back edges; the
 * loop versions (versions.c, before any check); its accesses, calls and
 * fences in order, warning where a possibly-DSM pointer goes to code that
 * is not translated; the shadows of kumi_dsm_g's fields and of the poll
 * counter; the checks (checks.c); the polls on the back edges; the
 * versions' tests finished.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate.h"

static void warn_call(struct kumi_tr *kt, LLVMValueRef call, const char *fname, const char *callee, unsigned arg, int *nwarn)
{
    if (!kt->opts.warn) return;
    (*nwarn)++;
    kt->st.warnings++;
    if (*nwarn > KUMI_TR_WARN_CAP) {
        if (*nwarn == KUMI_TR_WARN_CAP + 1)
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
static int never_dsm_arg(struct kumi_tr *kt, LLVMValueRef v)
{
    for (int i = 0; i < 8 && (LLVMIsAGetElementPtrInst(v) || LLVMIsABitCastInst(v)); i++)
        v = LLVMGetOperand(v, 0);
    if (is_main_args(v))
        return 1;
    if (LLVMIsALoadInst(v)) {
        LLVMValueRef a = LLVMGetOperand(v, 0);
        for (int i = 0; i < 8 && (LLVMIsAGetElementPtrInst(a) || LLVMIsABitCastInst(a)); i++)
            a = LLVMGetOperand(a, 0);
        a = kumi_tr_strip_casts(a);
        return is_main_args(a) ||
               (LLVMIsAGlobalVariable(a) && LLVMIsGlobalConstant(a) && !kumi_tr_global_shared(kt, a));
    }
    if (LLVMIsACallInst(v)) {
        LLVMValueRef f = LLVMGetCalledValue(v);
        size_t       len;
        const char  *n = LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : NULL;
        static const char *const str[] = {"kumi_strerror", "kumi_transport_name", "strerror", "getenv", NULL};
        for (int i = 0; n && str[i]; i++)
            if (strcmp(n, str[i]) == 0) return 1;
    }
    return 0;
}

static int no_deref_callee(const char *n)
{
    /* never read the data, or kumi's own (libkumi, and the OpenMP runtime
     * libkumi-omp: the __kmpc_* entry points clang emits and the omp_* API,
     * which take DSM addresses by design) */
    static const char *const ok[] = {"free", "kumi_", "__assert_fail", "__kmpc_", "omp_", NULL};
    for (int i = 0; ok[i]; i++)
        if (strcmp(n, ok[i]) == 0 || (ok[i][strlen(ok[i]) - 1] == '_' && kumi_tr_starts(n, ok[i])))
            return 1;
    return 0;
}

/* calls after which base/size/state need no reload: the runtime's check
 * entry points (they never move the region) */
static int shadow_kept(struct kumi_tr *kt, LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    return f == kt->load_miss.fn || f == kt->store_miss.fn || f == kt->poll.fn || f == kt->acquire.fn || f == kt->memmove.fn || f == kt->ready.fn;
}

void kumi_tr_function(struct kumi_tr *kt, LLVMValueRef fn)
{
    size_t      nlen;
    const char *fname = LLVMGetValueName2(fn, &nlen);
    if (LLVMCountBasicBlocks(fn) == 0 || kumi_tr_starts(fname, "kumi_dsm_") || kumi_tr_gate_is_twin(fn))
        return;

    /* 1. blocks and back edges (iterative DFS; an edge to a block on the stack) */
    unsigned           nb = LLVMCountBasicBlocks(fn);
    LLVMBasicBlockRef *bbs = kumi_tr_realloc(NULL, nb * sizeof *bbs);
    LLVMGetBasicBlocks(fn, bbs);
    kumi_tr_map idx = {0};
    for (unsigned i = 0; i < nb; i++) kumi_tr_map_put(&idx, bbs[i], i);
    char     *color = calloc(nb, 1);
    unsigned *stk = kumi_tr_realloc(NULL, nb * sizeof *stk), *next = calloc(nb, sizeof *next), sp = 0;
    struct kumi_tr_backedge *back = NULL;
    size_t nback = 0;
    stk[sp++] = 0; color[0] = 1;
    while (sp) {
        unsigned     b = stk[sp - 1];
        LLVMValueRef t = LLVMGetBasicBlockTerminator(bbs[b]);
        unsigned     ns = t ? LLVMGetNumSuccessors(t) : 0;
        if (next[b] < ns) {
            unsigned k = next[b]++;
            unsigned s = (unsigned)*kumi_tr_map_find(&idx, LLVMGetSuccessor(t, k));
            if (color[s] == 1) {
                LLVMOpcode op = LLVMGetInstructionOpcode(t);
                if (op == LLVMBr || op == LLVMSwitch) {
                    back = kumi_tr_realloc(back, (nback + 1) * sizeof *back);
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
    free(color); free(stk); free(next); kumi_tr_map_free(&idx);

    /* 1b. loop versions, before any check goes in */
    kumi_tr_versions_make(kt, fn, back, nback);

    /* 2. the accesses, in order, before any surgery */
    struct kumi_tr_access *acc = NULL;
    size_t  nacc = 0, cacc = 0;
    int     nwarn = 0, has_invoke = 0;
    LLVMValueRef *calls = NULL;
    size_t        ncalls = 0, ccalls = 0;
    for (unsigned b = 0; b < nb; b++) {
        for (LLVMValueRef I = LLVMGetFirstInstruction(bbs[b]); I; I = LLVMGetNextInstruction(I)) {
            int        kind = -1;
            LLVMOpcode op = LLVMGetInstructionOpcode(I);
            if (op == LLVMLoad) {
                kt->st.loads++;
                kind = KUMI_TR_LOAD;
            } else if (op == LLVMStore) {
                kt->st.stores++;
                kind = KUMI_TR_STORE;
            } else if (op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) {
                kt->st.atomics++;
                kind = KUMI_TR_ATOMIC;
            } else if (op == LLVMFence) {
                kind = KUMI_TR_BARRIER;
            } else if (op == LLVMCall || op == LLVMInvoke) {
                if (op == LLVMInvoke) has_invoke = 1;
                const char *n = kumi_tr_callee_name(I);
                if (kumi_tr_is_memintr(n)) {
                    kt->st.memops++;
                    kind = KUMI_TR_MEM;
                } else if (n && kumi_tr_starts(n, "llvm.masked.")) {
                    /* only with -march flags that give masked vector ops;
                     * their lanes' range is not known here */
                    if (kt->opts.warn)
                        fprintf(stderr, "kumi-translate: in %s: warning: %s is not checked "
                                "(masked vector access; compile without -march)\n", fname, n);
                    kt->st.warnings++;
                } else if (n && kumi_tr_starts(n, "llvm.")) {
                    /* other intrinsics (sqrt, fmuladd, vector reductions,
                     * lifetime, ...) never reach the runtime: they serve no
                     * requests, so they neither end a batch nor move the
                     * region */
                } else {
                    if (!shadow_kept(kt, I)) {
                        if (ncalls == ccalls) calls = kumi_tr_realloc(calls, (ccalls = ccalls ? 2 * ccalls : 16) * sizeof *calls);
                        calls[ncalls++] = I;
                    }
                    kind = KUMI_TR_BARRIER;
                    LLVMValueRef f = LLVMGetCalledValue(I);
                    if (n && LLVMIsDeclaration(f) && !kumi_tr_starts(n, "llvm.") && !no_deref_callee(n)) {
                        unsigned na = LLVMGetNumArgOperands(I);
                        for (unsigned a = 0; a < na; a++) {
                            LLVMValueRef v = LLVMGetOperand(I, a);
                            if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind &&
                                !LLVMIsAConstant(v) && !kumi_tr_is_private(kt, v, 0) &&
                                !(LLVMIsALoadInst(v) && LLVMIsAGlobalVariable(kumi_tr_strip_casts(LLVMGetOperand(v, 0))) &&
                                  !kumi_tr_global_shared(kt, kumi_tr_strip_casts(LLVMGetOperand(v, 0)))) &&
                                !never_dsm_arg(kt, v)) {
                                warn_call(kt, I, fname, n, a, &nwarn);
                                break;
                            }
                        }
                    }
                }
            }
            if (kind < 0) continue;
            if (kind == KUMI_TR_LOAD || kind == KUMI_TR_STORE || kind == KUMI_TR_ATOMIC) {
                LLVMValueRef p = LLVMGetOperand(I, kind == KUMI_TR_STORE ? 1 : 0);
                if (LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != 0 || kumi_tr_is_private(kt, p, 0)) {
                    kt->st.private_++;
                    if (kind != KUMI_TR_ATOMIC) continue;
                    kind = KUMI_TR_BARRIER;
                }
            }
            if (nacc == cacc) acc = kumi_tr_realloc(acc, (cacc = cacc ? 2 * cacc : 64) * sizeof *acc);
            acc[nacc++] = (struct kumi_tr_access){I, bbs[b], kind};
        }
    }

    /* 2b. the shadows of base, size and state: loaded at the entry and
     *     again after every call that may move the region (kumi_init,
     *     kumi_finalize, or anything that calls them); SROA turns them into
     *     registers, loop-invariant in loops without such calls */
    kt->fn.shadow[0] = kt->fn.shadow[1] = kt->fn.shadow[2] = kt->fn.shadow[3] = NULL;
    int checks = 0;
    for (size_t i = 0; i < nacc; i++) {
        LLVMValueRef I = acc[i].I;
        if (acc[i].kind == KUMI_TR_MEM)
            checks |= !kumi_tr_is_private(kt, LLVMGetOperand(I, 0), 0) ||
                      (!kumi_tr_starts(kumi_tr_callee_name(I), "llvm.memset.") && !kumi_tr_is_private(kt, LLVMGetOperand(I, 1), 0));
        else
            checks |= acc[i].kind != KUMI_TR_BARRIER;
    }
    if (!has_invoke && checks) {
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
        LLVMPositionBuilder(kt->mv, entry, LLVMGetFirstInstruction(entry));
        LLVMSetCurrentDebugLocation2(kt->mv, NULL);
        LLVMTypeRef ty[4] = {kt->t64, kt->t64, kt->tp8, kt->tp8};
        static const char *const nm[4] = {"kumi.base", "kumi.size", "kumi.statep", "kumi.pstatep"};
        for (int k = 0; k < 4; k++) kt->fn.shadow[k] = LLVMBuildAlloca(kt->mv, ty[k], nm[k]);
        for (int k = 0; k < 4; k++) LLVMBuildStore(kt->mv, kumi_tr_field_load(kt, kt->mv, (enum kumi_tr_field)k, ty[k]), kt->fn.shadow[k]);
        for (size_t c = 0; c < ncalls; c++) {
            LLVMValueRef nx = LLVMGetNextInstruction(calls[c]);
            if (nx == NULL || LLVMGetInstructionOpcode(nx) == LLVMRet ||
                LLVMGetInstructionOpcode(nx) == LLVMUnreachable)
                continue;   /* nothing after it to check (and a musttail must stay last) */
            LLVMPositionBuilderBefore(kt->mv, nx);
            LLVMSetCurrentDebugLocation2(kt->mv, NULL);
            for (int k = 0; k < 4; k++) LLVMBuildStore(kt->mv, kumi_tr_field_load(kt, kt->mv, (enum kumi_tr_field)k, ty[k]), kt->fn.shadow[k]);
        }
    }
    /* the poll counter in a register: a loop's back-edge then costs an add,
     * a test and a branch, no load and store of the global. The global is
     * brought up to date before every call and return (callees and later
     * loops go on counting from it) and reloaded after calls. */
    kt->fn.shadow_tick = NULL;
    if (!has_invoke && nback) {
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
        LLVMPositionBuilder(kt->mv, entry, LLVMGetFirstInstruction(entry));
        LLVMSetCurrentDebugLocation2(kt->mv, NULL);
        kt->fn.shadow_tick = LLVMBuildAlloca(kt->mv, kt->t32, "kumi.tickp");
        LLVMBuildStore(kt->mv, kumi_tr_field_load(kt, kt->mv, KUMI_TR_F_TICK, kt->t32), kt->fn.shadow_tick);
        for (size_t c = 0; c < ncalls; c++) {
            LLVMPositionBuilderBefore(kt->mv, calls[c]);
            LLVMSetCurrentDebugLocation2(kt->mv, NULL);
            LLVMValueRef v = LLVMBuildLoad2(kt->mv, kt->t32, kt->fn.shadow_tick, "");
            LLVMSetMetadata(LLVMBuildStore(kt->mv, v, kumi_tr_tick_ptr(kt, kt->mv)), kt->md_tbaa, kt->tbaa_tick);
            LLVMValueRef nx = LLVMGetNextInstruction(calls[c]);
            if (nx == NULL || LLVMGetInstructionOpcode(nx) == LLVMRet ||
                LLVMGetInstructionOpcode(nx) == LLVMUnreachable)
                continue;
            LLVMPositionBuilderBefore(kt->mv, nx);
            LLVMSetCurrentDebugLocation2(kt->mv, NULL);
            LLVMBuildStore(kt->mv, kumi_tr_field_load(kt, kt->mv, KUMI_TR_F_TICK, kt->t32), kt->fn.shadow_tick);
        }
        for (unsigned b = 0; b < nb; b++) {
            LLVMValueRef t = LLVMGetBasicBlockTerminator(bbs[b]);
            if (t == NULL || LLVMGetInstructionOpcode(t) != LLVMRet)
                continue;
            LLVMPositionBuilderBefore(kt->mv, t);
            LLVMSetCurrentDebugLocation2(kt->mv, NULL);
            LLVMValueRef v = LLVMBuildLoad2(kt->mv, kt->t32, kt->fn.shadow_tick, "");
            LLVMSetMetadata(LLVMBuildStore(kt->mv, v, kumi_tr_tick_ptr(kt, kt->mv)), kt->md_tbaa, kt->tbaa_tick);
        }
    }
    free(calls);

    kumi_tr_checks_insert(kt, acc, nacc);
    free(acc);

    /* 4. polls on the back edges found in 1.; then the versions' tests */
    for (size_t i = 0; i < nback; i++)
        kumi_tr_poll_edge(kt, back[i].term, back[i].k);
    kumi_tr_versions_finish(kt);
    free(back);
    free(bbs);
    if (!has_invoke)
        kumi_tr_gate(kt, fn);
    LLVMSetCurrentDebugLocation2(kt->b, NULL);
}
