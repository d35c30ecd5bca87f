/*
 * p2p.c -- point to point: the send modes (standard, synchronous, ready,
 * buffered: its buffer is bsend.c's), receives, probes,
 * MPI_Sendrecv(_replace) and persistent requests (MPI_*_init,
 * MPI_Start(all)).
 *
 * A send or receive of a contiguous datatype is one call of the message
 * layer (msg/msg.h) on the communicator's team, straight from or into the
 * user's buffer, and nothing is allocated: MPI_Isend/MPI_Irecv hand out the
 * layer's handle id as the MPI_Request (no slot: mpi_int.h, KMPI_REQ_HID),
 * MPI_Send finishes an eager send in the same call (kumi_msg_send_ctx),
 * MPI_Recv posts, waits and finishes in one (kumi_msg_recv_ctx),
 * the rest keep the layer's request as their slot's kr. A non-contiguous datatype is packed into a temporary buffer
 * and sent as bytes, or received into one and unpacked at completion.
 *
 * Modes: a standard send is kumi's (eager up to KUMI_MSG_EAGER bytes,
 * else rendezvous); a synchronous one always goes by rendezvous
 * (KUMI_MSG_SYNC), so it completes only once a receive matched it; a ready
 * send is a standard one (MPI allows it; a ready send whose receive is
 * not posted is erroneous and is not detected); a buffered one copies the
 * data into the attached buffer and sends from there (bsend.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"
#include "msg.h"

_Static_assert((int)KMPI_MODE_SYNC == (int)KUMI_MSG_SYNC, "a send mode is its message-layer flags");

/* buf + off without arithmetic on a null pointer (MPI_BOTTOM is NULL) */
static inline void *at(const void *buf, MPI_Aint off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* The checks of every send and receive but the datatype handle's lookup
 * (t: its type, NULL when datatype is none); *cp on success. */
static __attribute__((noinline)) int
p2p_check(const char *call, const void *buf, int count, const struct kmpi_type *t,
          MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, int recv,
          struct kmpi_comm **cp)
{
    int rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    struct kmpi_comm *c = kmpi_comm_fast(comm);
    if (__builtin_expect(c == NULL, 0))
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator%s", comm,
                          comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
    if (__builtin_expect(t == NULL, 0))
        return kmpi_error(comm, MPI_ERR_TYPE, call, "%d is no datatype", datatype);
    if (__builtin_expect(!t->committed, 0))
        return kmpi_error(comm, MPI_ERR_TYPE, call, "datatype %d is not committed "
                          "(MPI_Type_commit)", datatype);
    if (__builtin_expect(count < 0, 0))
        return kmpi_error(comm, MPI_ERR_COUNT, call, "count %d is negative", count);
    if (__builtin_expect((unsigned)peer >= (unsigned)c->psize, 0)
        && peer != MPI_PROC_NULL && !(recv && peer == MPI_ANY_SOURCE)) {
        char label[64];
        return kmpi_error(comm, MPI_ERR_RANK, call, "%s %d is out of range: %s has %d "
                          "%srank%s (0..%d)%s", recv ? "source" : "dest", peer,
                          kmpi_comm_label(comm, label, sizeof label), c->psize,
                          c->inter ? "remote " : "", c->psize == 1 ? "" : "s", c->psize - 1,
                          recv ? ", MPI_ANY_SOURCE or MPI_PROC_NULL" : " or MPI_PROC_NULL");
    }
    if (__builtin_expect(tag < 0, 0) && !(recv && tag == MPI_ANY_TAG))
        return kmpi_error(comm, MPI_ERR_TAG, call, "tag %d is negative: tags are 0 .. "
                          "MPI_TAG_UB (%d)%s", tag, 0x7fffffff, recv ? " or MPI_ANY_TAG" : "");
    if (__builtin_expect(buf == NULL, 0) && count > 0 && t->size > 0 && t->contig
        && t->lb == 0)
        return kmpi_error(comm, MPI_ERR_BUFFER, call, "buf is NULL for %d elements", count);
    *cp = c;
    return MPI_SUCCESS;
}

/* The arguments every send and receive checks; *cp and *tp on success. */
static inline int p2p_args(const char *call, const void *buf, int count, MPI_Datatype datatype,
                           int peer, int tag, MPI_Comm comm, int recv, struct kmpi_comm **cp,
                           const struct kmpi_type **tp)
{
    const struct kmpi_type *t = kmpi_type_fast(datatype);
    struct kmpi_comm       *c = kmpi_comm_fast(comm);

    *tp = t;
    /* the usual case inline: live, a known communicator, a committed type,
     * a rank in range, a tag >= 0 and a buffer; p2p_check sorts out the
     * rest (PROC_NULL, ANY_SOURCE, ANY_TAG) and reports what is wrong */
    if (__builtin_expect(kmpi_state == 1 && c != NULL && t != NULL && t->committed && count >= 0
                         && (unsigned)peer < (unsigned)c->psize && tag >= 0
                         && (buf != NULL || count == 0), 1)) {
        *cp = c;
        return MPI_SUCCESS;
    }
    return p2p_check(call, buf, count, t, datatype, peer, tag, comm, recv, cp);
}

/* ------------------------------------------------------------ starting */

/* bytes at data (already packed, or contiguous) to dest */
static inline int send_bytes(const char *call, const void *data, size_t bytes, int dest,
                             int tag, MPI_Comm comm, struct kmpi_comm *c, unsigned flags,
                             struct kmpi_req *q)
{
    int krc = kumi_msg_isend_ctx(call, data, bytes, dest, tag, c->team, KUMI_MSG_CTX_USER,
                                 flags, &q->kr);

    q->kind = KMPI_REQ_SEND;
    q->comm = comm;
    if (__builtin_expect(krc != KUMI_OK, 0)) {
        q->kr = NULL;
        return kmpi_error_kumi(comm, krc, call, "starting a send");
    }
    return MPI_SUCCESS;
}

static inline int send_start(const char *call, const void *buf, int count,
                             const struct kmpi_type *t, int dest, int tag, MPI_Comm comm,
                             struct kmpi_comm *c, unsigned flags, struct kmpi_req *q)
{
    size_t bytes = (size_t)count * t->size;

    if (t->contig)
        return send_bytes(call, at(buf, t->lb), bytes, dest, tag, comm, c, flags, q);
    if (bytes != 0 && (q->tmp = malloc(bytes)) == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory to pack %zu bytes", bytes);
    if (bytes != 0)
        kmpi_pack(buf, (size_t)count, t, q->tmp);
    int rc = send_bytes(call, q->tmp, bytes, dest, tag, comm, c, flags, q);
    if (rc != MPI_SUCCESS) {
        free(q->tmp);
        q->tmp = NULL;
    }
    return rc;
}

/* the rest of recv_start: a datatype that is not contiguous, a failure */
static __attribute__((noinline)) int
recv_start_slow(const char *call, void *buf, int count, const struct kmpi_type *t, int source,
                int tag, MPI_Comm comm, struct kmpi_comm *c, struct kmpi_req *q, int krc)
{
    size_t bytes = (size_t)count * t->size;
    void  *into  = at(buf, t->lb);

    if (krc == KUMI_OK) {   /* not contiguous: received into tmp, unpacked at completion */
        if (bytes != 0 && (q->tmp = malloc(bytes)) == NULL)
            return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory to receive %zu bytes",
                              bytes);
        into      = q->tmp;
        q->unpack = 1;
        q->ubuf   = buf;
        q->count  = count;
        if (!q->persistent) {   /* (a persistent request holds it already) */
            q->dt = (struct kmpi_type *)t;
            kmpi_type_hold(q->dt);
        }
        krc = kumi_msg_irecv_ctx(call, into, bytes, source, tag, c->team, KUMI_MSG_CTX_USER,
                                 &q->kr);
        if (krc == KUMI_OK)
            return MPI_SUCCESS;
    }
    free(q->tmp);
    q->tmp = NULL;
    q->kr  = NULL;
    if (q->unpack && !q->persistent) {
        kmpi_type_release(q->dt);
        q->dt = NULL;
    }
    q->unpack = 0;
    return kmpi_error_kumi(comm, krc, call, "posting a receive");
}

/* Inline (MPI_Irecv's path): a contiguous datatype is received straight
 * into the user's buffer; the rest is recv_start_slow's. */
static inline __attribute__((always_inline)) int
recv_start(const char *call, void *buf, int count, const struct kmpi_type *t, int source,
           int tag, MPI_Comm comm, struct kmpi_comm *c, struct kmpi_req *q)
{
    _Static_assert(MPI_ANY_SOURCE == KUMI_ANY_SOURCE && MPI_ANY_TAG == KUMI_ANY_TAG,
                   "MPI's wildcards are kumi's");
    q->kind = KMPI_REQ_RECV;
    q->comm = comm;
    q->cap  = (size_t)count * t->size;
    if (__builtin_expect(!t->contig, 0))
        return recv_start_slow(call, buf, count, t, source, tag, comm, c, q, KUMI_OK);
    int krc = kumi_msg_irecv_ctx(call, at(buf, t->lb), q->cap, source, tag, c->team,
                                 KUMI_MSG_CTX_USER, &q->kr);
    if (__builtin_expect(krc != KUMI_OK, 0))
        return recv_start_slow(call, buf, count, t, source, tag, comm, c, q, krc);
    return MPI_SUCCESS;
}

/* A request on the caller's stack (the blocking calls): the fields the
 * start and finish read, set one by one (`= { 0 }` is a slow `rep stos`). */
static inline void local_init(struct kmpi_req *q)
{
    q->kr      = NULL;
    q->kind    = KMPI_REQ_FREE;
    q->settled = q->unpack = q->persistent = 0;
    q->comm    = MPI_COMM_NULL;
    q->err     = MPI_SUCCESS;
    q->tmp     = NULL;
    q->dt      = NULL;
    q->cap     = 0;
}

/* q (on the caller's stack) to its end: MPI_SUCCESS or the error raised */
static inline int finish_local(const char *call, struct kmpi_req *q, MPI_Status *status)
{
    if (!q->settled && !q->unpack && q->tmp == NULL) {   /* contiguous: one call to finish */
        kumi_status_t ks;
        int           krc;
        if (!kumi_msg_req_reap(q->kr, &ks, &krc)) {
            if ((krc = kmpi_wait_kr(call, q->kr)) != KUMI_OK)
                return kmpi_error_kumi(q->comm, krc, call, q->kind == KMPI_REQ_SEND ? "sending"
                                       : "receiving");
            kumi_msg_req_reap(q->kr, &ks, &krc);
        }
        if (__builtin_expect(krc == KUMI_OK, 1)) {
            if (status != MPI_STATUS_IGNORE)
                kmpi_status_from(status, &ks);
            return MPI_SUCCESS;
        }
        kmpi_req_settle_ks(q, &ks, krc);   /* failed: described and raised below */
    }
    if (!kmpi_req_settle(q)) {
        int krc = kmpi_wait_kr(call, q->kr);
        if (krc != KUMI_OK)
            return kmpi_error_kumi(q->comm, krc, call, q->kind == KMPI_REQ_SEND ? "sending"
                                   : "receiving");
        kmpi_req_settle(q);
    }
    if (status != MPI_STATUS_IGNORE)
        kmpi_status_out(status, &q->st);
    if (__builtin_expect(q->err != MPI_SUCCESS, 0)) {
        char what[256];
        kmpi_req_describe(q, what, sizeof what);
        return kmpi_error(q->comm, q->err, call, "%s", what);
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ blocking */

/* (inline, as send_nonblocking) */
static inline __attribute__((always_inline)) int
send_blocking(const char *call, const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm, int mode)
{
    struct kmpi_comm       *c;
    const struct kmpi_type *t;
    int rc = p2p_args(call, buf, count, datatype, dest, tag, comm, 0, &c, &t);

    if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
        return rc;
    if (mode == KMPI_MODE_BUFFERED)
        return kmpi_bsend_start(call, buf, count, t, dest, tag, comm, c, NULL);
    struct kmpi_req q;
    if (__builtin_expect(t->contig, 1)) {
        /* contiguous: sent, and when it completed at once (eager)
         * finished, in one call into the layer; else waited for below */
        int d = kumi_msg_send_ctx(call, at(buf, t->lb), (size_t)count * t->size, dest, tag,
                                  c->team, KUMI_MSG_CTX_USER, (unsigned)mode, &q.kr);
        if (__builtin_expect(d == 1, 1))
            return MPI_SUCCESS;
        if (d < 0)
            return kmpi_error_kumi(comm, d, call, "starting a send");
        kumi_request_t kr = q.kr;
        local_init(&q);
        q.kr   = kr;
        q.kind = KMPI_REQ_SEND;
        q.comm = comm;
        return finish_local(call, &q, MPI_STATUS_IGNORE);
    }
    local_init(&q);
    if ((rc = send_start(call, buf, count, t, dest, tag, comm, c, (unsigned)mode, &q)) != 0)
        return rc;
    return finish_local(call, &q, MPI_STATUS_IGNORE);
}

/* The usual call's case (a live binding, a basic committed contiguous
 * type, a rank of comm, a tag >= 0, a buffer), checked with no call
 * before the layer's: what else PMPI_Send, PMPI_Recv, PMPI_Isend and
 * PMPI_Irecv do is out of line (send_general, recv_general, isend_general,
 * irecv_general: the same checks again, and the rest), so the usual call saves and restores
 * fewer registers (83 -> 71 instructions an MPI_Isend, msg/README.md). */
static inline int p2p_usual(const void *buf, int count, MPI_Datatype datatype, int peer,
                            int tag, MPI_Comm comm, struct kmpi_comm **cp,
                            const struct kmpi_type **tp)
{
    const struct kmpi_type *t = (unsigned)datatype < KMPI_BASIC_MAX ? kmpi_basic_types[datatype]
                                                                     : NULL;
    struct kmpi_comm       *c = kmpi_comm_fast(comm);

    *cp = c;
    *tp = t;
    return kmpi_state == 1 && c != NULL && t != NULL && t->committed && t->contig && count >= 0
           && (unsigned)peer < (unsigned)c->psize && tag >= 0 && (buf != NULL || count == 0);
}

static __attribute__((noinline)) int
send_general(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm)
{
    return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm, KMPI_MODE_STANDARD);
}

/* the rest of send_blocking's contiguous case: d from kumi_msg_send_ctx */
static __attribute__((noinline)) int send_rest(const char *call, int d, kumi_request_t kr,
                                               MPI_Comm comm)
{
    struct kmpi_req q;

    if (d < 0)
        return kmpi_error_kumi(comm, d, call, "starting a send");
    local_init(&q);
    q.kr   = kr;
    q.kind = KMPI_REQ_SEND;
    q.comm = comm;
    return finish_local(call, &q, MPI_STATUS_IGNORE);
}

#pragma weak MPI_Send = PMPI_Send
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm)
{
    static const char       call[] = "MPI_Send";
    struct kmpi_comm       *c;
    const struct kmpi_type *t;
    kumi_request_t          kr;

    if (__builtin_expect(!p2p_usual(buf, count, datatype, dest, tag, comm, &c, &t), 0))
        return send_general(buf, count, datatype, dest, tag, comm);
    int d = kumi_msg_send_ctx(call, at(buf, t->lb), (size_t)count * t->size, dest, tag, c->team,
                              KUMI_MSG_CTX_USER, KMPI_MODE_STANDARD, &kr);
    if (__builtin_expect(d == 1, 1))
        return MPI_SUCCESS;
    return send_rest(call, d, kr, comm);
}

#pragma weak MPI_Ssend = PMPI_Ssend
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm, KMPI_MODE_SYNC);
}

