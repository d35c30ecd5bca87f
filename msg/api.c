/*
 * api.c -- the public two-sided calls (kumi_send ... kumi_cancel):
 * argument checks, requests, waits. The protocol is proto.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "msg_int.h"

/* The checks inline (a call each cost as much as the checks), their
 * reports out of line. */
static __attribute__((noinline, cold)) int check_common_fail(const char *call, kumi_team_t team,
                                                              size_t bytes)
{
    int rc = kumi_rt_check_team(call, team);

    if (rc != KUMI_OK)
        return rc;
    return kumi_rt_error(KUMI_ERR_INVALID, call, "buffer is NULL for %zu bytes", bytes);
}

static inline __attribute__((always_inline)) int
check_common(const char *call, kumi_team_t team, const void *buf, size_t bytes)
{
    if (__builtin_expect(kumi_rt.state == 1 && team != NULL && team->rank >= 0
                         && (buf != NULL || bytes == 0), 1))
        return KUMI_OK;
    return check_common_fail(call, team, bytes);
}

static __attribute__((noinline, cold)) int check_peer_fail(const char *call, kumi_team_t team,
                                                            int pe, int tag, int any)
{
    if (!(any && pe == KUMI_ANY_SOURCE) && (pe < 0 || pe >= team->size))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "pe %d out of range (team size %d)", pe,
                             team->size);
    if (!(any && tag == KUMI_ANY_TAG) && tag < 0)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "tag %d is negative%s", tag,
                             any ? " (KUMI_ANY_TAG is -1)" : "");
    return KUMI_OK;
}

static inline __attribute__((always_inline)) int
check_peer(const char *call, kumi_team_t team, int pe, int tag, int any)
{
    if (__builtin_expect(((unsigned)pe < (unsigned)team->size || (any && pe == KUMI_ANY_SOURCE))
                         && (tag >= 0 || (any && tag == KUMI_ANY_TAG)), 1))
        return KUMI_OK;
    return check_peer_fail(call, team, pe, tag, any);
}

/* A new request, every field written once (kumi_msg_req_new's clearing
 * and then the fields set here wrote most twice). */
static inline __attribute__((always_inline)) struct kumi_request *
req_make(const char *call, int kind, kumi_team_t team, int pe, int tag, const void *buf,
         size_t bytes, unsigned ctx)
{
    struct kumi_request *r = kumi_msg.free_reqs;

    if (__builtin_expect(r != NULL, 1)) {
        kumi_msg.free_reqs = r->next;
    } else if ((r = kumi_msg_req_alloc()) == NULL) {   /* taken off the list */
        kumi_rt_error(KUMI_ERR_NOMEM, call, "out of memory for a request");
        return NULL;
    }
    /* field by field: a struct assignment or memset is a `rep stos`, slow
     * to start (fewer instructions as callgrind counts them, more time) */
    _Static_assert(sizeof(*r) == 144, "a new field of struct kumi_request: set it here "
                                      "(hid and user excepted: see below)");
    r->next      = NULL;
    r->kind      = (uint8_t)kind;
    r->state = r->rdv = r->streaming = r->clone = r->sync = 0;
    r->ctx       = (uint8_t)ctx;
    r->team_slot = team->slot;
    r->team      = team;
    r->peer      = pe == KUMI_ANY_SOURCE ? KUMI_ANY_SOURCE : team->pes[pe];
    r->tag       = tag;
    r->buf       = (void *)(uintptr_t)buf;
    r->bytes     = bytes;
    r->spill     = NULL;
    r->id        = 0;
    r->expect = r->got = r->stream_off = r->stream_len = 0;
    r->stream_rid = 0;
    r->err       = 0;
    r->status    = (kumi_status_t){ .source = pe, .tag = tag, .bytes = bytes };
    /* (r->user is left: the reap of a request handed out by id cleared it,
     * and one the binding holds (KUMI_MSG_USER_HELD) stays refused by the
     * reaps and by the binding's lookup until handed out by id again) */
    return r;
}

