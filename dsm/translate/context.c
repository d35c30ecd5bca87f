/*
 * context.c -- the module-wide part of the context: IR types, kumi_dsm_g
 * and the runtime's check entry points (declared when the module lacks
 * them), the TBAA tags of kumi_dsm_g's fields, branch weights.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "translate.h"

const unsigned kumi_tr_field_off[6] = {
    [KUMI_TR_F_BASE]   = offsetof(struct kumi_dsm_g, base),
    [KUMI_TR_F_SIZE]   = offsetof(struct kumi_dsm_g, size),
    [KUMI_TR_F_STATE]  = offsetof(struct kumi_dsm_g, state),
    [KUMI_TR_F_PSTATE] = offsetof(struct kumi_dsm_g, pstate),
    [KUMI_TR_F_TICK]   = offsetof(struct kumi_dsm_g, tick),
    [KUMI_TR_F_EPOCH]  = offsetof(struct kumi_dsm_g, epoch),
};
/* A module without kumi_dsm_g gets a declaration {i64, i64, i8*, i32, i8*,
 * i32}: the fields in this order (their widths: translate.h). */
_Static_assert(offsetof(struct kumi_dsm_g, base) < offsetof(struct kumi_dsm_g, size) &&
               offsetof(struct kumi_dsm_g, size) < offsetof(struct kumi_dsm_g, state) &&
               offsetof(struct kumi_dsm_g, state) < offsetof(struct kumi_dsm_g, tick) &&
               offsetof(struct kumi_dsm_g, tick) < offsetof(struct kumi_dsm_g, pstate) &&
               offsetof(struct kumi_dsm_g, pstate) < offsetof(struct kumi_dsm_g, epoch),
               "struct kumi_dsm_g's field order differs from the translator's declaration (context.c)");

static LLVMValueRef get_fn(struct kumi_tr *kt, const char *name, LLVMTypeRef ty, LLVMTypeRef *fty)
{
    LLVMValueRef f = LLVMGetNamedFunction(kt->mod, name);
    if (f == NULL)
        f = LLVMAddFunction(kt->mod, name, ty);
    *fty = LLVMGlobalGetValueType(f);
    return f;
}

/* After the module is read (and optimized: the pipeline drops unused
 * declarations) and the OpenMP pass ran. */