#pragma weak MPI_Rsend = PMPI_Rsend
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    return send_blocking("MPI_Rsend", buf, count, datatype, dest, tag, comm, KMPI_MODE_STANDARD);
}

#pragma weak MPI_Bsend = PMPI_Bsend
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    return send_blocking("MPI_Bsend", buf, count, datatype, dest, tag, comm, KMPI_MODE_BUFFERED);
}

static __attribute__((noinline)) int
recv_general(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    static const char       call[] = "MPI_Recv";
    struct kmpi_comm       *c;
    const struct kmpi_type *t;
    int rc = p2p_args(call, buf, count, datatype, source, tag, comm, 1, &c, &t);

    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        if (status != MPI_STATUS_IGNORE)
            kmpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    struct kmpi_req q;
    local_init(&q);
    if ((rc = recv_start(call, buf, count, t, source, tag, comm, c, &q)) != 0)
        return rc;
    return finish_local(call, &q, status);
}

/* the usual MPI_Recv that failed (krc from kumi_msg_recv_ctx): the
 * receive's own error (ks->error, a truncated message) described and
 * raised as finish_local does, else the start's or the wait's */
static __attribute__((noinline)) int recv_rest(const char *call, int krc, const kumi_status_t *ks,
                                               size_t cap, MPI_Comm comm, MPI_Status *status)
{
    struct kmpi_req q;

    if (ks->error != krc)
        return kmpi_error_kumi(comm, krc, call, "receiving");
    local_init(&q);
    q.kind = KMPI_REQ_RECV;
    q.comm = comm;
    q.cap  = cap;
    kmpi_req_settle_ks(&q, ks, krc);
    return finish_local(call, &q, status);
}