/* Sends and receives once the arguments are known good (msg.h). Inline
 * in kumi_isend/kumi_irecv: the exported kumi_msg_*_ctx, called from this
 * library, would go through the PLT and could not be inlined. */
static inline __attribute__((always_inline)) int
isend_ctx(const char *call, const void *buf, size_t bytes, int pe, int tag, kumi_team_t team,
          unsigned ctx, unsigned flags, kumi_request_t *req)
{
    struct kumi_request *r = req_make(call, KUMI_MSG_SEND, team, pe, tag, buf, bytes, ctx);

    if (r == NULL)
        return KUMI_ERR_NOMEM;
    r->sync = (flags & KUMI_MSG_SYNC) != 0;
    /* the usual send (eager, credit there, nothing queued before it) here,
     * the rest by kumi_msg_start_send */
    struct kumi_msg_peer *p = &kumi_msg.peer[r->peer];
    int                   rc;
    if (__builtin_expect(bytes <= kumi_msg.eager && !r->sync && p->q_head == NULL
                         && p->avail >= (int64_t)KUMI_MSG_CHARGE(bytes), 1))
        rc = kumi_msg_send_eager(call, r, p);   /* (r->rdv is 0) */
    else
        rc = kumi_msg_start_send(call, r);
    if (rc != KUMI_OK) {   /* reported; r is in no queue */
        kumi_msg_req_free(r);
        return rc;
    }
    *req = r;
    return KUMI_OK;
}

int kumi_msg_isend_ctx(const char *call, const void *buf, size_t bytes, int pe, int tag,
                       kumi_team_t team, unsigned ctx, unsigned flags, kumi_request_t *req)
{
    return isend_ctx(call, buf, bytes, pe, tag, team, ctx, flags, req);
}

/* A blocking send that can go eager now (kumi_msg_eager_now) needs no
 * request (kumi_msg_send_eager_buf): KUMI_OK sent, < 0 the error
 * (reported), SEND_LATER not now (the caller makes a request).
 * kumi_send's and kumi_msg_send_ctx's. */
enum { SEND_LATER = 1 };
static inline __attribute__((always_inline)) int
send_now(const char *call, const void *buf, size_t bytes, int pe, int tag, kumi_team_t team,
         unsigned ctx)
{
    int                   peer = team->pes[pe];
    struct kumi_msg_peer *p    = &kumi_msg.peer[peer];

    if (__builtin_expect(!kumi_msg_eager_now(p, bytes), 0))
        return SEND_LATER;
    return kumi_msg_send_eager_buf(call, peer, p, ctx, team->slot, tag, buf, bytes);
}

int kumi_msg_send_ctx(const char *call, const void *buf, size_t bytes, int pe, int tag,
                      kumi_team_t team, unsigned ctx, unsigned flags, kumi_request_t *req)
{
    int rc;

    /* eager at once: no request */
    if (__builtin_expect((flags & KUMI_MSG_SYNC) == 0, 1)
        && (rc = send_now(call, buf, bytes, pe, tag, team, ctx)) != SEND_LATER)
        return rc == KUMI_OK ? 1 : rc;
    rc = isend_ctx(call, buf, bytes, pe, tag, team, ctx, flags, req);
    if (__builtin_expect(rc != KUMI_OK, 0))
        return rc;
    struct kumi_request *r = *req;
    if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == KUMI_MSG_DONE && r->err == KUMI_OK) {
        kumi_msg_req_free(r);
        return 1;
    }
    return 0;
}

static inline __attribute__((always_inline)) int
irecv_ctx(const char *call, void *buf, size_t bytes, int pe, int tag, kumi_team_t team,
          unsigned ctx, kumi_request_t *req)
{
    struct kumi_request *r = req_make(call, KUMI_MSG_RECV, team, pe, tag, buf, bytes, ctx);

    if (r == NULL)
        return KUMI_ERR_NOMEM;
    if (__builtin_expect(kumi_msg.unexp_head == NULL, 1)) {
        /* kumi_msg_post_recv with nothing unexpected: to the posted queue
         * (r->next is NULL) without two calls */
        kumi_msg_posted_append(r);
    } else {
        kumi_msg_post_recv(call, r);
    }
    *req = r;
    return KUMI_OK;
}

