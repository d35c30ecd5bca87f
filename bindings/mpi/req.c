/*
 * req.c -- requests: the table behind MPI_Request, settling and completing
 * one request (MPI_Wait, MPI_Test), MPI_Request_free,
 * MPI_Request_get_status, MPI_Cancel, MPI_Test_cancelled, generic requests
 * (non-blocking collectives), and the waits every completion call uses.
 * Arrays of requests (Waitall, Waitany, Waitsome and the Test forms) are
 * waitall.c's.
 *
 * The table is chunks of KMPI_REQ_CHUNK slots that never move (a slot's
 * address stays valid while the table grows); free slots form a list, so
 * making and ending a request costs a few stores. Plain sends and receives
 * have no slot: their handle is the message layer's id (mpi_int.h,
 * KMPI_REQ_HID); kmpi_req_get gives one a slot when a call other than the
 * fast paths of Wait/Test/Waitall needs it, and a map from the id finds
 * that slot again until it is released. A request freed by
 * MPI_Request_free while active moves to the background list and is
 * released once it settles (kmpi_req_sweep, from every completion call).
 *
 * Errors: a single completion (Wait, Test, Waitany, Testany) returns the
 * request's error through the handler of its communicator; the multiple
 * ones (Waitall, Testall, Waitsome, Testsome) return MPI_ERR_IN_STATUS
 * with every status's MPI_ERROR set (MPI_SUCCESS, the error, or
 * MPI_ERR_PENDING for a request not completed), raised on the
 * communicator of the first failed request. Statuses of successful
 * completions get MPI_ERROR = MPI_SUCCESS too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"
#include "msg.h"

struct kmpi_req **kmpi_req_chunks;
int               kmpi_req_nchunks;
int               kmpi_req_free_head;   /* 0: none (handle 0 is MPI_REQUEST_NULL) */
int               kmpi_req_bg_head;     /* freed while active */

static inline struct kmpi_req *req_at(int h)
{
    return kmpi_req_at(h);
}

static int req_grow(void)
{
    struct kmpi_req **t = realloc(kmpi_req_chunks, (size_t)(kmpi_req_nchunks + 1) * sizeof(*t));
    struct kmpi_req  *c;

    if (t == NULL)
        return -1;
    kmpi_req_chunks = t;
    if ((c = calloc(KMPI_REQ_CHUNK, sizeof(*c))) == NULL)
        return -1;
    int base = kmpi_req_nchunks * KMPI_REQ_CHUNK;
    kmpi_req_chunks[kmpi_req_nchunks++] = c;
    /* link the new slots, lowest first (slot 0 of the table stays unused) */
    for (int i = KMPI_REQ_CHUNK - 1; i >= 0; i--) {
        if (base + i == 0)
            continue;
        c[i].self = base + i;
        c[i].next = kmpi_req_free_head;
        kmpi_req_free_head = base + i;
    }
    return 0;
}

/* kmpi_req_new's rare work, out of line so that the common case (a free
 * slot, nothing in the background) saves and restores no registers */
__attribute__((noinline)) static int req_new_slow(void)
{
    if (kmpi_req_bg_head != 0)
        kmpi_req_sweep();
    return kmpi_req_free_head == 0 ? req_grow() : 0;
}

struct kmpi_req *kmpi_req_new(MPI_Request *h)
{
    if (__builtin_expect(kmpi_req_bg_head != 0 || kmpi_req_free_head == 0, 0)
        && req_new_slow() != 0)
        return NULL;
    int              i = kmpi_req_free_head;
    struct kmpi_req *q = req_at(i);
    kmpi_req_free_head = q->next;
    /* field by field: a memset is a `rep stos`, slow to start */
    _Static_assert(sizeof(*q) == 128, "a new field of struct kmpi_req: clear it here (spare_ "
                                      "keeps it at 128)");
    q->kr   = NULL;
    q->kind = q->settled = q->freed = q->unpack = q->persistent = q->active = q->mode = 0;
    q->comm = q->next = q->err = q->count = q->peer = q->tag = 0;
    q->bserial = 0;
    q->tmp  = q->ubuf = q->state = NULL;
    q->dt   = NULL;
    q->cap  = 0;
    q->ops  = NULL;
    q->st   = (MPI_Status){ 0 };
    q->hkey = 0;
    *h = i;
    return q;
}