/* The usual call (p2p_usual, no non-blocking collective to progress
 * meanwhile): posted, waited for and finished in one call of the layer
 * (kumi_msg_recv_ctx), which sees the message complete the receive in its
 * own loop; the rest (wildcards, PROC_NULL, derived types, errors) is
 * recv_general's. */
#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    static const char       call[] = "MPI_Recv";
    struct kmpi_comm       *c;
    const struct kmpi_type *t;

    if (__builtin_expect(!p2p_usual(buf, count, datatype, source, tag, comm, &c, &t)
                         || kmpi_nbc_active != 0, 0))
        return recv_general(buf, count, datatype, source, tag, comm, status);
    kumi_status_t ks;
    size_t        cap = (size_t)count * t->size;
    ks.error = KUMI_OK;
    int krc = kumi_msg_recv_ctx(call, at(buf, t->lb), cap, source, tag, c->team,
                                KUMI_MSG_CTX_USER, &ks);
    if (__builtin_expect(krc != KUMI_OK, 0))
        return recv_rest(call, krc, &ks, cap, comm, status);
    if (status != MPI_STATUS_IGNORE)
        kmpi_status_from(status, &ks);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ non-blocking */

/* (inline: each mode's entry point gets its own copy, the mode folded) */
/* A send or receive started with a handle id that came back without one
 * (hid 0: more than 2^22 of the layer's requests at once): kr gets a slot
 * as before handle ids. Without memory for the slot, kr is finished first
 * (a receive withdrawn if no message matched it, else waited for). */
