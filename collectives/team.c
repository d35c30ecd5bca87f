/*
 * team.c -- the collectives' per-team state (tree shape, barrier choice,
 * scratch layout), making and destroying teams, and the scratch flags the
 * large-data algorithms synchronize with.
 *
 * Making a team is collective over the parent: the members of the parent
 * OR together their masks of used team slots (one small allreduce on the
 * parent) and the new team takes the lowest slot free on all of them, so
 * its LLCM area and scratch are at the same offsets on every member.
 */
#include <stdlib.h>

#include "coll.h"

static void kumi_coll_team_free(struct kumi_team *team)
{
    free(team->coll);
    team->coll = NULL;
}

int kumi_coll_check_report(const char *call, struct kumi_team *team)
{
    int rc = kumi_rt_check_state(call);

    if (rc != KUMI_OK)
        return rc;
    if (team == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "team is NULL");
    if (team->rank < 0)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "PE %d is not a member of the team",
                             kumi_rt.rank);
    return KUMI_OK;
}

static int kumi_coll_radix(void)
{
    const char *llc = getenv(KUMI_ENV_LLC_CORES);
    int         r   = (int)kumi_rt.cfg.tree_radix;

    if (r >= 2)
        return r;
    /* oversubscribed, every tree level is another round of PEs taking turns
     * on a core: the flattest tree wins (measured at 8 PEs on 2 cores:
     * 8-byte allreduce 14-22 us with radix 8, 36-40 us with radix 2) */
    if (kumi_rt.wait_policy != KUMI_WAIT_SPIN)
        return 8;
    /* one node's children share a cache with it where the topology says
     * how many cores do; else DIMMnet-1's radix 8 */
    r = llc != NULL ? atoi(llc) : 0;
    return r >= 2 && r <= 8 ? r : 8;
}

int kumi_coll_barrier_calibrate(struct kumi_team *t, struct kumi_coll_team *st);

/* Which shm fast paths the team may take. A polled release works only if
 * every member maps team rank 0's LLCM area, and rank 0 must know it too
 * (it then stores instead of kicking), so the members agree on it over the
 * tree with kicks (one round, at the team's first collective): on a
 * transport that maps peers only in part, the team falls back to kicks as
 * a whole. Reading peers' heap in place is decided by each member alone. */
static int kumi_coll_mapping(const char *call, struct kumi_team *t, struct kumi_coll_team *st)
{
    void    *root = kumi_coll_peer_ptr(t, 0, KUMI_SEG_LLCM, t->llcm_off);
    uint64_t all  = root != NULL;
    int      rc   = KUMI_OK;

    st->peers_mapped = 1;
    for (int r = 0; r < t->size; r++)
        if (r != t->rank && kumi_coll_peer_ptr(t, r, KUMI_SEG_HEAP, st->data_off) == NULL)
            st->peers_mapped = 0;
    if (t->size > 1)
        rc = kumi_coll_tree_data(call, t, st, &all, sizeof(all),
                                 kumi_coll_op_lookup(KUMI_UINT64, KUMI_BAND), 1);
    st->root_llcm = rc == KUMI_OK && all ? root : NULL;
    return rc;
}

