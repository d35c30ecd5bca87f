/*
 * mprobe.c -- matched probes (MPI-3.1 3.8.2, 3.8.3): MPI_Mprobe and
 * MPI_Improbe find a message as MPI_Probe does and take it out of
 * matching at once; MPI_Mrecv and MPI_Imrecv receive that message and no
 * other.
 *
 * The message layer has no "dequeue without receiving", so the probe is
 * followed at once, inside the same call, by a receive of exactly the
 * probed source and tag into a buffer of the message's size, owned by the
 * MPI_Message. That receive matches the probed message and no other:
 * messages from one source with one tag never overtake each other, the
 * probed one is the oldest unmatched message that fits the probe's
 * (source, tag) (so the oldest from its source with its tag), and an
 * unmatched message never matches a receive posted earlier. Only the
 * thread that initialized calls MPI (MPI_THREAD_FUNNELED), so no other
 * receive can come between the probe and that receive. MPI_Mrecv then
 * copies (or unpacks) the bytes into the program's buffer: one copy more
 * than MPI_Recv.
 *
 * Message handles index a table (0 MPI_MESSAGE_NULL, 1 MPI_MESSAGE_NO_PROC);
 * a handle goes back to the table when MPI_Mrecv/MPI_Imrecv takes it.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"
#include "msg.h"

struct kmpi_message {
    int            used;
    MPI_Comm       comm;
    kumi_request_t kr;        /* the receive of the message into buf */
    void          *buf;
    size_t         bytes;
    int            source, tag;
};

#define MSG_FIRST 2   /* the first handle of a probed message */
static struct kmpi_message *msgs;   /* [handle - MSG_FIRST] */
static int                  nmsgs;

/* a free slot's handle, or MPI_MESSAGE_NULL when out of memory */
static MPI_Message msg_slot(void)
{
    int i;

    for (i = 0; i < nmsgs && msgs[i].used; i++)
        ;
    if (i == nmsgs) {
        int                  n = nmsgs ? 2 * nmsgs : 8;
        struct kmpi_message *t = realloc(msgs, (size_t)n * sizeof(*t));
        if (t == NULL)
            return MPI_MESSAGE_NULL;
        memset(t + nmsgs, 0, (size_t)(n - nmsgs) * sizeof(*t));
        msgs  = t;
        nmsgs = n;
    }
    return MSG_FIRST + i;
}

static struct kmpi_message *msg_at(MPI_Message h)
{
    return h >= MSG_FIRST && h - MSG_FIRST < nmsgs && msgs[h - MSG_FIRST].used
               ? &msgs[h - MSG_FIRST]
               : NULL;
}

/* probe (wait: blocking) and, when a message is there, take it */
static int mprobe(const char *call, int source, int tag, MPI_Comm comm, int wait, int *flag,
                  MPI_Message *message, MPI_Status *status)
{
    MPI_Status  st;
    int         found = 0, rc, krc;
    MPI_Message h;

    if (message == NULL) {
        if ((rc = kmpi_live(call)) != MPI_SUCCESS)
            return rc;
        return kmpi_error(comm, MPI_ERR_ARG, call, "message is NULL");
    }
    if ((rc = kmpi_probe(call, source, tag, comm, wait, wait ? NULL : &found, &st))
        != MPI_SUCCESS)
        return rc;
    if (!wait && !found) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    if (source == MPI_PROC_NULL) {
        h = MPI_MESSAGE_NO_PROC;
    } else {
        struct kmpi_comm    *c = kmpi_comm_fast(comm);
        struct kmpi_message *m;
        size_t               bytes = (size_t)st.kmpi_bytes;

        if ((h = msg_slot()) == MPI_MESSAGE_NULL)
            return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a message handle");
        m = &msgs[h - MSG_FIRST];
        if ((m->buf = malloc(bytes ? bytes : 1)) == NULL)
            return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a message of %zu "
                              "bytes", bytes);
        krc = kumi_msg_irecv_ctx(call, m->buf, bytes, st.MPI_SOURCE, st.MPI_TAG, c->team,
                                 KUMI_MSG_CTX_USER, &m->kr);
        if (krc != KUMI_OK) {
            free(m->buf);
            m->buf = NULL;
            return kmpi_error_kumi(comm, krc, call, "taking the probed message");
        }
        m->used   = 1;
        m->comm   = comm;
        m->bytes  = bytes;
        m->source = st.MPI_SOURCE;
        m->tag    = st.MPI_TAG;
    }
    *message = h;
    if (flag != NULL)
        *flag = 1;
    if (status != MPI_STATUS_IGNORE) {   /* MPI_ERROR stays the caller's */
        status->MPI_SOURCE     = st.MPI_SOURCE;
        status->MPI_TAG        = st.MPI_TAG;
        status->kmpi_cancelled = st.kmpi_cancelled;
        status->kmpi_bytes     = st.kmpi_bytes;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return mprobe("MPI_Mprobe", source, tag, comm, 1, NULL, message, status);
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    if (flag == NULL) {
        int rc = kmpi_live("MPI_Improbe");
        return rc != MPI_SUCCESS ? rc
                                 : kmpi_error(comm, MPI_ERR_ARG, "MPI_Improbe", "flag is NULL");
    }
    return mprobe("MPI_Improbe", source, tag, comm, 0, flag, message, status);
}