static __attribute__((noinline)) int
start_no_hid(const char *call, kumi_request_t kr, int kind, MPI_Comm comm, size_t cap,
             MPI_Request *request)
{
    struct kmpi_req *q = kmpi_req_new_p2p(request, kind, comm);

    if (q == NULL) {
        *request = MPI_REQUEST_NULL;
        if (kind != KMPI_REQ_RECV || !kumi_msg_req_cancel(kr))
            kmpi_wait_kr(call, kr);
        kumi_msg_req_finish(kr, NULL);
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a request");
    }
    q->kr  = kr;
    q->cap = cap;
    return MPI_SUCCESS;
}

static inline __attribute__((always_inline)) int
send_nonblocking(const char *call, const void *buf, int count, MPI_Datatype datatype, int dest,
                 int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    struct kmpi_comm       *c;
    const struct kmpi_type *t;
    struct kmpi_req        *q;
    int rc = p2p_args(call, buf, count, datatype, dest, tag, comm, 0, &c, &t);

    if (rc != MPI_SUCCESS)
        return rc;
    if (__builtin_expect(request == NULL, 0))
        return kmpi_error(comm, MPI_ERR_ARG, call, "request is NULL");
    if (__builtin_expect(t->contig && dest != MPI_PROC_NULL && mode != KMPI_MODE_BUFFERED, 1)) {
        /* the usual send: no slot, the layer's handle id is the request */
        size_t         bytes = (size_t)count * t->size;
        kumi_request_t kr;
        int hid = kumi_msg_isend_hid(call, at(buf, t->lb), bytes, dest, tag, c->team,
                                     KUMI_MSG_CTX_USER, (unsigned)mode, (unsigned)comm, &kr);
        if (__builtin_expect(hid > 0, 1)) {
            *request = hid | KMPI_REQ_HID;
            return MPI_SUCCESS;
        }
        if (hid < 0) {
            *request = MPI_REQUEST_NULL;
            return kmpi_error_kumi(comm, hid, call, "starting a send");
        }
        return start_no_hid(call, kr, KMPI_REQ_SEND, comm, bytes, request);
    }
    if (__builtin_expect((q = kmpi_req_new_p2p(request, KMPI_REQ_SEND, comm)) == NULL, 0))
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a request");
    if (dest == MPI_PROC_NULL || mode == KMPI_MODE_BUFFERED) {
        q->bserial = 0;
        rc = dest == MPI_PROC_NULL ? MPI_SUCCESS
                                   : kmpi_bsend_start(call, buf, count, t, dest, tag, comm, c,
                                                      &q->bserial);
        q->settled = 1;   /* nothing to wait for: the data are away or copied */
        q->err     = MPI_SUCCESS;
        kmpi_status_empty(&q->st);
    } else {
        rc = send_start(call, buf, count, t, dest, tag, comm, c, (unsigned)mode, q);
    }
    if (rc != MPI_SUCCESS) {
        kmpi_req_drop(*request);
        *request = MPI_REQUEST_NULL;
    }
    return rc;
}

