/*
 * translate.h -- kumi-translate's pieces and the one context they share.
 *
 * Every file works on a struct kumi_tr passed down from main (no
 * file-scope mutable state). Where the pieces are:
 *   kumi-translate.c  the driver: options, read, the pipelines, the
 *                     OpenMP pass (omp.c), write, --stats
 *   context.c         the module-wide context: IR types, the runtime's
 *                     entry points, kumi_dsm_g, TBAA and branch weights
 *   function.c        per function: back edges, accesses in order,
 *                     warnings, the shadows of kumi_dsm_g's fields and of
 *                     the poll counter, polls; calls the others in order
 *   privacy.c         which pointers can never be DSM (escape analysis)
 *   checks.c          the inline checks (IR of dsm/check.h) and batching
 *   versions.c        unchecked copies of innermost loops (loop versions)
 *   ir.c              IR queries, CFG surgery, the pointer map
 * README.md next to this file describes what is checked and why.
 */
#ifndef KUMI_TRANSLATE_H
#define KUMI_TRANSLATE_H

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>
#include <stddef.h>
#include <stdint.h>

#include "../layout.h"   /* struct kumi_dsm_g, geometry, state bytes, flag */
#include "kumi.h"        /* KUMI_DSM_READ, KUMI_DSM_WRITE */

/* The IR reads kumi_dsm_g's fields at these byte offsets with these
 * widths (i64 base and size, i8* state and pstate, i32 tick); a change of
 * the struct that breaks that fails here. */
_Static_assert(sizeof(((struct kumi_dsm_g *)0)->base) == 8 && sizeof(((struct kumi_dsm_g *)0)->size) == 8,
               "kumi_dsm_g.base/size are i64 in the translator's IR");
_Static_assert(sizeof(((struct kumi_dsm_g *)0)->state) == 8 && sizeof(((struct kumi_dsm_g *)0)->pstate) == 8,
               "kumi_dsm_g.state/pstate are 64-bit pointers in the translator's IR");
_Static_assert(sizeof(((struct kumi_dsm_g *)0)->tick) == 4, "kumi_dsm_g.tick is i32 in the translator's IR");
_Static_assert(sizeof(((struct kumi_dsm_g *)0)->epoch) == 4, "kumi_dsm_g.epoch is i32 in the translator's IR");

#define KUMI_TR_POLL_MASK          (KUMI_DSM_POLL_EVERY - 1u)
#define KUMI_TR_WARN_CAP           4      /* warnings per function */
#define KUMI_TR_VERSION_POLL_EVERY 1024   /* iterations of an unchecked loop copy between polls */

/* kumi_dsm_g's fields the checks read; the first four are shadowed per
 * function (kumi_tr.fn.shadow) */
enum kumi_tr_field { KUMI_TR_F_BASE, KUMI_TR_F_SIZE, KUMI_TR_F_STATE, KUMI_TR_F_PSTATE, KUMI_TR_F_TICK,
                     KUMI_TR_F_EPOCH };
#define KUMI_TR_NSHADOW 4
extern const unsigned kumi_tr_field_off[6];   /* byte offsets, by offsetof */

/* ------------------------------------------------------------ pointer map (ir.c) */
typedef struct { void **k; long *v; size_t cap, n; } kumi_tr_map;
long *kumi_tr_map_find(kumi_tr_map *m, void *k);
void  kumi_tr_map_put(kumi_tr_map *m, void *k, long v);
void  kumi_tr_map_free(kumi_tr_map *m);

/* ------------------------------------------------------------ the context */
struct kumi_tr_opts {
    int warn;       /* --no-warn clears it                    */
    int version;    /* --no-version: no unchecked loop copies */
    int openmp;     /* --openmp: run omp.c's pass first       */
    int gate;       /* --no-gate: no unchecked copies of functions (gate.c) */
};

struct kumi_tr_stats {
    unsigned long loads, stores, atomics, memops;
    unsigned long checked_loads, checked_stores, private_, batched, elided;
    unsigned long wide, polls, warnings, rmw, grouped, versioned;
    unsigned long gated, gate_switches;   /* gate.c */
};

