/*
 * teams.c -- OpenSHMEM teams on kumi teams: the predefined teams
 * (SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED), splits, queries, PE translation,
 * team contexts, and the binding's init/fini hooks for teams.
 *
 * A split is one kumi collective over the parent (kumi_team_create with
 * the triplet's parent ranks, kumi_team_split for the 2d axes), so when
 * kumi runs out of team slots every member of the parent fails the same
 * call. PEs outside a new team get SHMEM_TEAM_INVALID (kumi's handle for
 * them, rank -1, is freed at once). SHMEM_TEAM_SHARED is what the spec
 * asks of it, the PEs whose memory every member reaches by load/store
 * (shmem_ptr not NULL): the PEs of this node (kumi_pe_node) where the
 * transport maps them (shm), this PE alone where it does not (tcp).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_team.h"

struct kumi_shmem_team kumi_shmem_team_world;
struct kumi_shmem_team kumi_shmem_team_shared;

/* Teams alive on this PE other than the world, oldest first (SHARED is
 * the first). Guarded by kumi_shmem_team_lock, as are the teams' context
 * lists (threads may create and destroy contexts at once). */
static struct kumi_shmem_team *kumi_shmem_teams_head, *kumi_shmem_teams_tail;
static pthread_mutex_t         kumi_shmem_team_lock = PTHREAD_MUTEX_INITIALIZER;

#define KUMI_SHMEM_TEAM_MASKS SHMEM_TEAM_NUM_CONTEXTS

/* ------------------------------------------------------------- helpers */

struct kumi_shmem_team *kumi_shmem_team_get(const char *call, shmem_team_t team)
{
    if (kumi_shmem_check_init(call) != 0)
        return NULL;
    if (team == SHMEM_TEAM_INVALID) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "team is SHMEM_TEAM_INVALID");
        return NULL;
    }
    return (struct kumi_shmem_team *)team;
}

int kumi_shmem_bytes_overflow(const char *call, size_t nelems, size_t size)
{
    return kumi_shmem_error(KUMI_ERR_INVALID, call, "%zu elements of %zu bytes overflow",
                            nelems, size);
}

kumi_team_t kumi_shmem_team_kumi(shmem_team_t team)
{
    struct kumi_shmem_team *t = kumi_shmem_team_peek(team);
    return t != NULL ? t->kt : NULL;
}

static void kumi_shmem_team_link(struct kumi_shmem_team *t)
{
    pthread_mutex_lock(&kumi_shmem_team_lock);
    t->next = NULL;
    t->prev = kumi_shmem_teams_tail;
    if (kumi_shmem_teams_tail != NULL)
        kumi_shmem_teams_tail->next = t;
    else
        kumi_shmem_teams_head = t;
    kumi_shmem_teams_tail = t;
    pthread_mutex_unlock(&kumi_shmem_team_lock);
}

static void kumi_shmem_team_unlink(struct kumi_shmem_team *t)
{
    pthread_mutex_lock(&kumi_shmem_team_lock);
    if (t->prev != NULL)
        t->prev->next = t->next;
    else
        kumi_shmem_teams_head = t->next;
    if (t->next != NULL)
        t->next->prev = t->prev;
    else
        kumi_shmem_teams_tail = t->prev;
    t->prev = t->next = NULL;
    pthread_mutex_unlock(&kumi_shmem_team_lock);
}

/* The configuration a split asks for, checked: 0, or nonzero after a
 * message. Defaults where the mask leaves a field out. */
static int kumi_shmem_team_config(const char *call, const shmem_team_config_t *config,
                                  long mask, shmem_team_config_t *out)
{
    memset(out, 0, sizeof(*out));
    if ((mask & ~(long)KUMI_SHMEM_TEAM_MASKS) != 0)
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "config mask 0x%lx has unknown bits "
                                "0x%lx (SHMEM_TEAM_NUM_CONTEXTS is the only one)",
                                (unsigned long)mask,
                                (unsigned long)(mask & ~(long)KUMI_SHMEM_TEAM_MASKS));
    if (mask != 0 && config == NULL)
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "config is NULL with mask 0x%lx",
                                (unsigned long)mask);
    if (mask & SHMEM_TEAM_NUM_CONTEXTS) {
        if (config->num_contexts < 0)
            return kumi_shmem_error(KUMI_ERR_INVALID, call, "config num_contexts %d is "
                                    "negative", config->num_contexts);
        out->num_contexts = config->num_contexts;
    }
    return 0;
}

