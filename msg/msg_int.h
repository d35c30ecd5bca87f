/*
 * msg_int.h -- the two-sided messaging layer's state, shared by proto.c
 * (the wire protocol, sending, progress), match.c (matching, receiving)
 * and api.c (the public calls).
 * Uses only runtime/rt.h and the transport table.
 */
#ifndef KUMI_MSG_INT_H
#define KUMI_MSG_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/rt.h"
#include "msg.h"

/* The wire: one active message (KUMI_RT_AM_MSG) is a header, then for
 * EAGER and DATA its payload. EAGER carries only the header's first
 * KUMI_MSG_EAGER_HDR bytes (its size is the rest of the message): an
 * 8-byte message and its shm record then fit one cache line. */
enum kumi_msg_type {
    KUMI_MSG_EAGER  = 1,  /* a whole message: matchable                     */
    KUMI_MSG_RTS    = 2,  /* rendezvous request to send: matchable          */
    KUMI_MSG_CTS    = 3,  /* receiver to sender: stream `size` bytes to rid  */
    KUMI_MSG_DATA   = 4,  /* a piece of a streamed message at offset size    */
    KUMI_MSG_FIN    = 5,  /* receiver pulled the data: the send sid is done  */
    KUMI_MSG_CREDIT = 6,  /* credit returned, nothing else                    */
    KUMI_MSG_CANCEL = 7,  /* sender to receiver: take back the RTS of sid     */
    KUMI_MSG_CANCEL_ACK = 8, /* receiver to sender: size 1 taken back, 0 too late */
    KUMI_MSG_TYPE_LAST = KUMI_MSG_CANCEL_ACK
};

struct kumi_msg_hdr {
    uint8_t  type;
    uint8_t  ctx;       /* EAGER, RTS: the context within the team (msg.h:
                           a binding's collective traffic has its own)     */
    uint16_t team;      /* the team's slot (the same on every member)        */
    int32_t  tag;
    uint32_t seq;       /* EAGER, RTS: per sender-receiver pair, from 0      */
    uint32_t credit;    /* credit bytes returned to whom receives this       */
    /* the rest is not sent with EAGER */
    uint64_t size;      /* EAGER: payload; RTS: message; CTS: bytes wanted;
                           DATA: offset of the payload                       */
    uint64_t sid;       /* RTS, CTS, FIN: the sender's request               */
    uint64_t rid;       /* CTS, DATA: the receiver's request; RTS: address   */
    int32_t  pid;       /* RTS: the sender's process (cross-memory attach)   */
    uint32_t pad2_;
};
_Static_assert(sizeof(struct kumi_msg_hdr) == 48, "the header is 48 bytes");

#define KUMI_MSG_HDR        ((size_t)sizeof(struct kumi_msg_hdr))
#define KUMI_MSG_EAGER_HDR  ((size_t)offsetof(struct kumi_msg_hdr, size))
_Static_assert(offsetof(struct kumi_msg_hdr, size) == 16, "EAGER sends a 16-byte header");
#define KUMI_MSG_CHUNK      (KUMI_TP_AM_MAX_PAYLOAD - KUMI_MSG_HDR)  /* DATA payload */
#define KUMI_MSG_LAZY_WAITS 16   /* waits on done requests per progress pass */
/* A receive from one source: looks at its queue per round of the wait
 * loop (api.c), each round ending in a pause. One: a core that reads the
 * line the sender is about to store into, again and again, slows the
 * sender's store (the line is taken from it each time); a pause between
 * looks lets the store through. On a 2-vCPU AMD EPYC VM (2026-11-28) 8-byte
 * send-lat went 0.283 -> 0.226 us against 16 looks a pause (msg/README.md,
 * "Measurements"). A build may set another (-DKUMI_MSG_FROM_LOOKS=16) to
 * compare. */
#ifndef KUMI_MSG_FROM_LOOKS
#define KUMI_MSG_FROM_LOOKS 1
#endif
_Static_assert(KUMI_MSG_FROM_LOOKS >= 1, "at least one look a round");
#define KUMI_MSG_CHARGE(n)  ((uint64_t)(n) + 64)   /* credit an EAGER/RTS costs */

/* A message the handler queued for the main thread (every type but DATA,
 * which the handler writes straight into the receiver's buffer). An
 * EAGER one waits in the unexpected queue in this node, payload and all. */
