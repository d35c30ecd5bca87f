/*
 * team.c -- the collectives' per-team state (tree shape, barrier choice,
 * scratch layout), making and destroying teams, and the scratch flags the
 * large-data algorithms synchronize with.
 *
 * Making a team is collective over the parent: the members of the parent
 * OR together their bitmaps of used team slots (one small allreduce on the
 * parent) and the new team takes the lowest slot free on all of them, so
 * its LLCM area is at the same offset on every member; teams made by one
 * split that share no member all take that slot. When no slot is free on
 * all of them, every member fails the same call, as they all see the same
 * bitmap.
 *
 * A team's heap scratch area is taken the same way, among its own members,
 * on its first collective that moves more than a line (the world's is
 * bound at init): a program with many teams commits scratch only for those
 * that move large data. A team that finds no area free on all its members
 * runs those collectives in small-data pieces and asks again next time.
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
    return kumi_rt_check_team(call, team);
}

static int kumi_coll_radix(void)
{
    const char *llc = getenv(KUMI_ENV_LLC_CORES);
    int         r   = (int)kumi_rt.cfg.tree_radix;

    if (r >= 2)
        return r;
    /* oversubscribed, every tree level is another round of PEs taking turns
     * on a core: the flattest tree wins (radix 8 about twice as fast as
     * radix 2 at 8 PEs on 2 cores: bench/README.md, "Measurements behind choices in the code") */
    if (kumi_rt.wait_policy != KUMI_WAIT_SPIN)
        return 8;
    /* one node's children share a cache with it where the topology says
     * how many cores do; else DIMMnet-1's radix 8 */
    r = llc != NULL ? atoi(llc) : 0;
    return r >= 2 && r <= 8 ? r : 8;
}

int kumi_coll_barrier_calibrate(struct kumi_team *t, struct kumi_coll_team *st);

/* The flag words and data area of the team's scratch area (bound). */
static int kumi_coll_scratch_layout(const char *call, struct kumi_team *team,
                                    struct kumi_coll_team *st)
{
    const size_t area  = kumi_rt.cfg.coll_scratch;
    const size_t flags = ((size_t)KUMI_COLL_NFLAGS * (size_t)team->size * 8 + 63) & ~(size_t)63;
    const size_t data  = flags < area ? (area - flags) & ~(size_t)63 : 0;

    if (data < 4096 * (size_t)team->size && team->size > 1)
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "KUMI_COLL_SCRATCH=%zu is too small for a "
                             "team of %d", area, team->size);
    st->flags_off  = team->scratch_off;
    st->data_off   = team->scratch_off + flags;
    st->data_bytes = data;
    return KUMI_OK;
}