int kumi_msg_irecv_ctx(const char *call, void *buf, size_t bytes, int pe, int tag,
                       kumi_team_t team, unsigned ctx, kumi_request_t *req)
{
    return irecv_ctx(call, buf, bytes, pe, tag, team, ctx, req);
}

/* r handed out by id: a new generation, the binding's word marked */
static inline int hid_out(struct kumi_request *r, unsigned user)
{
    r->user = user | KUMI_MSG_USER_HID;
    if (__builtin_expect((r->hid & ((1u << KUMI_MSG_HID_IDX_BITS) - 1)) == 0, 0))
        return 0;
    r->hid = (r->hid + (1u << KUMI_MSG_HID_IDX_BITS)) & KUMI_MSG_HID_MASK;
    return (int)r->hid;
}

int kumi_msg_isend_hid(const char *call, const void *buf, size_t bytes, int pe, int tag,
                       kumi_team_t team, unsigned ctx, unsigned flags, unsigned user,
                       kumi_request_t *req)
{
    int rc = isend_ctx(call, buf, bytes, pe, tag, team, ctx, flags, req);

    if (__builtin_expect(rc != KUMI_OK, 0))
        return rc;
    return hid_out(*req, user);
}

int kumi_msg_irecv_hid(const char *call, void *buf, size_t bytes, int pe, int tag,
                       kumi_team_t team, unsigned ctx, unsigned user, kumi_request_t *req)
{
    int rc = irecv_ctx(call, buf, bytes, pe, tag, team, ctx, req);

    if (__builtin_expect(rc != KUMI_OK, 0))
        return rc;
    return hid_out(*req, user);
}

static inline __attribute__((always_inline)) int
isend(const char *call, const void *buf, size_t bytes, int pe, int tag, kumi_team_t team,
      kumi_request_t *req)
{
    int rc = check_common(call, team, buf, bytes);

    if (rc == KUMI_OK)
        rc = check_peer(call, team, pe, tag, 0);
    if (rc == KUMI_OK && req == NULL)
        rc = kumi_rt_error(KUMI_ERR_INVALID, call, "req is NULL");
    if (rc != KUMI_OK)
        return rc;
    return isend_ctx(call, buf, bytes, pe, tag, team, KUMI_MSG_CTX_USER, 0, req);
}

static inline __attribute__((always_inline)) int
irecv(const char *call, void *buf, size_t bytes, int pe, int tag, kumi_team_t team,
      kumi_request_t *req)
{
    int rc = check_common(call, team, buf, bytes);

    if (rc == KUMI_OK)
        rc = check_peer(call, team, pe, tag, 1);
    if (rc == KUMI_OK && req == NULL)
        rc = kumi_rt_error(KUMI_ERR_INVALID, call, "req is NULL");
    if (rc != KUMI_OK)
        return rc;
    return irecv_ctx(call, buf, bytes, pe, tag, team, KUMI_MSG_CTX_USER, req);
}

int kumi_isend(const void *buf, size_t bytes, int pe, int tag, kumi_team_t team,
               kumi_request_t *req)
{
    return isend("kumi_isend", buf, bytes, pe, tag, team, req);
}

int kumi_irecv(void *buf, size_t bytes, int pe, int tag, kumi_team_t team,
               kumi_request_t *req)
{
    return irecv("kumi_irecv", buf, bytes, pe, tag, team, req);
}

/* ---------------------------------------------------------- completion */

static const kumi_status_t empty_status = { .source = KUMI_ANY_SOURCE, .tag = KUMI_ANY_TAG };

/* kumi_msg_req_finish, inlined where this file completes requests (the
 * exported one is interposable, so the compiler would not) */
static inline int req_finish(kumi_request_t r, kumi_status_t *status)
{
    int rc = r->err;

    r->status.error = rc;
    if (status != KUMI_STATUS_IGNORE)
        *status = r->status;
    kumi_msg_req_free(r);
    return rc;
}

int kumi_msg_req_finish(kumi_request_t r, kumi_status_t *status)
{
    return req_finish(r, status);
}

