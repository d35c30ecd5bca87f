/*
 * omp_globals.c -- kumi-translate --openmp, the globals (omp.h, omp_pass.h):
 * which ones move; every instruction operand that refers to a moved
 * global, or to a declared one that may be another module's, rebuilt as
 * instructions with the delta added; the fixups of pointer slots in moved
 * initializers; the sections (kumi_omp_data by section attribute,
 * kumi_omp_bss by module asm, since LLVM puts a zero-initialized global
 * with an explicit section into PROGBITS).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_pass.h"

#define OMP_DATA KUMI_TR_OMP_DATA
#define OMP_BSS  KUMI_TR_OMP_BSS

/* libc's own globals a translated module may declare: never moved by a
 * module of the program, so no range test (names with "__" or "_X" are
 * the implementation's and skipped too) */
static const char *const omp_libc_globals[] = {
    "stdin", "stdout", "stderr", "environ", "optarg", "optind", "opterr", "optopt",
    "program_invocation_name", "program_invocation_short_name", "timezone", "daylight",
    "tzname", "signgam", NULL};

enum { RT_DDELTA, RT_BDELTA, RT_DLO, RT_DSIZE, RT_BLO, RT_BSIZE };
static const char *const omp_rt_names[6] = {"kumi_omp_data_delta", "kumi_omp_bss_delta", "kumi_omp_data_lo",
                                            "kumi_omp_data_size", "kumi_omp_bss_lo", "kumi_omp_bss_size"};

/* ------------------------------------------------------------ which globals */
static int kind_of(struct kumi_tr_omp *x, LLVMValueRef g)
{
    long *k = kumi_tr_map_find(&x->moved, g);
    return k ? (int)*k : 0;
}

/* a declared global that may be another module's moved global */
static int foreign(struct kumi_tr_omp *x, LLVMValueRef g)
{
    if (!LLVMIsDeclaration(g) || LLVMIsThreadLocal(g) || kind_of(x, g)) return 0;
    const char *n = kumi_tr_omp_name(g);
    if (kumi_tr_omp_excluded(n) || kumi_tr_starts(n, "__") || (n[0] == '_' && n[1] >= 'A' && n[1] <= 'Z'))
        return 0;
    return !kumi_tr_omp_in_list(omp_libc_globals, n);
}

/* c is, or holds the address of, a moved global (or, with foreign, a
 * foreign one) */
static int refers(struct kumi_tr_omp *x, LLVMValueRef c, int for_code)
{
    if (LLVMIsAGlobalVariable(c)) return kind_of(x, c) || (for_code && foreign(x, c));
    if (LLVMIsAGlobalAlias(c)) return refers(x, LLVMAliasGetAliasee(c), for_code);
    if (LLVMIsAGlobalValue(c)) return 0;
    if (!LLVMIsAConstantExpr(c) && !LLVMIsAConstantStruct(c) && !LLVMIsAConstantArray(c) &&
        !LLVMIsAConstantVector(c))
        return 0;
    long *memo = for_code ? kumi_tr_map_find(&x->refs, c) : NULL;
    if (memo) return *memo == 1;
    int r = 0, n = LLVMGetNumOperands(c);
    for (int i = 0; i < n && !r; i++)
        r = refers(x, LLVMGetOperand(c, i), for_code);
    if (for_code) kumi_tr_map_put(&x->refs, c, r ? 1 : 2);
    return r;
}

static int movable(struct kumi_tr_omp *x, LLVMValueRef g)
{
    if (LLVMIsDeclaration(g) || LLVMIsThreadLocal(g) || kumi_tr_omp_excluded(kumi_tr_omp_name(g))) return 0;
    LLVMLinkage l = LLVMGetLinkage(g);
    if (l == LLVMAppendingLinkage || l == LLVMAvailableExternallyLinkage) return 0;
    const char *sec = LLVMGetSection(g);
    if (sec && *sec) {
        if (!LLVMIsGlobalConstant(g))
            kumi_tr_omp_warn(x, "'%s' is in section '%s': left per PE (not shared)", kumi_tr_omp_name(g), sec);
        return 0;
    }
    return 1;
}

