/*
 * protocol.c -- the DSM coherence protocol, driven by the table in
 * protocol.def: a message (or a CPU miss) selects the row for (role,
 * state, event) whose guard holds, the row's actions run in bit order,
 * and the state becomes the row's next state. Nothing here blocks: every
 * handler runs to completion in the main thread's drain (dsm.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsm_int.h"

#define ROW(role, st, ev, g, nx, act) \
    { KUMI_DSM_##role, KUMI_DSM_##st, KUMI_DSM_##ev, KUMI_DSM_##g, KUMI_DSM_##nx, (act) },
const struct kumi_dsm_row kumi_dsm_rows[] = {
#include "protocol.def"
};
#undef ROW
const unsigned kumi_dsm_nrows = sizeof(kumi_dsm_rows) / sizeof(kumi_dsm_rows[0]);

static const char *const cstate_names[] = { "I", "S", "E", "IS_D", "IM_AD", "IM_A", "SM_AD" };
static const char *const dstate_names[] = { "EXCL_HOME", "EXCL_REMOTE", "SHARED", "BUSY_S",
                                            "BUSY_X" };
static const char *const event_names[] = { "LOAD", "STORE", "GETS", "GETX", "UPG", "FWD_GETS",
                                           "FWD_GETX", "INV", "INV_ACK", "DATA_S", "DATA_E",
                                           "GRANT", "DONE", "DONE_WB" };

const char *kumi_dsm_cstate_name(unsigned s)
{
    return s < KUMI_DSM_CSTATES ? cstate_names[s] : "?";
}
const char *kumi_dsm_dstate_name(unsigned s)
{
    return s < KUMI_DSM_DSTATES ? dstate_names[s] : "?";
}
const char *kumi_dsm_event_name(unsigned e)
{
    return e < KUMI_DSM_EVENTS ? event_names[e] : "?";
}

_Noreturn void kumi_dsm_violation(const char *what, int src, uint64_t off, int role,
                                  unsigned state, unsigned event)
{
    char why[384];

    snprintf(why, sizeof why,
             "dsm: protocol violation: %s (%s in state %s, event %s from PE %d, address %p, "
             "home PE %d)", what, role == KUMI_DSM_CACHE ? "cache" : "directory",
             role == KUMI_DSM_CACHE ? kumi_dsm_cstate_name(state) : kumi_dsm_dstate_name(state),
             kumi_dsm_event_name(event), src, (void *)(kumi_dsm.base + off),
             kumi_dsm_home_of(off));
    kumi_rt_abort(why);
}

/* ------------------------------------------------------------- helpers */

void kumi_dsm_set_block_state(uint64_t block, unsigned bshift, uint8_t state)
{
    memset(kumi_dsm_g.state + (block >> KUMI_DSM_LINE_SHIFT), state,
           (size_t)1 << (bshift - KUMI_DSM_LINE_SHIFT));
    kumi_dsm_pstate_sync(block, (uint64_t)1 << bshift);
}

/* After the line states of [off, off+len) changed: each page's summary
 * byte is KUMI_DSM_PSTATE_ALL_E exactly when all its 64 lines are E,
 * KUMI_DSM_PSTATE_READABLE when all are S or E and some S, else 0. Every
 * write of a state byte goes through here (set_block_state, malloc, a
 * NACK), so the translator's store test may trust a 1 and
 * kumi_dsm_ready a 2. */
void kumi_dsm_pstate_sync(uint64_t off, uint64_t len)
{
    const uint64_t ones = 0x0101010101010101ull;
    uint64_t       pg = off >> KUMI_DSM_PAGE_SHIFT, last = (off + len - 1) >> KUMI_DSM_PAGE_SHIFT;
    uint8_t       *h  = kumi_dsm.hint + (off >> KUMI_DSM_LINE_SHIFT);

    /* a state changed: a clean-exclusive copy or a read's S is over */
    for (uint64_t i = 0, n = (len + KUMI_DSM_LINE - 1) >> KUMI_DSM_LINE_SHIFT; i < n; i++)
        h[i] &= (uint8_t)~(KUMI_DSM_H_XCLEAN | KUMI_DSM_H_RD);
    /* lines may have stopped being ready: a loop's cached test is stale */
    kumi_dsm_g.epoch++;

    for (; pg <= last; pg++) {
        const uint8_t *s = kumi_dsm_g.state + (pg << (KUMI_DSM_PAGE_SHIFT - KUMI_DSM_LINE_SHIFT));
        int            all_e = 1, readable = 1;
        for (unsigned i = 0; i < (1u << (KUMI_DSM_PAGE_SHIFT - KUMI_DSM_LINE_SHIFT)) && readable; i += 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            all_e    = all_e && w == 2 * ones;
            /* every byte S (1) or E (2): byte - 1 in {0, 1} */
            readable = ((w - ones) & 0xfefefefefefefefeull) == 0;
        }
        kumi_dsm_g.pstate[pg] = all_e ? KUMI_DSM_PSTATE_ALL_E : readable ? KUMI_DSM_PSTATE_READABLE : 0;
    }
}