struct kumi_msg_node {
    struct kumi_msg_node *next;
    int                   src;       /* world PE */
    struct kumi_msg_hdr   h;
    unsigned char         data[];    /* EAGER: h.size bytes */
};

enum kumi_msg_kind  { KUMI_MSG_SEND = 1, KUMI_MSG_RECV = 2 };
enum kumi_msg_state {
    KUMI_MSG_QUEUED = 1,   /* send: waits for credit in its destination's queue */
    KUMI_MSG_POSTED,       /* recv: in the posted queue, unmatched              */
    KUMI_MSG_ACTIVE,       /* rendezvous under way                               */
    KUMI_MSG_DONE
};

struct kumi_request {
    struct kumi_request *next;        /* posted / send queue / stream list / free */
    uint8_t  kind, state;
    uint8_t  rdv;                     /* send: went by rendezvous              */
    uint8_t  streaming;               /* recv: data arrive as DATA (CTS sent)  */
    uint8_t  clone;                   /* a queued eager send's copy: freed once sent */
    uint8_t  ctx;                     /* context (msg.h): matches only its own     */
    uint8_t  sync;                    /* send: completes once matched (rendezvous) */
    int      team_slot;
    uint32_t user;                    /* a binding's word (msg.h), 0 unless set */
    struct kumi_team *team;
    int      peer;                    /* world PE, or KUMI_ANY_SOURCE (recv)    */
    int      tag;
    void    *buf;
    size_t   bytes;                   /* send: size; recv: capacity             */
    void    *spill;                   /* queued eager send: copy of the data    */
    uint64_t id;                      /* rendezvous table id (0: none)          */
    /* recv streamed by DATA: the handler adds what it wrote */
    size_t   expect, got;
    /* send streaming after a CTS */
    uint64_t stream_rid;
    size_t   stream_off, stream_len;
    int      err;
    uint32_t hid;                     /* its handle id (msg.h): table index in the
                                         low KUMI_MSG_HID_IDX_BITS (0: none), a
                                         generation above, bumped when handed
                                         out by id; never cleared */
    kumi_status_t status;
};

struct kumi_msg_peer {
    int64_t  avail;                   /* eager credit left at this PE            */
    uint64_t owed;                    /* credit to give back to this PE          */
    uint32_t seq_out, seq_in;
    int      cma_off;                 /* cross-memory attach failed once        */
    struct kumi_request *q_head, *q_tail;   /* sends waiting for credit         */
};

struct kumi_msg {
    int      up;
    int      busy;                    /* the main thread is inside the layer:
                                         handlers queue, never match       */
    int      me, npes;
    int32_t  pid;
    size_t   eager;                   /* KUMI_MSG_EAGER                          */
    uint64_t credit;                  /* KUMI_MSG_CREDIT                         */
    int      cma;                     /* KUMI_MSG_CMA                            */
    struct kumi_msg_peer *peer;
    int      queued;                  /* peers with sends waiting for credit     */
    /* filled by the handler (any thread), drained by the main thread */
    uint32_t inbox_lock;
    struct kumi_msg_node *in_head, *in_tail;
    /* main thread only */
    struct kumi_request  *posted_head, *posted_tail;
    struct kumi_msg_node *unexp_head, *unexp_tail;
    size_t                unexp_count;
    uint64_t              unexp_bytes, unexp_peak;   /* charged bytes held */
    struct kumi_request  *streams;    /* sends streaming DATA after a CTS       */
    struct kumi_request  *free_reqs;
    /* every request allocated with an id, by its index (msg.h's handle
     * ids; index 0 unused) */
    struct kumi_request **reqtab;
    uint32_t              reqtab_n, reqtab_cap;
    unsigned              lazy_waits; /* waits on done requests (api.c)         */
    /* rendezvous table: id = generation << 32 | index; the DATA handler
     * looks receives up under rdv_lock */
    uint32_t              rdv_lock;
    struct kumi_request **rdv;
    uint32_t             *rdv_gen;
    uint32_t              rdv_cap, rdv_free;  /* rdv_free: a hint */
};

/* Everything below is libkumi's own (never exported: runtime/libkumi.map),
 * and hidden tells the compiler so: calls between the layer's files are
 * direct, may be inlined within a file, and kumi_msg is reached without
 * the GOT. msg.h's calls (the bindings') stay visible. */
