/*
 * match.c -- the receiving side of two-sided messaging: the posted and
 * unexpected queues, matching in MPI's order, delivering eager messages
 * and starting rendezvous pulls (cross-memory attach or CTS), and the
 * main thread's drain of what the handler queued (proto.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "msg_int.h"

static int msg_matches(const struct kumi_request *r, const struct kumi_msg_node *n)
{
    return r->team_slot == n->h.team && r->ctx == n->h.ctx
           && (r->peer == KUMI_ANY_SOURCE || r->peer == n->src)
           && (r->tag == KUMI_ANY_TAG || r->tag == n->h.tag);
}

/* Single copy from another process on this host; KUMI_OK or -1. */
static int cma_pull(int pid, void *dst, uint64_t src, size_t n)
{
    size_t done = 0;

    while (done < n) {
        struct iovec l = { (char *)dst + done, n - done };
        struct iovec r = { (void *)(uintptr_t)(src + done), n - done };
        ssize_t      k = process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (k <= 0) {
            if (k < 0 && errno == EINTR)
                continue;
            return -1;
        }
        done += (size_t)k;
    }
    return KUMI_OK;
}

/* n (matched to r) delivers; n is freed. */
static int deliver(const char *call, struct kumi_request *r, struct kumi_msg_node *n)
{
    struct kumi_msg_peer *p   = &kumi_msg.peer[n->src];
    size_t                len = (size_t)n->h.size, take = len < r->bytes ? len : r->bytes;
    int                   rc  = KUMI_OK;

    r->status.source = kumi_msg_team_rank(r->team, n->src);
    r->status.tag    = n->h.tag;
    r->status.bytes  = len;
    r->err = len > r->bytes ? KUMI_ERR_TRUNCATE : KUMI_OK;
    if (n->h.type == KUMI_MSG_EAGER) {
        kumi_msg_deliver_eager(r, n->src, &n->h, n->data);
        free(n);
        return KUMI_OK;
    }
    /* RTS */
    p->owed += KUMI_MSG_CHARGE(0);
    if (n->src == kumi_msg.me) {
        struct kumi_request *s = kumi_msg_rdv_get(n->h.sid);
        if (take != 0)
            memcpy(r->buf, (const void *)(uintptr_t)n->h.rid, take);
        if (s != NULL) {
            kumi_msg_rdv_release(s);
            kumi_msg_req_complete(s);
        }
        kumi_msg_req_complete(r);
        free(n);
        return KUMI_OK;
    }
    /* peers whose memory is mapped here (shm) are on this host: their
     * pids are ours to read (never trust a pid from another host) */
    int cma = kumi_msg.cma && !p->cma_off
              && kumi_tp_peer_ptr(&kumi_rt.tp, n->src, KUMI_SEG_LLCM, 0) != NULL;
    if (take == 0 || (cma && cma_pull(n->h.pid, r->buf, n->h.rid, take) == KUMI_OK)) {
        struct kumi_msg_hdr f = { .type = KUMI_MSG_FIN, .sid = n->h.sid };
        rc = kumi_msg_send_am(call, n->src, &f, NULL, 0);
        kumi_msg_req_complete(r);
        free(n);
        return rc;
    }
    if (cma) {
        p->cma_off = 1;
        kumi_rt_log(KUMI_LOG_INFO, "msg: cross-memory attach to PE %d failed (%s): its large "
                    "messages are streamed", n->src, strerror(errno));
    }
    /* CTS: the sender streams DATA straight into r->buf */
    r->expect    = take;
    r->got       = 0;
    r->streaming = 1;
    r->state     = KUMI_MSG_ACTIVE;
    if (kumi_msg_rdv_put(r) == 0) {
        free(n);
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "out of memory for a rendezvous");
    }
    struct kumi_msg_hdr c = { .type = KUMI_MSG_CTS, .size = take, .sid = n->h.sid, .rid = r->id };
    rc = kumi_msg_send_am(call, n->src, &c, NULL, 0);
    free(n);
    return rc;
}

int kumi_msg_req_done(struct kumi_request *r)
{
    uint8_t st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);

    if (st == KUMI_MSG_ACTIVE && r->streaming
        && __atomic_load_n(&r->got, __ATOMIC_ACQUIRE) == r->expect) {
        kumi_msg_rdv_release(r);
        r->streaming = 0;
        kumi_msg_req_complete(r);
        return 1;
    }
    return st == KUMI_MSG_DONE;
}

static void unexp_append(struct kumi_msg_node *n)
{
    n->next = NULL;
    if (kumi_msg.unexp_tail != NULL)
        kumi_msg.unexp_tail->next = n;
    else
        kumi_msg.unexp_head = n;
    kumi_msg.unexp_tail = n;
    kumi_msg.unexp_count++;
    kumi_msg.unexp_bytes += KUMI_MSG_CHARGE(n->h.type == KUMI_MSG_EAGER ? n->h.size : 0);
    if (kumi_msg.unexp_bytes > kumi_msg.unexp_peak)
        kumi_msg.unexp_peak = kumi_msg.unexp_bytes;
}

struct kumi_msg_node *kumi_msg_unexp_find(int team_slot, int ctx, int src, int tag, int take)
{
    struct kumi_request   probe = { .team_slot = team_slot, .ctx = (uint8_t)ctx, .peer = src,
                                    .tag = tag };
    struct kumi_msg_node *prev = NULL;