static void hint_set(uint64_t block, unsigned bshift, uint8_t bits)
{
    uint8_t *h = kumi_dsm.hint + (block >> KUMI_DSM_LINE_SHIFT);

    for (size_t i = 0, n = (size_t)1 << (bshift - KUMI_DSM_LINE_SHIFT); i < n; i++)
        h[i] |= bits;
}

static void hint_unset(uint64_t block, unsigned bshift, uint8_t bits)
{
    uint8_t *h = kumi_dsm.hint + (block >> KUMI_DSM_LINE_SHIFT);

    for (size_t i = 0, n = (size_t)1 << (bshift - KUMI_DSM_LINE_SHIFT); i < n; i++)
        h[i] &= (uint8_t)~bits;
}

void kumi_dsm_hint_clear(uint64_t off, uint64_t len)
{
    memset(kumi_dsm.hint + (off >> KUMI_DSM_LINE_SHIFT), 0,
           (len + KUMI_DSM_LINE - 1) >> KUMI_DSM_LINE_SHIFT);
}

uint64_t kumi_dsm_xclean_block(uint64_t line, unsigned *bshift)
{
    unsigned x = kumi_dsm.hint[line >> KUMI_DSM_LINE_SHIFT] & KUMI_DSM_H_XCLEAN;

    if (x == 0 || kumi_dsm_g.state[line >> KUMI_DSM_LINE_SHIFT] != KUMI_DSM_S)
        return (uint64_t)-1;
    *bshift = x + 5;
    return line & ~(((uint64_t)1 << *bshift) - 1);
}

void kumi_dsm_flag_fill(uint64_t block, unsigned bshift)
{
    uint64_t *w = (uint64_t *)(kumi_dsm.base + block);
    size_t    n = ((size_t)1 << bshift) / 8;

    for (size_t i = 0; i < n; i++)
        w[i] = KUMI_DSM_FLAG64;
}

static inline int sharer_has(const struct kumi_dsm_dir *e, int pe)
{
    return (int)((e->sharers[pe / 64] >> (pe % 64)) & 1u);
}
static inline void sharer_add(struct kumi_dsm_dir *e, int pe)
{
    e->sharers[pe / 64] |= 1ull << (pe % 64);
}
static inline void sharers_clear(struct kumi_dsm_dir *e)
{
    memset(e->sharers, 0, sizeof(uint64_t) * kumi_dsm.sharer_words);
}
static int sharers_count_but(const struct kumi_dsm_dir *e, int r)
{
    int n = 0;

    for (unsigned w = 0; w < kumi_dsm.sharer_words; w++)
        n += __builtin_popcountll(e->sharers[w]);
    return n - (r >= 0 && sharer_has(e, r));
}

static const struct kumi_dsm_row *find_row(int role, unsigned state, unsigned event,
                                           const struct kumi_dsm_dir *e, int r)
{
    const struct kumi_dsm_pending *p = &kumi_dsm.pend;

    for (unsigned i = 0; i < kumi_dsm_nrows; i++) {
        const struct kumi_dsm_row *row = &kumi_dsm_rows[i];
        int                        ok;

        if (row->role != role || row->state != state || row->event != event)
            continue;
        switch (row->guard) {
        case KUMI_DSM_ALWAYS:     ok = 1; break;
        case KUMI_DSM_ACKS_DONE:  ok = p->acks_need >= 0 && p->acks_got == p->acks_need; break;
        case KUMI_DSM_ACKS_MORE:  ok = !(p->acks_need >= 0 && p->acks_got == p->acks_need); break;
        case KUMI_DSM_R_IN_S:     ok = sharer_has(e, r); break;
        case KUMI_DSM_R_NOT_IN_S: ok = !sharer_has(e, r); break;
        case KUMI_DSM_R_IS_HOME:  ok = r == kumi_dsm.me; break;
        case KUMI_DSM_R_REMOTE:   ok = r != kumi_dsm.me; break;
        default:                  ok = 0; break;
        }
        if (ok)
            return row;
    }
    return NULL;
}