static void kumi_shmem_team_fill(struct kumi_shmem_team *t, kumi_team_t kt, int predefined,
                                 const shmem_team_config_t *config, long mask)
{
    t->kt          = kt;
    t->my_pe       = kumi_team_rank(kt);
    t->n_pes       = kumi_team_size(kt);
    t->predefined  = predefined;
    t->config      = *config;
    t->config_mask = mask;
    t->ctx         = NULL;
    t->nctx        = 0;
    t->ctx_cap     = 0;
}

/* Wraps the kumi team kt of a split: SHMEM_TEAM_INVALID on non-members
 * (kt freed), else a new team. 0, or nonzero when memory is short. */
static int kumi_shmem_team_adopt(const char *call, kumi_team_t kt,
                                 const shmem_team_config_t *config, long mask,
                                 shmem_team_t *out)
{
    struct kumi_shmem_team *t;

    if (kumi_team_rank(kt) < 0) {
        kumi_team_destroy(kt);          /* not a member: only frees the handle */
        *out = SHMEM_TEAM_INVALID;
        return 0;
    }
    t = calloc(1, sizeof(*t));
    if (t == NULL) {
        /* the other members hold the team and may use it: kt stays (its
         * destruction would be collective), this PE just cannot */
        *out = SHMEM_TEAM_INVALID;
        return kumi_shmem_error(KUMI_ERR_NOMEM, call, "out of memory for a team");
    }
    kumi_shmem_team_fill(t, kt, 0, config, mask);
    kumi_shmem_team_link(t);
    *out = t;
    return 0;
}

/* Destroys the contexts still made on t (shmem_ctx_destroy each, which no
 * longer finds them in t's list). */
static void kumi_shmem_team_drop_ctx(struct kumi_shmem_team *t)
{
    shmem_ctx_t *ctx;
    int          n;

    pthread_mutex_lock(&kumi_shmem_team_lock);
    ctx    = t->ctx;
    n      = t->nctx;
    t->ctx = NULL;
    t->nctx = t->ctx_cap = 0;
    pthread_mutex_unlock(&kumi_shmem_team_lock);
    for (int i = 0; i < n; i++)
        shmem_ctx_destroy(ctx[i]);
    free(ctx);
}

/* Destroys a split team (collective over its members). */
static void kumi_shmem_team_free(struct kumi_shmem_team *t)
{
    kumi_shmem_team_drop_ctx(t);
    kumi_shmem_team_unlink(t);
    kumi_team_destroy(t->kt);
    if (t != &kumi_shmem_team_shared)
        free(t);
}

/* ------------------------------------------------------- init and fini */

/* Does this PE map the memory of every other PE of its node? */
static int kumi_shmem_maps_node(int me)
{
    struct kumi_tp *tp = &kumi_rt.tp;

    for (int pe = 0; pe < kumi_rt.size; pe++)
        if (pe != me && kumi_pe_node(pe) == kumi_pe_node(me)
            && kumi_tp_peer_ptr(tp, pe, KUMI_SEG_HEAP, 0) == NULL)
            return 0;
    return 1;
}

int kumi_shmem_coll_init(void)
{
    static const shmem_team_config_t defaults = { 0 };
    kumi_team_t                      shared;
    int                              me = kumi_rank(), rc, color;

    kumi_shmem_team_fill(&kumi_shmem_team_world, kumi_team_world(), 1, &defaults, 0);
    /* the PEs of my node (colors 0..nodes-1) where they are mapped, else
     * me alone (a color no other PE has), ranked as in the world */
    color = kumi_shmem_maps_node(me) ? kumi_pe_node(me) : kumi_node_count() + me;
    rc    = kumi_team_split(kumi_team_world(), color, me, &shared);
    if (rc != KUMI_OK)
        return kumi_shmem_error(rc, "shmem_init", "cannot make SHMEM_TEAM_SHARED");
    kumi_shmem_team_fill(&kumi_shmem_team_shared, shared, 1, &defaults, 0);
    kumi_shmem_team_link(&kumi_shmem_team_shared);
    return 0;
}

