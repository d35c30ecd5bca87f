/*
 * msg.h -- the messaging layer's entry points for bindings (bindings/mpi):
 * kumi.h's two-sided calls with two more choices and without their
 * argument checks and messages, so that a binding checks its arguments
 * and reports errors in its own terms, and pays for nothing twice.
 *
 *   context  a message matches only receives and probes of its own context
 *            on its team: an MPI communicator's point-to-point traffic is
 *            KUMI_MSG_CTX_USER (kumi.h's calls use it too), its collective
 *            traffic KUMI_MSG_CTX_COLL, so a user's ANY_SOURCE/ANY_TAG
 *            receive never takes a collective's message.
 *   sync     KUMI_MSG_SYNC: the send completes only once a receive matched
 *            it (MPI_Ssend): every size goes by rendezvous (RTS, then the
 *            receiver pulls and answers FIN; a 0-byte one is answered at
 *            once).
 *
 * The caller has checked: kumi is up, team is a team this PE is a member
 * of, pe a rank in it (or KUMI_ANY_SOURCE for receives and probes), tag
 * >= 0 (or KUMI_ANY_TAG), buf valid for bytes. What can still fail (no
 * memory, a dead peer) is reported by the layer for call.
 * Threads: as kumi.h's two-sided calls (one thread at a time).
 */
#ifndef KUMI_MSG_H
#define KUMI_MSG_H

#include <stddef.h>

#include "kumi.h"

enum {
    KUMI_MSG_CTX_USER = 0,   /* point-to-point (kumi.h's calls, MPI's user traffic) */
    KUMI_MSG_CTX_COLL = 1,   /* a binding's collectives over messages                */
    KUMI_MSG_CTX_MAX  = 255
};
enum { KUMI_MSG_SYNC = 1u << 0 };   /* flags of kumi_msg_isend_ctx */

int kumi_msg_isend_ctx(const char *call, const void *buf, size_t bytes, int pe, int tag,
                       kumi_team_t team, unsigned ctx, unsigned flags, kumi_request_t *req);
int kumi_msg_irecv_ctx(const char *call, void *buf, size_t bytes, int pe, int tag,
                       kumi_team_t team, unsigned ctx, kumi_request_t *req);
/* kumi_msg_isend_ctx for a blocking send: 1 when the send completed at
 * once and succeeded (an eager one: the request is freed, nothing to
 * wait for), 0 when not (*req: the caller waits for it and finishes it
 * as any other), < 0 the error of the start (reported). No progress is
 * made and nothing waited for. */
int kumi_msg_send_ctx(const char *call, const void *buf, size_t bytes, int pe, int tag,
                      kumi_team_t team, unsigned ctx, unsigned flags, kumi_request_t *req);
/* kumi_msg_irecv_ctx, the wait and kumi_msg_req_finish in one call (a
 * blocking receive): KUMI_OK or the request's error (KUMI_ERR_TRUNCATE:
 * not reported, *status, unless KUMI_STATUS_IGNORE, says what came), or
 * the start's or the wait's error (reported). */
int kumi_msg_recv_ctx(const char *call, void *buf, size_t bytes, int pe, int tag,
                      kumi_team_t team, unsigned ctx, kumi_status_t *status);
/* kumi_iprobe (wait 0) or kumi_probe (wait 1) in context ctx; flag may be
 * NULL when wait is 1. */
int kumi_msg_probe_ctx(const char *call, int pe, int tag, kumi_team_t team, unsigned ctx,
                       int wait, int *flag, kumi_status_t *status);

/* One round of progress (the transport, then the layer): >= 0, how many
 * messages and sends the round served (0: none; a count, so 1 is not
 * KUMI_AGAIN), or a negative KUMI_ERR_* (reported): KUMI_ERR_PEER once the
 * job fails, else the error of a send the round made (a queued send, a
 * rendezvous' data or clear-to-send, returned credit). */
int kumi_msg_poll(const char *call);
/* 1 when r is complete (no progress made: call kumi_msg_poll between
 * tests), else 0. */
int kumi_msg_req_done(kumi_request_t r);
/* Waits until r is complete (progress, the wait policy, failure):
 * KUMI_OK, or KUMI_ERR_PEER (reported) once the job fails. */
int kumi_msg_req_wait(const char *call, kumi_request_t r);
/* Waits until ready(arg) != 0, with kumi_msg_poll before each call of
 * ready (the wait policy and the failure check as kumi_wait's): for a
 * binding's waits on many requests. KUMI_OK or KUMI_ERR_PEER (reported). */