/* ---------------------------------------------------------------- send */

static void send_one(int pe, const struct kumi_dsm_msg *h, const void *data)
{
    kumi_dsm.stats.msgs_sent++;
    kumi_dsm.stats.bytes_sent += sizeof(*h) + h->len;
    if (pe == kumi_dsm.me) {
        struct kumi_dsm_node *n = malloc(sizeof(*n) + h->len);
        if (n == NULL)
            kumi_rt_abort("dsm: out of memory for a message to myself");
        n->src   = pe;
        n->parts = 1;
        n->msg = *h;
        if (h->len != 0)
            memcpy(n->data, data, h->len);
        kumi_dsm_inbox_push(n);
        return;
    }
    int rc;
    /* header and data without a copy here (transports without am_sendv:
     * joined by the registry's stub) */
    rc = kumi_tp_am_sendv(&kumi_rt.tp, pe, KUMI_RT_AM_DSM, h, sizeof(*h), data, h->len);
    if (rc != KUMI_OK)   /* the peer is gone: the job is failing; waiters report it */
        kumi_rt_log(KUMI_LOG_DEBUG, "dsm: message to PE %d not sent (%s)", pe,
                    kumi_strerror(rc));
}

void kumi_dsm_send(int pe, int type, int r, int acks, int need_done, uint64_t off,
                   unsigned bshift, const void *data, size_t len)
{
    struct kumi_dsm_msg h = {
        .type = (uint8_t)type, .bshift = (uint8_t)bshift, .need_done = (uint8_t)need_done,
        .r = r, .acks = acks, .off = off,
        .fill = type == KUMI_DSM_DATA_S || type == KUMI_DSM_DATA_E,
    };
    const uint8_t *d = data;

    /* leading parts of a block larger than one message */
    while (len > KUMI_DSM_PART) {
        struct kumi_dsm_msg part = h;
        part.type     = KUMI_DSM_MSG_PART;
        part.len      = KUMI_DSM_PART;
        part.part_off = (uint32_t)(d - (const uint8_t *)data);
        send_one(pe, &part, d);
        d   += KUMI_DSM_PART;
        len -= KUMI_DSM_PART;
    }
    h.len      = (uint32_t)len;
    h.part_off = (uint32_t)(d - (const uint8_t *)data);
    send_one(pe, &h, d);
}

/* --------------------------------------------------------- cache role */

static uint8_t cache_state(uint64_t block, unsigned bshift)
{
    const struct kumi_dsm_pending *p = &kumi_dsm.pend;

    if (p->active && p->line >= block && p->line - block < ((uint64_t)1 << bshift))
        return kumi_dsm_g.state[p->line >> KUMI_DSM_LINE_SHIFT];
    return kumi_dsm_g.state[block >> KUMI_DSM_LINE_SHIFT];
}

/* The block's state for a request of another PE: a clean-exclusive copy
 * is E (the directory counts me as its owner). Its being taken away while
 * still clean shows that the read-for-ownership prediction was wrong. */
static uint8_t cache_state_req(uint64_t block, unsigned bshift)
{
    uint8_t  st = cache_state(block, bshift);
    unsigned xb;

    if (st == KUMI_DSM_S && kumi_dsm_xclean_block(block, &xb) == block && xb == bshift) {
        hint_unset(block, bshift, KUMI_DSM_H_PR);
        return KUMI_DSM_E;
    }
    return st;
}