/* a start with a handle id that came back without one (< 0: failed) */
static __attribute__((noinline)) int
start_hid_rare(const char *call, int hid, kumi_request_t kr, int kind, MPI_Comm comm,
               size_t bytes, MPI_Request *request)
{
    if (hid < 0) {
        *request = MPI_REQUEST_NULL;
        return kmpi_error_kumi(comm, hid, call, kind == KMPI_REQ_SEND ? "starting a send"
                                                                      : "posting a receive");
    }
    return start_no_hid(call, kr, kind, comm, bytes, request);
}

static __attribute__((noinline)) int
isend_general(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Isend", buf, count, datatype, dest, tag, comm,
                            KMPI_MODE_STANDARD, request);
}

static __attribute__((noinline)) int
irecv_general(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request);

/* MPI_Isend's and MPI_Irecv's usual call (p2p_usual, a request pointer):
 * the layer's handle id is the MPI_Request; the rest is the general
 * path's (send: a constant in each caller). */
static inline __attribute__((always_inline)) int
start_usual(const char *call, int send, const void *buf, int count, MPI_Datatype datatype,
            int peer, int tag, MPI_Comm comm, MPI_Request *request)
{
    struct kmpi_comm       *c;
    const struct kmpi_type *t;

    if (__builtin_expect(!p2p_usual(buf, count, datatype, peer, tag, comm, &c, &t)
                         || request == NULL, 0))
        return send ? isend_general(buf, count, datatype, peer, tag, comm, request)
                    : irecv_general(at(buf, 0), count, datatype, peer, tag, comm, request);
    size_t         bytes = (size_t)count * t->size;
    kumi_request_t kr;
    int hid = send ? kumi_msg_isend_hid(call, at(buf, t->lb), bytes, peer, tag, c->team,
                                        KUMI_MSG_CTX_USER, KMPI_MODE_STANDARD, (unsigned)comm,
                                        &kr)
                   : kumi_msg_irecv_hid(call, at(buf, t->lb), bytes, peer, tag, c->team,
                                        KUMI_MSG_CTX_USER, (unsigned)comm, &kr);
    if (__builtin_expect(hid > 0, 1)) {
        *request = hid | KMPI_REQ_HID;
        return MPI_SUCCESS;
    }
    return start_hid_rare(call, hid, kr, send ? KMPI_REQ_SEND : KMPI_REQ_RECV, comm, bytes,
                          request);
}

