/*
 * shmem_impl.h -- the OpenSHMEM binding's internal header: state shared by
 * its files (setup.c, memory.c, rma.c, ctx.c, env.c and the atomics and
 * collectives files), the context struct, and the helpers every file uses
 * to check arguments and report errors.
 *
 * The binding sits on kumi's runtime: it may use runtime/rt.h (kumi_rt,
 * the transport table, kumi_rt_error), so the fast paths go straight
 * through the transport table with the same checks kumi_put makes, and
 * every message names the shmem_ call the user made, never a kumi_ one.
 *
 * Ownership: shmem-core (this file, setup/memory/rma/ctx/env), shmem-amo
 * (atomics, point-to-point synchronization, locks), shmem-coll (teams,
 * collectives, reductions; its own internal header defines struct
 * kumi_shmem_team). What each provides the others is declared here.
 */
#ifndef KUMI_SHMEM_IMPL_H
#define KUMI_SHMEM_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "shmem.h"
#include "rt.h"

#define KUMI_SHMEM_LIKELY(x)   __builtin_expect(!!(x), 1)
#define KUMI_SHMEM_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* the fast paths: inlined into each of the hundreds of typed calls */
#define KUMI_SHMEM_INLINE      static inline __attribute__((always_inline))

/* ----------------------------------------------------------- global state */
struct kumi_shmem_state {
    int state;          /* 0 never initialized, 1 running, 2 finalized   */
    int thread_level;   /* SHMEM_THREAD_* provided                       */
    int my_pe, n_pes;   /* cached at init (shmem_my_pe is a load)        */
    int exiting;        /* shmem_global_exit in progress: no finalize    */
    int debug;          /* SHMEM_DEBUG: extra messages on stderr         */
};
extern struct kumi_shmem_state kumi_shmem;

/* ---------------------------------------------------------------- contexts
 * A context names a team (its PE numbers are that team's ranks) and the
 * options it was made with. kumi orders and completes per PE, not per
 * context: fence and quiet on any context order/complete everything this
 * PE issued (stronger than required, never weaker). pes == NULL means the
 * world team: PE numbers are world PEs as they are. */
struct kumi_shmem_ctx {
    long          options;     /* SHMEM_CTX_PRIVATE | SERIALIZED | NOSTORE */
    shmem_team_t  team;
    const int    *pes;         /* team rank -> world PE; NULL: identity   */
    int           npes;        /* team size (PE numbers must be below)    */
    int           is_default;  /* SHMEM_CTX_DEFAULT: never destroyed      */
};

/* SHMEM_CTX_DEFAULT (shmem.h: the address of this object) */
extern struct kumi_shmem_ctx kumi_shmem_ctx_default;

/* Makes a context on team for shmem_ctx_create (team = world) and
 * shmem-coll's shmem_team_create_ctx. 0 and *ctx on success; nonzero (and
 * *ctx = SHMEM_CTX_INVALID) when team is invalid or memory is short. call
 * names the public function for messages. */
int kumi_shmem_ctx_new(const char *call, shmem_team_t team, long options, shmem_ctx_t *ctx);

/* ----------------------------------------------- what shmem-coll provides
 * teams.c defines the predefined team objects and these functions.
 *   kumi_shmem_coll_init: from shmem_init after kumi_init (world, shared,
 *     anything the collectives need); nonzero fails shmem_init.
 *   kumi_shmem_coll_fini: from shmem_finalize before kumi_finalize.
 *   kumi_shmem_team_kumi: the kumi team behind a SHMEM team, NULL for
 *     SHMEM_TEAM_INVALID or a handle this PE is not a member of. */
int         kumi_shmem_coll_init(void);
void        kumi_shmem_coll_fini(void);
kumi_team_t kumi_shmem_team_kumi(shmem_team_t team);
/*   kumi_shmem_team_ctx_gone: shmem_ctx_destroy calls it (before freeing)
 *     for a context whose team is not SHMEM_TEAM_WORLD, so that team stops
 *     tracking it (shmem_team_destroy destroys the contexts still alive). */