/* The map of handle ids that were given a slot (req_of_hid) to that
 * slot, until it is released: open addressing, linear probing, keys the
 * handles (never 0), deletion by moving the run back. Few entries: only
 * requests that left the fast paths. */
static struct hmap_entry { int key, slot; } *hmap;
static unsigned hmap_cap, hmap_n;

static unsigned hmap_home(int key)
{
    return ((unsigned)key * 2654435761u) & (hmap_cap - 1);
}

static int hmap_find(int key)
{
    if (hmap_n == 0)
        return 0;
    for (unsigned i = hmap_home(key);; i = (i + 1) & (hmap_cap - 1)) {
        if (hmap[i].key == key)
            return hmap[i].slot;
        if (hmap[i].key == 0)
            return 0;
    }
}

static int hmap_put(int key, int slot)
{
    if (2 * (hmap_n + 1) > hmap_cap) {
        unsigned           old_cap = hmap_cap, cap = hmap_cap ? 2 * hmap_cap : 64;
        struct hmap_entry *old = hmap;
        if ((hmap = calloc(cap, sizeof(*hmap))) == NULL) {
            hmap = old;
            return -1;
        }
        hmap_cap = cap;
        hmap_n   = 0;
        for (unsigned i = 0; i < old_cap; i++)
            if (old[i].key != 0)
                hmap_put(old[i].key, old[i].slot);
        free(old);
    }
    unsigned i = hmap_home(key);
    while (hmap[i].key != 0)
        i = (i + 1) & (hmap_cap - 1);
    hmap[i].key  = key;
    hmap[i].slot = slot;
    hmap_n++;
    return 0;
}

static void hmap_del(int key)
{
    unsigned i = hmap_home(key);

    while (hmap[i].key != key) {
        if (hmap[i].key == 0)
            return;
        i = (i + 1) & (hmap_cap - 1);
    }
    hmap[i].key = 0;
    hmap_n--;
    /* the entries after it in the run move back where their probe allows */
    for (unsigned j = (i + 1) & (hmap_cap - 1); hmap[j].key != 0; j = (j + 1) & (hmap_cap - 1)) {
        unsigned h = hmap_home(hmap[j].key);
        /* j's entry may move to i when its home is not in (i, j] */
        if ((i < j) ? (h <= i || h > j) : (h <= i && h > j)) {
            hmap[i] = hmap[j];
            hmap[j].key = 0;
            i = j;
        }
    }
}

/* The slot goes back to the free list as kmpi_req_new_p2p expects it:
 * the fields a start reads are cleared here (settled, freed, unpack,
 * persistent, active; tmp and dt, NULL already unless a generic request
 * used them). */
static inline void req_release(struct kmpi_req *q)
{
    if (__builtin_expect(q->hkey != 0, 0)) {
        hmap_del(q->hkey);
        q->hkey = 0;
    }
    if (__builtin_expect(q->persistent, 0)) {   /* its datatype, held since MPI_*_init */
        kmpi_type_release(q->dt);
        q->dt = NULL;
    }
    if (__builtin_expect(q->kind == KMPI_REQ_GENERIC && q->state != NULL, 0)) {
        q->ops->release(q->state);   /* a requery one's (settled with its state) */
        q->state = NULL;
    }
    q->kind    = KMPI_REQ_FREE;
    q->settled = q->freed = q->unpack = q->persistent = q->active = 0;
    q->bserial = 0;
    q->tmp     = NULL;
    q->dt      = NULL;
    q->next    = kmpi_req_free_head;
    kmpi_req_free_head = q->self;
}

/* The slot of handle id h (KMPI_REQ_HID): the one the map names, else a
 * new one made from the layer's request (promotion), marked held so that
 * the fast paths leave it to the slot. NULL when h names no live request
 * (or no memory for the slot). */