int kumi_msg_req_reap(kumi_request_t r, kumi_status_t *status, int *err)
{
    if (!kumi_msg_req_done_now(r))
        return 0;
    *err = req_finish(r, status);
    return 1;
}

static int req_wait_slow(const char *call, kumi_request_t r);

/* the live request handed out as id hid, else NULL (a request freed and
 * started again without an id has its user word cleared) */
static inline struct kumi_request *req_of_hid(unsigned hid)
{
    unsigned idx = hid & ((1u << KUMI_MSG_HID_IDX_BITS) - 1);

    if (__builtin_expect(idx == 0 || idx >= kumi_msg.reqtab_n, 0))
        return NULL;
    struct kumi_request *r = kumi_msg.reqtab[idx];
    return r->hid == hid && (r->user & KUMI_MSG_USER_HID) != 0 ? r : NULL;
}

/* r (done) reaped: 1, its status into *status unless status is NULL;
 * -1 when it failed (nothing done) */
static inline int reap_hid(struct kumi_request *r, kumi_status_t *status)
{
    if (__builtin_expect(r->err != KUMI_OK, 0))
        return -1;
    if (status != NULL) {
        r->status.error = KUMI_OK;
        *status = r->status;
    }
    r->user = 0;   /* its id names nothing from now on */
    kumi_msg_req_free(r);
    return 1;
}

/* (status is nonnull, msg.h: reap_hid's test of it compiles away) */
int kumi_msg_reap_hid(unsigned hid, kumi_status_t *status)
{
    struct kumi_request *r = req_of_hid(hid);

    if (__builtin_expect(r == NULL || (r->user & KUMI_MSG_USER_HELD) != 0, 0))
        return -1;
    if (!kumi_msg_req_done_now(r))
        return 0;
    return reap_hid(r, status);
}

int kumi_msg_reap_hid_array(int n, const int *ids, unsigned strip, kumi_status_t *statuses)
{
    int i;

    for (i = 0; i < n; i++) {
        int id = ids[i];
        if (id <= 0 || ((unsigned)id & strip) != strip)
            break;
        struct kumi_request *r = req_of_hid((unsigned)id & ~strip);
        if (r == NULL || (r->user & KUMI_MSG_USER_HELD) != 0 || !kumi_msg_req_done_now(r)
            || reap_hid(r, statuses != NULL ? &statuses[i] : NULL) < 0)
            break;
    }
    return i;
}

int kumi_msg_wait_reap_hid(const char *call, unsigned hid, kumi_status_t *status, int *krc)
{
    struct kumi_request *r = req_of_hid(hid);

    if (__builtin_expect(r == NULL || (r->user & KUMI_MSG_USER_HELD) != 0, 0))
        return -1;
    /* (done already: no progress pass, as kumi_msg_req_reap's callers) */
    if (!kumi_msg_req_done_now(r) && (*krc = req_wait_slow(call, r)) != KUMI_OK)
        return 0;
    return reap_hid(r, status);
}

kumi_request_t kumi_msg_req_by_hid(unsigned hid, unsigned *user, int *send, size_t *bytes)
{
    struct kumi_request *r = req_of_hid(hid);

    if (r != NULL) {
        *user  = r->user & ~KUMI_MSG_USER_HID;
        *send  = r->kind == KUMI_MSG_SEND;
        *bytes = r->bytes;
    }
    return r;
}

void kumi_msg_req_set_user(kumi_request_t r, unsigned user)
{
    r->user = user | KUMI_MSG_USER_HID;
}

/* r is done: its status, its error (reported once, here), freed. */
static inline int finish(const char *call, kumi_request_t *req, kumi_status_t *status)
{
    struct kumi_request *r = *req;

    if (r->err == KUMI_ERR_TRUNCATE)
        kumi_rt_error(r->err, call, "message of %zu bytes from rank %d (tag %d) is longer than "
                      "the receive buffer (%zu bytes)", r->status.bytes, r->status.source,
                      r->status.tag, r->bytes);
    *req = KUMI_REQUEST_NULL;
    return req_finish(r, status);
}