#pragma GCC visibility push(hidden)

extern struct kumi_msg kumi_msg;

/* Takes n (after prev, NULL at the head) off the unexpected list and
 * gives back what it charged (match.c's take, cancel.c's withdrawal). */
static inline void kumi_msg_unexp_unlink(struct kumi_msg_node *prev, struct kumi_msg_node *n)
{
    if (prev != NULL)
        prev->next = n->next;
    else
        kumi_msg.unexp_head = n->next;
    if (kumi_msg.unexp_tail == n)
        kumi_msg.unexp_tail = prev;
    kumi_msg.unexp_count--;
    kumi_msg.unexp_bytes -= KUMI_MSG_CHARGE(n->h.type == KUMI_MSG_EAGER ? n->h.size : 0);
}

static inline void kumi_msg_req_complete(struct kumi_request *r)
{
    __atomic_store_n(&r->state, KUMI_MSG_DONE, __ATOMIC_RELEASE);
}

/* complete now? (kumi_msg_req_done, the done case inline) */
static inline int kumi_msg_req_done_now(struct kumi_request *r)
{
    return __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == KUMI_MSG_DONE
           || kumi_msg_req_done(r);
}

/* memcpy of n bytes, small ones inline (a call of memcpy costs more than
 * copying an 8-byte message); never touches bytes beyond n. */