static void cache_run(const struct kumi_dsm_row *row, uint64_t block, unsigned bshift,
                      const struct kumi_dsm_msg *m, const void *data)
{
    struct kumi_dsm_pending *p    = &kumi_dsm.pend;
    uint32_t                 a    = row->actions;
    uint8_t                 *copy = kumi_dsm.base + block;
    size_t                   bsz  = (size_t)1 << bshift;
    int                      home = kumi_dsm_home_of(block);

    if ((a & A_FILL) && m->fill != 2)   /* 2: the parts were copied there (kumi_dsm_am) */
        memcpy(copy, data, bsz);
    if (a & A_SEND_GETS)
        kumi_dsm_send(home, KUMI_DSM_GETS, kumi_dsm.me, p->seq, 0, p->line, 0, NULL, 0);
    if (a & A_SEND_GETX)
        kumi_dsm_send(home, KUMI_DSM_GETX, kumi_dsm.me, p->seq, 0, p->line, 0, NULL, 0);
    if (a & A_SEND_UPG)
        kumi_dsm_send(home, KUMI_DSM_UPG, kumi_dsm.me, p->seq, 0, p->line, 0, NULL, 0);
    if (a & A_SEND_DATA_S)
        kumi_dsm_send(m->r, KUMI_DSM_DATA_S, m->r, 0, 1, block, bshift, copy, bsz);
    if (a & A_SEND_DATA_E)
        kumi_dsm_send(m->r, KUMI_DSM_DATA_E, m->r, 0, 1, block, bshift, copy, bsz);
    if (a & A_SEND_INV_ACK)
        kumi_dsm_send(m->r, KUMI_DSM_INV_ACK, m->r, 0, 0, block, bshift, NULL, 0);
    if ((a & A_DONE_IF_ASKED) && p->need_done)
        kumi_dsm_send(home, KUMI_DSM_DONE, kumi_dsm.me, 0, 0, block, bshift, NULL, 0);
    if ((a & A_DONE_WB_IF_ASKED) && p->need_done)
        kumi_dsm_send(home, KUMI_DSM_DONE_WB, kumi_dsm.me, 0, 0, block, bshift, copy, bsz);
    if (a & A_INVALIDATE)
        kumi_dsm_flag_fill(block, bshift);
    if ((a & A_COMPLETE) && p->rfo && row->next == KUMI_DSM_E) {
        /* a load that asked for ownership: clean-exclusive (S + XCLEAN) */
        kumi_dsm_set_block_state(block, bshift, KUMI_DSM_S);
        hint_set(block, bshift, (uint8_t)(bshift - 5));
    } else {
        kumi_dsm_set_block_state(block, bshift, row->next);
    }
    if (a & A_COMPLETE) {
        if (row->next == KUMI_DSM_S)   /* my read miss brought this S */
            hint_set(block, bshift, KUMI_DSM_H_RD);
        else if (p->upg_rd)            /* read, then written: migratory */
            hint_set(block, bshift, KUMI_DSM_H_PR);
        p->active = 0;
        __atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
    }
}

void kumi_dsm_cpu_event(uint64_t line, int event)
{
    uint8_t st   = kumi_dsm_g.state[line >> KUMI_DSM_LINE_SHIFT];
    uint8_t h    = kumi_dsm.hint[line >> KUMI_DSM_LINE_SHIFT];
    int     load = event == KUMI_DSM_LOAD;

    if (load && st == KUMI_DSM_I && (h & KUMI_DSM_H_PR)) {
        /* migratory: the write that followed my last read miss will
         * follow this one too; ask for the block exclusive (a write miss
         * for the protocol) and keep it clean-exclusive until then */
        kumi_dsm.pend.rfo = 1;
        kumi_dsm.rfo++;
        event = KUMI_DSM_STORE;
    }
    kumi_dsm.pend.from_i = st == KUMI_DSM_I;   /* before the request goes out */
    if (event == KUMI_DSM_STORE && st == KUMI_DSM_S && (h & KUMI_DSM_H_RD))
        kumi_dsm.pend.upg_rd = 1;
    const struct kumi_dsm_row *row = find_row(KUMI_DSM_CACHE, st, (unsigned)event, NULL, -1);

    if (row == NULL)
        kumi_dsm_violation("no row for a miss", kumi_dsm.me, line, KUMI_DSM_CACHE, st,
                           (unsigned)event);
    if (load)
        kumi_dsm.stats.read_misses++;
    else if (st == KUMI_DSM_S)
        kumi_dsm.stats.upgrades++;
    else
        kumi_dsm.stats.write_misses++;
    /* the block's size is not known yet: only the line changes state */
    cache_run(row, line, KUMI_DSM_LINE_SHIFT, NULL, NULL);
}

