/* req_greq.c -- generalized requests (MPI-3.1 12.2) and the error classes
 * MPI-3.1 8.4 lists.
 *
 * Once complete, a generalized request's query_fn runs at every
 * MPI_Request_get_status and its error is the call's: before the fix the
 * first get_status ran query_fn once, kept its status and error for every
 * later call, and ran free_fn right then, long before the program freed
 * the request. free_fn runs once, when the request is freed (by
 * MPI_Request_free or the completion call), after the last query_fn.
 * Also: every class of MPI-3.1's list has a string (the file, port and
 * spawn classes were missing from mpi.h, so MPI_Error_string(30..39) was
 * MPI_ERR_ARG). */
#include "core_test.h"

static int qerr, nquery, nfree, freed_before_query;

static int query_fn(void *extra, MPI_Status *st)
{
    (void)extra;
    nquery++;
    if (nfree != 0)
        freed_before_query = 1;
    MPI_Status_set_elements(st, MPI_BYTE, 3);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG    = MPI_UNDEFINED;
    return qerr;
}

static int free_fn(void *extra)
{
    (void)extra;
    nfree++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Request req;
    MPI_Status  st;
    int         flag, rc, myclass, mycode, cls, n;

    t_init(&argc, &argv);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Add_error_class(&myclass));
    MPI_OK(MPI_Add_error_code(MPI_ERR_ARG, &mycode));

    MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &req));
    MPI_OK(MPI_Request_get_status(req, &flag, &st));
    CHECK(flag == 0 && nquery == 0, "flag %d, %d queries before completion", flag, nquery);
    MPI_OK(MPI_Grequest_complete(req));
    const int errs[] = { MPI_SUCCESS, MPI_ERR_OTHER, myclass, mycode, MPI_SUCCESS };
    for (int i = 0; i < 5; i++) {
        qerr = errs[i];
        rc   = MPI_Request_get_status(req, &flag, &st);
        CHECK(rc == qerr && flag == 1, "get_status %d: rc %d (query's %d), flag %d", i, rc,
              qerr, flag);
        CHECK(nquery == i + 1, "get_status %d: %d queries", i, nquery);
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == 3, "get_status %d: count %d", i, n);
    }
    CHECK(nfree == 0, "free_fn ran %d times before the request was freed", nfree);
    MPI_OK(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL && nfree == 1, "req %d, %d frees", req, nfree);

    /* MPI_Wait: the query's error, then free_fn once */
    nquery = nfree = 0;
    MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &req));
    MPI_OK(MPI_Grequest_complete(req));
    qerr = MPI_SUCCESS;
    MPI_OK(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
    qerr = myclass;
    rc   = MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
    CHECK(rc == myclass, "get_status: %d, expected %d", rc, myclass);
    rc = MPI_Wait(&req, &st);
    CHECK(rc == myclass && req == MPI_REQUEST_NULL, "wait: rc %d req %d", rc, req);
    CHECK(nfree == 1 && !freed_before_query, "%d frees (freed before a query: %d)", nfree,
          freed_before_query);
    SAY("generalized requests: query at every get_status, free when freed\n");

    /* MPI-3.1 8.4's classes, each its own value with a string */
    const int classes[] = {
        MPI_ERR_SPAWN, MPI_ERR_PORT, MPI_ERR_SERVICE, MPI_ERR_NAME, MPI_ERR_FILE,
        MPI_ERR_NOT_SAME, MPI_ERR_AMODE, MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_NO_SUCH_FILE,
        MPI_ERR_FILE_EXISTS, MPI_ERR_BAD_FILE, MPI_ERR_ACCESS, MPI_ERR_NO_SPACE, MPI_ERR_QUOTA,
        MPI_ERR_READ_ONLY, MPI_ERR_FILE_IN_USE, MPI_ERR_DUP_DATAREP, MPI_ERR_IO,
        MPI_ERR_CONVERSION, MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_RMA_FLAVOR
    };
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        char s[MPI_MAX_ERROR_STRING];
        CHECK(classes[i] > MPI_SUCCESS && classes[i] <= MPI_ERR_LASTCODE, "class %d", classes[i]);
        MPI_OK(MPI_Error_class(classes[i], &cls));
        CHECK(cls == classes[i], "class of %d is %d", classes[i], cls);
        MPI_OK(MPI_Error_string(classes[i], s, &n));
        CHECK(n > 0 && (int)strlen(s) == n, "string of %d: \"%s\" (%d)", classes[i], s, n);
        for (size_t j = 0; j < i; j++)
            CHECK(classes[j] != classes[i], "classes %zu and %zu are both %d", j, i, classes[i]);
    }
    SAY("the error classes of MPI-3.1 8.4 have strings\n");
    MPI_OK(MPI_Finalize());
    return 0;
}