void        kumi_shmem_team_ctx_gone(shmem_ctx_t ctx);

/* ----------------------------------------------------- errors and checks */

/* "kumi[pe]: call: what" on stderr (kumi_rt_error). Returns status. */
#define kumi_shmem_error(status, call, ...) kumi_rt_error((status), (call), __VA_ARGS__)

/* Reports and returns nonzero unless shmem_init has run (and finalize not). */
int kumi_shmem_state_error(const char *call);
static inline int kumi_shmem_check_init(const char *call)
{
    return KUMI_SHMEM_LIKELY(kumi_shmem.state == 1 && kumi_rt.state == 1)
               ? 0 : kumi_shmem_state_error(call);
}

/* A transport's status turned into one message (KUMI_ERR_PEER names the
 * failed PE); returns rc. */
int kumi_shmem_status(const char *call, int rc);

/* World PE of ctx-relative pe, or -1 after reporting (out of range). */
int kumi_shmem_bad_pe(const char *call, const struct kumi_shmem_ctx *ctx, int pe);
static inline int kumi_shmem_ctx_pe(const char *call, const struct kumi_shmem_ctx *ctx, int pe)
{
    if (KUMI_SHMEM_LIKELY(ctx->pes == NULL)) {
        if (KUMI_SHMEM_LIKELY((unsigned)pe < (unsigned)kumi_rt.size))
            return pe;
    } else if ((unsigned)pe < (unsigned)ctx->npes) {
        return ctx->pes[pe];
    }
    return kumi_shmem_bad_pe(call, ctx, pe);
}

/* Segment and offset of the symmetric range [sym, sym+n) (heap, or static
 * data), or nonzero after reporting that it is not symmetric. */
static inline int kumi_shmem_sym(const char *call, const void *sym, size_t n,
                                 enum kumi_seg *seg, size_t *off)
{
    if (KUMI_SHMEM_LIKELY(kumi_rt_sym_lookup(sym, n, seg, off) == KUMI_OK))
        return 0;
    return kumi_rt_sym_error(call, sym, n);
}

/* Everything an RMA call checks before it moves data: state, ctx, pe (to
 * a world PE), the symmetric range, the local buffer. 0 and the target;
 * nonzero when there is nothing to do: an error (after one message) or
 * n == 0 (no message). */
struct kumi_shmem_target {
    int           pe;      /* world PE */
    enum kumi_seg seg;
    size_t        off;
};
int kumi_shmem_check_slow(const char *call, shmem_ctx_t ctx, const void *sym, size_t n,
                          const void *local, int pe, struct kumi_shmem_target *t);
KUMI_SHMEM_INLINE int kumi_shmem_check(const char *call, shmem_ctx_t ctx, const void *sym,
                                       size_t n, const void *local, int pe,
                                       struct kumi_shmem_target *t)
{
    /* SHMEM_CTX_DEFAULT (the calls without ctx) is a world context: the
     * compiler drops the two ctx tests for them */
    if (KUMI_SHMEM_UNLIKELY(kumi_rt.state != 1
                            || (ctx != SHMEM_CTX_DEFAULT && (ctx == NULL || ctx->pes != NULL))
                            || (unsigned)pe >= (unsigned)kumi_rt.size || n == 0
                            || local == NULL))
        return kumi_shmem_check_slow(call, ctx, sym, n, local, pe, t);
    t->pe = pe;
    if (KUMI_SHMEM_LIKELY(kumi_rt_sym_lookup(sym, n, &t->seg, &t->off) == KUMI_OK))
        return 0;
    return kumi_rt_sym_error(call, sym, n);
}

/* ------------------------------------------------------------ environment */
/* Reads SHMEM_* (env.c's table) and sets the runtime's KUMI_* defaults for
 * SHMEM programs before kumi_init; prints SHMEM_VERSION / SHMEM_INFO after
 * it (PE 0). Nonzero after a message for a bad value. */
int  kumi_shmem_env_before_init(const char *call);
void kumi_shmem_env_after_init(void);

#endif /* KUMI_SHMEM_IMPL_H */