int kumi_coll_state_make(const char *call, struct kumi_team *team, struct kumi_coll_team **out)
{
    struct kumi_coll_team *st;
    size_t                 flags;
    int                    rc;

    st = calloc(1, sizeof(*st));
    if (st == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "no memory for collective state");
    kumi_rt_team_coll_free = kumi_coll_team_free;
    st->radix   = kumi_coll_radix();
    st->parent  = team->rank == 0 ? -1 : (team->rank - 1) / st->radix;
    st->index   = team->rank == 0 ? 0 : (team->rank - 1) % st->radix;
    st->child0  = team->rank * st->radix + 1;
    st->nchild  = team->size - st->child0;
    st->nchild  = st->nchild < 0 ? 0 : st->nchild > st->radix ? st->radix : st->nchild;
    st->child_mask = kumi_coll_byte_mask(st->nchild);
    st->small      = kumi_coll_small_algo(team);
    st->release = KUMI_RELEASE_KICK;   /* until the mapping is agreed */
    flags = ((size_t)KUMI_COLL_NFLAGS * (size_t)team->size * 8 + 63) & ~(size_t)63;
    st->flags_off  = team->scratch_off;
    st->data_off   = team->scratch_off + flags;
    st->data_bytes = flags < kumi_rt.cfg.coll_scratch ? (kumi_rt.cfg.coll_scratch - flags) & ~(size_t)63
                                                      : 0;
    if (st->data_bytes < 4096 * (size_t)team->size && team->size > 1) {
        free(st);
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "KUMI_COLL_SCRATCH=%zu is too small for a "
                             "team of %d", (size_t)kumi_rt.cfg.coll_scratch, team->size);
    }
    team->coll  = st;
    rc = kumi_coll_mapping(call, team, st);
    st->line    = kumi_coll_line_wanted(st);
    st->release = kumi_coll_release_for(st, kumi_rt.cfg.tree_release);
    st->barrier = kumi_rt.cfg.barrier;
    if (rc == KUMI_OK && st->barrier == KUMI_BARRIER_AUTO)
        rc = kumi_coll_barrier_calibrate(team, st);
    if (rc != KUMI_OK) {
        team->coll = NULL;
        free(st);
        return rc;
    }
    *out = st;
    return KUMI_OK;
}

/* ---------------------------------------------------------- scratch flags */

int kumi_coll_flag_set(struct kumi_team *t, struct kumi_coll_team *st, int f, int r, uint64_t v)
{
    struct kumi_tp *tp  = &kumi_rt.tp;
    size_t          off = st->flags_off + ((size_t)f * (size_t)t->size + (size_t)t->rank) * 8;
    int             rc  = tp->ops->fence(tp);

    /* one atomic store: a waiter never sees half a flag */
    return rc != KUMI_OK ? rc : tp->ops->atomic(tp, t->pes[r], KUMI_SEG_HEAP, off, KUMI_AMO_SWAP,
                                                8, v, 0, NULL);
}

int kumi_coll_flag_wait(const char *call, struct kumi_team *t, struct kumi_coll_team *st, int f,
                        int r, uint64_t v)
{
    size_t off = st->flags_off + ((size_t)f * (size_t)t->size + (size_t)r) * 8;
    return kumi_coll_wait(call, kumi_coll_heap(off), KUMI_CMP_GE, v);
}

int kumi_coll_exchange(const char *call, struct kumi_team *t, struct kumi_coll_team *st, int f,
                       uint64_t v)
{
    int rc = KUMI_OK;

    for (int k = 1; k < t->size && rc == KUMI_OK; k++)
        rc = kumi_coll_flag_set(t, st, f, (t->rank + k) % t->size, v);
    for (int k = 1; k < t->size && rc == KUMI_OK; k++)
        rc = kumi_coll_flag_wait(call, t, st, f, (t->rank + k) % t->size, v);
    return rc;
}

const void *kumi_coll_peer_data(struct kumi_team *t, int r, size_t off, size_t n, void *tmp,
                                int *rc)
{
    struct kumi_tp *tp = &kumi_rt.tp;
    void           *p  = r == t->rank ? kumi_coll_heap(off)
                                      : kumi_coll_peer_ptr(t, r, KUMI_SEG_HEAP, off);

    *rc = KUMI_OK;
    if (p != NULL)
        return p;
    *rc = tp->ops->get(tp, tmp, t->pes[r], KUMI_SEG_HEAP, off, n);
    return tmp;
}

/* ------------------------------------------------------------ make/destroy */

static int kumi_team_make(const char *call, struct kumi_team *parent, int *ranks, int n,
                          struct kumi_team **out)
{
    struct kumi_team *t;
    uint64_t          used = kumi_rt.team_slots_used, all = 0;
    int               rc, me = -1, slot = -1;