/* a runtime entry point and its function type */
struct kumi_tr_rt { LLVMValueRef fn; LLVMTypeRef ty; };

/* batching cache (checks.c): base + [lo, hi) checked (w: for a store) in
 * this batch; in: the range check of root, the object the base lies in */
struct kumi_tr_centry { LLVMValueRef base, root, in; long lo, hi; int w; };

/* loop versions of the function being translated (versions.c) */
struct kumi_tr_vers { LLVMBasicBlockRef d; LLVMValueRef tmax; LLVMMetadataRef dbg; };   /* test block, tmax */
struct kumi_tr_vfield { LLVMValueRef load; int k; };   /* a test's load of a shadowed field */
struct kumi_tr_vmemo { int op; LLVMValueRef a, b, r; };

struct kumi_tr {
    struct kumi_tr_opts  opts;
    struct kumi_tr_stats st;

    LLVMContextRef    ctx;
    LLVMModuleRef     mod;
    LLVMTargetDataRef td;
    LLVMBuilderRef    b;     /* emits checks (carries the access's !dbg) */
    LLVMBuilderRef    mv;    /* moves instructions (never a !dbg)        */
    LLVMTypeRef       t1, t8, t16, t32, t64, tp8, tvoid;
    LLVMValueRef      dsm_g; /* kumi_dsm_g as i8*                        */
    struct kumi_tr_rt load_miss, store_miss, poll, acquire, memmove, ready;
    unsigned          md_prof, md_tbaa, byval_kind;
    /* TBAA tags of kumi_dsm_g's fields and of its poll counter: types of
     * their own under clang's "omnipotent char", so program stores of int,
     * double or pointers do not clobber them and the counter's store does
     * not clobber base/size/state (see README, "Optimizations") */
    LLVMValueRef      tbaa_g, tbaa_tick;
    LLVMValueRef      unlikely;   /* !{"branch_weights", 1, 2000} */
    LLVMValueRef      likely;     /* !{"branch_weights", 2000, 1} */

    kumi_tr_map       escape_memo;   /* alloca -> 1 escapes, 2 private (privacy.c) */

    struct {   /* gate.c */
        kumi_tr_map unsafe;   /* function -> 1 when it may reach kumi_init */
        kumi_tr_map twin;     /* function -> its unchecked copy (a function) */
        int         ready;
    } gate;

    struct {   /* the function being translated */
        /* allocas shadowing base, size, state and pstate (NULL: load the
         * global each time), reloaded only after calls that may change them */
        LLVMValueRef shadow[KUMI_TR_NSHADOW];
        /* the poll counter in a register (NULL: the global each time);
         * written back before calls and returns, reloaded after calls */
        LLVMValueRef shadow_tick;
    } fn;

    struct {   /* the current batch (checks.c) */
        struct kumi_tr_centry *e;
        size_t                 n, cap;
    } batch;

    struct {   /* loop versions (versions.c) */
        kumi_tr_map            body;             /* the loop's blocks */
        struct kumi_tr_vers   *vers;
        size_t                 nvers, cvers;
        struct kumi_tr_vfield *fields;
        size_t                 nfields, cfields;
        LLVMBasicBlockRef      h, pre, latch;    /* header, the way in, latch */
        struct kumi_tr_vmemo  *memo;
        size_t                 nmemo, cmemo;
    } ver;
};

/* ------------------------------------------------------------ context.c */
void kumi_tr_context_init(struct kumi_tr *kt);   /* after the module is read (and optimized) */
void kumi_tr_context_free(struct kumi_tr *kt);

/* ------------------------------------------------------------ ir.c */
_Noreturn void kumi_tr_die(const char *what, const char *msg);
void          *kumi_tr_realloc(void *p, size_t n);
int            kumi_tr_starts(const char *s, const char *p);
const char    *kumi_tr_callee_name(LLVMValueRef call);   /* NULL: not a direct call */
int            kumi_tr_is_memintr(const char *n);
LLVMValueRef   kumi_tr_strip_casts(LLVMValueRef p);
/* Where an address may go: kumi_tr_addr_walk follows the address a through
 * GEPs, casts, phis and selects and calls policy for each call that uses
 * it. The policy returns one of these and may set *follow to a result to
 * walk as well (a call returning a pointer into its argument: strchr). */