static void choose_globals(struct kumi_tr_omp *x)
{
    for (LLVMValueRef g = LLVMGetFirstGlobal(x->m); g; g = LLVMGetNextGlobal(g))
        if (!LLVMIsGlobalConstant(g) && movable(x, g)) {
            LLVMValueRef in = LLVMGetInitializer(g);
            kumi_tr_map_put(&x->moved, g, LLVMIsNull(in) || LLVMIsUndef(in) ? OMP_BSS : OMP_DATA);
        }
    for (int changed = 1; changed;) {   /* constants that point at moved globals */
        changed = 0;
        for (LLVMValueRef g = LLVMGetFirstGlobal(x->m); g; g = LLVMGetNextGlobal(g))
            if (LLVMIsGlobalConstant(g) && !kind_of(x, g) && movable(x, g) && refers(x, LLVMGetInitializer(g), 0)) {
                kumi_tr_map_put(&x->moved, g, OMP_DATA);
                changed = 1;
            }
    }
    for (LLVMValueRef g = LLVMGetFirstGlobal(x->m); g; g = LLVMGetNextGlobal(g))
        if (!LLVMIsDeclaration(g) && !kind_of(x, g) && !kumi_tr_omp_excluded(kumi_tr_omp_name(g)) &&
            refers(x, LLVMGetInitializer(g), 0))
            kumi_tr_omp_warn(x, "'%s' (thread-local or in a section of its own) points at a moved global: "
                    "it keeps the address of its template%s", kumi_tr_omp_name(g), "");
}

/* ------------------------------------------------------------ rebasing */
static LLVMValueRef rt_global(struct kumi_tr_omp *x, int i)
{
    if (x->rt[i] == NULL) {
        LLVMValueRef g = LLVMGetNamedGlobal(x->m, omp_rt_names[i]);
        if (g == NULL) g = LLVMAddGlobal(x->m, x->t64, omp_rt_names[i]);
        x->rt[i] = LLVMConstBitCast(g, LLVMPointerType(x->t64, 0));
    }
    return x->rt[i];
}

/* the runtime's values are set once, before any translated code runs
 * (the start object's constructor): invariant loads */
static LLVMValueRef rt_load(struct kumi_tr_omp *x, int i, const char *name)
{
    LLVMValueRef l = LLVMBuildLoad2(x->b, x->t64, rt_global(x, i), name);
    LLVMSetMetadata(l, x->md_inv, x->inv);
    return l;
}

/* ptrtoint and inttoptr (not a GEP): the live copy is not G's object, and
 * G's address must count as escaped for the optimizer (a call such as
 * __kmpc_fork_call may change it through other PEs) */
static LLVMValueRef rebase(struct kumi_tr_omp *x, LLVMValueRef g, int kind)
{
    LLVMValueRef a = LLVMConstPtrToInt(g, x->t64), d;
    if (kind) {
        d = rt_load(x, kind == OMP_DATA ? RT_DDELTA : RT_BDELTA, "kumi.delta");
        x->st.uses++;
    } else {   /* foreign: the delta of the template range it lies in, or 0 */
        d = LLVMConstInt(x->t64, 0, 0);
        for (int k = 1; k >= 0; k--) {
            LLVMValueRef off = LLVMBuildSub(x->b, a, rt_load(x, k ? RT_BLO : RT_DLO, "kumi.lo"), "");
            LLVMValueRef in  = LLVMBuildICmp(x->b, LLVMIntULT, off, rt_load(x, k ? RT_BSIZE : RT_DSIZE, "kumi.size"),
                                             "kumi.in");
            d = LLVMBuildSelect(x->b, in, rt_load(x, k ? RT_BDELTA : RT_DDELTA, "kumi.delta"), d, "");
        }
        x->st.foreign++;
    }
    return LLVMBuildIntToPtr(x->b, LLVMBuildAdd(x->b, a, d, ""), LLVMTypeOf(g), "kumi.live");
}

/* the instruction(s) computing constant c from the operands ops */
static LLVMValueRef build_like(struct kumi_tr_omp *x, LLVMValueRef c, LLVMValueRef *ops, unsigned n)
{
    LLVMTypeRef ty = LLVMTypeOf(c);
    if (LLVMIsAConstantStruct(c) || LLVMIsAConstantArray(c) || LLVMIsAConstantVector(c)) {
        LLVMValueRef v = LLVMGetUndef(ty);
        for (unsigned i = 0; i < n; i++)
            v = LLVMIsAConstantVector(c) ? LLVMBuildInsertElement(x->b, v, ops[i], LLVMConstInt(x->t32, i, 0), "")
                                         : LLVMBuildInsertValue(x->b, v, ops[i], i, "");
        return v;
    }
    LLVMOpcode op = LLVMGetConstOpcode(c);
    switch (op) {
    case LLVMGetElementPtr: {
        LLVMValueRef v = LLVMBuildGEP2(x->b, LLVMGetGEPSourceElementType(c), ops[0], ops + 1, n - 1, "");
        LLVMSetIsInBounds(v, LLVMIsInBounds(c));
        return v;
    }
    case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMPtrToInt: case LLVMIntToPtr:
    case LLVMBitCast: case LLVMAddrSpaceCast:
        return LLVMBuildCast(x->b, op, ops[0], ty, "");
    case LLVMICmp:
        return LLVMBuildICmp(x->b, LLVMGetICmpPredicate(c), ops[0], ops[1], "");
    case LLVMSelect:
        return LLVMBuildSelect(x->b, ops[0], ops[1], ops[2], "");
    case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMUDiv: case LLVMSDiv: case LLVMURem:
    case LLVMSRem: case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMOr: case LLVMXor:
        return LLVMBuildBinOp(x->b, op, ops[0], ops[1], "");
    default: {
        char *s = LLVMPrintValueToString(c);
        kumi_tr_omp_fail(x, "cannot rebase a moved global in the constant %s (a translator limit)", s);
        LLVMDisposeMessage(s);
        return c;
    }
    }
}