void kumi_shmem_coll_fini(void)
{
    struct kumi_shmem_team *t;

    /* newest first: every member of a team made it after the teams it
     * shares members with that are older, so all agree on this order */
    while ((t = kumi_shmem_teams_tail) != NULL)
        kumi_shmem_team_free(t);
    memset(&kumi_shmem_team_world, 0, sizeof(kumi_shmem_team_world));
    memset(&kumi_shmem_team_shared, 0, sizeof(kumi_shmem_team_shared));
}

/* --------------------------------------------------------------- queries */

int shmem_team_my_pe(shmem_team_t team)
{
    struct kumi_shmem_team *t = kumi_shmem_team_peek(team);
    return t != NULL ? t->my_pe : -1;
}

int shmem_team_n_pes(shmem_team_t team)
{
    struct kumi_shmem_team *t = kumi_shmem_team_peek(team);
    return t != NULL ? t->n_pes : -1;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    static const char       call[] = "shmem_team_get_config";
    struct kumi_shmem_team *t      = kumi_shmem_team_peek(team);

    if (t == NULL)
        return -1;
    if (config == NULL) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "config is NULL");
        return -1;
    }
    if ((config_mask & ~(long)KUMI_SHMEM_TEAM_MASKS) != 0) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "config mask 0x%lx has unknown bits",
                         (unsigned long)config_mask);
        return -1;
    }
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = t->config.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    struct kumi_shmem_team *s = kumi_shmem_team_peek(src_team);
    struct kumi_shmem_team *d = kumi_shmem_team_peek(dest_team);
    int                     pe;

    if (s == NULL || d == NULL || src_pe < 0 || src_pe >= s->n_pes)
        return -1;
    pe = kumi_team_pe(s->kt, src_pe);
    if (d == &kumi_shmem_team_world)
        return pe;
    /* team ranks follow the parent's order (or its reverse, for negative
     * strides): no order to search by, but teams are small next to the
     * calls that use them */
    for (int r = 0; r < d->n_pes; r++)
        if (d->kt->pes[r] == pe)
            return r;
    return -1;
}

/* ---------------------------------------------------------------- splits */

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    static const char       call[] = "shmem_team_split_strided";
    struct kumi_shmem_team *p;
    shmem_team_config_t     cfg;
    kumi_team_t             kt;
    long long               last;
    int                    *ranks, rc;

    if (new_team == NULL) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "new_team is NULL");
        return -1;
    }
    *new_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID)
        return -1;                       /* the spec: no team, nonzero */
    if (kumi_shmem_check_init(call) != 0)
        return -1;
    p    = (struct kumi_shmem_team *)parent_team;
    last = (long long)start + (long long)stride * (long long)(size - 1);
    if (size < 1 || start < 0 || start >= p->n_pes || last < 0 || last >= p->n_pes
        || (stride == 0 && size != 1)) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "start %d, stride %d, size %d do not name "
                         "PEs of the parent team (%d PEs)", start, stride, size, p->n_pes);
        return -1;
    }
    if (kumi_shmem_team_config(call, config, config_mask, &cfg) != 0)
        return -1;
    ranks = malloc((size_t)size * sizeof(int));
    if (ranks == NULL) {
        kumi_shmem_error(KUMI_ERR_NOMEM, call, "out of memory");
        return -1;
    }
    for (int i = 0; i < size; i++)
        ranks[i] = start + i * stride;
    rc = kumi_team_create(p->kt, ranks, size, &kt);
    free(ranks);
    if (rc != KUMI_OK)
        return -1;                       /* kumi said why; every member fails alike */
    return kumi_shmem_team_adopt(call, kt, &cfg, config_mask, new_team) == 0 ? 0 : -1;
}

/* One axis of a 2d split: the members of the parent with the same color,
 * ranked by key. A PE whose configuration is bad stays out (its whole
 * axis team has the same configuration, so it stays out alike). */