void kumi_tr_context_init(struct kumi_tr *kt)
{
    kt->t1 = LLVMInt1TypeInContext(kt->ctx);  kt->t8 = LLVMInt8TypeInContext(kt->ctx);
    kt->t16 = LLVMInt16TypeInContext(kt->ctx); kt->t32 = LLVMInt32TypeInContext(kt->ctx);
    kt->t64 = LLVMInt64TypeInContext(kt->ctx); kt->tp8 = LLVMPointerType(kt->t8, 0);
    kt->tvoid = LLVMVoidTypeInContext(kt->ctx);
    LLVMValueRef g = LLVMGetNamedGlobal(kt->mod, "kumi_dsm_g");
    if (g == NULL) {
        LLVMTypeRef f[6] = {kt->t64, kt->t64, kt->tp8, kt->t32, kt->tp8, kt->t32};
        LLVMTypeRef sty = LLVMStructCreateNamed(kt->ctx, "kumi.dsm_g");
        LLVMStructSetBody(sty, f, 6, 0);
        /* the declaration's fields at C's offsets (the target may align
         * differently from the host that built the translator) */
        static const enum kumi_tr_field order[6] = {KUMI_TR_F_BASE, KUMI_TR_F_SIZE, KUMI_TR_F_STATE,
                                                    KUMI_TR_F_TICK, KUMI_TR_F_PSTATE, KUMI_TR_F_EPOCH};
        for (unsigned i = 0; i < 6; i++)
            if (LLVMOffsetOfElement(kt->td, sty, i) != kumi_tr_field_off[order[i]])
                kumi_tr_die("kumi_dsm_g", "the target's layout of struct kumi_dsm_g differs from dsm/layout.h");
        g = LLVMAddGlobal(kt->mod, sty, "kumi_dsm_g");
        LLVMSetLinkage(g, LLVMExternalLinkage);
    }
    kt->dsm_g = LLVMConstBitCast(g, kt->tp8);
    LLVMTypeRef a2[2] = {kt->tp8, kt->t32}, a3[3] = {kt->tp8, kt->t64, kt->t32};
    kt->load_miss.fn  = get_fn(kt, "kumi_dsm_load_miss", LLVMFunctionType(kt->t64, a2, 2, 0), &kt->load_miss.ty);
    kt->store_miss.fn = get_fn(kt, "kumi_dsm_store_miss", LLVMFunctionType(kt->tvoid, a2, 2, 0), &kt->store_miss.ty);
    kt->poll.fn      = get_fn(kt, "kumi_dsm_poll", LLVMFunctionType(kt->tvoid, NULL, 0, 0), &kt->poll.ty);
    kt->acquire.fn   = get_fn(kt, "kumi_dsm_acquire", LLVMFunctionType(kt->t32, a3, 3, 0), &kt->acquire.ty);
    LLVMTypeRef a4[3] = {kt->tp8, kt->tp8, kt->t64};
    kt->memmove.fn   = get_fn(kt, "kumi_dsm_memmove", LLVMFunctionType(kt->tvoid, a4, 3, 0), &kt->memmove.ty);
    LLVMTypeRef a5[3] = {kt->t64, kt->t64, kt->t32};
    kt->ready.fn     = get_fn(kt, "kumi_dsm_ready", LLVMFunctionType(kt->t32, a5, 3, 0), &kt->ready.ty);
    /* TBAA: clang's root and "omnipotent char" are uniqued by content, so
     * these nodes are the ones in clang's own tags */
    kt->md_tbaa = LLVMGetMDKindIDInContext(kt->ctx, "tbaa", 4);
    LLVMMetadataRef rs   = LLVMMDStringInContext2(kt->ctx, "Simple C/C++ TBAA", 17);
    LLVMMetadataRef root = LLVMMDNodeInContext2(kt->ctx, &rs, 1);
    LLVMMetadataRef zero = LLVMValueAsMetadata(LLVMConstInt(kt->t64, 0, 0));
    LLVMMetadataRef ch[3] = {LLVMMDStringInContext2(kt->ctx, "omnipotent char", 15), root, zero};
    LLVMMetadataRef chr  = LLVMMDNodeInContext2(kt->ctx, ch, 3);
    const char *tn[2] = {"kumi dsm_g", "kumi dsm tick"};
    for (int k = 0; k < 2; k++) {
        LLVMMetadataRef t[3] = {LLVMMDStringInContext2(kt->ctx, tn[k], strlen(tn[k])), chr, zero};
        LLVMMetadataRef ty   = LLVMMDNodeInContext2(kt->ctx, t, 3);
        LLVMMetadataRef tag[3] = {ty, ty, zero};
        LLVMValueRef    v    = LLVMMetadataAsValue(kt->ctx, LLVMMDNodeInContext2(kt->ctx, tag, 3));
        if (k == 0) kt->tbaa_g = v; else kt->tbaa_tick = v;
    }
    kt->md_prof = LLVMGetMDKindIDInContext(kt->ctx, "prof", 4);
    LLVMMetadataRef w[3] = {LLVMMDStringInContext2(kt->ctx, "branch_weights", 14),
                            LLVMValueAsMetadata(LLVMConstInt(kt->t32, 1, 0)),
                            LLVMValueAsMetadata(LLVMConstInt(kt->t32, 2000, 0))};
    kt->unlikely = LLVMMetadataAsValue(kt->ctx, LLVMMDNodeInContext2(kt->ctx, w, 3));
    w[1] = LLVMValueAsMetadata(LLVMConstInt(kt->t32, 2000, 0));
    w[2] = LLVMValueAsMetadata(LLVMConstInt(kt->t32, 1, 0));
    kt->likely = LLVMMetadataAsValue(kt->ctx, LLVMMDNodeInContext2(kt->ctx, w, 3));
    kt->byval_kind = LLVMGetEnumAttributeKindForName("byval", 5);
    kt->b  = LLVMCreateBuilderInContext(kt->ctx);
    kt->mv = LLVMCreateBuilderInContext(kt->ctx);
}

void kumi_tr_context_free(struct kumi_tr *kt)
{
    LLVMDisposeBuilder(kt->b);
    LLVMDisposeBuilder(kt->mv);
    kumi_tr_map_free(&kt->escape_memo);
    kumi_tr_map_free(&kt->gate.unsafe);
    kumi_tr_map_free(&kt->gate.twin);
    kumi_tr_map_free(&kt->ver.body);
    free(kt->batch.e);
    free(kt->ver.vers);
    free(kt->ver.fields);
    free(kt->ver.memo);
}
