/*
 * win.c -- the window calls of one-sided communication, which kumi's MPI
 * subset does not provide (mpi.h says why they exist at all): each one
 * fails with MPI_ERR_UNSUPPORTED_OPERATION through the error handler of
 * its communicator (MPI_COMM_WORLD's for the calls that take none), so
 * by default the job ends with one line naming the call.
 */
#include "mpi_int.h"

static int no_windows(const char *call, MPI_Comm comm, MPI_Win *win)
{
    int rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (win != NULL)
        *win = MPI_WIN_NULL;
    if (kmpi_comm_fast(comm) == NULL)
        comm = MPI_COMM_NULL;
    return kmpi_error(comm, MPI_ERR_UNSUPPORTED_OPERATION, call,
                      "one-sided communication (windows, MPI_Put, MPI_Get, MPI_Accumulate) is "
                      "not provided by kumi's MPI subset; use kumi.h's puts and gets or "
                      "OpenSHMEM instead");
}

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    (void)base, (void)size, (void)disp_unit, (void)info;
    return no_windows("MPI_Win_create", comm, win);
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    (void)size, (void)disp_unit, (void)info, (void)baseptr;
    return no_windows("MPI_Win_allocate", comm, win);
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    (void)info;
    return no_windows("MPI_Win_create_dynamic", comm, win);
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    (void)win, (void)base, (void)size;
    return no_windows("MPI_Win_attach", MPI_COMM_NULL, NULL);
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win *win)
{
    (void)win;
    return no_windows("MPI_Win_free", MPI_COMM_NULL, NULL);
}
