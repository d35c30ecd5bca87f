/*
 * mpi_int.h -- libkumi-mpi's internal interface, shared by its files:
 * init.c (environment), errh.c (errors and error handlers), comm.c
 * (communicators), datatype.c (the datatype engine), p2p.c and req.c
 * (point to point, requests), coll.c (collectives), op.c (reduction
 * operations), nbc*.c (non-blocking and neighbourhood collectives: nbc.h),
 * topo.c, group.c, win*.c (one-sided communication: win_int.h),
 * intercomm.c and coll_inter.c (intercommunicators).
 *
 * Layering: uses the public kumi.h (teams, collectives, two-sided
 * messages) and the messaging layer's internal entry points (msg/msg.h:
 * a context so that collective traffic never matches a user's receive,
 * synchronous sends). Never the transport.
 */
#ifndef KUMI_MPI_INT_H
#define KUMI_MPI_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "kumi.h"
#include "mpi.h"
#include "msg.h"

/* libkumi-mpi's internals are its own (the MPI_ calls stay visible):
 * hidden, so the calls between its files are direct, not through the PLT,
 * and its globals are reached without the GOT (the point-to-point fast
 * path crosses p2p.c, req.c and datatype.c on every call). */
#pragma GCC visibility push(hidden)

/* ------------------------------------------------------------ errors
 * Every MPI_ call that fails goes through kmpi_error: it formats one line
 * "kumi-mpi[rank]: MPI_Call: what (where)", then applies the
 * communicator's error handler (ERRORS_ARE_FATAL: print, end the job with
 * status 1 as MPI_Abort does; ERRORS_RETURN: print nothing unless
 * KUMI_MPI_VERBOSE, return code; a user handler: call it) and returns
 * code. comm may be MPI_COMM_NULL (then MPI_COMM_WORLD's handler). */
