/*
 * cancel.c -- taking back a send (MPI_Cancel of a send request, through
 * msg.h's kumi_msg_req_cancel_send).
 *
 * A send can be taken back only while no receive has matched it:
 *   - a rendezvous send still waiting for credit in its destination's
 *     queue has sent nothing (not even its sequence number is taken):
 *     it leaves the queue and completes cancelled at once;
 *   - a rendezvous send whose RTS went out and whose receiver has not
 *     answered (no CTS, no FIN) sends CANCEL (its id in sid). The
 *     receiver meets CANCEL after the RTS (one pair's messages arrive in
 *     order and are drained in order), so the RTS is either still in the
 *     unexpected queue -- then it is removed, its credit given back, and
 *     CANCEL_ACK says 1 -- or a receive matched it, which answers with CTS
 *     or FIN before CANCEL_ACK says 0. The send completes cancelled at
 *     CANCEL_ACK 1, normally at its FIN (or streaming) otherwise, so no
 *     data is ever delivered for a send that reports "cancelled", and a
 *     later CANCEL_ACK 0 for it finds its id gone or the request busy
 *     and is ignored.
 *   - an eager send completed when it left, but its message may still
 *     wait unexpected at the receiver: the request becomes active again
 *     (with an id in the rendezvous table, for the answer) and CANCEL
 *     names the message by its sequence number. The receiver, again
 *     meeting CANCEL after the message, removes it from the unexpected
 *     queue (CANCEL_ACK 1) or says a receive took it (0); the request
 *     completes at CANCEL_ACK, cancelled or not. An eager send that was
 *     queued for credit (its data copied into a clone) is not taken back.
 * The wire: CANCEL and CANCEL_ACK are whole 48-byte headers (sid: the
 * sender's request id; CANCEL's rid: 0 for the RTS of sid, else the
 * EAGER message's seq + 1; CANCEL_ACK's size: 1 taken back, 0 too late).
 */
#include "msg_int.h"

int kumi_msg_req_cancel_send(kumi_request_t r)
{
    static const char call[] = "MPI_Cancel";

    if (r->kind != KUMI_MSG_SEND)
        return 0;
    if (!r->rdv) {   /* eager: sent (r->expect: its seq + 1) or cloned */
        uint8_t st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
        if (st == KUMI_MSG_ACTIVE)
            return 2;   /* a withdrawal is under way already */
        if (st != KUMI_MSG_DONE || r->expect == 0 || r->err != KUMI_OK || r->status.cancelled
            || kumi_msg_rdv_put(r) == 0)
            return 0;
        struct kumi_msg_hdr h    = { .type = KUMI_MSG_CANCEL, .sid = r->id, .rid = r->expect };
        int                 busy = kumi_msg.busy;
        __atomic_store_n(&r->state, KUMI_MSG_ACTIVE, __ATOMIC_RELEASE);
        kumi_msg.busy = 1;
        int rc = kumi_msg_send_am(call, r->peer, &h, NULL, 0);
        kumi_msg.busy = busy;
        if (rc != KUMI_OK) {   /* reported; the send stands */
            kumi_msg_rdv_release(r);
            kumi_msg_req_complete(r);
            return rc;
        }
        return 2;
    }
    if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == KUMI_MSG_DONE)
        return 0;
    if (r->state == KUMI_MSG_QUEUED) {   /* still in its destination's queue */
        struct kumi_msg_peer *p    = &kumi_msg.peer[r->peer];
        struct kumi_request  *prev = NULL;
        for (struct kumi_request *q = p->q_head; q != NULL; prev = q, q = q->next) {
            if (q != r)
                continue;
            if (prev != NULL)
                prev->next = r->next;
            else
                p->q_head = r->next;
            if (p->q_tail == r)
                p->q_tail = prev;
            if (p->q_head == NULL)
                kumi_msg.queued--;
            r->next             = NULL;
            r->status.cancelled = 1;
            r->err              = KUMI_OK;
            kumi_msg_req_complete(r);
            return 1;
        }
        return 0;
    }
    /* the RTS is out; a CTS already came (streaming): too late */
    if (r->stream_len != 0 || r->stream_rid != 0 || r->id == 0)
        return 0;
    struct kumi_msg_hdr h    = { .type = KUMI_MSG_CANCEL, .sid = r->id };
    int                 busy = kumi_msg.busy;
    kumi_msg.busy = 1;   /* sending may run handlers: they only queue */
    int rc = kumi_msg_send_am(call, r->peer, &h, NULL, 0);
    kumi_msg.busy = busy;
    return rc == KUMI_OK ? 2 : rc;
}

/* The message from src that CANCEL h names (the RTS of request h->sid,
 * or the EAGER message of seq h->rid - 1), taken out of the unexpected
 * queue; NULL when a receive matched it already. */
static struct kumi_msg_node *unexp_take(int src, const struct kumi_msg_hdr *h)
{
    struct kumi_msg_node *prev = NULL;

    for (struct kumi_msg_node *n = kumi_msg.unexp_head; n != NULL; prev = n, n = n->next) {
        if (n->src != src
            || (h->rid == 0 ? n->h.type != KUMI_MSG_RTS || n->h.sid != h->sid
                            : n->h.type != KUMI_MSG_EAGER || n->h.seq != (uint32_t)(h->rid - 1)))
            continue;
        kumi_msg_unexp_unlink(prev, n);
        return n;
    }
    return NULL;
}

int kumi_msg_cancel_arrive(const char *call, struct kumi_msg_node *n)
{
    int rc = KUMI_OK;

    if (n->h.type == KUMI_MSG_CANCEL) {
        struct kumi_msg_node *m = unexp_take(n->src, &n->h);
        struct kumi_msg_hdr   a = { .type = KUMI_MSG_CANCEL_ACK, .sid = n->h.sid,
                                    .size = m != NULL };
        if (m != NULL) {   /* its credit, back */
            kumi_msg.peer[n->src].owed +=
                KUMI_MSG_CHARGE(m->h.type == KUMI_MSG_EAGER ? m->h.size : 0);
            free(m);
        }
        rc = kumi_msg_send_am(call, n->src, &a, NULL, 0);
    } else {   /* CANCEL_ACK */
        struct kumi_request *s = kumi_msg_rdv_get(n->h.sid);
        if (s != NULL && s->kind == KUMI_MSG_SEND && s->state == KUMI_MSG_ACTIVE
            && (!s->rdv || (n->h.size == 1 && s->stream_rid == 0))) {
            kumi_msg_rdv_release(s);
            s->status.cancelled = n->h.size == 1;
            kumi_msg_req_complete(s);
        }
        /* a rendezvous send and 0: a receive matched it; its CTS or FIN
         * came first and the send goes on (or is done) as if never
         * cancelled */
    }
    free(n);
    return rc;
}
