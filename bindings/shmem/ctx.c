/*
 * ctx.c -- communication contexts, ordering (fence, quiet), the argument
 * checks every RMA call falls back to when its fast test fails, and the
 * deprecated cache calls.
 *
 * kumi completes and orders per PE, not per context, so a context is a
 * team (how its PE numbers translate to world PEs) plus the options it was
 * made with: fence and quiet on any context order and complete everything
 * this PE issued, which is what each context needs and more. The options
 * are hints kumi does not need (PRIVATE, SERIALIZED: no per-context
 * resources to share; NOSTORE: quiet still completes stores).
 */
#include <stdlib.h>

#include "shmem_impl.h"

struct kumi_shmem_ctx kumi_shmem_ctx_default = {
    .options    = 0,
    .team       = SHMEM_TEAM_WORLD,
    .pes        = NULL,
    .npes       = 0,           /* set by shmem_init */
    .is_default = 1,
};

#define KUMI_SHMEM_CTX_OPTIONS (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE)

int kumi_shmem_ctx_new(const char *call, shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    struct kumi_shmem_ctx *c;
    kumi_team_t            kt = NULL;

    if (ctx == NULL)
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "ctx is NULL");
    *ctx = SHMEM_CTX_INVALID;
    if (kumi_shmem_check_init(call) != 0)
        return KUMI_ERR_STATE;
    if ((options & ~KUMI_SHMEM_CTX_OPTIONS) != 0)
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "options 0x%lx: unknown bits 0x%lx "
                                "(SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE)",
                                (unsigned long)options,
                                (unsigned long)(options & ~KUMI_SHMEM_CTX_OPTIONS));
    if (team != SHMEM_TEAM_WORLD) {
        kt = team != SHMEM_TEAM_INVALID ? kumi_shmem_team_kumi(team) : NULL;
        if (kt == NULL || kumi_team_rank(kt) < 0)
            return kumi_shmem_error(KUMI_ERR_INVALID, call, "team %p is not a valid team of "
                                    "this PE", (void *)team);
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return kumi_shmem_error(KUMI_ERR_NOMEM, call, "out of memory for a context");
    c->options = options;
    c->team    = team;
    if (kt == NULL || kt == kumi_team_world()) {
        c->pes  = NULL;
        c->npes = kumi_shmem.n_pes;
    } else {
        c->pes  = kt->pes;
        c->npes = kt->size;
    }
    *ctx = c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return kumi_shmem_ctx_new("shmem_ctx_create", SHMEM_TEAM_WORLD, options, ctx) == 0 ? 0 : -1;
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    static const char call[] = "shmem_ctx_destroy";

    if (ctx == SHMEM_CTX_INVALID)
        return;                                  /* the spec: no effect */
    if (kumi_shmem_check_init(call) != 0)
        return;
    if (ctx->is_default) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "SHMEM_CTX_DEFAULT cannot be destroyed");
        return;
    }
    /* destroying completes the context's operations (an implicit quiet) */
    kumi_shmem_status(call, kumi_tp_quiet(&kumi_rt.tp));
    if (ctx->team != SHMEM_TEAM_WORLD)
        kumi_shmem_team_ctx_gone(ctx);   /* its team stops tracking it */
    free(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    static const char call[] = "shmem_ctx_get_team";

    if (team == NULL) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "team is NULL");
        return -1;
    }
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    if (kumi_shmem_check_init(call) != 0)
        return -1;
    *team = ctx->team;
    return 0;
}

/* ---------------------------------------------------------------- ordering */

static inline void kumi_shmem_order(const char *call, shmem_ctx_t ctx, int quiet)
{
    if (KUMI_SHMEM_UNLIKELY(kumi_rt.state != 1 || ctx == SHMEM_CTX_INVALID)) {
        if (kumi_shmem_check_init(call) == 0)
            kumi_shmem_error(KUMI_ERR_INVALID, call, "ctx is SHMEM_CTX_INVALID");
        return;
    }
    int rc = quiet ? kumi_tp_quiet(&kumi_rt.tp) : kumi_tp_fence(&kumi_rt.tp);
    if (KUMI_SHMEM_UNLIKELY(rc != KUMI_OK))
        kumi_shmem_status(call, rc);
}

void shmem_fence(void)
{
    kumi_shmem_order("shmem_fence", SHMEM_CTX_DEFAULT, 0);
}

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    kumi_shmem_order("shmem_ctx_fence", ctx, 0);
}

void shmem_quiet(void)
{
    kumi_shmem_order("shmem_quiet", SHMEM_CTX_DEFAULT, 1);
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    kumi_shmem_order("shmem_ctx_quiet", ctx, 1);
}

/* ------------------------------------------------------------------ checks */

int kumi_shmem_bad_pe(const char *call, const struct kumi_shmem_ctx *ctx, int pe)
{
    if (ctx->pes == NULL)
        kumi_shmem_error(KUMI_ERR_INVALID, call, "pe %d out of range (size %d)", pe,
                         kumi_rt.size);
    else
        kumi_shmem_error(KUMI_ERR_INVALID, call, "pe %d out of range (the context's team: size "
                         "%d)", pe, ctx->npes);
    return -1;
}

/* The fast test of kumi_shmem_check failed: find out why, report it, or
 * finish the checks for a team context or an empty transfer. Returns 0
 * when the transfer should go ahead (t filled). */
int kumi_shmem_check_slow(const char *call, shmem_ctx_t ctx, const void *sym, size_t n,
                          const void *local, int pe, struct kumi_shmem_target *t)
{
    if (kumi_shmem_check_init(call) != 0)
        return -1;
    if (ctx == SHMEM_CTX_INVALID)
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "ctx is SHMEM_CTX_INVALID");
    t->pe = kumi_shmem_ctx_pe(call, ctx, pe);
    if (t->pe < 0)
        return -1;
    if (n == 0)
        return 1;                      /* nothing to move: not an error */
    if (local == NULL)
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "local buffer is NULL (%zu bytes)", n);
    return kumi_shmem_sym(call, sym, n, &t->seg, &t->off);
}

/* ----------------------------------------------------- deprecated: caches
 * kumi's memory is cache coherent: nothing to invalidate or flush. */
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) { (void)dest; }