int kmpi_error(MPI_Comm comm, int code, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* kmpi_error's handling for any object: handler e (of the window, say)
 * applied to code, the user's function called with handle (win.c) */
int kmpi_errh_raise(MPI_Errhandler e, int handle, int code, const char *call, const char *what);
/* the MPI error class of a kumi return code (KUMI_ERR_INVALID -> ARG,
 * KUMI_ERR_TRUNCATE -> TRUNCATE, KUMI_ERR_PEER -> PROC_FAILED, ...) */
int kmpi_from_kumi(int kumi_rc);
/* MPI_ERR_OTHER... unless MPI_Init ran and MPI_Finalize did not: the
 * check every call makes first (MPI_Initialized etc. excepted) */
int kmpi_check_live(const char *call);
/* 0 before MPI_Init, 1 from MPI_Init to MPI_Finalize, 2 after (init.c) */
extern int kmpi_state;
/* The same check inline, for the fast paths: MPI_SUCCESS or the error. */
static inline int kmpi_live(const char *call)
{
    return __builtin_expect(kmpi_state == 1, 1) ? MPI_SUCCESS : kmpi_check_live(call);
}
/* An error that comes from kumi (rc < 0) on comm: the MPI class of rc
 * through kmpi_error, except that the failure of a peer, which kumi has
 * reported already, is not reported again (errh.c). */
int kmpi_error_kumi(MPI_Comm comm, int kumi_rc, const char *call, const char *what);
/* "MPI_COMM_WORLD", a communicator's name or "communicator 5" (errh.c) */
const char *kmpi_comm_label(MPI_Comm comm, char *buf, size_t n);

/* ------------------------------------------------------------ communicators */
struct kmpi_comm {
    kumi_team_t team;         /* its members; the native collectives run on it */
    int         rank, size;
    int         psize;        /* ranks a point-to-point peer may name: size, or on an
                                 intercommunicator the remote group's size */
    int         inter;        /* 0, or an intercommunicator (intercomm.c):
                                 KMPI_INTER_LOW / _HIGH, which of the two groups
                                 the local one is */
    MPI_Errhandler errh;
    char        name[MPI_MAX_OBJECT_NAME];
    struct kmpi_topo *topo;   /* Cart/Dist_graph topology (topo.c), NULL: none;
                                 MPI_Comm_free calls kmpi_topo_free on it */
    unsigned    coll_seq;     /* coll.c: collective calls that used messages,
                                 the same on every member (their tags) */
    struct kmpi_attr *attrs;  /* attr.c: values of user keys, newest first */
    MPI_Info    info;         /* info.c: hints set (MPI_Comm_set_info), or
                                 MPI_INFO_NULL */
    unsigned    nbc_seq;      /* nbc.c: schedules started (non-blocking and
                                 neighborhood collectives), the same on every
                                 member (their tags: nbc.h) */
};
/* group.c: the world PEs of group g in group rank order (*pes, not to be
 * freed) and their number, or -1 when g is no group (MPI_GROUP_EMPTY: 0) */
int kmpi_group_pes(MPI_Group g, const int **pes);
/* group.c: a new group of the n world PEs pes (taken over: freed on
 * failure; n 0 is MPI_GROUP_EMPTY) into *out, or the error reported */
int kmpi_group_new(const char *call, int *pes, int n, MPI_Group *out);
/* The message context of MPI_Comm_create_group's agreement: neither a
 * user's traffic nor the collectives' (msg/msg.h contexts 0 and 1) */
#define KMPI_CTX_CREATE 2
/* The message contexts of the intercommunicators' constructors (intercomm.c):
 * their agreements, and MPI_Intercomm_create's leaders on peer_comm */
#define KMPI_CTX_INTER      3
#define KMPI_CTX_INTER_PEER 4

/* ------------------------------------------------------------ intercommunicators
 * (intercomm.c, coll_inter.c) An intercommunicator is one kumi team of
 * both groups, listed on each member as [remote group, local group]: a
 * point-to-point peer (a remote rank r) is team rank r, the source of a
 * message received is its sender's remote rank, with no translation; the
 * local group's rank l is team rank psize + l. The lists of the two
 * groups' members differ only by a rotation (the low group's members see
 * [high, low], the high group's [low, high]), so an algorithm that is the
 * same from every member's place (a ring, a dissemination) runs on team
 * ranks directly; kumi's native collectives never run on such a team.
 * The low group is the one whose leader had the lower world rank at
 * MPI_Intercomm_create. */
enum { KMPI_INTER_LOW = 1, KMPI_INTER_HIGH = 2 };
/* the world PE of local rank l / remote rank r of c (either kind) */
static inline int kmpi_local_pe(const struct kmpi_comm *c, int l)
{
    return kumi_team_pe(c->team, c->inter ? c->psize + l : l);
}
/* comm.c's hooks: MPI_Comm_dup, _split, _compare, _free on an intercommunicator */
int kmpi_inter_dup(const char *call, MPI_Comm comm, struct kmpi_comm *c, MPI_Comm *newcomm);
int kmpi_inter_split(const char *call, MPI_Comm comm, struct kmpi_comm *c, int color, int key,
                     MPI_Comm *newcomm);
int kmpi_inter_compare(const struct kmpi_comm *a, const struct kmpi_comm *b);
/* comm_idup.c's hook: MPI_Comm_idup on an intercommunicator */
int kmpi_inter_idup(const char *call, MPI_Comm comm, struct kmpi_comm *c, MPI_Comm *newcomm,
                    MPI_Request *request);
/* MPI_ERR_COMM reported for call: comm is an intercommunicator */
int kmpi_inter_refuse(const char *call, MPI_Comm comm);

/* attr.c: oldcomm's attributes copied to newcomm (MPI_Comm_dup), comm's
 * deleted (MPI_Comm_free; MPI_COMM_SELF's at MPI_Finalize), the keys
 * freed at the end */
int  kmpi_attr_copy(const char *call, MPI_Comm oldcomm, MPI_Comm newcomm);
int  kmpi_attr_delete_all(const char *call, MPI_Comm comm);
void kmpi_attr_drop(struct kmpi_comm *c);   /* no callbacks: at the end */
void kmpi_attr_fini(void);
/* info.c: frees c's hints; every info object at MPI_Finalize */
void kmpi_comm_info_free(struct kmpi_comm *c);
/* info.c: a new info object with the hints actually used (MPI-3.1 6.4.4,
 * 11.2.7): of the n (key, default) pairs, each key as set in set, else its
 * default where that is not NULL; keys kumi does not know are left out.
 * The handle, or -1 without memory. */
int  kmpi_info_used(MPI_Info set, const char *const (*hints)[2], size_t n);
void kmpi_info_fini(void);
/* comm.c: MPI_Comm_split for call (MPI_Comm_split_type) */
int kmpi_comm_split(const char *call, MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
/* comm_idup.c: releases c (out of the table already) and its team once
 * every member has freed it, without waiting: MPI_SUCCESS, or
 * MPI_ERR_NO_MEM (nothing started) */
int kmpi_comm_release(const char *call, struct kmpi_comm *c);
/* before a blocking constructor: waits for those releases when few team
 * slots are free here */
void kmpi_comm_reclaim(const char *call);
/* comm.c: the lowest free communicator handle (the table grown), -1
 * when out of memory; the caller fills kmpi_comms[handle] */
int kmpi_comm_slot(void);
/* NULL when c is not a live communicator (the caller reports MPI_ERR_COMM) */
struct kmpi_comm *kmpi_comm(MPI_Comm c);
/* comm.c: the table behind kmpi_comm (index: the handle) */
extern struct kmpi_comm **kmpi_comms;
extern int                kmpi_ncomms;
static inline struct kmpi_comm *kmpi_comm_fast(MPI_Comm c)
{
    return (unsigned)c < (unsigned)kmpi_ncomms ? kmpi_comms[c] : NULL;
}
/* MPI_COMM_WORLD and MPI_COMM_SELF (MPI_Init), every communicator's team
 * released (MPI_Finalize: after a world barrier, before kumi_finalize) */
int  kmpi_comm_init(void);
void kmpi_comm_fini(void);
/* errh.c: error handler references a communicator holds */
int  kmpi_errh_valid(MPI_Errhandler e);
void kmpi_errh_ref(MPI_Errhandler e);
void kmpi_errh_unref(MPI_Errhandler e);
/* the MPI_LASTUSEDCODE attribute's value (errh.c) */
extern int kmpi_lastused;
/* the handler errors on MPI_COMM_WORLD use (also before MPI_Init and after
 * MPI_Finalize) */
extern MPI_Errhandler kmpi_world_errh;

/* ------------------------------------------------------------ requests (req.c)
 * An MPI_Request is an index into a table of these (0: MPI_REQUEST_NULL),
 * or a message-layer handle id (KMPI_REQ_HID, below), which gets a slot
 * only when a call needs one.
 * A send or receive runs as the message layer's request kr; a generic
 * one (kmpi_req_generic) through its ops. Once settled, st and err hold
 * what the request completes with (PROC_NULL operations and MPI_Ibsend
 * start settled). A persistent request (MPI_*_init) keeps its arguments
 * and its handle: inactive until MPI_Start, inactive again once a Wait or
 * Test completed it. */
enum { KMPI_REQ_FREE = 0, KMPI_REQ_SEND, KMPI_REQ_RECV, KMPI_REQ_GENERIC };
/* send modes: kumi_msg flags (KUMI_MSG_SYNC) or buffered */
enum { KMPI_MODE_STANDARD = 0, KMPI_MODE_SYNC = 1, KMPI_MODE_BUFFERED = 16 };
struct kmpi_req_ops;
struct kmpi_req {
    kumi_request_t kr;
    uint8_t      kind;
    uint8_t      settled;
    uint8_t      freed;       /* MPI_Request_free'd while active: settles in the
                                 background (kmpi_req_sweep), then goes */
    uint8_t      unpack;      /* a receive through tmp: unpack into ubuf */
    uint8_t      persistent;
    uint8_t      active;      /* persistent: started, not completed by Wait/Test */
    uint8_t      mode;        /* persistent send: KMPI_MODE_* */
    MPI_Comm     comm;
    int          next;        /* the free list, the background list */
    int          err;         /* settled: its MPI error class */
    void        *tmp;         /* packed bytes of a non-contiguous datatype */
    void        *ubuf;        /* receive: the user's buffer; persistent: either */
    int          count;
    uint32_t     bserial;     /* a buffered send: its block's serial (bsend.c), 0: none */
    struct kmpi_type *dt;     /* unpacking, persistent: the datatype, held
                                 (kmpi_type_hold) until the request ends */
    int          peer, tag;   /* persistent: the arguments */
    size_t       cap;         /* receive: bytes the buffer holds */
    const struct kmpi_req_ops *ops;   /* generic */
    void        *state;
    MPI_Status   st;          /* settled: its status */
    int          self;        /* its own index in the table (set once) */
    int          hkey;        /* the handle id this slot was made for (req.c's
                                 map of them), 0: none */
};
/* A send or receive of contiguous data, not persistent, needs no slot:
 * its MPI_Request is the message layer's handle id (msg.h, below 2^30)
 * with KMPI_REQ_HID set, and the layer's request carries the
 * communicator in its user word. Completions take such a handle to the
 * layer in one call (kumi_msg_reap_hid); anything else (an error, a
 * cancel, Request_free, get_status, the any/some families) first gives it
 * a slot (kmpi_req_get), which req.c's map of such handles then names
 * until the slot is released, and the layer's request is marked
 * KUMI_MSG_USER_HELD (the fast paths leave it to the slot): the handle's
 * value stays what the user holds. */
#define KMPI_REQ_HID (1 << 30)
static inline int kmpi_req_is_hid(MPI_Request h)
{
    return (h & KMPI_REQ_HID) != 0 && h > 0;
}
/* a free slot, zeroed; its handle in *h; NULL when out of memory */
struct kmpi_req *kmpi_req_new(MPI_Request *h);
/* The table (req.c): chunks of KMPI_REQ_CHUNK slots that never move, free
 * slots in a list (0: none; handle 0 is MPI_REQUEST_NULL), the requests
 * MPI_Request_free let go while active in another. Here for the hot
 * path's inlines below. */
#define KMPI_REQ_CHUNK 256
extern struct kmpi_req **kmpi_req_chunks;
extern int               kmpi_req_nchunks;
extern int               kmpi_req_free_head, kmpi_req_bg_head;
static inline struct kmpi_req *kmpi_req_at(int h)
{
    return &kmpi_req_chunks[(unsigned)h / KMPI_REQ_CHUNK][(unsigned)h % KMPI_REQ_CHUNK];
}
/* kmpi_req_new for a send or receive about to start (p2p.c's fast path):
 * kind and comm set, kr NULL, and nothing else written. A free slot is
 * kept as req.c's release leaves it (settled, freed, unpack, persistent,
 * active 0; tmp, dt NULL: what a start reads), and a send or receive
 * writes its kr, err and status before anything reads them (the start,
 * kmpi_req_settle). A start that ends it settled at once (PROC_NULL,
 * buffered) writes its err and status itself. */
struct kmpi_req *kmpi_req_new_p2p_slow(MPI_Request *h, int kind, MPI_Comm comm);
static inline struct kmpi_req *kmpi_req_new_p2p(MPI_Request *h, int kind, MPI_Comm comm)
{
    if (__builtin_expect(kmpi_req_bg_head != 0 || kmpi_req_free_head == 0, 0))
        return kmpi_req_new_p2p_slow(h, kind, comm);
    int              i = kmpi_req_free_head;
    struct kmpi_req *q = kmpi_req_at(i);
    kmpi_req_free_head = q->next;
    q->kr   = NULL;
    q->kind = (uint8_t)kind;
    q->comm = comm;
    *h      = i;
    return q;
}
/* q's message-layer request completed with ks and krc (kumi_msg_req_reap):
 * q settles (kmpi_req_settle's second half) */
void kmpi_req_settle_ks(struct kmpi_req *q, const kumi_status_t *ks, int krc);
/* The completions' fast path (MPI_Wait, MPI_Waitall): the slot of handle
 * h when it is a send or receive of contiguous data, started and nothing
 * more (not settled, persistent, freed; no packing buffer): what
 * kmpi_req_take_plain completes. Else NULL (the general path). */
static inline struct kmpi_req *kmpi_req_plain(MPI_Request h)
{
    if (__builtin_expect(h <= 0 || h >= kmpi_req_nchunks * KMPI_REQ_CHUNK, 0))
        return NULL;
    struct kmpi_req *q = kmpi_req_at(h);
    return (q->kind == KMPI_REQ_SEND || q->kind == KMPI_REQ_RECV)
           && (q->settled | q->freed | q->unpack | q->persistent) == 0 && q->tmp == NULL
               ? q : NULL;
}
/* Plain q (handle *hp), whose message-layer request completed with ks and
 * krc == KUMI_OK: its status into st (may be NULL; MPI_ERROR set when
 * array, as the multiple completions do, else left), the slot released,
 * *hp = MPI_REQUEST_NULL. (A failed one settles, kmpi_req_settle_ks, and
 * goes the general way: its error is described and raised.) */
/* a completion's status from the message layer's (MPI_ERROR is the
 * caller's: left alone by single completions). Every send or receive's
 * status is made here (kmpi_req_settle_ks, kmpi_req_take_plain, p2p.c's
 * blocking calls). */
static inline void kmpi_status_from(MPI_Status *st, const kumi_status_t *ks)
{
    st->MPI_SOURCE     = ks->source;
    st->MPI_TAG        = ks->tag;
    st->kmpi_cancelled = ks->cancelled;
    st->kmpi_bytes     = (long long)ks->bytes;
}
static inline void kmpi_req_take_plain(MPI_Request *hp, struct kmpi_req *q,
                                       const kumi_status_t *ks, MPI_Status *st, int array)
{
    if (st != NULL) {
        kmpi_status_from(st, ks);
        if (array)
            st->MPI_ERROR = MPI_SUCCESS;
    }
    /* what req.c's release clears is clear in a plain request */
    q->kind = KMPI_REQ_FREE;
    q->next = kmpi_req_free_head;
    kmpi_req_free_head = *hp;
    *hp = MPI_REQUEST_NULL;
}
/* The completions' fast path for a handle id *hp (kmpi_req_is_hid): 1
 * when its request completed and succeeded (its status into st, which may
 * be NULL, MPI_ERROR set when array; the layer's request freed; *hp =
 * MPI_REQUEST_NULL), 0 when not complete yet (no progress made), -1 when
 * the general path must take it (failed, held by a slot, or no request). */
static inline void kmpi_req_hid_done(MPI_Request *hp, const kumi_status_t *ks, MPI_Status *st,
                                     int array)
{
    if (st != NULL) {
        kmpi_status_from(st, ks);
        if (array)
            st->MPI_ERROR = MPI_SUCCESS;
    }
    *hp = MPI_REQUEST_NULL;
}
static inline int kmpi_req_reap_hid(MPI_Request *hp, MPI_Status *st, int array)
{
    kumi_status_t ks;
    int           d = kumi_msg_reap_hid((unsigned)*hp & ~(unsigned)KMPI_REQ_HID, &ks);

    if (d == 1)
        kmpi_req_hid_done(hp, &ks, st, array);
    return d;
}
/* Waits for handle id *hp, then reaps it as kmpi_req_reap_hid: 1, -1 for
 * the general path, 0 when the wait failed (*krc: KUMI_ERR_PEER, reported
 * by kumi; the caller raises it). One call into the layer, done or not,
 * unless non-blocking collectives are outstanding (they move while it
 * waits: kmpi_req_wait_hid_nbc). */
extern int kmpi_nbc_active;
int kmpi_req_wait_hid_nbc(const char *call, MPI_Request *hp, MPI_Status *st, int array, int *krc);
static inline int kmpi_req_wait_hid(const char *call, MPI_Request *hp, MPI_Status *st, int array,
                                    int *krc)
{
    if (__builtin_expect(kmpi_nbc_active == 0, 1)) {
        kumi_status_t ks;
        int d = kumi_msg_wait_reap_hid(call, (unsigned)*hp & ~(unsigned)KMPI_REQ_HID, &ks, krc);
        if (d == 1)
            kmpi_req_hid_done(hp, &ks, st, array);
        return d;
    }
    return kmpi_req_wait_hid_nbc(call, hp, st, array, krc);
}
/* the slot of handle h, NULL when h is no active request */
struct kmpi_req *kmpi_req_get(MPI_Request h);
/* gives back the slot of h at once (a request whose start failed) */
void kmpi_req_drop(MPI_Request h);
/* 1 when q is settled (its message-layer request, if any, complete:
 * status, error class, unpacking, tmp freed), else 0. Makes no progress.
 * Works on any struct kmpi_req (the blocking calls keep theirs on the
 * stack). */
int  kmpi_req_settle(struct kmpi_req *q);
/* one line saying why settled q failed (truncation: sizes, source, tag) */
void kmpi_req_describe(const struct kmpi_req *q, char *buf, size_t n);
/* settled q's failure (q->err) through its communicator's handler */
int  kmpi_req_raise(const char *call, struct kmpi_req *q);
/* the slot of h for call; NULL for MPI_REQUEST_NULL and for an inactive
 * persistent request (*null = 1), NULL with *rc raised for a bad handle */
struct kmpi_req *kmpi_req_lookup(const char *call, MPI_Request h, int *null, int *rc);
/* Settled q (handle *h) completes: its status into st (may be NULL), then
 * the slot is released and *h set to MPI_REQUEST_NULL (a persistent
 * request becomes inactive and keeps its handle). Returns its error class,
 * not raised. */
int  kmpi_req_take(MPI_Request *h, struct kmpi_req *q, MPI_Status *st);
/* the requests MPI_Request_free let go while active, and the buffered
 * sends: the settled ones are released. Cheap when there are none. */
void kmpi_req_sweep(void);
/* MPI_Finalize: waits for freed sends and buffered sends, cancels freed
 * receives that no message matched */
int  kmpi_req_fini(void);
/* Waits for a message-layer request (kumi_msg_req_wait; while
 * non-blocking collectives are outstanding, polling them too): KUMI_OK or
 * KUMI_ERR_PEER (reported by kumi). */
int  kmpi_wait_kr(const char *call, kumi_request_t kr);
/* Waits until ready(arg) (message progress, and the non-blocking
 * collectives' while any are outstanding, before each call). */
int  kmpi_wait_until(const char *call, int (*ready)(void *arg), void *arg);
/* One round of progress (messages, non-blocking collectives): KUMI_OK or
 * KUMI_ERR_PEER. */
int  kmpi_poll(const char *call);
/* p2p.c: MPI_Probe (wait) or MPI_Iprobe for call: arguments checked,
 * MPI_PROC_NULL answered, errors raised on comm */
int  kmpi_probe(const char *call, int source, int tag, MPI_Comm comm, int wait, int *flag,
                MPI_Status *status);
/* A single completion's status (Wait, Test, Recv, ...) into the caller's:
 * MPI_ERROR is written only when src failed (MPI-3.1 3.2.5: it is set by
 * the calls returning MPI_ERR_IN_STATUS; Open MPI and MPICH leave it
 * alone otherwise, and programs check that) */
void kmpi_status_out(MPI_Status *dst, const MPI_Status *src);
/* the empty status (MPI_REQUEST_NULL) and the one of a PROC_NULL operation
 * (which leaves MPI_ERROR alone) */
void kmpi_status_empty(MPI_Status *st);
void kmpi_status_proc_null(MPI_Status *st);
/* bsend.c: MPI_Bsend's buffer: a buffered send of count elements of t
 * (arguments checked; raises MPI_ERR_BUFFER when it does not fit);
 * releases the buffered sends that completed (sweep), waits for all
 * (detach, finalize) */
extern int kmpi_bsend_active;   /* buffered sends not released yet */
int  kmpi_bsend_start(const char *call, const void *buf, int count, const struct kmpi_type *t,
                      int dest, int tag, MPI_Comm comm, struct kmpi_comm *c, uint32_t *serial);
void kmpi_bsend_sweep(void);
/* MPI_Cancel of a buffered send q (MPI_Ibsend, a started MPI_Bsend_init),
 * settled when it started: while its message is still in the buffer it is
 * taken back like any send (kumi_msg_req_cancel_send) and q becomes a
 * generic request that completes when the answer comes, its status saying
 * whether the message was withdrawn; q->bserial names its block (its
 * serial, 0: none, e.g. the block went once its send completed) */
int  kmpi_bsend_cancel(const char *call, struct kmpi_req *q);
int  kmpi_bsend_wait_all(const char *call);

/* Collective traffic on comm's own context: never matches a user's
 * send, receive or probe on the same communicator. Completed with
 * kumi_wait/kumi_waitall like any kumi request. rank: rank in comm. */
int kmpi_coll_isend(const void *buf, size_t bytes, int rank, int tag, struct kmpi_comm *c,
                    kumi_request_t *req);
int kmpi_coll_irecv(void *buf, size_t bytes, int rank, int tag, struct kmpi_comm *c,
                    kumi_request_t *req);

/* ------------------------------------------------------------ datatypes
 * The basic (predefined, element) types: one per KMPI_PREDEFINED_TYPES
 * entry, with the handle's value as id (1..38). */
#define KMPI_BASIC_MAX 39

struct kmpi_type {
    size_t   size;            /* bytes of data in one element (MPI_Type_size)   */
    MPI_Aint lb, extent;      /* MPI_Type_get_extent                            */
    MPI_Aint true_lb, true_extent;
    int      contig;          /* one element = size contiguous bytes at lb,
                                 extent == size: count elements are one block
                                 (set at commit; lb == true_lb == 0 then, so the
                                 block starts at the buffer itself)          */
    int      basic;           /* the one predefined type all its data are made
                                 of (an op applies to count * nbasic of them),
                                 or 0 when it mixes types or holds no data      */
    size_t   nbasic;          /* how many of basic one element holds            */
    int      predefined;
    int      committed;       /* predefined types are committed                 */
    int      refs;            /* derived: kept alive while others are built on it */
    char     name[MPI_MAX_OBJECT_NAME];
    /* derived: the type map, flattened (datatype.c's own) */
    void    *map;
};
/* NULL when t is not a datatype (MPI_ERR_TYPE) */
struct kmpi_type *kmpi_type(MPI_Datatype t);
/* the predefined types by handle (datatype.c; NULL where none) and
 * kmpi_type with them inline */
extern struct kmpi_type *const kmpi_basic_types[KMPI_BASIC_MAX];
static inline struct kmpi_type *kmpi_type_fast(MPI_Datatype t)
{
    return (unsigned)t < KMPI_BASIC_MAX ? kmpi_basic_types[t] : kmpi_type(t);
}
/* count elements of t at inbuf into packed (count * t->size bytes), and
 * back; t must be committed. Contiguous types are one memcpy. Packed data
 * are the typemap's bytes in order, nothing else: a pair type such as
 * MPI_DOUBLE_INT packs into 12 bytes, not its C struct's 16. */
void kmpi_pack(const void *inbuf, size_t count, const struct kmpi_type *t, void *packed);
void kmpi_unpack(const void *packed, size_t count, const struct kmpi_type *t, void *outbuf);
/* the first bytes bytes of such packed data (a message shorter than the
 * receive buffer: whole elements, then the entries of a last partial one) */
void kmpi_unpack_bytes(const void *packed, size_t bytes, const struct kmpi_type *t,
                       void *outbuf);
/* bytes of the predefined basic type id (1..38) in a C array: sizeof its C
 * type, the padding of a pair type included (kmpi_double_int_t: 16) */
size_t kmpi_basic_size(int basic);
/* A pending operation keeps a derived type alive across MPI_Type_free
 * (MPI-3.1 4.1.9): hold it when the operation starts, release it when it
 * completes. No-ops on predefined types. */
void kmpi_type_hold(struct kmpi_type *t);
void kmpi_type_release(struct kmpi_type *t);
/* p + off bytes, without C's pointer rules (p may be MPI_BOTTOM) */
static inline void *kmpi_at(const void *p, MPI_Aint off)
{
    return (void *)((uintptr_t)p + (uintptr_t)off);
}

/* ------------------------------------------------------------ operations (op.c) */
struct kmpi_op {
    int                predefined;  /* MPI_MAX .. MPI_NO_OP, or 0 (user)    */
    int                commute;
    MPI_User_function *fn;          /* user                                  */
};
struct kmpi_op *kmpi_op(MPI_Op op);  /* NULL: not an operation (MPI_ERR_OP) */
/* inout[i] = in[i] op inout[i] for n elements of basic type `basic`;
 * MPI_ERR_OP when the pair is not defined by MPI (e.g. BAND on double),
 * else MPI_SUCCESS */
int kmpi_op_apply_basic(int op, int basic, const void *in, void *inout, size_t n);
/* the same for count elements of datatype dt (user ops get the handle) */
int kmpi_op_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, int count);
/* the kumi collectives' type/op for (basic, op), or -1 when kumi_allreduce
 * cannot do it (then the binding combines itself) */
int kmpi_kumi_type(int basic);
int kmpi_kumi_op(MPI_Op op);
/* "MPI_SUM", "a user op", ... for messages */
const char *kmpi_op_name(MPI_Op op);
/* MPI_SUCCESS, or the error reported through kmpi_error(comm, ..., call):
 * op is no operation, is MPI_REPLACE/MPI_NO_OP (one-sided only), or is
 * predefined and not defined for dt's elements (MPI-3.1 5.9.2; MPI_CHAR
 * and MPI_WCHAR count as C integers). dt is the caller's to check. */
int kmpi_op_check(MPI_Comm comm, const char *call, MPI_Op op, MPI_Datatype dt);
/* How kumi's own reductions compute predefined op on basic: NO (they
 * cannot), NATIVE (as *type, *kop), NORMALIZED (a logical op on C
 * integers: turn every element into 0 or 1 with kmpi_op_normalize, then
 * the bitwise *kop computes it). */
enum { KMPI_NATIVE_NO = 0, KMPI_NATIVE = 1, KMPI_NATIVE_NORMALIZED = 2 };
int  kmpi_op_native(MPI_Op op, int basic, kumi_type_t *type, kumi_op_t *kop);
void kmpi_op_normalize(int basic, void *buf, size_t n);
/* The work layout of predefined ops: count elements of t (t->basic != 0)
 * as a C array of count * t->nbasic elements of its basic type
 * (kmpi_work_bytes). direct: a buffer of t already is one, at its
 * true_lb. in/out convert (MPI_SUCCESS or MPI_ERR_NO_MEM); out writes
 * only t's data bytes of buf. */
int    kmpi_work_direct(const struct kmpi_type *t);
size_t kmpi_work_bytes(const struct kmpi_type *t, size_t count);
int    kmpi_work_in(const void *buf, size_t count, const struct kmpi_type *t, void *work);
int    kmpi_work_out(const void *work, size_t count, const struct kmpi_type *t, void *buf);

/* ------------------------------------------------------------ requests of other kinds
 * (req.c owns the request table; nbc.c's non-blocking collectives and
 * p2p.c's persistent requests use it.) A generic request is driven by
 * its ops: Wait/Test/Waitall/... call progress(state, status) until it
 * returns 1 (complete: status filled, MPI_ERROR set), 0 (not yet) or a
 * negative -(MPI error class) (complete with that error); after
 * completion the table calls release(state) and the handle becomes
 * MPI_REQUEST_NULL. cancel may be NULL (cancel fails, as MPI allows). */
struct kmpi_req_ops {
    int  (*progress)(void *state, MPI_Status *status);
    void (*release)(void *state);
    int  (*cancel)(void *state);
    int  is_recv;   /* a receive (MPI_Imrecv): its errors are described as one's,
                       with the request's cap; else a non-blocking collective */
    int  requery;   /* the state stays until the request is freed (released then,
                       not when it settles), and each MPI_Request_get_status runs
                       progress again: a generalized request's query_fn (MPI-3.1
                       12.2: called for every get_status, its error returned) */
};
int kmpi_req_generic(const struct kmpi_req_ops *ops, void *state, MPI_Request *out);
/* Outstanding non-blocking collectives must move while their caller
 * waits in any other MPI call (a rank in MPI_Recv may be an inner node of
 * somebody's MPI_Ibcast): nbc.c counts them in kmpi_nbc_active and
 * kmpi_nbc_progress() advances every one a step; req.c's and p2p.c's
 * waits poll it (kumi_test + kmpi_nbc_progress instead of a blocking
 * kumi_wait) while kmpi_nbc_active > 0; kumi's own waits (its native
 * collectives under MPI_Barrier/MPI_Allreduce..., team calls under
 * MPI_Comm_dup...) reach it through the runtime's binding poll hook,
 * which nbc.c keeps in the runtime's table while a schedule is active. */
extern int kmpi_nbc_active;
void kmpi_nbc_progress(void);
/* One-sided operations run at their target whenever it is in an MPI call
 * (win_rma.c): kumi's waits reach them through the binding poll hook,
 * kmpi_poll (MPI_Test..., MPI_Iprobe) through kmpi_win_progress while
 * kmpi_win_progress_on (the number of windows alive). */
extern int kmpi_win_progress_on;
void kmpi_win_progress(void);

/* ------------------------------------------------------------ topologies (topo.c)
 * topo.c makes a topology communicator with MPI_Comm_dup (or
 * MPI_Comm_split) and sets its kmpi_comm's topo; comm.c's MPI_Comm_free
 * calls kmpi_topo_free(c->topo) (NULL is fine). */
struct kmpi_topo;
void kmpi_topo_free(struct kmpi_topo *t);
/* a copy of t for MPI_Comm_dup (NULL: no memory) */
struct kmpi_topo *kmpi_topo_dup(const struct kmpi_topo *t);

#pragma GCC visibility pop

#endif /* KUMI_MPI_INT_H */