/* c as instructions at the builder, with every moved or foreign global
 * rebased; each constant once per function (live: constant -> value) */
static LLVMValueRef materialize(struct kumi_tr_omp *x, LLVMValueRef c, kumi_tr_map *live)
{
    if (!refers(x, c, 1)) return c;
    long *have = kumi_tr_map_find(live, c);
    if (have) return (LLVMValueRef)(intptr_t)*have;
    LLVMValueRef v;
    if (LLVMIsAGlobalVariable(c)) {
        v = rebase(x, c, kind_of(x, c));
    } else if (LLVMIsAGlobalAlias(c)) {
        v = LLVMBuildPointerCast(x->b, materialize(x, LLVMAliasGetAliasee(c), live), LLVMTypeOf(c), "");
    } else {
        unsigned      n   = (unsigned)LLVMGetNumOperands(c);
        LLVMValueRef *ops = kumi_tr_realloc(NULL, (n ? n : 1) * sizeof *ops);
        for (unsigned i = 0; i < n; i++)
            ops[i] = materialize(x, LLVMGetOperand(c, i), live);
        v = build_like(x, c, ops, n);
        free(ops);
    }
    kumi_tr_map_put(live, c, (long)(intptr_t)v);
    return v;
}

/* every operand of an instruction that refers to a moved or foreign
 * global, computed once per function in its entry block (after the
 * allocas): the delta never changes while translated code runs, the entry
 * dominates every use (a phi's too), and the live addresses are
 * loop-invariant for the checks' loop versions */
static void rewrite_uses(struct kumi_tr_omp *x)
{
    LLVMValueRef *ins = NULL;
    size_t        cap = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(x->m); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f)) continue;
        size_t n = 0;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
                if (n == cap) ins = kumi_tr_realloc(ins, (cap = cap ? 2 * cap : 256) * sizeof *ins);
                ins[n++] = I;
            }
        LLVMValueRef at = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f));
        while (LLVMIsAAllocaInst(at)) at = LLVMGetNextInstruction(at);
        kumi_tr_map live = {0};
        for (size_t k = 0; k < n; k++) {
            unsigned nop = (unsigned)LLVMGetNumOperands(ins[k]);
            for (unsigned i = 0; i < nop; i++) {
                LLVMValueRef v = LLVMGetOperand(ins[k], i);
                if (!LLVMIsAConstant(v) || !refers(x, v, 1)) continue;
                LLVMPositionBuilderBefore(x->b, at);
                LLVMSetOperand(ins[k], i, materialize(x, v, &live));
            }
        }
        kumi_tr_map_free(&live);
    }
    free(ins);
}

/* ------------------------------------------------------------ fixups */
struct fixups { LLVMValueRef *v; size_t n, cap; };

/* the pointer-sized slots of holder's initializer c (at byte off) that
 * point at moved globals */
static void fixup_walk(struct kumi_tr_omp *x, LLVMValueRef holder, LLVMValueRef c, unsigned long long off, struct fixups *f)
{
    LLVMTypeRef  ty = LLVMTypeOf(c);
    LLVMTypeKind k  = LLVMGetTypeKind(ty);
    if (LLVMIsAConstantStruct(c)) {
        for (unsigned i = 0; i < LLVMCountStructElementTypes(ty); i++)
            fixup_walk(x, holder, LLVMGetOperand(c, i), off + LLVMOffsetOfElement(x->td, ty, i), f);
        return;
    }
    if (LLVMIsAConstantArray(c) || LLVMIsAConstantVector(c)) {
        unsigned long long es = LLVMABISizeOfType(x->td, LLVMGetElementType(ty));
        for (int i = 0; i < LLVMGetNumOperands(c); i++)
            fixup_walk(x, holder, LLVMGetOperand(c, i), off + (unsigned long long)i * es, f);
        return;
    }
    if (!refers(x, c, 0)) return;
    if (LLVMABISizeOfType(x->td, ty) != 8 || (k != LLVMPointerTypeKind && k != LLVMIntegerTypeKind)) {
        kumi_tr_omp_warn(x, "'%s' holds the address of a moved global in a slot that is not pointer-sized: "
                "it keeps the template's address%s", kumi_tr_omp_name(holder), "");
        return;
    }
    if (f->n == f->cap) f->v = kumi_tr_realloc(f->v, (f->cap = f->cap ? 2 * f->cap : 16) * sizeof *f->v);
    LLVMValueRef idx = LLVMConstInt(x->t64, off, 0);
    f->v[f->n++] = LLVMConstGEP2(LLVMInt8TypeInContext(x->c), LLVMConstBitCast(holder, x->tp8), &idx, 1);
}