struct wait_arg {
    const char      *call;
    kumi_request_t  *reqs;
    int              n, index;
};

/* One of the requests is done (index set). */
static int any_done(struct wait_arg *a)
{
    for (int i = 0; i < a->n; i++)
        if (a->reqs[i] != NULL && kumi_msg_req_done_now(a->reqs[i])) {
            a->index = i;
            return 1;
        }
    return 0;
}

/* The same, progress first. */
static int any_ready(void *p)
{
    kumi_msg_progress(((struct wait_arg *)p)->call, 1);
    return any_done(p);
}

/* The wait loop's test (kumi_rt_wait_pred), after a first any_ready: done
 * already, else progress and look again. The loop serves the transport
 * itself between two tests, and a message that pass delivered is found
 * here without another round of the transport (on tcp a recv on every
 * socket: 0.17 us of an 8-byte ping-pong's 5.4, 2026-11-27). */
static int any_ready_wait(void *p)
{
    return any_done(p) || any_ready(p);
}

int kumi_msg_poll(const char *call)
{
    int rc = kumi_msg_progress(call, 1);

    if (rc >= 0 && kumi_rt_failed())
        return kumi_rt_peer_error(call);
    return rc;
}

/* The wait loop's test for one receive from a given source (from_wait):
 * done already, else that source's queue alone (progress_from), and the
 * layer's whole progress only when that ran a handler without completing
 * the receive (a message queued for the inbox, another tag, ...). The
 * loop itself still serves everything every progress_mask + 1 spins
 * (transport, every layer, this one's credits and queues, the failure
 * word), as for any wait. */
static int from_ready_wait(void *p)
{
    struct wait_arg     *a = p;
    struct kumi_request *r = a->reqs[0];
    int                  n = 0;

    if (kumi_msg_req_done_now(r))
        return 1;
    /* policy spin: KUMI_MSG_FROM_LOOKS looks before the loop's pause
     * (~20-25 ns on the VMs measured; msg_int.h says why one look) */
    for (int i = kumi_rt.wait_policy == KUMI_WAIT_SPIN ? KUMI_MSG_FROM_LOOKS : 1; i > 0 && n == 0;
         i--)
        n = kumi_tp_progress_from(&kumi_rt.tp, r->peer);
    if (n == 0)
        return 0;
    return kumi_msg_req_done_now(r) || any_ready(p);
}

/* Wait for r by polling its source alone? A receive still posted, from
 * one source, where the transport polls one source's messages apart
 * (shm): its message can only come from that queue, and the arrival is
 * noticed within a few instructions instead of within a pass over every
 * source's queue and the layer's progress. */
static inline int from_wait(const struct kumi_request *r)
{
    return r->kind == KUMI_MSG_RECV && r->peer != KUMI_ANY_SOURCE
           && __atomic_load_n(&r->state, __ATOMIC_RELAXED) == KUMI_MSG_POSTED
           && kumi_tp_has_progress_from(&kumi_rt.tp);
}

/* The wait for one receive from a given source (from_wait) under policy
 * spin, in a loop of its own before the wait loop's: the looks as
 * from_ready_wait makes them (KUMI_MSG_FROM_LOOKS, then a pause), for as
 * many rounds as the wait loop makes between two full serves
 * (progress_mask + 1), after which the wait loop takes over (serving
 * everything, checking the failure word). A message seen here returns
 * through one frame, not through the wait loop's test and frames, and
 * the spin pays no indirect call of the test per round. 1: r is done. */
static __attribute__((noinline)) int from_spin(struct wait_arg *a)
{
    struct kumi_request *r    = a->reqs[0];
    const int            peer = r->peer;

    for (unsigned round = 0; round <= kumi_rt.tp.progress_mask; round++) {
        for (int i = 0; i < KUMI_MSG_FROM_LOOKS; i++) {
            int n = kumi_tp_progress_from(&kumi_rt.tp, peer);
            if (__builtin_expect(n != 0, 0)) {
                if (kumi_msg_req_done_now(r) || any_ready(a))
                    return 1;
                if (n < 0)
                    return 0;
            }
        }
        kumi_rt_relax();
    }
    return 0;
}