static inline void kumi_msg_copy(void *dst, const void *src, size_t n)
{
    unsigned char       *d = dst;
    const unsigned char *s = src;

    if (n > 16) {
        memcpy(d, s, n);
    } else if (n >= 8) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);   /* overlapping tail */
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n != 0) {
        d[0]     = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

/* proto.c: requests, the rendezvous table, the handler, sending, progress */
int  kumi_msg_progress(const char *call, int transport);  /* >= 0 served, or error */
int  kumi_msg_start_send(const char *call, struct kumi_request *r);
int  kumi_msg_team_rank_slow(const struct kumi_team *team, int world_pe);
static inline int kumi_msg_team_rank(const struct kumi_team *team, int world_pe)
{
    return team->slot == 0 ? world_pe : kumi_msg_team_rank_slow(team, world_pe);
}
struct kumi_request *kumi_msg_req_alloc(void);   /* the free list is empty */
/* A request from the free list, cleared (NULL: no memory). */
static inline struct kumi_request *kumi_msg_req_new(void)
{
    struct kumi_request *r = kumi_msg.free_reqs;

    if (__builtin_expect(r == NULL, 0))
        return kumi_msg_req_alloc();
    kumi_msg.free_reqs = r->next;
    /* field by field: a memset of the whole request is a `rep stos`, a
     * seventh of an MPI_Isend + MPI_Irecv + MPI_Waitall to oneself */
    _Static_assert(sizeof(*r) == 144, "a new field of struct kumi_request: clear it here "
                                      "(hid excepted: it is the allocation's)");
    r->next = NULL;
    r->kind = r->state = r->rdv = r->streaming = r->clone = r->ctx = r->sync = 0;
    r->team_slot = 0;
    r->team      = NULL;
    r->peer = r->tag = 0;
    r->buf    = r->spill = NULL;
    r->bytes  = r->expect = r->got = r->stream_off = r->stream_len = 0;
    r->id     = r->stream_rid = 0;
    r->err    = 0;
    r->status = (kumi_status_t){ 0 };
    r->user   = 0;
    return r;
}
/* handle ids (msg.h): the table index in the low bits, a generation
 * above, bumped each time the request is handed out by id (so a stale id
 * no longer matches); the user word says it was (KUMI_MSG_USER_HID). The
 * reap clears the word; a request the binding gave a slot
 * (KUMI_MSG_USER_HELD) keeps it when freed, and its stale id stays refused
 * (the binding finds no slot for it), so the native starts need not
 * clear it. */
#define KUMI_MSG_HID_IDX_BITS 22
#define KUMI_MSG_HID_MASK     0x3fffffffu
#define KUMI_MSG_USER_HID     (1u << 30)
static inline void kumi_msg_req_free(struct kumi_request *r)
{
    if (__builtin_expect(r->spill != NULL, 0)) {
        free(r->spill);
        r->spill = NULL;
    }
    r->next = kumi_msg.free_reqs;
    kumi_msg.free_reqs = r;
}
void kumi_msg_lock(uint32_t *l);       /* the inbox's and the table's spin locks */
void kumi_msg_unlock(uint32_t *l);
struct kumi_msg_node *kumi_msg_inbox_take(void);   /* the whole inbox, in order; NULL: empty */
/* One active message to pe: h (EAGER: its first 16 bytes), then n bytes
 * of data; piggybacks the credit owed to pe (not on DATA). */
int  kumi_msg_send_am(const char *call, int pe, struct kumi_msg_hdr *h, const void *data,
                      size_t n);
int  kumi_msg_send_am_fail(const char *call, int pe, int rc) __attribute__((noinline, cold));
static inline __attribute__((always_inline)) int
kumi_msg_send_am_inline(const char *call, int pe, struct kumi_msg_hdr *h, const void *data,
                        size_t n)
{
    struct kumi_msg_peer *p = &kumi_msg.peer[pe];
    int                   rc;

    h->credit = 0;
    if (h->type != KUMI_MSG_DATA && p->owed != 0) {
        h->credit = p->owed > UINT32_MAX ? UINT32_MAX : (uint32_t)p->owed;
        p->owed -= h->credit;
    }
    size_t hlen = h->type == KUMI_MSG_EAGER ? KUMI_MSG_EAGER_HDR : KUMI_MSG_HDR;
    /* straight from the user's buffer (transports without am_sendv:
     * joined by the registry's stub) */
    rc = kumi_tp_am_sendv(&kumi_rt.tp, pe, KUMI_RT_AM_MSG, h, hlen, data, n);
    if (__builtin_expect(rc == KUMI_OK, 1))
        return KUMI_OK;
    p->owed += h->credit;
    return kumi_msg_send_am_fail(call, pe, rc);
}
/* The eager send of r to its peer p (credit is there, nothing queued
 * before it): kumi_msg_start_send's, and inline in api.c's sends, where
 * the usual case then makes no call before the transport's. r completes. */
static inline __attribute__((always_inline)) int
kumi_msg_send_eager(const char *call, struct kumi_request *r, struct kumi_msg_peer *p)
{
    struct kumi_msg_hdr h;
    int                 rc;

    /* only the 16 bytes EAGER sends are filled */
    h.type = KUMI_MSG_EAGER;
    h.ctx  = r->ctx;
    h.team = (uint16_t)r->team_slot;
    h.tag  = r->tag;
    h.seq  = p->seq_out++;
    r->expect = (size_t)h.seq + 1;   /* cancel.c: which message this was */
    p->avail -= (int64_t)KUMI_MSG_CHARGE(r->bytes);
    rc = kumi_msg_send_am_inline(call, r->peer, &h, r->spill != NULL ? r->spill : r->buf,
                                 r->bytes);
    r->err = rc;
    kumi_msg_req_complete(r);
    return rc;
}
/* A blocking send that can go eager now (kumi_msg_eager_now) needs no
 * request: nobody waits for it, cancels it or reads its status. The
 * message is sent as kumi_msg_send_eager sends it, without writing the
 * request's fields first: on a ping-pong's critical path (the reply's
 * send, right after the receive returned) those stores came before the
 * one that publishes the message. */
static inline __attribute__((always_inline)) int
kumi_msg_eager_now(const struct kumi_msg_peer *p, size_t bytes)
{
    return bytes <= kumi_msg.eager && p->q_head == NULL
           && p->avail >= (int64_t)KUMI_MSG_CHARGE(bytes);
}
static inline __attribute__((always_inline)) int
kumi_msg_send_eager_buf(const char *call, int peer, struct kumi_msg_peer *p, unsigned ctx,
                        int team_slot, int tag, const void *buf, size_t bytes)
{
    struct kumi_msg_hdr h;

    h.type = KUMI_MSG_EAGER;
    h.ctx  = (uint8_t)ctx;
    h.team = (uint16_t)team_slot;
    h.tag  = tag;
    h.seq  = p->seq_out++;
    p->avail -= (int64_t)KUMI_MSG_CHARGE(bytes);
    return kumi_msg_send_am_inline(call, peer, &h, buf, bytes);
}
uint64_t kumi_msg_rdv_put(struct kumi_request *r);        /* r's new id, 0: no memory */
struct kumi_request *kumi_msg_rdv_get(uint64_t id);       /* NULL: no such request */
void kumi_msg_rdv_release(struct kumi_request *r);

/* match.c: the receiving side */
void kumi_msg_post_recv(const char *call, struct kumi_request *r);
/* unlinks r, whose predecessor in the posted queue is prev (NULL: r is first) */
static inline void kumi_msg_posted_unlink(struct kumi_request *r, struct kumi_request *prev)
{
    if (prev != NULL)
        prev->next = r->next;
    else
        kumi_msg.posted_head = r->next;
    if (kumi_msg.posted_tail == r)
        kumi_msg.posted_tail = prev;
}
/* appends r (r->next already NULL) to the posted queue */
static inline void kumi_msg_posted_append(struct kumi_request *r)
{
    r->state = KUMI_MSG_POSTED;
    if (kumi_msg.posted_tail != NULL)
        kumi_msg.posted_tail->next = r;
    else
        kumi_msg.posted_head = r;
    kumi_msg.posted_tail = r;
}
struct kumi_msg_node *kumi_msg_unexp_find(int team_slot, int ctx, int src, int tag, int take);
/* An EAGER or RTS arrived from src: its sequence number is the one due
 * (the transports keep a pair's order; a gap is logged) */
void kumi_msg_seq_report(int src, uint32_t seq) __attribute__((noinline, cold));
static inline __attribute__((always_inline)) void
kumi_msg_seq_check(int src, const struct kumi_msg_hdr *h)
{
    struct kumi_msg_peer *p = &kumi_msg.peer[src];

    if (__builtin_expect(h->seq != p->seq_in, 0))
        kumi_msg_seq_report(src, h->seq);
    p->seq_in = h->seq + 1;
}
/* The first posted receive a message from src with h fits, taken out of
 * the posted queue; NULL if none. */
static inline __attribute__((always_inline)) struct kumi_request *
kumi_msg_posted_take(int src, const struct kumi_msg_hdr *h)
{
    struct kumi_request *prev = NULL;

    for (struct kumi_request *r = kumi_msg.posted_head; r != NULL; prev = r, r = r->next) {
        if (r->team_slot != h->team || r->ctx != h->ctx
            || (r->peer != KUMI_ANY_SOURCE && r->peer != src)
            || (r->tag != KUMI_ANY_TAG && r->tag != h->tag))
            continue;
        kumi_msg_posted_unlink(r, prev);
        return r;
    }
    return NULL;
}
/* An EAGER message (header h, payload data) from src completes r. */
static inline __attribute__((always_inline)) void
kumi_msg_deliver_eager(struct kumi_request *r, int src, const struct kumi_msg_hdr *h,
                       const void *data)
{
    size_t len = (size_t)h->size, take = len < r->bytes ? len : r->bytes;

    r->status.source = kumi_msg_team_rank(r->team, src);
    r->status.tag    = h->tag;
    r->status.bytes  = len;
    r->err = len > r->bytes ? KUMI_ERR_TRUNCATE : KUMI_OK;
    kumi_msg.peer[src].owed += KUMI_MSG_CHARGE(len);
    kumi_msg_copy(r->buf, data, take);
    kumi_msg_req_complete(r);
}
void kumi_msg_arrive_unexp(int src, const struct kumi_msg_hdr *h, const void *data);
void kumi_msg_arrive_unexp_rec(int src, const void *rec, size_t len);   /* msg_am's */
/* The handler's EAGER fast path (main thread, outside the layer), inline
 * in the handler (proto.c's msg_am): matched and delivered with no call
 * in the usual case; else to the unexpected queue. h: its first 16 bytes
 * and size (the rest is not set). */
static inline __attribute__((always_inline)) void
kumi_msg_arrive_direct(int src, const struct kumi_msg_hdr *h, const void *data)
{
    struct kumi_request *r;

    kumi_msg.peer[src].avail += h->credit;
    kumi_msg_seq_check(src, h);
    if ((r = kumi_msg_posted_take(src, h)) != NULL)
        kumi_msg_deliver_eager(r, src, h, data);
    else
        kumi_msg_arrive_unexp(src, h, data);
}
int  kumi_msg_drain(const char *call);   /* what the handler queued: >= 0 served, or error */

/* cancel.c: taking back a send; n is a CANCEL or CANCEL_ACK (freed) */
int  kumi_msg_cancel_arrive(const char *call, struct kumi_msg_node *n);

#pragma GCC visibility pop

#endif /* KUMI_MSG_INT_H */