/* v into llvm.compiler.used (kept to the object file) */
static void compiler_used(struct kumi_tr_omp *x, LLVMValueRef v)
{
    LLVMValueRef old = LLVMGetNamedGlobal(x->m, "llvm.compiler.used");
    unsigned     n   = old ? (unsigned)LLVMGetNumOperands(LLVMGetInitializer(old)) : 0;
    LLVMValueRef *e  = kumi_tr_realloc(NULL, (n + 1) * sizeof *e);
    for (unsigned i = 0; i < n; i++)
        e[i] = LLVMGetOperand(LLVMGetInitializer(old), i);
    e[n] = LLVMConstBitCast(v, x->tp8);
    if (old) LLVMSetValueName2(old, "", 0);
    LLVMValueRef g = LLVMAddGlobal(x->m, LLVMArrayType(x->tp8, n + 1), "llvm.compiler.used");
    LLVMSetInitializer(g, LLVMConstArray(x->tp8, e, n + 1));
    LLVMSetLinkage(g, LLVMAppendingLinkage);
    LLVMSetSection(g, "llvm.metadata");
    if (old) LLVMDeleteGlobal(old);
    free(e);
}

static void emit_fixups(struct kumi_tr_omp *x)
{
    struct fixups f = {0};
    for (LLVMValueRef g = LLVMGetFirstGlobal(x->m); g; g = LLVMGetNextGlobal(g))
        if (kind_of(x, g) == OMP_DATA)
            fixup_walk(x, g, LLVMGetInitializer(g), 0, &f);
    if (f.n) {
        LLVMValueRef g = LLVMAddGlobal(x->m, LLVMArrayType(x->tp8, (unsigned)f.n), "kumi.omp.fixups");
        LLVMSetInitializer(g, LLVMConstArray(x->tp8, f.v, (unsigned)f.n));
        LLVMSetLinkage(g, LLVMInternalLinkage);
        LLVMSetGlobalConstant(g, 1);
        LLVMSetSection(g, "kumi_omp_fixups");
        LLVMSetAlignment(g, 8);
        compiler_used(x, g);
    }
    x->st.fixups = f.n;
    free(f.v);
}

/* ------------------------------------------------------------ sections */
struct text { char *s; size_t n, cap; };

static void put(struct text *t, const char *fmt, const char *a, unsigned long long v)
{
    size_t need = strlen(fmt) + (a ? 2 * strlen(a) + 4 : 0) + 32;
    if (t->n + need >= t->cap) t->s = kumi_tr_realloc(t->s, t->cap = 2 * (t->n + need));
    t->n += (size_t)snprintf(t->s + t->n, t->cap - t->n, fmt, a ? a : "", v);
}