static int req_wait_slow(const char *call, kumi_request_t r)
{
    struct wait_arg a = { call, &r, 1, -1 };

    if (any_ready(&a))
        return KUMI_OK;
    if (!from_wait(r))
        return kumi_rt_wait_pred(call, any_ready_wait, &a);
    if (kumi_rt.wait_policy == KUMI_WAIT_SPIN && !kumi_rt_threads() && from_spin(&a))
        return KUMI_OK;
    return kumi_rt_wait_pred(call, from_ready_wait, &a);
}

static inline int req_wait(const char *call, kumi_request_t r)
{
    /* done already (an eager send, a message matched by an earlier
     * progress pass): a waitall of a window then costs no pass per
     * request. Every KUMI_MSG_LAZY_WAITS-th such wait makes its pass all
     * the same, so a loop of sends that are done at once still serves
     * what arrives (tests/pe/msg_flood.c: a PE that only sends takes in
     * its unexpected messages meanwhile). */
    if (kumi_msg_req_done_now(r) && ++kumi_msg.lazy_waits % KUMI_MSG_LAZY_WAITS != 0)
        return KUMI_OK;
    return req_wait_slow(call, r);
}

int kumi_msg_req_wait(const char *call, kumi_request_t r)
{
    return req_wait(call, r);
}

struct until_arg {
    const char *call;
    int (*ready)(void *);
    void *arg;
};

static int until_ready(void *p)
{
    struct until_arg *a = p;

    kumi_msg_progress(a->call, 1);
    return a->ready(a->arg);
}

/* As any_ready_wait: ready already, else progress and ask again. */
static int until_ready_wait(void *p)
{
    struct until_arg *a = p;

    return a->ready(a->arg) || until_ready(p);
}

int kumi_msg_wait_until(const char *call, int (*ready)(void *arg), void *arg)
{
    struct until_arg a = { call, ready, arg };

    if (until_ready(&a))
        return KUMI_OK;
    return kumi_rt_wait_pred(call, until_ready_wait, &a);
}

static inline int wait_one(const char *call, kumi_request_t *req, kumi_status_t *status)
{
    int rc = req_wait(call, *req);

    if (rc != KUMI_OK)
        return rc;
    return finish(call, req, status);
}

int kumi_wait(kumi_request_t *req, kumi_status_t *status)
{
    static const char call[] = "kumi_wait";
    int rc = kumi_rt_check_state(call);

    if (rc != KUMI_OK)
        return rc;
    if (req == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "req is NULL");
    if (*req == KUMI_REQUEST_NULL) {
        if (status != KUMI_STATUS_IGNORE)
            *status = empty_status;
        return KUMI_OK;
    }
    return wait_one(call, req, status);
}

int kumi_waitall(int n, kumi_request_t reqs[], kumi_status_t statuses[])
{
    static const char call[] = "kumi_waitall";
    int rc = kumi_rt_check_state(call), first = KUMI_OK;

    if (rc != KUMI_OK)
        return rc;
    if (n < 0 || (n > 0 && reqs == NULL))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "%d requests at %p", n, (void *)reqs);
    /* One pass in order: a done request is finished at once, one that is
     * not is waited for (which serves all of them). Only when every one
     * was done already does the call make a progress pass of its own, and
     * then one for every KUMI_MSG_LAZY_WAITS done requests at most once a
     * call, as kumi_wait's done case (a window of done sends made one per
     * 16 requests before, a fifth of the reaping's instructions). */
    unsigned done = 0;
    int      waited = 0;
    for (int i = 0; i < n; i++) {
        kumi_status_t *st = statuses != KUMI_STATUSES_IGNORE ? &statuses[i] : NULL;
        if (reqs[i] == KUMI_REQUEST_NULL) {
            if (st != NULL)
                *st = empty_status;
            continue;
        }
        if (kumi_msg_req_done_now(reqs[i])) {
            done++;
        } else {
            waited = 1;
            if ((rc = req_wait_slow(call, reqs[i])) != KUMI_OK) {
                if (rc == KUMI_ERR_PEER)
                    return rc;
                if (first == KUMI_OK)
                    first = rc;
                continue;
            }
        }
        rc = finish(call, &reqs[i], st);
        if (rc != KUMI_OK && first == KUMI_OK)
            first = rc;
    }
    if (!waited && done != 0) {
        unsigned before = kumi_msg.lazy_waits;
        kumi_msg.lazy_waits += done;
        if (kumi_msg.lazy_waits / KUMI_MSG_LAZY_WAITS != before / KUMI_MSG_LAZY_WAITS)
            kumi_msg_progress(call, 1);
    }
    return first;
}