#pragma weak MPI_Isend = PMPI_Isend
int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    return start_usual("MPI_Isend", 1, buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Issend = PMPI_Issend
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Issend", buf, count, datatype, dest, tag, comm,
                            KMPI_MODE_SYNC, request);
}

#pragma weak MPI_Irsend = PMPI_Irsend
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Irsend", buf, count, datatype, dest, tag, comm,
                            KMPI_MODE_STANDARD, request);
}

#pragma weak MPI_Ibsend = PMPI_Ibsend
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Ibsend", buf, count, datatype, dest, tag, comm,
                            KMPI_MODE_BUFFERED, request);
}

#pragma weak MPI_Irecv = PMPI_Irecv
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return start_usual("MPI_Irecv", 0, buf, count, datatype, source, tag, comm, request);
}

static __attribute__((noinline)) int
irecv_general(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    static const char       call[] = "MPI_Irecv";
    struct kmpi_comm       *c;
    const struct kmpi_type *t;
    struct kmpi_req        *q;
    int rc = p2p_args(call, buf, count, datatype, source, tag, comm, 1, &c, &t);

    if (rc != MPI_SUCCESS)
        return rc;
    if (__builtin_expect(request == NULL, 0))
        return kmpi_error(comm, MPI_ERR_ARG, call, "request is NULL");
    if (__builtin_expect(t->contig && source != MPI_PROC_NULL, 1)) {
        /* the usual receive: no slot, the layer's handle id is the request */
        _Static_assert(MPI_ANY_SOURCE == KUMI_ANY_SOURCE && MPI_ANY_TAG == KUMI_ANY_TAG,
                       "MPI's wildcards are kumi's");
        size_t         cap = (size_t)count * t->size;
        kumi_request_t kr;
        int hid = kumi_msg_irecv_hid(call, at(buf, t->lb), cap, source, tag, c->team,
                                     KUMI_MSG_CTX_USER, (unsigned)comm, &kr);
        if (__builtin_expect(hid > 0, 1)) {
            *request = hid | KMPI_REQ_HID;
            return MPI_SUCCESS;
        }
        if (hid < 0) {
            *request = MPI_REQUEST_NULL;
            return kmpi_error_kumi(comm, hid, call, "posting a receive");
        }
        return start_no_hid(call, kr, KMPI_REQ_RECV, comm, cap, request);
    }
    if (__builtin_expect((q = kmpi_req_new_p2p(request, KMPI_REQ_RECV, comm)) == NULL, 0))
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a request");
    if (source == MPI_PROC_NULL) {
        q->settled = 1;
        q->err     = MPI_SUCCESS;
        q->st.MPI_ERROR = MPI_SUCCESS;   /* (kmpi_status_proc_null leaves it) */
        kmpi_status_proc_null(&q->st);
        return MPI_SUCCESS;
    }
    rc = recv_start(call, buf, count, t, source, tag, comm, c, q);
    if (rc != MPI_SUCCESS) {
        kmpi_req_drop(*request);
        *request = MPI_REQUEST_NULL;
    }
    return rc;
}

/* ------------------------------------------------------------ Sendrecv */

/* the send half failed (rc, raised): the receive half is withdrawn if no
 * message matched it yet */
static int recv_abandon(struct kmpi_req *rq, int rc)
{
    if (!rq->settled && kumi_msg_req_cancel(rq->kr))
        kmpi_req_settle(rq);
    return rc;
}