static struct kmpi_req *req_of_hid(MPI_Request h)
{
    unsigned         user;
    int              send, i;
    size_t           bytes;
    MPI_Request      sh;
    struct kmpi_req *q;

    if ((i = hmap_find(h)) != 0) {
        q = req_at(i);
        return q->kind == KMPI_REQ_FREE || q->freed ? NULL : q;
    }
    kumi_request_t kr = kumi_msg_req_by_hid((unsigned)h & ~(unsigned)KMPI_REQ_HID, &user,
                                            &send, &bytes);
    if (kr == NULL || (user & KUMI_MSG_USER_HELD))
        return NULL;
    if ((q = kmpi_req_new(&sh)) == NULL)
        return NULL;
    if (hmap_put(h, sh) != 0) {
        req_release(q);
        return NULL;
    }
    q->kr   = kr;
    q->kind = send ? KMPI_REQ_SEND : KMPI_REQ_RECV;
    q->comm = (MPI_Comm)user;
    q->cap  = bytes;
    q->hkey = h;
    kumi_msg_req_set_user(kr, KUMI_MSG_USER_HELD | user);
    return q;
}

struct kmpi_req *kmpi_req_new_p2p_slow(MPI_Request *h, int kind, MPI_Comm comm)
{
    struct kmpi_req *q = kmpi_req_new(h);

    if (q != NULL) {
        q->kind = (uint8_t)kind;
        q->comm = comm;
    }
    return q;
}

void kmpi_req_drop(MPI_Request h)
{
    struct kmpi_req *q = req_at(h);

    free(q->tmp);
    q->tmp = NULL;
    if (!q->persistent) {   /* (req_release lets a persistent one's go) */
        kmpi_type_release(q->dt);
        q->dt = NULL;
    }
    req_release(q);
}

struct kmpi_req *kmpi_req_get(MPI_Request h)
{
    if (kmpi_req_is_hid(h))
        return req_of_hid(h);
    if (h <= 0 || h >= kmpi_req_nchunks * KMPI_REQ_CHUNK)
        return NULL;
    struct kmpi_req *q = req_at(h);
    return q->kind == KMPI_REQ_FREE || q->freed ? NULL : q;
}

void kmpi_status_empty(MPI_Status *st)
{
    st->MPI_SOURCE     = MPI_ANY_SOURCE;
    st->MPI_TAG        = MPI_ANY_TAG;
    st->MPI_ERROR      = MPI_SUCCESS;
    st->kmpi_cancelled = 0;
    st->kmpi_bytes     = 0;
}

void kmpi_status_out(MPI_Status *dst, const MPI_Status *src)
{
    int keep = dst->MPI_ERROR;

    *dst = *src;
    if (src->MPI_ERROR == MPI_SUCCESS)
        dst->MPI_ERROR = keep;
}

void kmpi_status_proc_null(MPI_Status *st)
{
    /* MPI_ERROR is left alone: a single completion sets it only on failure */
    st->MPI_SOURCE     = MPI_PROC_NULL;
    st->MPI_TAG        = MPI_ANY_TAG;
    st->kmpi_cancelled = 0;
    st->kmpi_bytes     = 0;
}

/* a generic request's progress (a generalized request's query_fn): 0 while
 * it is not done, else 1 with its status and error kept in q */
static int generic_query(struct kmpi_req *q)
{
    MPI_Status st;

    kmpi_status_empty(&st);
    int r = q->ops->progress(q->state, &st);
    if (r == 0)
        return 0;
    q->st           = st;
    q->err          = r < 0 ? -r : st.MPI_ERROR;
    q->st.MPI_ERROR = q->err;
    return 1;
}

int kmpi_req_settle(struct kmpi_req *q)
{
    if (q->settled)
        return 1;
    if (q->kind == KMPI_REQ_GENERIC) {
        if (!generic_query(q))
            return 0;
        if (!q->ops->requery) {   /* (a requery one's goes in req_release) */
            q->ops->release(q->state);
            q->state = NULL;
        }
        q->settled = 1;
        if (q->persistent)   /* a persistent buffered send whose cancel completed */
            q->kind = KMPI_REQ_SEND;
        return 1;
    }
    kumi_status_t ks;
    int           krc;
    if (!kumi_msg_req_reap(q->kr, &ks, &krc))
        return 0;
    kmpi_req_settle_ks(q, &ks, krc);
    return 1;
}