int kumi_waitany(int n, kumi_request_t reqs[], int *index, kumi_status_t *status)
{
    static const char call[] = "kumi_waitany";
    int rc = kumi_rt_check_state(call), active = 0;

    if (rc != KUMI_OK)
        return rc;
    if (n < 0 || (n > 0 && reqs == NULL) || index == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "%d requests at %p, index %p", n,
                             (void *)reqs, (void *)index);
    for (int i = 0; i < n; i++)
        active += reqs[i] != KUMI_REQUEST_NULL;
    if (active == 0) {
        *index = KUMI_UNDEFINED;
        if (status != KUMI_STATUS_IGNORE)
            *status = empty_status;
        return KUMI_OK;
    }
    struct wait_arg a = { call, reqs, n, -1 };
    if (!any_ready(&a) && (rc = kumi_rt_wait_pred(call, any_ready_wait, &a)) != KUMI_OK)
        return rc;
    *index = a.index;
    return finish(call, &reqs[a.index], status);
}

int kumi_test(kumi_request_t *req, int *flag, kumi_status_t *status)
{
    static const char call[] = "kumi_test";
    int rc = kumi_rt_check_state(call);

    if (rc != KUMI_OK)
        return rc;
    if (req == NULL || flag == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "req %p or flag %p is NULL", (void *)req,
                             (void *)flag);
    *flag = 0;
    if (*req == KUMI_REQUEST_NULL) {
        *flag = 1;
        if (status != KUMI_STATUS_IGNORE)
            *status = empty_status;
        return KUMI_OK;
    }
    struct wait_arg a = { call, req, 1, -1 };
    if (!any_ready(&a))
        return kumi_rt_failed() ? kumi_rt_peer_error(call) : KUMI_OK;
    *flag = 1;
    return finish(call, req, status);
}

/* -------------------------------------------------------------- probe */

struct probe_arg {
    const char           *call;
    int                   slot, ctx, src, tag;
    struct kumi_msg_node *found;
};

static int probe_ready(void *p)
{
    struct probe_arg *a = p;

    kumi_msg_progress(a->call, 1);
    a->found = kumi_msg_unexp_find(a->slot, a->ctx, a->src, a->tag, 0);
    return a->found != NULL;
}

int kumi_msg_probe_ctx(const char *call, int pe, int tag, kumi_team_t team, unsigned ctx,
                       int wait, int *flag, kumi_status_t *status)
{
    struct probe_arg a = { call, team->slot, (int)ctx,
                           pe == KUMI_ANY_SOURCE ? pe : team->pes[pe], tag, NULL };
    int rc;

    if (!probe_ready(&a)) {
        if (!wait) {
            *flag = 0;
            return kumi_rt_failed() ? kumi_rt_peer_error(call) : KUMI_OK;
        }
        if ((rc = kumi_rt_wait_pred(call, probe_ready, &a)) != KUMI_OK)
            return rc;
    }
    if (flag != NULL)
        *flag = 1;
    if (status != KUMI_STATUS_IGNORE)
        *status = (kumi_status_t){ .source = kumi_msg_team_rank(team, a.found->src),
                                   .tag = a.found->h.tag, .bytes = (size_t)a.found->h.size };
    return KUMI_OK;
}