/* a symbol for the assembler: quoted unless plain */
static const char *asm_sym(const char *n, char *buf, size_t cap)
{
    int plain = !(n[0] >= '0' && n[0] <= '9');
    for (const char *p = n; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                *p == '_' || *p == '.' || *p == '$';
    snprintf(buf, cap, plain ? "%s" : "\"%s\"", n);
    return buf;
}

/* Moved initialized globals get section kumi_omp_data. LLVM puts a
 * zero-initialized global with an explicit section into PROGBITS, so the
 * zero ones are defined by module asm in a NOBITS kumi_omp_bss and
 * become declarations here (the assembler binds them to that definition). */
static void place_globals(struct kumi_tr_omp *x)
{
    struct text   t = {0};
    unsigned      anon = 0;
    LLVMValueRef  next;
    for (LLVMValueRef g = LLVMGetFirstGlobal(x->m); g; g = next) {
        next = LLVMGetNextGlobal(g);
        int k = kind_of(x, g);
        if (k == OMP_DATA) {
            LLVMSetSection(g, "kumi_omp_data");
            LLVMSetGlobalConstant(g, 0);
            x->st.data++;
            continue;
        }
        if (k != OMP_BSS || LLVMIsDeclaration(g)) continue;   /* not the new declarations */
        size_t      nl;
        const char *n0   = LLVMGetValueName2(g, &nl);
        char       *name = kumi_tr_realloc(NULL, nl + 32), *sym = kumi_tr_realloc(NULL, nl + 40);
        if (nl == 0) {   /* an unnamed global: a name no other has */
            do snprintf(name, 32, "kumi.omp.bss.%u", anon++);
            while (LLVMGetNamedGlobal(x->m, name));
        } else {
            memcpy(name, n0, nl + 1);
        }
        LLVMTypeRef        vty   = LLVMGlobalGetValueType(g);
        unsigned long long size  = LLVMABISizeOfType(x->td, vty);
        unsigned           align = LLVMGetAlignment(g);
        if (align == 0) align = LLVMPreferredAlignmentOfGlobal(x->td, g);
        unsigned lg = 0;
        while ((1u << lg) < align) lg++;
        asm_sym(name, sym, nl + 40);
        put(&t, "\t.pushsection kumi_omp_bss,\"aw\",@nobits\n", NULL, 0);
        switch (LLVMGetLinkage(g)) {
        case LLVMInternalLinkage: case LLVMPrivateLinkage:
            break;
        case LLVMExternalLinkage:
            put(&t, "\t.globl %s\n", sym, 0);
            break;
        default:   /* common, weak, linkonce: one definition wins */
            put(&t, "\t.weak %s\n", sym, 0);
        }
        if (LLVMGetLinkage(g) != LLVMInternalLinkage && LLVMGetLinkage(g) != LLVMPrivateLinkage) {
            if (LLVMGetVisibility(g) == LLVMHiddenVisibility) put(&t, "\t.hidden %s\n", sym, 0);
            if (LLVMGetVisibility(g) == LLVMProtectedVisibility) put(&t, "\t.protected %s\n", sym, 0);
        }
        put(&t, "\t.type %s,@object\n", sym, 0);
        put(&t, "\t.p2align %s%llu\n", NULL, lg);
        put(&t, "%s:\n", sym, 0);
        put(&t, "\t.zero %s%llu\n", NULL, size ? size : 1);
        put(&t, "\t.size %s, ", sym, 0);
        put(&t, "%s%llu\n\t.popsection\n", NULL, size ? size : 1);

        LLVMSetValueName2(g, "", 0);
        LLVMValueRef d = LLVMAddGlobal(x->m, vty, name);
        if (strcmp(kumi_tr_omp_name(d), name) != 0)   /* LLVM renamed it: the asm would not match */
            kumi_tr_omp_fail(x, "the name of zero-initialized global '%s' is taken", name);
        LLVMSetAlignment(d, align);
        LLVMReplaceAllUsesWith(g, d);
        kumi_tr_map_put(&x->moved, d, OMP_BSS);
        kumi_tr_map_put(&x->moved, g, 0);
        LLVMDeleteGlobal(g);
        free(name);
        free(sym);
        x->st.bss++;
    }
    /* a byte after this module's part of each section: a pointer one past
     * a moved global's end (an initializer's &a[N]) still lies inside its
     * template range, so the start-up's range test fixes it */
    if (x->st.bss)
        put(&t, "\t.pushsection kumi_omp_bss,\"aw\",@nobits\nkumi.omp.bss.end:\n\t.zero 1\n\t.popsection\n%s",
            "", 0);
    if (x->st.data) {
        LLVMValueRef pad = LLVMAddGlobal(x->m, LLVMInt8TypeInContext(x->c), "kumi.omp.data.end");
        LLVMSetInitializer(pad, LLVMConstInt(LLVMInt8TypeInContext(x->c), 0, 0));
        LLVMSetLinkage(pad, LLVMInternalLinkage);
        LLVMSetSection(pad, "kumi_omp_data");
        compiler_used(x, pad);
    }
    if (t.n) LLVMAppendModuleInlineAsm(x->m, t.s, t.n);
    free(t.s);
}

void kumi_tr_omp_globals(struct kumi_tr_omp *x)
{
    x->md_inv = LLVMGetMDKindIDInContext(x->c, "invariant.load", 14);
    x->inv    = LLVMMetadataAsValue(x->c, LLVMMDNodeInContext2(x->c, NULL, 0));
    choose_globals(x);
    rewrite_uses(x);
    emit_fixups(x);
    place_globals(x);
    kumi_tr_map_free(&x->moved);
    kumi_tr_map_free(&x->refs);
}