static void cache_message(int src, const struct kumi_dsm_msg *m, const void *data)
{
    struct kumi_dsm_pending *p = &kumi_dsm.pend;
    unsigned                 bshift = m->bshift;
    uint64_t                 block  = m->off;
    int                      mine;

    if (bshift < KUMI_DSM_MIN_BSHIFT || bshift > KUMI_DSM_MAX_BSHIFT
        || (block & (((uint64_t)1 << bshift) - 1)) != 0)
        kumi_dsm_violation("bad block in message", src, block, KUMI_DSM_CACHE, 0, m->type);
    mine = p->active && p->line >= block && p->line - block < ((uint64_t)1 << bshift);
    uint8_t st = (m->type == KUMI_DSM_FWD_GETS || m->type == KUMI_DSM_FWD_GETX)
                 ? cache_state_req(block, bshift) : cache_state(block, bshift);
    /* ack counting belongs to the event (protocol.def) */
    switch (m->type) {
    case KUMI_DSM_DATA_E:
    case KUMI_DSM_GRANT:
        if (!mine)
            kumi_dsm_violation("data for no pending miss", src, block, KUMI_DSM_CACHE, st,
                               m->type);
        p->acks_need = m->acks;
        p->need_done = m->need_done;
        break;
    case KUMI_DSM_DATA_S:
        if (!mine)
            kumi_dsm_violation("data for no pending miss", src, block, KUMI_DSM_CACHE, st,
                               m->type);
        p->need_done = m->need_done;
        break;
    case KUMI_DSM_INV_ACK:
        if (!mine)
            kumi_dsm_violation("ack for no pending miss", src, block, KUMI_DSM_CACHE, st,
                               m->type);
        p->acks_got++;
        break;
    case KUMI_DSM_INV:
        kumi_dsm.stats.invalidations++;
        break;
    case KUMI_DSM_FWD_GETS:
    case KUMI_DSM_FWD_GETX:
        kumi_dsm.stats.forwards++;
        break;
    default:
        break;
    }
    const struct kumi_dsm_row *row = find_row(KUMI_DSM_CACHE, st, m->type, NULL, -1);
    if (row == NULL)
        kumi_dsm_violation("no row", src, block, KUMI_DSM_CACHE, st, m->type);
    if ((row->actions & A_FILL) && m->len != ((uint32_t)1 << bshift))
        kumi_dsm_violation("data of the wrong length", src, block, KUMI_DSM_CACHE, st,
                           m->type);
    cache_run(row, block, bshift, m, data);
}

/* ----------------------------------------------------- directory role */

static int dir_message(struct kumi_dsm_node *n, const void *data);

static void dir_replay(struct kumi_dsm_dir *e, uint64_t block, unsigned bshift)
{
    uint64_t bsz = (uint64_t)1 << bshift;

    while (e->deferred > 0 && e->state != KUMI_DSM_BUSY_S && e->state != KUMI_DSM_BUSY_X) {
        struct kumi_dsm_node **pp = &kumi_dsm.def_head, *prev = NULL;

        while (*pp != NULL && !((*pp)->msg.off >= block && (*pp)->msg.off - block < bsz)) {
            prev = *pp;
            pp   = &(*pp)->next;
        }
        struct kumi_dsm_node *q = *pp;
        if (q == NULL)
            kumi_dsm_violation("deferred request lost", kumi_dsm.me, block, KUMI_DSM_DIR,
                               e->state, 0);
        *pp = q->next;
        if (kumi_dsm.def_tail == q)
            kumi_dsm.def_tail = prev;
        e->deferred--;
        if (!dir_message(q, NULL))
            free(q);
    }
}