    for (struct kumi_msg_node *n = kumi_msg.unexp_head; n != NULL; prev = n, n = n->next) {
        if (!msg_matches(&probe, n))
            continue;
        if (take)
            kumi_msg_unexp_unlink(prev, n);
        return n;
    }
    return NULL;
}

void kumi_msg_post_recv(const char *call, struct kumi_request *r)
{
    struct kumi_msg_node *n = kumi_msg_unexp_find(r->team_slot, r->ctx, r->peer, r->tag, 1);
    int                   busy = kumi_msg.busy;

    if (n != NULL) {
        kumi_msg.busy = 1;   /* deliver may send, and sending may run handlers */
        int rc = deliver(call, r, n);
        kumi_msg.busy = busy;
        if (rc != KUMI_OK && r->err == KUMI_OK) {
            r->err = rc;
            kumi_msg_req_complete(r);
        }
        return;
    }
    r->next = NULL;
    kumi_msg_posted_append(r);
}

/* kumi_msg_seq_check's report (msg_int.h): a message out of sequence */
void kumi_msg_seq_report(int src, uint32_t seq)
{
    kumi_rt_log(KUMI_LOG_ERROR, "msg: message %u from PE %d arrived where %u was due", seq, src,
                kumi_msg.peer[src].seq_in);
}

/* The handler's EAGER fast path when no receive is posted for it
 * (kumi_msg_arrive_direct did the rest): to the unexpected queue. */
void kumi_msg_arrive_unexp(int src, const struct kumi_msg_hdr *h, const void *data)
{
    struct kumi_msg_node *n = malloc(sizeof(*n) + (size_t)h->size);
    if (n == NULL)
        kumi_rt_abort("msg: out of memory queueing a message");
    n->src = src;
    /* the handler filled the first 16 bytes and size (what EAGER has) */
    memcpy(&n->h, h, KUMI_MSG_EAGER_HDR);
    n->h.size = h->size;
    n->h.sid = n->h.rid = 0;
    n->h.pid = 0;
    if (h->size != 0)
        memcpy(n->data, data, (size_t)h->size);
    unexp_append(n);
}

/* The same from the handler's usual path (proto.c, msg_am), which found
 * no posted receive: rec is the message as it arrived (the 16-byte EAGER
 * header, then len - 16 bytes of data), its credit and sequence number
 * taken already. */
void kumi_msg_arrive_unexp_rec(int src, const void *rec, size_t len)
{
    struct kumi_msg_hdr h;

    memcpy(&h, rec, KUMI_MSG_EAGER_HDR);
    h.size = len - KUMI_MSG_EAGER_HDR;
    kumi_msg_arrive_unexp(src, &h, (const char *)rec + KUMI_MSG_EAGER_HDR);
}

/* An EAGER or RTS arrived: the first posted receive it fits, or the
 * unexpected queue. */
static int arrive(const char *call, struct kumi_msg_node *n)
{
    struct kumi_request *r;

    kumi_msg_seq_check(n->src, &n->h);
    if ((r = kumi_msg_posted_take(n->src, &n->h)) != NULL) {
        int rc = deliver(call, r, n);
        if (rc != KUMI_OK && r->err == KUMI_OK) {
            r->err = rc;
            kumi_msg_req_complete(r);
        }
        return rc;
    }
    unexp_append(n);
    return KUMI_OK;
}

int kumi_msg_drain(const char *call)
{
    int served = 0, rc = KUMI_OK;

    while (__atomic_load_n(&kumi_msg.in_head, __ATOMIC_RELAXED) != NULL) {
        struct kumi_msg_node *n = kumi_msg_inbox_take();
        while (n != NULL) {
            struct kumi_msg_node *next = n->next;
            struct kumi_request  *s;
            int                   r2 = KUMI_OK;

            served++;
            kumi_msg.peer[n->src].avail += n->h.credit;
            switch (n->h.type) {
            case KUMI_MSG_EAGER:
            case KUMI_MSG_RTS:
                r2 = arrive(call, n);
                break;
            case KUMI_MSG_CTS:
                s = kumi_msg_rdv_get(n->h.sid);
                if (s != NULL && s->kind == KUMI_MSG_SEND && s->state == KUMI_MSG_ACTIVE) {
                    s->stream_rid = n->h.rid;
                    s->stream_len = n->h.size < s->bytes ? (size_t)n->h.size : s->bytes;
                    s->stream_off = 0;
                    s->next = kumi_msg.streams;
                    kumi_msg.streams = s;
                } else {
                    kumi_rt_log(KUMI_LOG_ERROR, "msg: CTS for no send from PE %d", n->src);
                }
                free(n);
                break;
            case KUMI_MSG_FIN:
                s = kumi_msg_rdv_get(n->h.sid);
                if (s != NULL && s->kind == KUMI_MSG_SEND && s->state == KUMI_MSG_ACTIVE) {
                    kumi_msg_rdv_release(s);
                    kumi_msg_req_complete(s);
                } else {
                    kumi_rt_log(KUMI_LOG_ERROR, "msg: FIN for no send from PE %d", n->src);
                }
                free(n);
                break;
            case KUMI_MSG_CANCEL:
            case KUMI_MSG_CANCEL_ACK:
                r2 = kumi_msg_cancel_arrive(call, n);
                break;
            default:   /* CREDIT */
                free(n);
            }
            if (r2 != KUMI_OK && rc == KUMI_OK)
                rc = r2;
            n = next;
        }
    }
    return rc != KUMI_OK ? rc : served;
}

