/*
 * ir.c -- what every part of kumi-translate needs from LLVM IR: queries
 * (callee names, memory intrinsics, casts), CFG surgery (splitting blocks,
 * retargeting phis) and a pointer map. Errors here end the tool.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate.h"

_Noreturn void kumi_tr_die(const char *what, const char *msg)
{
    fprintf(stderr, "kumi-translate: %s%s%s\n", what, msg ? ": " : "", msg ? msg : "");
    exit(1);
}

void *kumi_tr_realloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (p == NULL)
        kumi_tr_die("out of memory", NULL);
    return p;
}

/* ------------------------------------------------------------ pointer map */

static size_t ph(void *p, size_t cap) { return (((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ull) & (cap - 1); }

long *kumi_tr_map_find(kumi_tr_map *m, void *k)
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

void kumi_tr_map_put(kumi_tr_map *m, void *k, long v)
{
    long *e = kumi_tr_map_find(m, k);
    if (e) { *e = v; return; }
    if (2 * (m->n + 1) > m->cap) {
        kumi_tr_map o = *m;
        m->cap = o.cap ? 2 * o.cap : 64;
        m->k = calloc(m->cap, sizeof *m->k);
        m->v = calloc(m->cap, sizeof *m->v);
        if (!m->k || !m->v) kumi_tr_die("out of memory", NULL);
        m->n = 0;
        for (size_t i = 0; i < o.cap; i++)
            if (o.k[i]) kumi_tr_map_put(m, o.k[i], o.v[i]);
        free(o.k); free(o.v);
    }
    size_t i = ph(k, m->cap);
    while (m->k[i]) i = (i + 1) & (m->cap - 1);
    m->k[i] = k; m->v[i] = v; m->n++;
}

void kumi_tr_map_free(kumi_tr_map *m) { free(m->k); free(m->v); memset(m, 0, sizeof *m); }

/* ------------------------------------------------------------ helpers */
int kumi_tr_starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

int kumi_tr_addr_walk(LLVMValueRef a, kumi_tr_call_policy policy, int first_only, int *stopped)
{
    LLVMValueRef *work = kumi_tr_realloc(NULL, 16 * sizeof *work);
    size_t        nw = 0, cw = 16;
    kumi_tr_map   seen = {0};
    int           esc = 0, stop = 0;

    work[nw++] = a;
    kumi_tr_map_put(&seen, a, 1);
    while (nw && !stop && !(first_only && esc)) {
        LLVMValueRef v = work[--nw];
        for (LLVMUseRef u = LLVMGetFirstUse(v); u && !stop && !(first_only && esc); u = LLVMGetNextUse(u)) {
            LLVMValueRef us = LLVMGetUser(u), follow = NULL;
            if (!LLVMIsAInstruction(us)) {
                esc = 1;
                continue;
            }
            switch (LLVMGetInstructionOpcode(us)) {
            case LLVMLoad: case LLVMICmp:
                break;
            case LLVMStore:
                if (LLVMGetOperand(us, 0) == v) esc = 1;
                break;
            case LLVMAtomicRMW: case LLVMAtomicCmpXchg:
                for (unsigned k = 1; k < (unsigned)LLVMGetNumOperands(us); k++)
                    if (LLVMGetOperand(us, k) == v) esc = 1;
                break;
            case LLVMGetElementPtr: case LLVMBitCast: case LLVMAddrSpaceCast:
            case LLVMPHI: case LLVMSelect:
                follow = us;
                break;
            case LLVMCall:
                switch (policy(us, v, &follow)) {
                case KUMI_TR_USE_OK:      break;
                case KUMI_TR_USE_ESCAPES: esc = 1; break;
                case KUMI_TR_USE_STOP:    stop = 1; break;
                }
                break;
            default:
                esc = 1;   /* ptrtoint, ret, invoke, insertvalue, ... */
            }
            if (follow && !kumi_tr_map_find(&seen, follow)) {
                kumi_tr_map_put(&seen, follow, 1);
                if (nw == cw) work = kumi_tr_realloc(work, (cw *= 2) * sizeof *work);
                work[nw++] = follow;
            }
        }
    }
    free(work);
    kumi_tr_map_free(&seen);
    if (stopped) *stopped = stop;
    return esc;
}

const char *kumi_tr_callee_name(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    size_t       n;
    if (f == NULL || !LLVMIsAFunction(f))
        return NULL;
    return LLVMGetValueName2(f, &n);
}


int kumi_tr_is_memintr(const char *n)
{
    return n && (kumi_tr_starts(n, "llvm.memcpy.") || kumi_tr_starts(n, "llvm.memmove.") ||
                 kumi_tr_starts(n, "llvm.memset."));
}

LLVMValueRef kumi_tr_strip_casts(LLVMValueRef p)
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

/* ------------------------------------------------------------ CFG surgery */
static char *name_of(LLVMValueRef v)
{
    size_t      n;
    const char *s = LLVMGetValueName2(v, &n);
    char       *c = kumi_tr_realloc(NULL, n + 1);
    memcpy(c, s, n);
    c[n] = 0;
    return c;
}

/* In successor S, phi entries from block `from` (at most `limit`) now come
 * from `to`. The C API cannot set an incoming block: rebuild the phi. */
void kumi_tr_phi_retarget(struct kumi_tr *kt, LLVMBasicBlockRef S, LLVMBasicBlockRef from, LLVMBasicBlockRef to, unsigned limit)
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
            LLVMPositionBuilderBefore(kt->mv, i);      /* (takes i's !dbg: right for a phi) */
            LLVMValueRef np = LLVMBuildPhi(kt->mv, LLVMTypeOf(i), nm);
            unsigned     done = 0;
            for (unsigned k = 0; k < n; k++) {
                LLVMValueRef      v = LLVMGetIncomingValue(i, k);
                LLVMBasicBlockRef b = LLVMGetIncomingBlock(i, k);
                if (b == from && done < limit) { b = to; done++; }
                if (v == i) v = np;
                LLVMAddIncoming(np, &v, &b, 1);
            }
            LLVMReplaceAllUsesWith(i, np);
            kumi_tr_batch_replace(kt, i, np);
            LLVMInstructionEraseFromParent(i);
            free(nm);
        }
        i = next;
    }
}