/* Returns 1 when the node was kept (deferred). */
static int dir_message(struct kumi_dsm_node *n, const void *data)
{
    const struct kumi_dsm_msg *m   = &n->msg;
    int                        src = n->src;
    int                        me  = kumi_dsm.me;

    if (kumi_dsm_home_of(m->off) != me)
        kumi_dsm_violation("request at a PE that is not the home", src, m->off, KUMI_DSM_DIR,
                           0, m->type);
    struct kumi_dsm_dir *line_e = kumi_dsm_dir_at(m->off);
    unsigned             bshift = line_e->bshift;
    int                  r      = m->r;

    if (bshift == 0) {
        if (m->type == KUMI_DSM_GETS || m->type == KUMI_DSM_GETX || m->type == KUMI_DSM_UPG) {
            kumi_dsm_send(src, KUMI_DSM_MSG_NACK, r, 0, 0, m->off, 0, NULL, 0);
            return 0;
        }
        kumi_dsm_violation("message for unallocated memory", src, m->off, KUMI_DSM_DIR, 0,
                           m->type);
    }
    if (r != src || r < 0 || r >= kumi_dsm.npes)
        kumi_dsm_violation("requester is not the sender", src, m->off, KUMI_DSM_DIR, 0,
                           m->type);
    int request = m->type == KUMI_DSM_GETS || m->type == KUMI_DSM_GETX || m->type == KUMI_DSM_UPG;
    if (request && r == me && (!kumi_dsm.pend.active || kumi_dsm.pend.seq != m->acks)) {
        kumi_dsm.stats.stale++;   /* STALE (protocol.def): A_H_FILL answered it */
        return 0;
    }
    uint64_t             block = m->off & ~(((uint64_t)1 << bshift) - 1);
    struct kumi_dsm_dir *e     = kumi_dsm_dir_at(block);
    size_t               bsz   = (size_t)1 << bshift;
    uint8_t             *copy  = kumi_dsm.base + block;
    const struct kumi_dsm_row *row = find_row(KUMI_DSM_DIR, e->state, m->type, e, r);

    if (row == NULL)
        kumi_dsm_violation("no row", src, block, KUMI_DSM_DIR, e->state, m->type);
    if ((m->type == KUMI_DSM_DONE || m->type == KUMI_DSM_DONE_WB) && r != e->pending)
        kumi_dsm_violation("completion from a PE that is not the requester", src, block,
                           KUMI_DSM_DIR, e->state, m->type);
    uint32_t a = row->actions;
    uint8_t  home_st = (a & (A_H_DOWNGRADE | A_H_INVALIDATE)) ? cache_state_req(block, bshift)
                                                              : cache_state(block, bshift);

    if (a & A_H_FILL) {
        if (m->len != bsz)
            kumi_dsm_violation("write-back of the wrong length", src, block, KUMI_DSM_DIR,
                               e->state, m->type);
        switch (home_st) {
        case KUMI_DSM_I:
        case KUMI_DSM_IS_D:
        case KUMI_DSM_IM_AD:
            memcpy(copy, data, bsz);
            kumi_dsm_set_block_state(block, bshift,
                                     home_st == KUMI_DSM_IM_AD ? KUMI_DSM_SM_AD : KUMI_DSM_S);
            if (home_st == KUMI_DSM_IS_D) {   /* my own read, queued here: satisfied */
                kumi_dsm.pend.active = 0;
                __atomic_store_n(&kumi_dsm.pend.done, 1, __ATOMIC_RELEASE);
            }
            break;
        case KUMI_DSM_S:       /* I was the requester: my copy is this data */
        case KUMI_DSM_SM_AD:   /* ... and I want to write it since           */
            break;
        default:
            kumi_dsm_violation("write-back while the home's copy is in this state", src,
                               block, KUMI_DSM_CACHE, home_st, m->type);
        }
    }
    if (a & A_H_DATA_S)
        kumi_dsm_send(r, KUMI_DSM_DATA_S, r, 0, 0, block, bshift, copy, bsz);
    if (a & A_H_DATA_E) {
        int acks = sharers_count_but(e, r);
        kumi_dsm_send(r, KUMI_DSM_DATA_E, r, acks, acks > 0 || r == me, block, bshift, copy,
                      bsz);
    }
    if (a & A_H_GRANT)
        kumi_dsm_send(r, KUMI_DSM_GRANT, r, sharers_count_but(e, r), 1, block, bshift, NULL, 0);
    if (a & A_H_INVS)
        for (int s = 0; s < kumi_dsm.npes; s++)
            if (s != r && sharer_has(e, s))
                kumi_dsm_send(s, KUMI_DSM_INV, r, 0, 0, block, bshift, NULL, 0);
    if (a & A_H_FWD_GETS)
        kumi_dsm_send(e->owner, KUMI_DSM_FWD_GETS, r, 0, 0, block, bshift, NULL, 0);
    if (a & A_H_FWD_GETX)
        kumi_dsm_send(e->owner, KUMI_DSM_FWD_GETX, r, 0, 0, block, bshift, NULL, 0);
    if (a & (A_H_DOWNGRADE | A_H_INVALIDATE)) {
        if (home_st != KUMI_DSM_E)
            kumi_dsm_violation("home copy not exclusive in EXCL_HOME", src, block,
                               KUMI_DSM_DIR, e->state, m->type);
        if (a & A_H_INVALIDATE)
            kumi_dsm_flag_fill(block, bshift);
        kumi_dsm_set_block_state(block, bshift, (a & A_H_INVALIDATE) ? KUMI_DSM_I : KUMI_DSM_S);
    }
    if (a & A_H_ADD_R)
        sharer_add(e, r);
    if (a & A_H_SHARERS_HOME_R) {
        sharers_clear(e);
        sharer_add(e, me);
        sharer_add(e, r);
        e->owner = -1;
    }
    if (a & A_H_SHARERS_HOME_OWNER_R) {
        int o = e->owner;
        sharers_clear(e);
        sharer_add(e, me);
        sharer_add(e, o);
        sharer_add(e, r);
        e->owner = -1;
    }
    if (a & A_H_OWNER_R) {
        sharers_clear(e);
        e->owner = r;
    }
    if (a & A_H_PENDING_R)
        e->pending = r;
    e->state = row->next;
    if (a & A_H_DEFER) {
        n->next = NULL;
        if (kumi_dsm.def_tail != NULL)
            kumi_dsm.def_tail->next = n;
        else
            kumi_dsm.def_head = n;
        kumi_dsm.def_tail = n;
        e->deferred++;
        kumi_dsm.stats.deferred++;
        return 1;
    }
    if (a & A_H_REPLAY)
        dir_replay(e, block, bshift);
    return 0;
}