void kmpi_req_settle_ks(struct kmpi_req *q, const kumi_status_t *kst, int krc)
{
    kumi_status_t ks = *kst;

    q->kr = NULL;
    kmpi_status_from(&q->st, &ks);   /* (the one conversion, as the fast paths') */
    q->err = __builtin_expect(krc == KUMI_OK, 1) ? MPI_SUCCESS : kmpi_from_kumi(krc);
    q->st.MPI_ERROR = q->err;
    if (q->unpack) {   /* whole elements and the entries of a partial one */
        size_t got = ks.bytes < q->cap ? ks.bytes : q->cap;
        if (!ks.cancelled && got != 0)
            kmpi_unpack_bytes(q->tmp, got, q->dt, q->ubuf);
        if (!q->persistent) {   /* a persistent request holds it until freed */
            kmpi_type_release(q->dt);
            q->dt = NULL;
        }
    }
    if (q->tmp != NULL) {
        free(q->tmp);
        q->tmp = NULL;
    }
    q->settled = 1;
}

void kmpi_req_describe(const struct kmpi_req *q, char *buf, size_t n)
{
    if (q->kind == KMPI_REQ_GENERIC && !q->ops->is_recv)
        snprintf(buf, n, "a non-blocking collective failed%s",
                 q->err == MPI_ERR_TRUNCATE ? ": one of its messages was longer than its receive "
                                              "buffer (the ranks passed counts or datatypes that "
                                              "do not match)" : "");
    else if (q->err == MPI_ERR_TRUNCATE)
        snprintf(buf, n, "a message of %lld bytes from rank %d (tag %d) is longer than the "
                 "receive buffer (%zu bytes)", q->st.kmpi_bytes, q->st.MPI_SOURCE, q->st.MPI_TAG,
                 q->cap);
    else
        snprintf(buf, n, "a %s failed", q->kind == KMPI_REQ_SEND ? "send" : "receive");
}

/* ------------------------------------------------------------ waiting */

static int kr_ready_nbc(void *p)
{
    kmpi_nbc_progress();
    return kumi_msg_req_done(p);
}

int kmpi_wait_kr(const char *call, kumi_request_t kr)
{
    if (__builtin_expect(kmpi_nbc_active == 0, 1))
        return kumi_msg_req_wait(call, kr);
    return kumi_msg_wait_until(call, kr_ready_nbc, kr);
}

int kmpi_req_wait_hid_nbc(const char *call, MPI_Request *hp, MPI_Status *st, int array,
                          int *krc)
{
    unsigned       hid = (unsigned)*hp & ~(unsigned)KMPI_REQ_HID, user;
    int            send, d;
    size_t         bytes;
    kumi_request_t kr;

    *krc = KUMI_OK;
    if ((d = kmpi_req_reap_hid(hp, st, array)) != 0)
        return d;
    if ((kr = kumi_msg_req_by_hid(hid, &user, &send, &bytes)) == NULL)
        return -1;
    if ((*krc = kmpi_wait_kr(call, kr)) != KUMI_OK)
        return 0;
    return kmpi_req_reap_hid(hp, st, array);
}

struct until_arg {
    int (*ready)(void *);
    void *arg;
};

static int until_ready(void *p)
{
    struct until_arg *a = p;

    if (kmpi_nbc_active > 0)
        kmpi_nbc_progress();
    return a->ready(a->arg);
}

int kmpi_wait_until(const char *call, int (*ready)(void *arg), void *arg)
{
    struct until_arg a = { ready, arg };
    return kumi_msg_wait_until(call, until_ready, &a);
}

int kmpi_poll(const char *call)
{
    int rc = kumi_msg_poll(call);

    if (kmpi_nbc_active > 0)
        kmpi_nbc_progress();
    if (kmpi_win_progress_on)
        kmpi_win_progress();
    return rc < 0 ? rc : KUMI_OK;
}