int kumi_coll_scratch_take(const char *call, struct kumi_team *t, struct kumi_coll_team *st)
{
    static int            warned;
    uint64_t              all[KUMI_RT_TEAM_WORDS];
    struct kumi_coll_team probe = { 0 };
    int                   area = -1, rc;

    /* an area too small for the team is an error (the same everywhere)
     * before anything is taken */
    rc = kumi_coll_scratch_layout(call, t, &probe);
    if (rc == KUMI_OK)
        rc = kumi_allreduce(t, all, kumi_rt.scratch_used, KUMI_RT_TEAM_WORDS, KUMI_UINT64,
                            KUMI_BOR);
    if (rc != KUMI_OK)
        return rc;
    for (int a = 1; a < kumi_rt.scratch_areas && area < 0; a++)
        if (!kumi_rt_team_bit(all, a))
            area = a;
    if (area < 0) {   /* every member saw the same bitmap: all run in pieces */
        if (!warned && t->rank == 0)
            kumi_rt_log(KUMI_LOG_WARN, "%s: no collective scratch area is free on every "
                        "member of this team of %d (KUMI_COLL_SCRATCH_AREAS=%d, the world's "
                        "included): its large collectives move in %d-byte pieces until one "
                        "is", call, t->size, kumi_rt.scratch_areas, KUMI_COLL_SMALL);
        if (t->rank == 0)
            warned = 1;
        return KUMI_OK;
    }
    kumi_rt_team_bind_scratch(t, area);
    rc = kumi_coll_scratch_layout(call, t, st);
    if (rc != KUMI_OK)
        return rc;
    /* the area's last team may have left flags higher than this team's
     * steps: clear mine, and nobody sets them before all have cleared */
    memset(kumi_coll_heap(st->flags_off), 0, (size_t)KUMI_COLL_NFLAGS * (size_t)t->size * 8);
    return kumi_barrier(t);
}

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
        if (r != t->rank && kumi_coll_peer_ptr(t, r, KUMI_SEG_HEAP, kumi_rt.scratch_off) == NULL)
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
    /* the world's area is bound at init; other teams take one later
     * (kumi_coll_scratch) and until then have data_bytes 0 */
    if (team->scratch >= 0 && (rc = kumi_coll_scratch_layout(call, team, st)) != KUMI_OK) {
        free(st);
        return rc;
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

/* A team with its parent's members in the parent's order (a copy of the
 * world, say) takes the parent's decisions -- tree, barrier and release,
 * small-reduction algorithm, what is mapped -- instead of agreeing and
 * measuring again at its first collective (at 4 PEs on 2 cores that costs
 * tens of milliseconds per team): every member holds the same parent state,
 * agreed when it was made. Its sequences start at 0, and it has no scratch
 * area yet. A transport maps a peer's LLCM whole or not at all, so rank
 * 0's area of the new team is mapped wherever the parent's was. */
static void kumi_coll_state_inherit(struct kumi_team *t, const struct kumi_coll_team *from)
{
    struct kumi_coll_team *st = calloc(1, sizeof(*st));

    if (st == NULL)   /* measured at first use instead */
        return;
    st->barrier      = from->barrier;
    st->release      = from->release;
    st->radix        = from->radix;
    st->parent       = from->parent;
    st->child0       = from->child0;
    st->nchild       = from->nchild;
    st->index        = from->index;
    st->child_mask   = from->child_mask;
    st->small        = from->small;
    st->line         = from->line;
    st->peers_mapped = from->peers_mapped;
    st->root_llcm    = from->root_llcm == NULL ? NULL
                       : (volatile uint8_t *)kumi_coll_peer_ptr(t, 0, KUMI_SEG_LLCM, t->llcm_off);
    t->coll = st;
}

/* ---------------------------------------------------------- scratch flags */

int kumi_coll_flag_set(struct kumi_team *t, struct kumi_coll_team *st, int f, int r, uint64_t v)
{
    struct kumi_tp *tp  = &kumi_rt.tp;
    size_t          off = st->flags_off + ((size_t)f * (size_t)t->size + (size_t)t->rank) * 8;
    int             rc  = kumi_tp_fence(tp);

    /* one atomic store: a waiter never sees half a flag */
    return rc != KUMI_OK ? rc : kumi_tp_atomic(tp, t->pes[r], KUMI_SEG_HEAP, off, KUMI_AMO_SWAP,
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

/* ------------------------------------------------------------ streams */

void kumi_coll_stream_begin(struct kumi_coll_team *st, struct kumi_coll_stream *s, size_t blk,
                            size_t nb)
{
    s->blk    = blk;
    s->nslots = kumi_coll_half(st) / blk;
    s->first  = (size_t)(st->ring % s->nslots);
    s->nb     = nb;
    s->base   = st->step;
    st->step += nb;
    st->ring += nb;
}

int kumi_coll_flag_set_others(struct kumi_team *t, struct kumi_coll_team *st, int f,
                                     uint64_t v)
{
    struct kumi_tp *tp  = &kumi_rt.tp;
    size_t          off = st->flags_off + ((size_t)f * (size_t)t->size + (size_t)t->rank) * 8;
    int             rc  = kumi_tp_fence(tp);

    for (int k = 1; k < t->size && rc == KUMI_OK; k++)
        rc = kumi_tp_atomic(tp, t->pes[(t->rank + k) % t->size], KUMI_SEG_HEAP, off,
                            KUMI_AMO_SWAP, 8, v, 0, NULL);
    return rc;
}

int kumi_coll_stream_publish(struct kumi_team *t, struct kumi_coll_team *st,
                             const struct kumi_coll_stream *s, uint64_t desc)
{
    int rc = kumi_coll_flag_set_others(t, st, KUMI_COLL_FLAG_D, desc);

    /* in place, every block is there now; FLAG_A orders after FLAG_D */
    return rc == KUMI_OK && desc != 0
           ? kumi_coll_flag_set_others(t, st, KUMI_COLL_FLAG_A, s->base + s->nb) : rc;
}

static size_t kumi_coll_stream_slot_off(const struct kumi_coll_team *st,
                                        const struct kumi_coll_stream *s, size_t k)
{
    return st->data_off + ((s->first + k) % s->nslots) * s->blk;
}

int kumi_coll_stream_slot(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                          const struct kumi_coll_stream *s, size_t k, size_t *off)
{
    int rc = KUMI_OK;

    /* the block that was in this slot, k - nslots, must be out everywhere */
    for (int j = 1; k >= s->nslots && j < t->size && rc == KUMI_OK; j++)
        rc = kumi_coll_flag_wait(call, t, st, KUMI_COLL_FLAG_B, (t->rank + j) % t->size,
                                 s->base + k - s->nslots + 1);
    *off = kumi_coll_stream_slot_off(st, s, k);
    return rc;
}

int kumi_coll_stream_signal(struct kumi_team *t, struct kumi_coll_team *st,
                            const struct kumi_coll_stream *s, size_t k)
{
    return kumi_coll_flag_set_others(t, st, KUMI_COLL_FLAG_A, s->base + k + 1);
}

int kumi_coll_stream_wait(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                          const struct kumi_coll_stream *s, int r, size_t k, uint64_t *desc)
{
    int rc = kumi_coll_flag_wait(call, t, st, KUMI_COLL_FLAG_A, r, s->base + k + 1);

    /* written before FLAG_A, rewritten only after my last acknowledgement */
    *desc = __atomic_load_n((uint64_t *)kumi_coll_heap(
                                st->flags_off + ((size_t)KUMI_COLL_FLAG_D * (size_t)t->size
                                                 + (size_t)r) * 8),
                            __ATOMIC_ACQUIRE);
    return rc;
}

int kumi_coll_stream_read(struct kumi_team *t, const struct kumi_coll_team *st,
                          const struct kumi_coll_stream *s, int r, uint64_t desc, size_t k,
                          size_t buf_at, size_t slot_at, void *dst, size_t n)
{
    struct kumi_tp *tp  = &kumi_rt.tp;
    enum kumi_seg   seg = KUMI_SEG_HEAP;
    size_t          off = kumi_coll_stream_slot_off(st, s, k) + slot_at;
    const void     *p;

    if (desc != 0) {
        seg = (enum kumi_seg)((desc >> 56) - 1);
        off = (size_t)(desc & ((1ull << 56) - 1)) + buf_at;
    }
    if (n == 0)
        return KUMI_OK;
    if ((p = kumi_coll_peer_ptr(t, r, seg, off)) != NULL) {
        memcpy(dst, p, n);
        return KUMI_OK;
    }
    return kumi_tp_get(tp, dst, t->pes[r], seg, off, n);
}

int kumi_coll_stream_ack(struct kumi_team *t, struct kumi_coll_team *st,
                         const struct kumi_coll_stream *s, int r, uint64_t desc, size_t k)
{
    if (desc != 0 && k + 1 < s->nb)
        return KUMI_OK;
    return kumi_coll_flag_set(t, st, KUMI_COLL_FLAG_B, r, s->base + k + 1);
}

int kumi_coll_stream_end(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                         const struct kumi_coll_stream *s)
{
    int rc = KUMI_OK;

    for (int j = 1; j < t->size && rc == KUMI_OK; j++)
        rc = kumi_coll_flag_wait(call, t, st, KUMI_COLL_FLAG_B, (t->rank + j) % t->size,
                                 s->base + s->nb);
    return rc;
}

const void *kumi_coll_peer_seg_data(struct kumi_team *t, int r, uint64_t desc, size_t at,
                                    size_t n, void *tmp, int *rc)
{
    struct kumi_tp *tp  = &kumi_rt.tp;
    enum kumi_seg   seg = (enum kumi_seg)((desc >> 56) - 1);
    size_t          off = (size_t)(desc & ((1ull << 56) - 1)) + at;
    void           *p   = kumi_coll_peer_ptr(t, r, seg, off);

    *rc = KUMI_OK;
    if (p != NULL)
        return p;
    *rc = kumi_tp_get(tp, tmp, t->pes[r], seg, off, n);
    return tmp;
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
    *rc = kumi_tp_get(tp, tmp, t->pes[r], KUMI_SEG_HEAP, off, n);
    return tmp;
}

/* ------------------------------------------------------------ make/destroy */

/* Makes my handle of a new team whose members are the parent ranks
 * ranks[0..n) (taken over, freed on failure; n may be 0 where I am in no
 * team of this call). Every member of the parent calls it; members of
 * teams of one split pass different lists. */
static int kumi_team_make(const char *call, struct kumi_team *parent, int *ranks, int n,
                          struct kumi_team **out)
{
    struct kumi_team *t;
    uint64_t          all[KUMI_RT_TEAM_WORDS];
    int               rc, me = -1, slot = -1;

    /* every member of the parent takes part, whatever its role */
    rc = kumi_allreduce(parent, all, kumi_rt.team_slots_used, KUMI_RT_TEAM_WORDS, KUMI_UINT64,
                        KUMI_BOR);
    if (rc != KUMI_OK) {
        free(ranks);
        return rc;
    }
    for (int s = 1; s < kumi_rt.team_slots && slot < 0; s++)
        if (!kumi_rt_team_bit(all, s))
            slot = s;
    if (slot < 0) {
        /* the same bitmap everywhere: every member fails here; one says why */
        free(ranks);
        if (parent->rank == 0 && kumi_rt.team_slots < KUMI_TEAM_MAX)
            return kumi_rt_error(KUMI_ERR_NOMEM, call, "too many teams at once: all %d team "
                                 "slots (the world's included) are in use on some member of "
                                 "the parent; destroy teams or raise KUMI_LLCM_SIZE (one slot "
                                 "per 16k of it, %d from %dk)", kumi_rt.team_slots,
                                 KUMI_TEAM_MAX, KUMI_TEAM_MAX * 16);
        if (parent->rank == 0)
            return kumi_rt_error(KUMI_ERR_NOMEM, call, "too many teams at once: all %d team "
                                 "slots (KUMI_TEAM_MAX, the world's included) are in use on "
                                 "some member of the parent; destroy teams",
                                 kumi_rt.team_slots);
        if (kumi_rt.cfg.abort_on_error)
            kumi_rt_abort("too many teams at once");
        return KUMI_ERR_NOMEM;
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
    t->scratch = -1;
    if (me >= 0) {
        int same = n == parent->size;
        kumi_rt_team_bind_slot(t, slot);
        /* fresh LLCM words: the slot's previous team may have left values */
        memset((void *)kumi_coll_llcm(t, 0), 0, KUMI_TEAM_LLCM_BYTES);
        for (int i = 0; i < n && same; i++)
            same = t->pes[i] == parent->pes[i];
        /* the allreduce above made the parent's state on every member */
        if (same && parent->coll != NULL)
            kumi_coll_state_inherit(t, parent->coll);
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

/* My handle of a team of the world PEs pes[0..n) (copied) at team slot
 * slot, which its members agreed on among themselves (a binding's
 * members-only creation, MPI_Comm_create_group): no collective here. The
 * slot must be free here; its LLCM words are cleared, and the caller makes
 * sure no member uses the team before every member has returned from
 * this call (a barrier of the members' own). I must be one of pes. */
int kumi_coll_team_at(const char *call, const int *pes, int n, int slot, struct kumi_team **out)
{
    struct kumi_team *t;
    int               me = -1;

    if (slot < 1 || slot >= kumi_rt.team_slots || kumi_rt_team_bit(kumi_rt.team_slots_used, slot)
        || pes == NULL || n < 1 || out == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "team slot %d is not free here (or no "
                             "members)", slot);
    for (int i = 0; i < n; i++)
        if (pes[i] == kumi_rt.rank)
            me = i;
    if (me < 0)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "this PE is not one of the team's members");
    t = calloc(1, sizeof(*t));
    if (t == NULL || (t->pes = malloc((size_t)n * sizeof(int))) == NULL) {
        free(t);
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "no memory for a team");
    }
    memcpy(t->pes, pes, (size_t)n * sizeof(int));
    t->size    = n;
    t->rank    = me;
    t->scratch = -1;
    kumi_rt_team_bind_slot(t, slot);
    memset((void *)kumi_coll_llcm(t, 0), 0, KUMI_TEAM_LLCM_BYTES);
    *out = t;
    return KUMI_OK;
}

int kumi_team_split_strided(kumi_team_t parent, int start, int stride, int size, kumi_team_t *out)
{
    static const char call[] = "kumi_team_split_strided";
    int               rc = kumi_coll_check(call, parent), *ranks;
    long long         last;

    if (rc != KUMI_OK)
        return rc;
    /* ranks run monotonically from start to last: both in range is enough;
     * stride 0 would list start twice unless the team has one member */
    last = (long long)start + (long long)(size > 0 ? size - 1 : 0) * stride;
    if (out == NULL || size < 1 || start < 0 || start >= parent->size || last < 0
        || last >= parent->size || (stride == 0 && size != 1))
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

/* (key, parent rank) order for kumi_team_split */
struct kumi_team_split_member {
    int key, rank;
};

static int kumi_team_split_cmp(const void *a, const void *b)
{
    const struct kumi_team_split_member *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int kumi_team_split(kumi_team_t parent, int color, int key, kumi_team_t *out)
{
    static const char              call[] = "kumi_team_split";
    struct kumi_team_split_member *group;
    int32_t                        mine[2] = { color, key }, *all;
    int                            rc = kumi_coll_check(call, parent), *ranks = NULL, n = 0;

    if (rc != KUMI_OK)
        return rc;
    if (out == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "out is NULL");
    all   = malloc((size_t)parent->size * sizeof(mine));
    group = malloc((size_t)parent->size * sizeof(*group));
    if (all == NULL || group == NULL) {
        free(all);
        free(group);
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "no memory");
    }
    /* everyone learns every member's color and key: each member then
     * lists its own team, in the same order as the other members of it */
    rc = kumi_allgather(parent, all, mine, sizeof(mine));
    for (int r = 0; rc == KUMI_OK && color >= 0 && r < parent->size; r++)
        if (all[2 * r] == color)
            group[n++] = (struct kumi_team_split_member){ .key = all[2 * r + 1], .rank = r };
    free(all);
    if (rc == KUMI_OK && n > 0) {
        qsort(group, (size_t)n, sizeof(*group), kumi_team_split_cmp);
        ranks = malloc((size_t)n * sizeof(int));
        if (ranks == NULL)
            rc = kumi_rt_error(KUMI_ERR_NOMEM, call, "no memory");
        for (int i = 0; rc == KUMI_OK && i < n; i++)
            ranks[i] = group[i].rank;
    }
    free(group);
    if (rc != KUMI_OK)
        return rc;
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
