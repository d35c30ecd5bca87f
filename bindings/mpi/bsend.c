/*
 * bsend.c -- MPI_Bsend's buffer: MPI_Buffer_attach, MPI_Buffer_detach, and
 * the buffered sends of MPI_Bsend, MPI_Ibsend and MPI_Bsend_init (p2p.c
 * calls kmpi_bsend_start): the packed message is copied into the attached
 * buffer and sent from there, so the call returns at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"
#include "msg.h"

/* Blocks in the attached buffer, in address order, each a header and the
 * packed message, placed first-fit. A block costs 32 bytes of header and
 * its data rounded up to 16 bytes, and the buffer's start is aligned to
 * 16: n messages always fit in the sum of their sizes plus n *
 * MPI_BSEND_OVERHEAD (64). A block is free again once its send completed
 * (swept by the next buffered send and by every completion call). */
struct kmpi_bcancel;
struct kmpi_bblock {
    struct kmpi_bblock  *next;
    kumi_request_t       kr;
    uint32_t             len;      /* the attached size is an int */
    uint32_t             serial;   /* names it to its MPI request (kmpi_req.bserial) */
    struct kmpi_bcancel *cancel;   /* MPI_Cancel'led: where its outcome goes, else NULL */
};
_Static_assert(sizeof(struct kmpi_bblock) == 32, "a buffered send's header is 32 bytes");
_Static_assert(sizeof(struct kmpi_bblock) + 15 + 15 <= MPI_BSEND_OVERHEAD,
               "MPI_BSEND_OVERHEAD covers a header and two alignments");

/* The state of a cancelled buffered send's request (a generic one): the
 * sweep that releases the block says whether the message was withdrawn. */
struct kmpi_bcancel {
    int done, cancelled;
};

static struct {
    char               *user;   /* as attached */
    int                 size;
    char               *base, *end;
    struct kmpi_bblock *head;
} kmpi_bbuf;
int kmpi_bsend_active;
static uint32_t kmpi_bserial;   /* the last block's serial */

void kmpi_bsend_sweep(void)
{
    for (struct kmpi_bblock **pp = &kmpi_bbuf.head; *pp != NULL;) {
        struct kmpi_bblock *b = *pp;
        if (kumi_msg_req_done(b->kr)) {
            kumi_status_t ks;
            kumi_msg_req_finish(b->kr, &ks);   /* a send fails only with its peer */
            if (b->cancel != NULL) {
                b->cancel->cancelled = ks.cancelled != 0;
                b->cancel->done      = 1;
            }
            *pp = b->next;
            kmpi_bsend_active--;
        } else {
            pp = &b->next;
        }
    }
}

int kmpi_bsend_wait_all(const char *call)
{
    for (struct kmpi_bblock *b = kmpi_bbuf.head; b != NULL; b = b->next)
        if (!kumi_msg_req_done(b->kr)) {
            int krc = kmpi_wait_kr(call, b->kr);
            if (krc != KUMI_OK)
                return kmpi_error_kumi(MPI_COMM_WORLD, krc, call, "waiting for buffered sends");
        }
    kmpi_bsend_sweep();
    return MPI_SUCCESS;
}

static struct kmpi_bblock *bsend_alloc(size_t need)
{
    char                *cur = kmpi_bbuf.base;
    struct kmpi_bblock **pp  = &kmpi_bbuf.head, *b;

    for (b = kmpi_bbuf.head; b != NULL; pp = &b->next, b = b->next) {
        if ((size_t)((char *)b - cur) >= need)
            break;
        cur = (char *)b + b->len;
    }
    if (b == NULL && (cur == NULL || (size_t)(kmpi_bbuf.end - cur) < need))
        return NULL;
    struct kmpi_bblock *nb = (struct kmpi_bblock *)(void *)cur;
    nb->len    = (uint32_t)need;
    nb->kr     = NULL;
    nb->cancel = NULL;
    if (++kmpi_bserial == 0)   /* 0 names no block */
        kmpi_bserial = 1;
    nb->serial = kmpi_bserial;
    nb->next   = *pp;
    *pp      = nb;
    return nb;
}

static void bsend_unlink(struct kmpi_bblock *nb)
{
    for (struct kmpi_bblock **pp = &kmpi_bbuf.head; *pp != NULL; pp = &(*pp)->next)
        if (*pp == nb) {
            *pp = nb->next;
            return;
        }
}