static int req_ready(void *p)
{
    return kmpi_req_settle(p);
}

/* Waits until q settles: MPI_SUCCESS, or the failure's class (raised). */
static int req_wait(const char *call, struct kmpi_req *q)
{
    int krc;

    if (q->settled)
        return MPI_SUCCESS;
    if (q->kind == KMPI_REQ_GENERIC)
        krc = kmpi_wait_until(call, req_ready, q);
    else if (!kumi_msg_req_done(q->kr))
        krc = kmpi_wait_kr(call, q->kr);
    else
        krc = KUMI_OK;
    if (krc != KUMI_OK)
        return kmpi_error_kumi(q->comm, krc, call, "waiting for a request");
    kmpi_req_settle(q);
    return MPI_SUCCESS;
}

int kmpi_req_take(MPI_Request *h, struct kmpi_req *q, MPI_Status *st)
{
    int err = q->err;

    if (st != MPI_STATUS_IGNORE)
        kmpi_status_out(st, &q->st);
    if (q->persistent) {
        q->active = 0;
        return err;
    }
    req_release(q);
    *h = MPI_REQUEST_NULL;
    return err;
}

int kmpi_req_raise(const char *call, struct kmpi_req *q)
{
    char what[256];

    kmpi_req_describe(q, what, sizeof what);
    return kmpi_error(q->comm, q->err, call, "%s", what);
}

void kmpi_req_sweep(void)
{
    if (kmpi_bsend_active)
        kmpi_bsend_sweep();
    for (int *pp = &kmpi_req_bg_head; *pp != 0;) {
        int              h = *pp;
        struct kmpi_req *q = req_at(h);
        if (kmpi_req_settle(q)) {
            *pp = q->next;
            req_release(q);
        } else {
            pp = &q->next;
        }
    }
}

struct kmpi_req *kmpi_req_lookup(const char *call, MPI_Request h, int *null, int *rc)
{
    struct kmpi_req *q;

    *null = 0;
    *rc   = MPI_SUCCESS;
    if (h == MPI_REQUEST_NULL) {
        *null = 1;
        return NULL;
    }
    if ((q = kmpi_req_get(h)) == NULL) {
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "%d is no active request", h);
        return NULL;
    }
    if (q->persistent && !q->active) {
        *null = 1;
        return NULL;
    }
    return q;
}

/* ------------------------------------------------------------ single completion */

/* everything of MPI_Wait but the usual request's wait (PMPI_Wait) */
static __attribute__((noinline)) int wait_general(MPI_Request *request, MPI_Status *status)
{
    static const char call[] = "MPI_Wait";
    int               rc = kmpi_live(call), null;
    struct kmpi_req  *q;

    if (rc != MPI_SUCCESS)
        return rc;
    if (request == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "request is NULL");
    if (kmpi_req_bg_head != 0 || kmpi_bsend_active)
        kmpi_req_sweep();
    /* the usual request first (as MPI_Waitall) */
    if (kmpi_req_is_hid(*request)) {
        int krc, d = kmpi_req_wait_hid(call, request, status, 0, &krc);
        if (d == 0) {
            q = kmpi_req_get(*request);   /* the wait failed: raised on its communicator */
            return kmpi_error_kumi(q != NULL ? q->comm : MPI_COMM_WORLD, krc, call,
                                   "waiting for a request");
        }
        if (d == 1)
            return MPI_SUCCESS;
    }
    if ((q = kmpi_req_plain(*request)) != NULL) {
        kumi_status_t ks;
        int           krc;
        if (!kumi_msg_req_reap(q->kr, &ks, &krc)) {
            if ((krc = kmpi_wait_kr(call, q->kr)) != KUMI_OK)
                return kmpi_error_kumi(q->comm, krc, call, "waiting for a request");
            kumi_msg_req_reap(q->kr, &ks, &krc);
        }
        if (__builtin_expect(krc == KUMI_OK, 1)) {
            kmpi_req_take_plain(request, q, &ks, status, 0);
            return MPI_SUCCESS;
        }
        kmpi_req_settle_ks(q, &ks, krc);   /* failed: raised below */
    }
    if ((q = kmpi_req_lookup(call, *request, &null, &rc)) == NULL) {
        if (null && status != MPI_STATUS_IGNORE)
            kmpi_status_empty(status);
        return rc;
    }
    if (!q->settled && (rc = req_wait(call, q)) != MPI_SUCCESS)
        return rc;
    if (q->err != MPI_SUCCESS) {
        rc = kmpi_req_raise(call, q);
        kmpi_req_take(request, q, status);
        return rc;
    }
    kmpi_req_take(request, q, status);
    return MPI_SUCCESS;
}