/* ------------------------------------------------------------ dispatch */

int kumi_dsm_handle(struct kumi_dsm_node *n)
{
    const struct kumi_dsm_msg *m    = &n->msg;
    const void                *data = n->data;
    int                        src  = n->src;

    kumi_dsm.stats.msgs_received += n->parts;
    if (m->type == KUMI_DSM_MSG_PART) {
        if (m->part_off + (uint64_t)m->len > KUMI_DSM_BLOCK_MAX)
            kumi_dsm_violation("data part beyond a block", src, m->off, KUMI_DSM_CACHE, 0,
                               m->type);
        if (kumi_dsm.stage[src] == NULL && (kumi_dsm.stage[src] = malloc(KUMI_DSM_BLOCK_MAX)) == NULL)
            kumi_rt_abort("dsm: out of memory for a block's staging buffer");
        memcpy(kumi_dsm.stage[src] + m->part_off, data, m->len);
        return 0;
    }
    /* the last part of a large block: assemble it behind the earlier ones */
    if (m->len != 0 && m->part_off != 0) {
        if (kumi_dsm.stage[src] == NULL || m->part_off + (uint64_t)m->len > KUMI_DSM_BLOCK_MAX)
            kumi_dsm_violation("last part without the first", src, m->off, KUMI_DSM_CACHE, 0,
                               m->type);
        memcpy(kumi_dsm.stage[src] + m->part_off, data, m->len);
        struct kumi_dsm_msg *mm = &n->msg;
        mm->len += m->part_off;
        mm->part_off = 0;
        data = kumi_dsm.stage[src];
    }
    switch (m->type) {
    case KUMI_DSM_GETS:
    case KUMI_DSM_GETX:
    case KUMI_DSM_UPG:
    case KUMI_DSM_DONE:
    case KUMI_DSM_DONE_WB:
        return dir_message(n, data);
    case KUMI_DSM_FWD_GETS:
    case KUMI_DSM_FWD_GETX:
    case KUMI_DSM_INV:
    case KUMI_DSM_INV_ACK:
    case KUMI_DSM_DATA_S:
    case KUMI_DSM_DATA_E:
    case KUMI_DSM_GRANT:
        cache_message(src, m, data);
        return 0;
    case KUMI_DSM_MSG_NACK: {
        struct kumi_dsm_pending *p = &kumi_dsm.pend;
        if (!p->active || p->line != m->off)
            kumi_dsm_violation("NACK for no pending miss", src, m->off, KUMI_DSM_CACHE, 0,
                               m->type);
        kumi_dsm_g.state[p->line >> KUMI_DSM_LINE_SHIFT] = KUMI_DSM_I;
        kumi_dsm_pstate_sync(p->line, KUMI_DSM_LINE);
        p->nack   = 1;
        p->active = 0;
        __atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
        return 0;
    }
    default:
        kumi_dsm_violation("unknown message type", src, m->off, KUMI_DSM_CACHE, 0, m->type);
    }
}