int kmpi_bsend_start(const char *call, const void *buf, int count, const struct kmpi_type *t,
                       int dest, int tag, MPI_Comm comm, struct kmpi_comm *c, uint32_t *serial)
{
    size_t bytes = (size_t)count * t->size;
    size_t need  = sizeof(struct kmpi_bblock) + ((bytes + 15) & ~(size_t)15);
    int    krc   = kumi_msg_poll(call);   /* sends that completed give their room back */

    if (krc < 0)
        return kmpi_error_kumi(comm, krc, call, "a buffered send");
    kmpi_bsend_sweep();
    struct kmpi_bblock *b = bsend_alloc(need);
    if (b == NULL) {
        if (kmpi_bbuf.user == NULL)
            return kmpi_error(comm, MPI_ERR_BUFFER, call, "no buffer attached "
                              "(MPI_Buffer_attach) for a buffered send of %zu bytes", bytes);
        return kmpi_error(comm, MPI_ERR_BUFFER, call, "the attached buffer (%d bytes) has no "
                          "room left for %zu more bytes (a message of %zu bytes; attach its "
                          "size + MPI_BSEND_OVERHEAD = %d for each message pending at once)",
                          kmpi_bbuf.size, need, bytes, MPI_BSEND_OVERHEAD);
    }
    void *data = b + 1;
    if (bytes != 0)
        kmpi_pack(buf, (size_t)count, t, data);
    krc = kumi_msg_isend_ctx(call, data, bytes, dest, tag, c->team, KUMI_MSG_CTX_USER, 0,
                             &b->kr);
    if (krc != KUMI_OK) {
        bsend_unlink(b);
        return kmpi_error_kumi(comm, krc, call, "starting a buffered send");
    }
    kmpi_bsend_active++;
    if (serial != NULL)
        *serial = b->serial;
    return MPI_SUCCESS;
}

static int bcancel_progress(void *state, MPI_Status *status)
{
    struct kmpi_bcancel *s = state;

    if (!s->done) {
        int krc = kumi_msg_poll("MPI_Wait");
        if (krc < 0)
            return -kmpi_from_kumi(krc);
        kmpi_bsend_sweep();
        if (!s->done)
            return 0;
    }
    status->kmpi_cancelled = s->cancelled;
    return 1;
}

static void bcancel_release(void *state)
{
    free(state);
}

static const struct kmpi_req_ops bcancel_ops = {
    .progress = bcancel_progress,
    .release  = bcancel_release,
    .cancel   = NULL,
    .is_recv  = 0,
};

int kmpi_bsend_cancel(const char *call, struct kmpi_req *q)
{
    struct kmpi_bblock *b = kmpi_bbuf.head;
    uint32_t            serial = q->bserial;

    q->bserial = 0;   /* one cancel: a second one finds the request under way */
    while (b != NULL && b->serial != serial)
        b = b->next;
    if (b == NULL || b->cancel != NULL)
        return MPI_SUCCESS;   /* released: the message was received, too late */
    struct kmpi_bcancel *s = calloc(1, sizeof *s);
    if (s == NULL)
        return kmpi_error(q->comm, MPI_ERR_NO_MEM, call, "no memory to cancel a buffered send");
    int krc = kumi_msg_req_cancel_send(b->kr);
    if (krc < 0) {
        free(s);
        return kmpi_error_kumi(q->comm, krc, call, "taking back a buffered send");
    }
    /* the block stays until its send completes (cancelled or delivered);
     * the request follows it */
    b->cancel  = s;
    q->kind    = KMPI_REQ_GENERIC;
    q->ops     = &bcancel_ops;
    q->state   = s;
    q->settled = 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    static const char call[] = "MPI_Buffer_attach";
    int               rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (size < 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "size %d is negative", size);
    if (buffer == NULL && size > 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, call, "buffer is NULL");
    if (kmpi_bbuf.user != NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, call, "a buffer is attached already "
                          "(%d bytes at %p): MPI_Buffer_detach it first", kmpi_bbuf.size,
                          (void *)kmpi_bbuf.user);
    char *b = buffer, *base = (char *)(((uintptr_t)b + 15) & ~(uintptr_t)15);
    kmpi_bbuf.user = b != NULL ? b : (char *)&kmpi_bbuf;   /* attached, even if empty */
    kmpi_bbuf.size = size;
    kmpi_bbuf.end  = b != NULL ? b + size : NULL;
    kmpi_bbuf.base = b != NULL && base <= kmpi_bbuf.end ? base : kmpi_bbuf.end;
    kmpi_bbuf.head = NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    static const char call[] = "MPI_Buffer_detach";
    int               rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (buffer_addr == NULL || size == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "buffer_addr or size is NULL");
    if ((rc = kmpi_bsend_wait_all(call)) != MPI_SUCCESS)
        return rc;
    *(void **)buffer_addr = kmpi_bbuf.user == (char *)&kmpi_bbuf ? NULL : kmpi_bbuf.user;
    *size = kmpi_bbuf.user != NULL ? kmpi_bbuf.size : 0;
    memset(&kmpi_bbuf, 0, sizeof kmpi_bbuf);
    return MPI_SUCCESS;
}