/* the usual MPI_Wait's wait failed (a dead peer): raised on the request's
 * communicator, as wait_general raises it */
static __attribute__((noinline)) int wait_failed(const char *call, MPI_Request *request, int krc)
{
    struct kmpi_req *q = kmpi_req_get(*request);

    return kmpi_error_kumi(q != NULL ? q->comm : MPI_COMM_WORLD, krc, call,
                           "waiting for a request");
}

/* The usual request (a plain send or receive handed out by id, nothing in
 * the background, no non-blocking collective to progress) checked and
 * waited for with no call but the layer's, as MPI_Send's usual call
 * (p2p.c, p2p_usual); everything else is wait_general's, which checks
 * again. */
#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    static const char call[] = "MPI_Wait";

    if (__builtin_expect(kmpi_state == 1 && request != NULL && kmpi_req_is_hid(*request)
                         && (kmpi_req_bg_head | kmpi_bsend_active | kmpi_nbc_active) == 0, 1)) {
        kumi_status_t ks;
        int           krc;
        int d = kumi_msg_wait_reap_hid(call, (unsigned)*request & ~(unsigned)KMPI_REQ_HID, &ks,
                                       &krc);
        if (__builtin_expect(d == 1, 1)) {
            kmpi_req_hid_done(request, &ks, status, 0);
            return MPI_SUCCESS;
        }
        if (d == 0)
            return wait_failed(call, request, krc);
    }
    return wait_general(request, status);
}

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    static const char call[] = "MPI_Test";
    int               rc = kmpi_live(call), null, krc;
    struct kmpi_req  *q;

    if (rc != MPI_SUCCESS)
        return rc;
    if (request == NULL || flag == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "request or flag is NULL");
    if (kmpi_req_is_hid(*request)) {   /* the usual request: one call into the layer */
        int d = kmpi_req_reap_hid(request, status, 0);
        if (d == 0 && kmpi_poll(call) == KUMI_OK) {
            if (kmpi_req_bg_head != 0 || kmpi_bsend_active)
                kmpi_req_sweep();
            if ((d = kmpi_req_reap_hid(request, status, 0)) == 0) {
                *flag = 0;
                return MPI_SUCCESS;
            }
        }
        if (d == 1) {
            *flag = 1;
            return MPI_SUCCESS;
        }
    }
    if ((q = kmpi_req_lookup(call, *request, &null, &rc)) == NULL) {
        if (null) {
            *flag = 1;
            if (status != MPI_STATUS_IGNORE)
                kmpi_status_empty(status);
        }
        return rc;
    }
    if (!kmpi_req_settle(q)) {
        if ((krc = kmpi_poll(call)) != KUMI_OK)
            return kmpi_error_kumi(q->comm, krc, call, "testing a request");
        if (kmpi_req_bg_head != 0 || kmpi_bsend_active)
            kmpi_req_sweep();
        if (!kmpi_req_settle(q)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    if (q->err != MPI_SUCCESS) {
        rc = kmpi_req_raise(call, q);
        kmpi_req_take(request, q, status);
        return rc;
    }
    kmpi_req_take(request, q, status);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ the rest */

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request *request)
{
    static const char call[] = "MPI_Request_free";
    int               rc = kmpi_live(call);
    struct kmpi_req  *q;

    if (rc != MPI_SUCCESS)
        return rc;
    if (request == NULL || (q = kmpi_req_get(*request)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "%d is no request",
                          request ? *request : MPI_REQUEST_NULL);
    if ((q->persistent && !q->active) || kmpi_req_settle(q)) {
        req_release(q);
    } else {   /* it completes in the background */
        q->freed = 1;
        q->next  = kmpi_req_bg_head;
        kmpi_req_bg_head = q->self;
    }
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    static const char call[] = "MPI_Request_get_status";
    int               rc = kmpi_live(call), null, krc;
    struct kmpi_req  *q;

    if (rc != MPI_SUCCESS)
        return rc;
    if (flag == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "flag is NULL");
    if ((q = kmpi_req_lookup(call, request, &null, &rc)) == NULL) {
        if (null) {
            *flag = 1;
            if (status != MPI_STATUS_IGNORE)
                kmpi_status_empty(status);
        }
        return rc;
    }
    if (q->settled && q->kind == KMPI_REQ_GENERIC && q->state != NULL) {
        /* a generalized request settled before: its query_fn runs again,
         * for this call's status and error (MPI-3.1 12.2) */
        generic_query(q);
    } else if (!kmpi_req_settle(q)) {
        if ((krc = kmpi_poll(call)) != KUMI_OK)
            return kmpi_error_kumi(q->comm, krc, call, "testing a request");
        if (!kmpi_req_settle(q)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    if (status != MPI_STATUS_IGNORE)
        kmpi_status_out(status, &q->st);
    return q->err != MPI_SUCCESS ? kmpi_req_raise(call, q) : MPI_SUCCESS;
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request *request)
{
    static const char call[] = "MPI_Cancel";
    int               rc = kmpi_live(call);
    struct kmpi_req  *q;

    if (rc != MPI_SUCCESS)
        return rc;
    if (request == NULL || (q = kmpi_req_get(*request)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "%d is no request",
                          request ? *request : MPI_REQUEST_NULL);
    if (q->persistent && !q->active)
        return kmpi_error(q->comm, MPI_ERR_REQUEST, call, "request %d is an inactive "
                          "persistent request", *request);
    if (q->settled)   /* a buffered send's message may still be in the buffer */
        return q->kind == KMPI_REQ_SEND && q->bserial != 0 ? kmpi_bsend_cancel(call, q)
                                                           : MPI_SUCCESS;
    if (q->kind == KMPI_REQ_RECV)
        kumi_msg_req_cancel(q->kr);   /* too late: it completes normally */
    else if (q->kind == KMPI_REQ_GENERIC && q->ops->cancel != NULL)
        q->ops->cancel(q->state);
    else if (q->kind == KMPI_REQ_SEND && q->kr != NULL) {
        /* a rendezvous send no receive matched is taken back (msg/cancel.c);
         * an eager one, or one matched already, completes normally (MPI
         * allows it); the status says which */
        int krc = kumi_msg_req_cancel_send(q->kr);
        if (krc < 0)
            return kmpi_error_kumi(q->comm, krc, call, "taking back a send");
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    static const char call[] = "MPI_Test_cancelled";
    int               rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (status == NULL || flag == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "status or flag is NULL");
    *flag = status->kmpi_cancelled != 0;
    return MPI_SUCCESS;
}

int kmpi_req_generic(const struct kmpi_req_ops *ops, void *state, MPI_Request *out)
{
    struct kmpi_req *q = kmpi_req_new(out);

    if (q == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI (non-blocking collective)",
                          "no memory for a request");
    q->kind  = KMPI_REQ_GENERIC;
    q->comm  = MPI_COMM_WORLD;
    q->ops   = ops;
    q->state = state;
    return MPI_SUCCESS;
}

int kmpi_req_fini(void)
{
    static const char call[] = "MPI_Finalize";
    int               rc;

    /* a freed receive nobody will match would wait for ever: cancel it */
    for (int h = kmpi_req_bg_head; h != 0; h = req_at(h)->next) {
        struct kmpi_req *q = req_at(h);
        if (!q->settled && q->kind == KMPI_REQ_RECV)
            kumi_msg_req_cancel(q->kr);
    }
    while (kmpi_req_bg_head != 0) {
        struct kmpi_req *q = req_at(kmpi_req_bg_head);
        if ((rc = req_wait(call, q)) != MPI_SUCCESS)
            return rc;
        kmpi_req_sweep();
    }
    if ((rc = kmpi_bsend_wait_all(call)) != MPI_SUCCESS)
        return rc;
    /* requests the program never completed: their layer requests go with
     * kumi_finalize; the table goes here */
    for (int c = 0; c < kmpi_req_nchunks; c++)
        for (int i = 0; i < KMPI_REQ_CHUNK; i++) {
            struct kmpi_req *q = &kmpi_req_chunks[c][i];
            if (q->kind == KMPI_REQ_FREE)
                continue;
            if (q->kind == KMPI_REQ_RECV && !q->settled && q->kr != NULL
                && kumi_msg_req_cancel(q->kr))
                kumi_msg_req_finish(q->kr, NULL);
            free(q->tmp);
            kmpi_type_release(q->dt);   /* held by a persistent or unpacking one */
        }
    for (int c = 0; c < kmpi_req_nchunks; c++)
        free(kmpi_req_chunks[c]);
    free(kmpi_req_chunks);
    kmpi_req_chunks    = NULL;
    kmpi_req_nchunks   = 0;
    free(hmap);
    hmap     = NULL;
    hmap_cap = hmap_n = 0;
    kmpi_req_free_head = 0;
    kmpi_req_bg_head   = 0;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ Fortran statuses */
/* source, tag, error, cancelled, and the byte count in two halves */
_Static_assert(MPI_F_STATUS_SIZE == 6, "MPI_F_STATUS_SIZE holds a status");

#pragma weak MPI_Status_c2f = PMPI_Status_c2f
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (c_status == NULL || f_status == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_c2f", "a status is NULL");
    f_status[0] = c_status->MPI_SOURCE;
    f_status[1] = c_status->MPI_TAG;
    f_status[2] = c_status->MPI_ERROR;
    f_status[3] = c_status->kmpi_cancelled;
    f_status[4] = (MPI_Fint)(c_status->kmpi_bytes & 0xffffffff);
    f_status[5] = (MPI_Fint)(c_status->kmpi_bytes >> 32);
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_f2c = PMPI_Status_f2c
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (c_status == NULL || f_status == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_f2c", "a status is NULL");
    c_status->MPI_SOURCE     = f_status[0];
    c_status->MPI_TAG        = f_status[1];
    c_status->MPI_ERROR      = f_status[2];
    c_status->kmpi_cancelled = f_status[3];
    c_status->kmpi_bytes     = (long long)(((unsigned long long)(unsigned)f_status[5] << 32)
                                           | (unsigned)f_status[4]);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ Fortran handles
 * A handle here is already the int Fortran holds: the identity. Real
 * functions (not inline) so that a tool can interpose them like any other. */
#define KMPI_C2F(T, Name)                                                  \
    _Pragma(KMPI_STR(weak Name##_c2f = P##Name##_c2f))                     \
    MPI_Fint P##Name##_c2f(T handle) { return (MPI_Fint)handle; }          \
    _Pragma(KMPI_STR(weak Name##_f2c = P##Name##_f2c))                     \
    T P##Name##_f2c(MPI_Fint handle) { return (T)handle; }
#define KMPI_STR(x) #x
KMPI_C2F(MPI_Comm, MPI_Comm)
KMPI_C2F(MPI_Datatype, MPI_Type)
KMPI_C2F(MPI_Group, MPI_Group)
KMPI_C2F(MPI_Request, MPI_Request)
KMPI_C2F(MPI_Op, MPI_Op)
KMPI_C2F(MPI_Info, MPI_Info)
KMPI_C2F(MPI_Errhandler, MPI_Errhandler)
KMPI_C2F(MPI_Message, MPI_Message)
KMPI_C2F(MPI_Win, MPI_Win)
#undef KMPI_C2F
#undef KMPI_STR