static int kumi_shmem_team_axis(const char *call, struct kumi_shmem_team *p, int color, int key,
                                const shmem_team_config_t *config, long mask, shmem_team_t *out)
{
    shmem_team_config_t cfg;
    kumi_team_t         kt;
    int                 ok = kumi_shmem_team_config(call, config, mask, &cfg) == 0;

    if (kumi_team_split(p->kt, ok ? color : -1, key, &kt) != KUMI_OK)
        return -1;
    if (kumi_shmem_team_adopt(call, kt, &cfg, mask, out) != 0)
        return -1;
    return ok && *out != SHMEM_TEAM_INVALID ? 0 : -1;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    static const char       call[] = "shmem_team_split_2d";
    struct kumi_shmem_team *p;
    int                     x, y, rx, ry;

    if (xaxis_team == NULL || yaxis_team == NULL) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "xaxis_team or yaxis_team is NULL");
        return -1;
    }
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID)
        return -1;
    if (kumi_shmem_check_init(call) != 0)
        return -1;
    p = (struct kumi_shmem_team *)parent_team;
    if (xrange < 1) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "xrange %d is not positive", xrange);
        return -1;
    }
    /* (x, y) = (pe mod xrange, pe div xrange); an xrange beyond the parent
     * gives one row of all of it */
    x  = p->my_pe % xrange;
    y  = p->my_pe / xrange;
    rx = kumi_shmem_team_axis(call, p, y, x, xaxis_config, xaxis_mask, xaxis_team);
    ry = kumi_shmem_team_axis(call, p, x, y, yaxis_config, yaxis_mask, yaxis_team);
    return rx == 0 && ry == 0 ? 0 : -1;
}

void shmem_team_destroy(shmem_team_t team)
{
    static const char       call[] = "shmem_team_destroy";
    struct kumi_shmem_team *t;

    if (team == SHMEM_TEAM_INVALID)
        return;                          /* the spec: no operation */
    if (kumi_shmem_check_init(call) != 0)
        return;
    t = (struct kumi_shmem_team *)team;
    if (t->predefined) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "%s cannot be destroyed",
                         t == &kumi_shmem_team_world ? "SHMEM_TEAM_WORLD" : "SHMEM_TEAM_SHARED");
        return;
    }
    kumi_shmem_team_free(t);
}

/* -------------------------------------------------------------- contexts */

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    static const char       call[] = "shmem_team_create_ctx";
    struct kumi_shmem_team *t;

    if (ctx == NULL) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "ctx is NULL");
        return -1;
    }
    *ctx = SHMEM_CTX_INVALID;
    if (team == SHMEM_TEAM_INVALID)
        return -1;                       /* the spec: nonzero, ctx invalid */
    if (kumi_shmem_ctx_new(call, team, options, ctx) != 0)
        return -1;
    t = (struct kumi_shmem_team *)team;
    if (t == &kumi_shmem_team_world)
        return 0;                        /* world contexts are shmem_ctx_create's */
    pthread_mutex_lock(&kumi_shmem_team_lock);
    if (t->nctx == t->ctx_cap) {
        int          cap = t->ctx_cap ? 2 * t->ctx_cap : 4;
        shmem_ctx_t *a   = realloc(t->ctx, (size_t)cap * sizeof(*a));
        if (a == NULL) {
            pthread_mutex_unlock(&kumi_shmem_team_lock);
            shmem_ctx_destroy(*ctx);
            *ctx = SHMEM_CTX_INVALID;
            kumi_shmem_error(KUMI_ERR_NOMEM, call, "out of memory");
            return -1;
        }
        t->ctx     = a;
        t->ctx_cap = cap;
    }
    t->ctx[t->nctx++] = *ctx;
    pthread_mutex_unlock(&kumi_shmem_team_lock);
    return 0;
}

void kumi_shmem_team_ctx_gone(shmem_ctx_t ctx)
{
    struct kumi_shmem_team *t = (struct kumi_shmem_team *)ctx->team;

    if (t == NULL)
        return;
    pthread_mutex_lock(&kumi_shmem_team_lock);
    for (int i = 0; i < t->nctx; i++)
        if (t->ctx[i] == ctx) {
            t->ctx[i] = t->ctx[--t->nctx];
            break;
        }
    pthread_mutex_unlock(&kumi_shmem_team_lock);
}