static int probe(const char *call, int pe, int tag, kumi_team_t team, int wait, int *flag,
                 kumi_status_t *status)
{
    int rc = check_common(call, team, NULL, 0);

    if (rc == KUMI_OK)
        rc = check_peer(call, team, pe, tag, 1);
    if (rc == KUMI_OK && !wait && flag == NULL)
        rc = kumi_rt_error(KUMI_ERR_INVALID, call, "flag is NULL");
    if (rc != KUMI_OK)
        return rc;
    return kumi_msg_probe_ctx(call, pe, tag, team, KUMI_MSG_CTX_USER, wait, flag, status);
}

int kumi_probe(int pe, int tag, kumi_team_t team, kumi_status_t *status)
{
    return probe("kumi_probe", pe, tag, team, 1, NULL, status);
}

int kumi_iprobe(int pe, int tag, kumi_team_t team, int *flag, kumi_status_t *status)
{
    return probe("kumi_iprobe", pe, tag, team, 0, flag, status);
}

/* ------------------------------------------------------------- cancel */

int kumi_msg_req_cancel(kumi_request_t r)
{
    struct kumi_request *prev = NULL;

    if (r->kind != KUMI_MSG_RECV || r->state != KUMI_MSG_POSTED)
        return 0;   /* matched already, or a send: the cancel fails */
    for (struct kumi_request *p = kumi_msg.posted_head; p != NULL; prev = p, p = p->next)
        if (p == r) {
            kumi_msg_posted_unlink(r, prev);
            break;
        }
    r->status = (kumi_status_t){ .source = KUMI_ANY_SOURCE, .tag = KUMI_ANY_TAG, .cancelled = 1 };
    r->err    = KUMI_OK;
    r->state  = KUMI_MSG_DONE;
    return 1;
}

int kumi_cancel(kumi_request_t *req)
{
    static const char call[] = "kumi_cancel";
    int rc = kumi_rt_check_state(call);

    if (rc != KUMI_OK)
        return rc;
    if (req == NULL || *req == KUMI_REQUEST_NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "no request (NULL or KUMI_REQUEST_NULL)");
    kumi_msg_req_cancel(*req);
    return KUMI_OK;
}

/* ------------------------------------------------------ blocking forms */

int kumi_send(const void *buf, size_t bytes, int pe, int tag, kumi_team_t team)
{
    static const char call[] = "kumi_send";
    kumi_request_t    r;
    int               rc = check_common(call, team, buf, bytes);

    if (rc == KUMI_OK)
        rc = check_peer(call, team, pe, tag, 0);
    if (rc != KUMI_OK)
        return rc;
    /* no request (send_now); every KUMI_MSG_LAZY_WAITS-th makes a
     * progress pass after it, as the wait for a done request does
     * (req_wait) */
    rc = send_now(call, buf, bytes, pe, tag, team, KUMI_MSG_CTX_USER);
    if (__builtin_expect(rc != SEND_LATER, 1)) {
        if (rc == KUMI_OK && ++kumi_msg.lazy_waits % KUMI_MSG_LAZY_WAITS == 0)
            kumi_msg_progress(call, 1);
        return rc;
    }
    rc = isend_ctx(call, buf, bytes, pe, tag, team, KUMI_MSG_CTX_USER, 0, &r);
    if (rc != KUMI_OK)
        return rc;
    return wait_one(call, &r, NULL);
}

int kumi_msg_recv_ctx(const char *call, void *buf, size_t bytes, int pe, int tag,
                      kumi_team_t team, unsigned ctx, kumi_status_t *status)
{
    kumi_request_t r;
    int            rc = irecv_ctx(call, buf, bytes, pe, tag, team, ctx, &r);

    if (__builtin_expect(rc != KUMI_OK, 0) || (rc = req_wait(call, r)) != KUMI_OK)
        return rc;
    return req_finish(r, status);
}

int kumi_recv(void *buf, size_t bytes, int pe, int tag, kumi_team_t team,
              kumi_status_t *status)
{
    kumi_request_t r;
    int            rc = irecv("kumi_recv", buf, bytes, pe, tag, team, &r);

    if (rc != KUMI_OK)
        return rc;
    return wait_one("kumi_recv", &r, status);
}