    /* every member of the parent takes part, whatever its role */
    rc = kumi_allreduce(parent, &all, &used, 1, KUMI_UINT64, KUMI_BOR);
    if (rc != KUMI_OK) {
        free(ranks);
        return rc;
    }
    for (int s = 1; s < kumi_rt.team_slots; s++)
        if (!(all & (1ull << s))) {
            slot = s;
            break;
        }
    if (slot < 0) {
        free(ranks);
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "too many teams at once (%d slots; "
                             "destroy some, or raise KUMI_LLCM_SIZE)", kumi_rt.team_slots);
    }
    t = calloc(1, sizeof(*t));
    if (t == NULL) {
        free(ranks);
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "no memory for a team");
    }
    for (int i = 0; i < n; i++) {
        if (ranks[i] == parent->rank)
            me = i;
        ranks[i] = parent->pes[ranks[i]];      /* parent rank -> world PE */
    }
    t->pes  = ranks;
    t->size = n;
    t->rank = me;
    t->slot = -1;
    if (me >= 0) {
        kumi_rt_team_bind_slot(t, slot);
        /* fresh LLCM words: the slot's previous team may have left values */
        memset((void *)kumi_coll_llcm(t, 0), 0, KUMI_TEAM_LLCM_BYTES);
        memset(kumi_coll_heap(t->scratch_off), 0, (size_t)KUMI_COLL_NFLAGS * (size_t)n * 8);
    }
    /* nobody may use the new slot before every member has cleared it */
    rc = kumi_barrier(parent);
    if (rc != KUMI_OK) {
        kumi_rt_team_release_slot(t);
        free(t->pes);
        free(t);
        return rc;
    }
    *out = t;
    return KUMI_OK;
}

int kumi_team_split_strided(kumi_team_t parent, int start, int stride, int size, kumi_team_t *out)
{
    static const char call[] = "kumi_team_split_strided";
    int               rc = kumi_coll_check(call, parent), *ranks;

    if (rc != KUMI_OK)
        return rc;
    if (out == NULL || size < 1 || stride < 1 || start < 0 || start >= parent->size
        || (size - 1) > (parent->size - 1 - start) / stride)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "start %d, stride %d, size %d do not fit "
                             "a parent of %d (or out is NULL)", start, stride, size,
                             parent->size);
    ranks = malloc((size_t)size * sizeof(int));
    if (ranks == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "no memory");
    for (int i = 0; i < size; i++)
        ranks[i] = start + i * stride;
    return kumi_team_make(call, parent, ranks, size, out);
}

int kumi_team_create(kumi_team_t parent, const int *pes, int n, kumi_team_t *out)
{
    static const char call[] = "kumi_team_create";
    int               rc = kumi_coll_check(call, parent), *ranks;
    uint8_t          *seen;

    if (rc != KUMI_OK)
        return rc;
    if (out == NULL || pes == NULL || n < 1 || n > parent->size)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "need 1..%d parent ranks (got %d) and "
                             "non-NULL pes and out", parent->size, n);
    seen  = calloc((size_t)parent->size, 1);
    ranks = malloc((size_t)n * sizeof(int));
    if (seen == NULL || ranks == NULL) {
        free(seen);
        free(ranks);
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "no memory");
    }
    for (int i = 0; i < n; i++) {
        if (pes[i] < 0 || pes[i] >= parent->size || seen[pes[i]]) {
            rc = kumi_rt_error(KUMI_ERR_INVALID, call, "pes[%d] = %d is out of range (parent "
                               "size %d) or listed twice", i, pes[i], parent->size);
            free(seen);
            free(ranks);
            return rc;
        }
        seen[pes[i]] = 1;
        ranks[i]     = pes[i];
    }
    free(seen);
    return kumi_team_make(call, parent, ranks, n, out);
}

int kumi_team_destroy(kumi_team_t t)
{
    static const char call[] = "kumi_team_destroy";
    int               rc = KUMI_OK;

    if (kumi_rt_check_state(call) != KUMI_OK)
        return KUMI_ERR_STATE;
    if (t == NULL || t == &kumi_rt.world)
        return kumi_rt_error(KUMI_ERR_INVALID, call, t == NULL ? "team is NULL"
                             : "the world team cannot be destroyed");
    /* members leave together, so no one still writes into a slot that a
     * later team may take */
    if (t->rank >= 0)
        rc = kumi_barrier(t);
    kumi_rt_team_release_slot(t);
    free(t->pes);
    free(t);
    return rc;
}