LLVMBasicBlockRef kumi_tr_block_after(struct kumi_tr *kt, LLVMBasicBlockRef after, const char *name)
{
    LLVMValueRef      fn = LLVMGetBasicBlockParent(after);
    LLVMBasicBlockRef nb = LLVMAppendBasicBlockInContext(kt->ctx, fn, name);
    LLVMMoveBasicBlockAfter(nb, after);
    return nb;
}

/* Moves I and everything after it into a new block right after I's block,
 * which is left without a terminator. Returns the new block. */
LLVMBasicBlockRef kumi_tr_split_before(struct kumi_tr *kt, LLVMValueRef I, const char *name)
{
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(I);
    LLVMBasicBlockRef nb = kumi_tr_block_after(kt, bb, name);
    LLVMPositionBuilderAtEnd(kt->mv, nb);
    LLVMSetCurrentDebugLocation2(kt->mv, NULL);   /* keep each moved !dbg as it is */
    for (LLVMValueRef i = I, next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        char *nm = name_of(i);
        LLVMInstructionRemoveFromParent(i);
        LLVMInsertIntoBuilderWithName(kt->mv, i, nm);
        free(nm);
    }
    LLVMValueRef term = LLVMGetBasicBlockTerminator(nb);
    if (term) {
        unsigned ns = LLVMGetNumSuccessors(term);
        for (unsigned k = 0; k < ns; k++) {
            LLVMBasicBlockRef s = LLVMGetSuccessor(term, k);
            int dup = 0;
            for (unsigned j = 0; j < k; j++) if (LLVMGetSuccessor(term, j) == s) dup = 1;
            if (!dup) kumi_tr_phi_retarget(kt, s, bb, nb, ~0u);
        }
    }
    return nb;
}