int kumi_msg_wait_until(const char *call, int (*ready)(void *arg), void *arg);
/* r is complete: copies its status (the error included; status may be
 * NULL), frees r and returns its error (KUMI_ERR_TRUNCATE: not reported). */
int kumi_msg_req_finish(kumi_request_t r, kumi_status_t *status);
/* kumi_msg_req_done, then kumi_msg_req_finish, in one call (a binding's
 * completion of a request costs one call into the library, not two): 1
 * when r was complete (its status into *status, its error into *err, r
 * freed), else 0 (nothing written, no progress made). */
int kumi_msg_req_reap(kumi_request_t r, kumi_status_t *status, int *err);
/* kumi_cancel: 1 when r was a receive no message had matched (it is now
 * complete, cancelled), 0 when too late or a send (it completes normally). */
int kumi_msg_req_cancel(kumi_request_t r);
/* Takes back a send no receive has matched (cancel.c): 1 when r is now
 * complete and cancelled (a rendezvous send still queued for credit), 2
 * when a withdrawal is under way (a send whose message is out, eager ones
 * too even though complete: r is active again and completes later,
 * cancelled or not, status.cancelled says which), 0 when r cannot be
 * taken back (an eager send queued for credit, a rendezvous send already
 * matched or done): it completes normally. < 0: the CANCEL could not be
 * sent (reported). */
int kumi_msg_req_cancel_send(kumi_request_t r);


/* Handle ids, for a binding whose request handles are 32-bit (MPI): every
 * request the layer allocates has an id below 2^30, never 0, that no other
 * live request has and that its next life (after it is freed) does not
 * reuse, with a word of the binding's (user: bits 0-29 and HELD) beside it, so
 * that the binding can hand the layer's request out as its own handle with
 * no table of its own in between. */
enum { KUMI_MSG_USER_HELD = 1u << 31 };   /* user: the binding holds r elsewhere */
/* kumi_msg_isend_ctx / kumi_msg_irecv_ctx with the request's user word set:
 * > 0 the request's id (*req set too), 0 (KUMI_OK) *req set but it has no
 * id (more than 2^22 requests at once), < 0 the error (reported). */
int kumi_msg_isend_hid(const char *call, const void *buf, size_t bytes, int pe, int tag,
                       kumi_team_t team, unsigned ctx, unsigned flags, unsigned user,
                       kumi_request_t *req);
int kumi_msg_irecv_hid(const char *call, void *buf, size_t bytes, int pe, int tag,
                       kumi_team_t team, unsigned ctx, unsigned user, kumi_request_t *req);
/* The completion of the request of id hid in one call: 1 when it was
 * complete and succeeded (its status into *status, the request freed), 0
 * when not complete yet (no progress made), -1 when hid names no live
 * request, its user word has KUMI_MSG_USER_HELD, or it failed (nothing
 * done: the caller looks it up, kumi_msg_req_by_hid). */
int kumi_msg_reap_hid(unsigned hid, kumi_status_t *status) __attribute__((nonnull(2)));
/* kumi_msg_reap_hid along an array: ids[i] & ~strip for i = 0, 1, ...
 * while ids[i] > 0 has strip's bits, names a request that
 * kumi_msg_reap_hid would reap (1), and i < n: reaps it (status into
 * statuses[i] unless statuses is NULL). Returns how many were reaped (a
 * prefix of the array; the caller takes the rest one by one). */
int kumi_msg_reap_hid_array(int n, const int *ids, unsigned strip, kumi_status_t *statuses);
/* kumi_msg_reap_hid after waiting for the request (kumi_msg_req_wait): 1
 * (reaped), -1 (as kumi_msg_reap_hid, nothing waited for), 0 when the
 * wait failed (*krc: KUMI_ERR_PEER, reported). */
int kumi_msg_wait_reap_hid(const char *call, unsigned hid, kumi_status_t *status, int *krc)
    __attribute__((nonnull(3, 4)));
/* The live request of id hid (NULL: none): its user word, whether a send
 * (1) or a receive (0), and its size (send) or capacity (receive). */
kumi_request_t kumi_msg_req_by_hid(unsigned hid, unsigned *user, int *send, size_t *bytes);
void           kumi_msg_req_set_user(kumi_request_t r, unsigned user);
#endif /* KUMI_MSG_H */