/* both halves to their end; the receive's status */
static int pair_finish(const char *call, struct kmpi_req *sq, struct kmpi_req *rq,
                       MPI_Status *status)
{
    int rc = finish_local(call, sq, MPI_STATUS_IGNORE);

    if (rc != MPI_SUCCESS)
        return recv_abandon(rq, rc);
    return finish_local(call, rq, status);
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status)
{
    static const char       call[] = "MPI_Sendrecv";
    struct kmpi_comm       *c;
    const struct kmpi_type *st, *rt;
    struct kmpi_req         sq, rq;
    int                     rc;

    local_init(&sq);
    local_init(&rq);

    if ((rc = p2p_args(call, sendbuf, sendcount, sendtype, dest, sendtag, comm, 0, &c, &st)) != 0
        || (rc = p2p_args(call, recvbuf, recvcount, recvtype, source, recvtag, comm, 1, &c,
                          &rt)) != 0)
        return rc;
    if (source == MPI_PROC_NULL) {
        rq.comm    = comm;
        rq.settled = 1;
        kmpi_status_proc_null(&rq.st);
    } else if ((rc = recv_start(call, recvbuf, recvcount, rt, source, recvtag, comm, c, &rq))
               != MPI_SUCCESS) {
        return rc;
    }
    if (dest == MPI_PROC_NULL)
        sq.settled = 1;
    else if ((rc = send_start(call, sendbuf, sendcount, st, dest, sendtag, comm, c, 0, &sq))
             != MPI_SUCCESS)
        return recv_abandon(&rq, rc);
    return pair_finish(call, &sq, &rq, status);
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    static const char       call[] = "MPI_Sendrecv_replace";
    struct kmpi_comm       *c;
    const struct kmpi_type *t;
    struct kmpi_req         sq, rq;
    int                     rc;

    local_init(&sq);
    local_init(&rq);

    if ((rc = p2p_args(call, buf, count, datatype, dest, sendtag, comm, 0, &c, &t)) != 0
        || (rc = p2p_args(call, buf, count, datatype, source, recvtag, comm, 1, &c, &t)) != 0)
        return rc;
    /* the outgoing message is packed aside first: the buffer receives */
    size_t bytes = (size_t)count * t->size;
    void  *out   = NULL;
    if (dest != MPI_PROC_NULL && bytes != 0) {
        if ((out = malloc(bytes)) == NULL)
            return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for %zu bytes", bytes);
        kmpi_pack(buf, (size_t)count, t, out);
    }
    if (source == MPI_PROC_NULL) {
        rq.comm    = comm;
        rq.settled = 1;
        kmpi_status_proc_null(&rq.st);
    } else if ((rc = recv_start(call, buf, count, t, source, recvtag, comm, c, &rq))
               != MPI_SUCCESS) {
        free(out);
        return rc;
    }
    if (dest == MPI_PROC_NULL)
        sq.settled = 1;
    else if ((rc = send_bytes(call, out, bytes, dest, sendtag, comm, c, 0, &sq)) != MPI_SUCCESS)
        rc = recv_abandon(&rq, rc);
    else
        rc = pair_finish(call, &sq, &rq, status);
    free(out);
    return rc;
}

/* ------------------------------------------------------------ probes */

struct probe_arg {
    const char   *call;
    int           src, tag, flag, krc;
    kumi_team_t   team;
    kumi_status_t ks;
};

static int probe_ready(void *p)
{
    struct probe_arg *a = p;

    a->krc = kumi_msg_probe_ctx(a->call, a->src, a->tag, a->team, KUMI_MSG_CTX_USER, 0,
                                &a->flag, &a->ks);
    return a->flag || a->krc != KUMI_OK;
}

int kmpi_probe(const char *call, int source, int tag, MPI_Comm comm, int wait, int *flag,
               MPI_Status *status)
{
    struct kmpi_comm       *c;
    const struct kmpi_type *t;
    int rc = p2p_args(call, NULL, 0, MPI_BYTE, source, tag, comm, 1, &c, &t), krc;

    if (rc != MPI_SUCCESS)
        return rc;
    if (!wait && flag == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "flag is NULL");
    if (source == MPI_PROC_NULL) {
        if (flag != NULL)
            *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            kmpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    struct probe_arg a = { call, source == MPI_ANY_SOURCE ? KUMI_ANY_SOURCE : source,
                           tag == MPI_ANY_TAG ? KUMI_ANY_TAG : tag, 0, KUMI_OK, c->team,
                           { 0 } };
    if (kmpi_nbc_active > 0)
        kmpi_nbc_progress();
    if (kmpi_win_progress_on)
        kmpi_win_progress();
    if (!wait)
        krc = kumi_msg_probe_ctx(call, a.src, a.tag, c->team, KUMI_MSG_CTX_USER, 0, &a.flag,
                                 &a.ks);
    else if (kmpi_nbc_active == 0)
        krc = kumi_msg_probe_ctx(call, a.src, a.tag, c->team, KUMI_MSG_CTX_USER, 1, &a.flag,
                                 &a.ks);
    else if ((krc = kmpi_wait_until(call, probe_ready, &a)) == KUMI_OK)
        krc = a.krc;
    if (krc != KUMI_OK)
        return kmpi_error_kumi(comm, krc, call, "probing");
    if (flag != NULL)
        *flag = a.flag;
    if (a.flag && status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE     = a.ks.source;
        status->MPI_TAG        = a.ks.tag;
        status->kmpi_cancelled = 0;
        status->kmpi_bytes     = (long long)a.ks.bytes;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return kmpi_probe("MPI_Probe", source, tag, comm, 1, NULL, status);
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return kmpi_probe("MPI_Iprobe", source, tag, comm, 0, flag, status);
}

/* ------------------------------------------------------------ persistent requests */

static int persistent_init(const char *call, void *buf, int count, MPI_Datatype datatype,
                           int peer, int tag, MPI_Comm comm, int kind, int mode,
                           MPI_Request *request)
{
    struct kmpi_comm       *c;
    const struct kmpi_type *t;
    struct kmpi_req        *q;
    int rc = p2p_args(call, buf, count, datatype, peer, tag, comm, kind == KMPI_REQ_RECV, &c,
                      &t);

    if (rc != MPI_SUCCESS)
        return rc;
    if (request == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "request is NULL");
    if ((q = kmpi_req_new(request)) == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a request");
    q->kind       = (uint8_t)kind;
    q->persistent = 1;
    q->settled    = 1;
    q->mode       = (uint8_t)mode;
    q->comm       = comm;
    q->ubuf       = buf;
    q->count      = count;
    q->dt         = (struct kmpi_type *)t;   /* held until MPI_Request_free */
    kmpi_type_hold(q->dt);
    q->peer       = peer;
    q->tag        = tag;
    kmpi_status_empty(&q->st);
    return MPI_SUCCESS;
}

#pragma weak MPI_Send_init = PMPI_Send_init
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return persistent_init("MPI_Send_init", (void *)(uintptr_t)buf, count, datatype, dest, tag,
                           comm, KMPI_REQ_SEND, KMPI_MODE_STANDARD, request);
}

#pragma weak MPI_Ssend_init = PMPI_Ssend_init
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persistent_init("MPI_Ssend_init", (void *)(uintptr_t)buf, count, datatype, dest, tag,
                           comm, KMPI_REQ_SEND, KMPI_MODE_SYNC, request);
}

#pragma weak MPI_Rsend_init = PMPI_Rsend_init
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persistent_init("MPI_Rsend_init", (void *)(uintptr_t)buf, count, datatype, dest, tag,
                           comm, KMPI_REQ_SEND, KMPI_MODE_STANDARD, request);
}

