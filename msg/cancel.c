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
 *   - an eager send completed when it left (its data were copied out):
 *     it is not taken back, and completes as not cancelled.
 * The wire: CANCEL and CANCEL_ACK are whole 48-byte headers (sid: the
 * sender's request id; CANCEL_ACK's size: 1 taken back, 0 too late).
 */
#include "msg_int.h"

int kumi_msg_req_cancel_send(kumi_request_t r)
{
    static const char call[] = "MPI_Cancel";

    if (r->kind != KUMI_MSG_SEND || !r->rdv
        || __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == KUMI_MSG_DONE)
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

/* The RTS of request sid from src, taken out of the unexpected queue;
 * NULL when a receive matched it already. */
static struct kumi_msg_node *unexp_take_rts(int src, uint64_t sid)
{
    struct kumi_msg_node *prev = NULL;

    for (struct kumi_msg_node *n = kumi_msg.unexp_head; n != NULL; prev = n, n = n->next) {
        if (n->src != src || n->h.type != KUMI_MSG_RTS || n->h.sid != sid)
            continue;
        if (prev != NULL)
            prev->next = n->next;
        else
            kumi_msg.unexp_head = n->next;
        if (kumi_msg.unexp_tail == n)
            kumi_msg.unexp_tail = prev;
        kumi_msg.unexp_count--;
        kumi_msg.unexp_bytes -= KUMI_MSG_CHARGE(0);
        return n;
    }
    return NULL;
}

int kumi_msg_cancel_arrive(const char *call, struct kumi_msg_node *n)
{
    int rc = KUMI_OK;

    if (n->h.type == KUMI_MSG_CANCEL) {
        struct kumi_msg_node *rts = unexp_take_rts(n->src, n->h.sid);
        struct kumi_msg_hdr   a   = { .type = KUMI_MSG_CANCEL_ACK, .sid = n->h.sid,
                                      .size = rts != NULL };
        if (rts != NULL) {
            kumi_msg.peer[n->src].owed += KUMI_MSG_CHARGE(0);   /* its credit, back */
            free(rts);
        }
        rc = kumi_msg_send_am(call, n->src, &a, NULL, 0);
    } else {   /* CANCEL_ACK */
        struct kumi_request *s = kumi_msg_rdv_get(n->h.sid);
        if (n->h.size == 1 && s != NULL && s->kind == KUMI_MSG_SEND
            && s->state == KUMI_MSG_ACTIVE && s->stream_rid == 0) {
            kumi_msg_rdv_release(s);
            s->status.cancelled = 1;
            s->err              = KUMI_OK;
            kumi_msg_req_complete(s);
        }
        /* 0: a receive matched it; its CTS or FIN came first and the send
         * goes on (or is done) as if never cancelled */
    }
    free(n);
    return rc;
}