enum kumi_tr_use { KUMI_TR_USE_OK, KUMI_TR_USE_ESCAPES, KUMI_TR_USE_STOP };
typedef enum kumi_tr_use (*kumi_tr_call_policy)(LLVMValueRef call, LLVMValueRef v, LLVMValueRef *follow);
/* 1 when a escapes: stored as a value, an atomic's operand other than its
 * address, used by a non-instruction, by ptrtoint, ret or anything not
 * listed, or by a call the policy says lets it escape. A policy's STOP
 * ends the walk with *stopped set (then the result means nothing);
 * first_only: stop at the first escape. */
int kumi_tr_addr_walk(LLVMValueRef a, kumi_tr_call_policy policy, int first_only, int *stopped);
void kumi_tr_phi_retarget(struct kumi_tr *kt, LLVMBasicBlockRef S, LLVMBasicBlockRef from, LLVMBasicBlockRef to,
                          unsigned limit);
LLVMBasicBlockRef kumi_tr_block_after(struct kumi_tr *kt, LLVMBasicBlockRef after, const char *name);
LLVMBasicBlockRef kumi_tr_split_before(struct kumi_tr *kt, LLVMValueRef I, const char *name);

/* ------------------------------------------------------------ privacy.c */
int          kumi_tr_is_private(struct kumi_tr *kt, LLVMValueRef p, int depth);
LLVMValueRef kumi_tr_base_of(struct kumi_tr *kt, LLVMValueRef p, long *off);
LLVMValueRef kumi_tr_root_of(struct kumi_tr *kt, LLVMValueRef p);
/* a global the OpenMP pass moved (or, with --openmp, may have moved in
 * another module): its address may stand for DSM memory */
int          kumi_tr_global_shared(struct kumi_tr *kt, LLVMValueRef g);

/* ------------------------------------------------------------ checks.c */
enum { KUMI_TR_LOAD, KUMI_TR_STORE, KUMI_TR_ATOMIC, KUMI_TR_MEM, KUMI_TR_BARRIER };
struct kumi_tr_access { LLVMValueRef I; LLVMBasicBlockRef bb; int kind; };
void         kumi_tr_checks_insert(struct kumi_tr *kt, const struct kumi_tr_access *acc, size_t nacc);
void         kumi_tr_batch_replace(struct kumi_tr *kt, LLVMValueRef old, LLVMValueRef nw);
LLVMValueRef kumi_tr_field_load(struct kumi_tr *kt, LLVMBuilderRef b, enum kumi_tr_field f, LLVMTypeRef ty);
LLVMValueRef kumi_tr_tick_ptr(struct kumi_tr *kt, LLVMBuilderRef b);
void         kumi_tr_poll_edge(struct kumi_tr *kt, LLVMValueRef term, unsigned idx);

/* ------------------------------------------------------------ versions.c */
struct kumi_tr_backedge { LLVMValueRef term; unsigned k; };   /* term's successor k */
/* before any check goes in: the unchecked copies of the innermost loops
 * among the back edges */
void kumi_tr_versions_make(struct kumi_tr *kt, LLVMValueRef fn, const struct kumi_tr_backedge *back, size_t nback);
/* after the checks and polls: the tests' fields from the shadows, and
 * each test charges its loop's iterations to the poll counter */
void kumi_tr_versions_finish(struct kumi_tr *kt);

/* ------------------------------------------------------------ gate.c */
/* after fn is instrumented: an unchecked copy of it, run while no DSM
 * region exists (kumi_dsm_g.size == 0) */
void kumi_tr_gate(struct kumi_tr *kt, LLVMValueRef fn);
/* after every function: calls in the copies go to the copies */
void kumi_tr_gate_finish(struct kumi_tr *kt);
int  kumi_tr_gate_is_twin(LLVMValueRef fn);   /* an unchecked copy: not to translate */

/* ------------------------------------------------------------ function.c */
void kumi_tr_function(struct kumi_tr *kt, LLVMValueRef fn);

#endif /* KUMI_TRANSLATE_H */