/* ------------------------------------------------------------ receiving */

/* A matched receive in progress: the message (taken out of the table)
 * and the program's buffer. */
struct mrecv {
    struct kmpi_message m;
    void               *ubuf;
    int                 count;
    struct kmpi_type   *t;   /* held until the end */
};

/* the message's bytes into the program's buffer once its receive is done:
 * 0 not yet, 1 done, -MPI_ERR_TRUNCATE / -class on failure (status set) */
static int mrecv_progress(void *state, MPI_Status *status)
{
    struct mrecv *r = state;
    kumi_status_t ks;
    size_t        cap = (size_t)r->count * r->t->size, got;
    int           krc;

    if (!kumi_msg_req_done(r->m.kr))
        return 0;
    krc     = kumi_msg_req_finish(r->m.kr, &ks);
    r->m.kr = NULL;
    status->MPI_SOURCE     = r->m.source;
    status->MPI_TAG        = r->m.tag;
    status->kmpi_cancelled = 0;
    status->kmpi_bytes     = (long long)r->m.bytes;
    if (krc != KUMI_OK) {
        status->MPI_ERROR = kmpi_from_kumi(krc);
        return -status->MPI_ERROR;
    }
    got = r->m.bytes < cap ? r->m.bytes : cap;
    if (got > 0) {
        if (r->t->contig)
            memcpy(kmpi_at(r->ubuf, r->t->lb), r->m.buf, got);
        else
            kmpi_unpack_bytes(r->m.buf, got, r->t, r->ubuf);
    }
    status->MPI_ERROR = r->m.bytes > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    return status->MPI_ERROR != MPI_SUCCESS ? -status->MPI_ERROR : 1;
}

static void mrecv_release(void *state)
{
    struct mrecv *r = state;

    kmpi_type_release(r->t);
    free(r->m.buf);
    free(r);
}

static const struct kmpi_req_ops mrecv_ops = {
    .progress = mrecv_progress,
    .release  = mrecv_release,
    .cancel   = NULL,   /* the message is matched: a cancel fails, as MPI allows */
    .is_recv  = 1,
};

/* MPI_Imrecv's work, and MPI_Mrecv's start */
static int imrecv(const char *call, void *buf, int count, MPI_Datatype datatype,
                  MPI_Message *message, MPI_Request *request, int *no_proc)
{
    int                  rc = kmpi_live(call);
    struct kmpi_type    *t;
    struct kmpi_message *m;
    struct mrecv        *r;

    *no_proc = 0;
    if (rc != MPI_SUCCESS)
        return rc;
    if (message == NULL || request == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "message or request is NULL");
    if (*message == MPI_MESSAGE_NO_PROC) {
        *no_proc = 1;
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    if ((m = msg_at(*message)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "%d is no message from "
                          "MPI_Mprobe or MPI_Improbe%s", *message,
                          *message == MPI_MESSAGE_NULL ? " (MPI_MESSAGE_NULL)"
                                                       : " (received already?)");
    if ((t = kmpi_type(datatype)) == NULL)
        return kmpi_error(m->comm, MPI_ERR_TYPE, call, "%d is no datatype", datatype);
    if (!t->committed)
        return kmpi_error(m->comm, MPI_ERR_TYPE, call, "datatype %d is not committed "
                          "(MPI_Type_commit)", datatype);
    if (count < 0)
        return kmpi_error(m->comm, MPI_ERR_COUNT, call, "count %d is negative", count);
    if ((r = malloc(sizeof(*r))) == NULL)
        return kmpi_error(m->comm, MPI_ERR_NO_MEM, call, "no memory for the receive");
    r->m     = *m;
    r->ubuf  = buf;
    r->count = count;
    r->t     = t;
    kmpi_type_hold(t);
    if ((rc = kmpi_req_generic(&mrecv_ops, r, request)) != MPI_SUCCESS) {
        kmpi_type_release(t);
        free(r);
        return rc;
    }
    struct kmpi_req *q = kmpi_req_get(*request);
    q->comm = m->comm;   /* its errors go to the communicator's handler */
    q->cap  = (size_t)count * t->size;
    memset(m, 0, sizeof(*m));   /* the handle is free again */
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    int no_proc, rc = imrecv("MPI_Imrecv", buf, count, datatype, message, request, &no_proc);

    if (rc == MPI_SUCCESS && no_proc) {   /* completes at once with MPI_PROC_NULL's status */
        struct kmpi_req *q = kmpi_req_new(request);
        if (q == NULL)
            return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Imrecv",
                              "no memory for a request");
        q->kind = KMPI_REQ_RECV;
        q->comm = MPI_COMM_WORLD;
        kmpi_status_proc_null(&q->st);
        q->settled = 1;
    }
    return rc;
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int         no_proc, rc = imrecv("MPI_Mrecv", buf, count, datatype, message, &req, &no_proc);

    if (rc != MPI_SUCCESS)
        return rc;
    if (no_proc) {
        if (status != MPI_STATUS_IGNORE)
            kmpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    return PMPI_Wait(&req, status);
}
