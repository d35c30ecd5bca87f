/*
 * waitall.c -- completing arrays of requests: MPI_Waitall, MPI_Testall,
 * MPI_Waitany, MPI_Testany, MPI_Waitsome, MPI_Testsome (req.c holds the
 * table and the single completions). Null and inactive persistent
 * requests are skipped; a failed request makes the call return
 * MPI_ERR_IN_STATUS (Waitany/Testany: its own class), see req.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"
#include "msg.h"

static int req_ready(void *p)
{
    return kmpi_req_settle(p);
}

/* Checks an array of requests: every handle null, inactive or valid.
 * *active: how many are active. */
static int array_check(const char *call, int count, const MPI_Request reqs[], int *active)
{
    int rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "count %d is negative", count);
    if (count > 0 && reqs == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "array_of_requests is NULL");
    kmpi_req_sweep();
    *active = 0;
    for (int i = 0; i < count; i++) {
        int null;
        if (kmpi_req_lookup(call, reqs[i], &null, &rc) != NULL)
            ++*active;
        else if (!null)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Every settled request of reqs completes (only those); the others'
 * statuses get MPI_ERR_PENDING when pending is set. Returns the index of
 * the first that failed, or -1. */
static int array_take(int count, MPI_Request reqs[], MPI_Status sts[], int *indices,
                      int *outcount, int pending)
{
    int first = -1, n = 0;

    for (int i = 0; i < count; i++) {
        int              null, rc;
        MPI_Status      *st = sts != MPI_STATUSES_IGNORE ? &sts[indices ? n : i] : NULL;
        struct kmpi_req *q = kmpi_req_lookup("", reqs[i], &null, &rc);
        if (q == NULL) {
            if (st != NULL && !indices)
                kmpi_status_empty(st);
            continue;
        }
        if (!q->settled) {
            if (st != NULL && !indices && pending)
                st->MPI_ERROR = MPI_ERR_PENDING;
            continue;
        }
        if (q->err != MPI_SUCCESS && first < 0)
            first = i;
        if (indices)
            indices[n] = i;
        n++;
        int err = q->err;
        kmpi_req_take(&reqs[i], q, st);
        if (st != NULL)
            st->MPI_ERROR = err;   /* arrays: every status says (MPI_ERR_IN_STATUS) */
    }
    if (outcount)
        *outcount = n;
    return first;
}

/* The first failed request's error (MPI_ERR_IN_STATUS) through its
 * communicator's handler; the request has completed (its slot may be
 * reused), so its description is made before. */
struct array_fail {
    MPI_Comm comm;
    int      index;
    char     what[256];
};

static void array_note(struct array_fail *f, int count, MPI_Request reqs[])
{
    f->index = -1;
    for (int i = 0; i < count; i++) {
        struct kmpi_req *q = kmpi_req_get(reqs[i]);
        if (q != NULL && q->settled && q->err != MPI_SUCCESS && (!q->persistent || q->active)) {
            f->index = i;
            f->comm  = q->comm;
            kmpi_req_describe(q, f->what, sizeof f->what);
            return;
        }
    }
}

static int array_raise(const char *call, const struct array_fail *f)
{
    return kmpi_error(f->comm, MPI_ERR_IN_STATUS, call, "request %d: %s", f->index, f->what);
}

struct all_arg {
    int          count;
    MPI_Request *reqs;
    int          need;     /* 1: any settled, 0: all */
};

static int array_ready(void *p)
{
    struct all_arg *a = p;
    int             left = 0;

    for (int i = 0; i < a->count; i++) {
        struct kmpi_req *q = kmpi_req_get(a->reqs[i]);
        if (q == NULL || (q->persistent && !q->active))
            continue;
        if (kmpi_req_settle(q)) {
            if (a->need)
                return 1;
        } else {
            left++;
        }
    }
    return !a->need && left == 0;
}

/* Waits until all (need 0) or one (need 1) of the active requests settle. */
static int array_wait(const char *call, int count, MPI_Request reqs[], int need)
{
    struct all_arg a = { count, reqs, need };

    if (array_ready(&a))
        return KUMI_OK;
    if (!need && kmpi_nbc_active == 0) {
        /* each in turn: every wait serves all of them */
        for (int i = 0; i < count; i++) {
            struct kmpi_req *q = kmpi_req_get(reqs[i]);
            if (q == NULL || (q->persistent && !q->active) || kmpi_req_settle(q))
                continue;
            if (q->kind == KMPI_REQ_GENERIC)
                return kmpi_wait_until(call, array_ready, &a);
            int krc = kumi_msg_req_wait(call, q->kr);
            if (krc != KUMI_OK)
                return krc;
            kmpi_req_settle(q);
        }
        return KUMI_OK;
    }
    return kmpi_wait_until(call, array_ready, &a);
}

/* the request whose wait failed (a dead peer) for the error's communicator */
static MPI_Comm array_comm(int count, MPI_Request reqs[])
{
    for (int i = 0; i < count; i++) {
        struct kmpi_req *q = kmpi_req_get(reqs[i]);
        if (q != NULL && !q->settled)
            return q->comm;
    }
    return MPI_COMM_WORLD;
}

/* A peer died while MPI_Waitall waited for request i (q): it failed, the
 * rest pend. */
static __attribute__((noinline, cold)) int
waitall_dead(const char *call, struct kmpi_req *q, int i, int count, MPI_Status sts[], int krc)
{
    kmpi_error_kumi(q->comm, krc, call, "waiting for requests");
    for (int j = i; sts != MPI_STATUSES_IGNORE && j < count; j++)
        sts[j].MPI_ERROR = j == i ? kmpi_from_kumi(krc) : MPI_ERR_PENDING;
    return MPI_ERR_IN_STATUS;
}

/* One pass: each request is waited for and completed in turn (every wait
 * serves all of them); a bad handle ends the call there. */
#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    static const char call[] = "MPI_Waitall";
    int               rc = kmpi_live(call), null;
    struct array_fail f;   /* not zeroed: 256 bytes of text, written on failure */

    f.index = -1;
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "count %d is negative", count);
    if (count > 0 && array_of_requests == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "array_of_requests is NULL");
    if (kmpi_req_bg_head != 0 || kmpi_bsend_active)
        kmpi_req_sweep();
    for (int i = 0; i < count; i++) {
        MPI_Status      *st = array_of_statuses != MPI_STATUSES_IGNORE ? &array_of_statuses[i]
                                                                        : NULL;
        struct kmpi_req *q;
        /* the usual request first: a send or receive of contiguous data,
         * completed (or waited for) with one call into the message layer */
        if (kmpi_req_is_hid(array_of_requests[i])) {
            /* the done ones from here on in one call (a window's waitall
             * finds most of them done) */
            kumi_status_t ks[64];
            int k = kumi_msg_reap_hid_array(count - i < 64 ? count - i : 64,
                                            &array_of_requests[i], KMPI_REQ_HID,
                                            st != NULL ? ks : NULL);
            if (k > 0) {
                for (int j = 0; j < k; j++)
                    kmpi_req_hid_done(&array_of_requests[i + j], &ks[j],
                                      st != NULL ? st + j : NULL, 1);
                i += k - 1;
                continue;
            }
            /* not done (or failed, held, stale: -1, the general path) */
            int krc, d = kmpi_req_wait_hid(call, &array_of_requests[i], st, 1, &krc);
            if (d == 0 && (q = kmpi_req_get(array_of_requests[i])) != NULL)
                return waitall_dead(call, q, i, count, array_of_statuses, krc);
            if (d == 1)
                continue;
        }
        if ((q = kmpi_req_plain(array_of_requests[i])) != NULL) {
            kumi_status_t ks;
            int           krc;
            if (!kumi_msg_req_reap(q->kr, &ks, &krc)) {
                if ((krc = kmpi_wait_kr(call, q->kr)) != KUMI_OK)
                    return waitall_dead(call, q, i, count, array_of_statuses, krc);
                kumi_msg_req_reap(q->kr, &ks, &krc);
            }
            if (__builtin_expect(krc == KUMI_OK, 1)) {
                kmpi_req_take_plain(&array_of_requests[i], q, &ks, st, 1);
                continue;
            }
            kmpi_req_settle_ks(q, &ks, krc);   /* failed: described and raised below */
        }
        q = kmpi_req_lookup(call, array_of_requests[i], &null, &rc);
        if (q == NULL) {
            if (!null)
                return rc;
            if (st != NULL)
                kmpi_status_empty(st);
            continue;
        }
        if (!q->settled) {
            int krc = KUMI_OK;
            if (q->kind == KMPI_REQ_GENERIC)
                krc = kmpi_wait_until(call, req_ready, q);
            else if (!kumi_msg_req_done(q->kr))
                krc = kmpi_wait_kr(call, q->kr);
            if (krc != KUMI_OK)
                return waitall_dead(call, q, i, count, array_of_statuses, krc);
            kmpi_req_settle(q);
        }
        if (__builtin_expect(q->err != MPI_SUCCESS, 0) && f.index < 0) {
            f.index = i;
            f.comm  = q->comm;
            kmpi_req_describe(q, f.what, sizeof f.what);
        }
        int err = q->err;
        kmpi_req_take(&array_of_requests[i], q, st);
        if (st != NULL)
            st->MPI_ERROR = err;
    }
    return f.index < 0 ? MPI_SUCCESS : array_raise(call, &f);
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[])
{
    static const char call[] = "MPI_Testall";
    int               active, rc = array_check(call, count, array_of_requests, &active), krc;
    struct all_arg    a = { count, array_of_requests, 0 };
    struct array_fail f;

    if (rc != MPI_SUCCESS)
        return rc;
    if (flag == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "flag is NULL");
    if (!array_ready(&a)) {
        if ((krc = kmpi_poll(call)) != KUMI_OK)
            return kmpi_error_kumi(array_comm(count, array_of_requests), krc, call,
                                   "testing requests");
        if (!array_ready(&a)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    array_note(&f, count, array_of_requests);
    array_take(count, array_of_requests, array_of_statuses, NULL, NULL, 1);
    return f.index < 0 ? MPI_SUCCESS : array_raise(call, &f);
}

/* the first settled active request, or -1 */
static int array_first(int count, MPI_Request reqs[])
{
    for (int i = 0; i < count; i++) {
        struct kmpi_req *q = kmpi_req_get(reqs[i]);
        if (q != NULL && !(q->persistent && !q->active) && kmpi_req_settle(q))
            return i;
    }
    return -1;
}

static int any_take(const char *call, MPI_Request reqs[], int i, int *index, MPI_Status *status)
{
    struct kmpi_req *q = kmpi_req_get(reqs[i]);

    *index = i;
    if (q->err != MPI_SUCCESS) {
        int rc = kmpi_req_raise(call, q);
        kmpi_req_take(&reqs[i], q, status);
        return rc;
    }
    kmpi_req_take(&reqs[i], q, status);
    return MPI_SUCCESS;
}

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    static const char call[] = "MPI_Waitany";
    int               active, rc = array_check(call, count, array_of_requests, &active), i;

    if (rc != MPI_SUCCESS)
        return rc;
    if (index == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "index is NULL");
    if (active == 0) {
        *index = MPI_UNDEFINED;
        if (status != MPI_STATUS_IGNORE)
            kmpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if ((i = array_first(count, array_of_requests)) < 0) {
        int krc = array_wait(call, count, array_of_requests, 1);
        if (krc != KUMI_OK)
            return kmpi_error_kumi(array_comm(count, array_of_requests), krc, call,
                                   "waiting for requests");
        i = array_first(count, array_of_requests);
    }
    return any_take(call, array_of_requests, i, index, status);
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status)
{
    static const char call[] = "MPI_Testany";
    int               active, rc = array_check(call, count, array_of_requests, &active), i;

    if (rc != MPI_SUCCESS)
        return rc;
    if (index == NULL || flag == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "index or flag is NULL");
    if (active == 0) {
        *flag  = 1;
        *index = MPI_UNDEFINED;
        if (status != MPI_STATUS_IGNORE)
            kmpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if ((i = array_first(count, array_of_requests)) < 0) {
        int krc = kmpi_poll(call);
        if (krc != KUMI_OK)
            return kmpi_error_kumi(array_comm(count, array_of_requests), krc, call,
                                   "testing requests");
        if ((i = array_first(count, array_of_requests)) < 0) {
            *flag  = 0;
            *index = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return any_take(call, array_of_requests, i, index, status);
}

static int some(const char *call, int incount, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status sts[], int wait)
{
    int               active, rc = array_check(call, incount, reqs, &active);
    struct array_fail f;

    if (rc != MPI_SUCCESS)
        return rc;
    if (outcount == NULL || (incount > 0 && indices == NULL))
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "outcount or array_of_indices "
                          "is NULL");
    if (active == 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    if (array_first(incount, reqs) < 0) {
        int krc = wait ? array_wait(call, incount, reqs, 1) : kmpi_poll(call);
        if (krc != KUMI_OK)
            return kmpi_error_kumi(array_comm(incount, reqs), krc, call, "waiting for requests");
    }
    /* every request complete by now, not only the first: array_first stops
     * at it, and the poll or wait completes layer requests without
     * settling them */
    for (int i = 0; i < incount; i++) {
        struct kmpi_req *q = kmpi_req_get(reqs[i]);
        if (q != NULL && !(q->persistent && !q->active))
            kmpi_req_settle(q);
    }
    array_note(&f, incount, reqs);
    array_take(incount, reqs, sts, indices, outcount, 0);
    return f.index < 0 ? MPI_SUCCESS : array_raise(call, &f);
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices,
                array_of_statuses, 1);
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices,
                array_of_statuses, 0);
}