#pragma weak MPI_Bsend_init = PMPI_Bsend_init
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persistent_init("MPI_Bsend_init", (void *)(uintptr_t)buf, count, datatype, dest, tag,
                           comm, KMPI_REQ_SEND, KMPI_MODE_BUFFERED, request);
}

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return persistent_init("MPI_Recv_init", buf, count, datatype, source, tag, comm,
                           KMPI_REQ_RECV, KMPI_MODE_STANDARD, request);
}

static int start_one(const char *call, MPI_Request *request)
{
    struct kmpi_req        *q;
    struct kmpi_comm       *c;
    const struct kmpi_type *t;
    int                     rc;

    if (request == NULL || (q = kmpi_req_get(*request)) == NULL || !q->persistent)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "%d is no persistent request",
                          request ? *request : MPI_REQUEST_NULL);
    if (q->active)
        return kmpi_error(q->comm, MPI_ERR_REQUEST, call, "request %d is active already "
                          "(complete it with a Wait or Test first)", *request);
    /* the communicator may have been freed since (the datatype is held) */
    t = q->dt;
    if ((rc = p2p_check(call, q->ubuf, q->count, t, MPI_DATATYPE_NULL, q->peer, q->tag,
                        q->comm, q->kind == KMPI_REQ_RECV, &c)) != MPI_SUCCESS)
        return rc;
    q->settled = 0;
    q->err     = MPI_SUCCESS;
    q->active  = 1;
    q->unpack  = 0;
    if (q->peer == MPI_PROC_NULL) {
        rc = MPI_SUCCESS;
        if (q->kind == KMPI_REQ_RECV)
            kmpi_status_proc_null(&q->st);
        else
            kmpi_status_empty(&q->st);
        q->settled = 1;
    } else if (q->kind == KMPI_REQ_RECV) {
        rc = recv_start(call, q->ubuf, q->count, t, q->peer, q->tag, q->comm, c, q);
    } else if (q->mode == KMPI_MODE_BUFFERED) {
        q->kind = KMPI_REQ_SEND;   /* (generic while a cancel of its last start ran) */
        rc = kmpi_bsend_start(call, q->ubuf, q->count, t, q->peer, q->tag, q->comm, c,
                              &q->bserial);
        kmpi_status_empty(&q->st);
        q->settled = 1;
    } else {
        rc = send_start(call, q->ubuf, q->count, t, q->peer, q->tag, q->comm, c, q->mode, q);
    }
    if (rc != MPI_SUCCESS) {
        q->settled = 1;
        q->active  = 0;
    }
    return rc;
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request *request)
{
    static const char call[] = "MPI_Start";
    int               rc = kmpi_live(call);

    return rc != MPI_SUCCESS ? rc : start_one(call, request);
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    static const char call[] = "MPI_Startall";
    int               rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0 || (count > 0 && array_of_requests == NULL))
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "%d requests at %p", count,
                          (void *)array_of_requests);
    for (int i = 0; i < count; i++)
        if ((rc = start_one(call, &array_of_requests[i])) != MPI_SUCCESS)
            return rc;
    return MPI_SUCCESS;
}
