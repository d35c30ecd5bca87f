/*
 * greq.c -- generalized requests (MPI-3.1 12.2): MPI_Grequest_start makes
 * a request that the program completes with MPI_Grequest_complete; its
 * query, free and cancel callbacks run as MPI says (query when a
 * completion call returns it and at every MPI_Request_get_status once it
 * is complete, free when the request is freed, by that completion call
 * or MPI_Request_free; cancel from MPI_Cancel with whether it has
 * completed). It is one of the request table's generic requests
 * (req.c).
 */
#include <stdlib.h>

#include "mpi_int.h"

struct greq {
    MPI_Grequest_query_function  *query;
    MPI_Grequest_free_function   *free_fn;
    MPI_Grequest_cancel_function *cancel;
    void                         *extra;
    int                           complete;   /* MPI_Grequest_complete called */
};

static int greq_progress(void *state, MPI_Status *status)
{
    struct greq *g = state;

    if (!g->complete)
        return 0;
    /* the query fills the status; an error it returns is the request's */
    status->MPI_SOURCE     = MPI_UNDEFINED;
    status->MPI_TAG        = MPI_UNDEFINED;
    status->kmpi_bytes     = 0;
    status->kmpi_cancelled = 0;
    int rc = g->query(g->extra, status);
    status->MPI_ERROR = rc;
    return rc != MPI_SUCCESS ? -rc : 1;
}

static void greq_release(void *state)
{
    struct greq *g = state;

    g->free_fn(g->extra);   /* its error has nowhere to go once the request is done */
    free(g);
}

static int greq_cancel(void *state)
{
    struct greq *g = state;

    return g->cancel(g->extra, g->complete);
}

static const struct kmpi_req_ops greq_ops = {
    .progress = greq_progress,
    .release  = greq_release,
    .cancel   = greq_cancel,
    .requery  = 1,
};

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    static const char call[] = "MPI_Grequest_start";
    int               rc = kmpi_live(call);
    struct greq      *g;

    if (rc != MPI_SUCCESS)
        return rc;
    if (query_fn == NULL || free_fn == NULL || cancel_fn == NULL || request == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "a callback or request is NULL");
    if ((g = malloc(sizeof(*g))) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for a request");
    *g = (struct greq){ query_fn, free_fn, cancel_fn, extra_state, 0 };
    if ((rc = kmpi_req_generic(&greq_ops, g, request)) != MPI_SUCCESS)
        free(g);
    return rc;
}

#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
int PMPI_Grequest_complete(MPI_Request request)
{
    static const char call[] = "MPI_Grequest_complete";
    int               rc = kmpi_live(call);
    struct kmpi_req  *q;

    if (rc != MPI_SUCCESS)
        return rc;
    if ((q = kmpi_req_get(request)) == NULL || q->kind != KMPI_REQ_GENERIC
        || q->ops != &greq_ops)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "%d is no generalized request "
                          "(MPI_Grequest_start)", request);
    ((struct greq *)q->state)->complete = 1;
    return MPI_SUCCESS;
}
