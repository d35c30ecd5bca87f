/*
 * req_hid.c -- a request handle stays the same value for the user whatever
 * the binding does behind it: kumi hands plain sends and receives out as
 * the message layer's handle ids (no request slot) and gives one a slot
 * only when a call other than Wait/Test/Waitall needs it
 * (bindings/mpi/README.md). Plain MPI, but "stale" waits on completed
 * handles, which is erroneous: kumi reports MPI_ERR_REQUEST, another MPI
 * need not (not in vs_openmpi.sh's list).
 *
 *   copies    a receive's handle copied: MPI_Request_get_status on the
 *             copy (not yet, then yes), MPI_Wait on the original completes
 *             it with the right status; the stale copy is then no request
 *             (MPI_ERR_REQUEST, MPI_ERRORS_RETURN)
 *   stale     a completed send's old handle value, and an old value after
 *             its request was reused by a new send, are no request
 *   cancel    MPI_Cancel of a plain receive no message matched: Wait says
 *             cancelled, the handle is MPI_REQUEST_NULL
 *   free      MPI_Request_free of a plain receive and a plain send while
 *             active: both complete in the background (the data arrive)
 *   test      MPI_Test polling a plain receive until the message is there;
 *             MPI_Testany/Waitsome/Testall on plain handles mixed with
 *             MPI_REQUEST_NULL and a persistent request
 *   errors    a truncated plain receive through MPI_Wait, MPI_Test and
 *             MPI_Waitall: MPI_ERR_TRUNCATE (in status), handle NULL
 * Rank 0 prints one line per part. Every rank talks to its neighbours.
 */
#include "core_test.h"

static int right, left;

static void expect_class(int rc, int cls, const char *what)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s returned %s, expected %s", what, t_err_name(rc), t_err_name(cls));
}

static void part_copies(void)
{
    int         in = -1, out = 1000 + t_rank, flag = 1;
    MPI_Request r, copy;
    MPI_Status  st;

    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r));
    copy = r;
    MPI_OK(MPI_Request_get_status(copy, &flag, &st));
    CHECK(!flag, "get_status says done before the send");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD));
    do
        MPI_OK(MPI_Request_get_status(copy, &flag, &st));
    while (!flag);
    CHECK(r == copy, "the handle changed under the user: %d -> %d", (int)copy, (int)r);
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL && in == 1000 + left && st.MPI_SOURCE == left
          && st.MPI_TAG == 5, "wait: r %d in %d source %d tag %d", (int)r, in, st.MPI_SOURCE,
          st.MPI_TAG);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    expect_class(MPI_Wait(&copy, &st), MPI_ERR_REQUEST, "MPI_Wait of a completed copy");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    SAY("copies: a copied handle names the request until it completes\n");
}

static void part_stale(void)
{
    int         in[2], out = 7;
    MPI_Request s, r, old, old2;

    MPI_OK(MPI_Irecv(in, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &s));
    old = s;
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    /* the same request reused by the next send (a free list: likely) */
    MPI_OK(MPI_Irecv(in + 1, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &s));
    old2 = s;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (old != s)
        expect_class(MPI_Wait(&old, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait of a stale handle");
    MPI_OK(MPI_Waitall(1, &s, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int flag;
    expect_class(MPI_Test(&old2, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST,
                 "MPI_Test of a stale handle");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    SAY("stale: completed handles are no requests\n");
}

static void part_cancel(void)
{
    int         in = 0, cancelled = 0;
    MPI_Request r;
    MPI_Status  st;

    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, left, 99, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled && r == MPI_REQUEST_NULL, "cancel: cancelled %d r %d", cancelled, (int)r);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    SAY("cancel: a plain receive is cancelled\n");
}

static void part_free(void)
{
    int         in = -1, out = 300 + t_rank, in2 = -1;
    MPI_Request r, s;

    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL, "free: r %d", (int)r);
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &s));
    MPI_OK(MPI_Request_free(&s));
    CHECK(s == MPI_REQUEST_NULL, "free: s %d", (int)s);
    /* a second message on the same pair arrives after the first */
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 8, &in2, 1, MPI_INT, left, 8, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    CHECK(in == 300 + left && in2 == 300 + left, "free: in %d in2 %d", in, in2);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    SAY("free: freed plain requests complete in the background\n");
}

static void part_test(void)
{
    int         in[3] = { -1, -1, -1 }, out = 500 + t_rank, flag = 0, idx = -1, n = 0;
    int         ids[4];
    MPI_Request r[4], p;
    MPI_Status  st[4];

    MPI_OK(MPI_Irecv(&in[0], 1, MPI_INT, left, 9, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Test(&r[0], &flag, &st[0]));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD));
    while (!flag)
        MPI_OK(MPI_Test(&r[0], &flag, &st[0]));
    CHECK(r[0] == MPI_REQUEST_NULL && in[0] == 500 + left && st[0].MPI_SOURCE == left,
          "test: r %d in %d", (int)r[0], in[0]);

    /* Testany, Waitsome, Testall over plain handles, NULL and persistent */
    MPI_OK(MPI_Recv_init(&in[2], 1, MPI_INT, left, 11, MPI_COMM_WORLD, &p));
    MPI_OK(MPI_Start(&p));
    MPI_OK(MPI_Irecv(&in[1], 1, MPI_INT, left, 10, MPI_COMM_WORLD, &r[0]));
    r[1] = MPI_REQUEST_NULL;
    r[2] = p;
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, right, 10, MPI_COMM_WORLD, &r[3]));
    MPI_OK(MPI_Send(&out, 1, MPI_INT, right, 11, MPI_COMM_WORLD));
    for (flag = 0; !flag;)
        MPI_OK(MPI_Testany(4, r, &idx, &flag, &st[0]));
    CHECK(idx == 0 || idx == 2 || idx == 3, "testany: index %d", idx);
    int done = 1;
    while (done < 3) {
        MPI_OK(MPI_Waitsome(4, r, &n, ids, st));
        CHECK(n != MPI_UNDEFINED, "waitsome: nothing left with %d done", done);
        done += n;
    }
    MPI_OK(MPI_Testall(4, r, &flag, st));
    CHECK(flag && r[0] == MPI_REQUEST_NULL && r[2] == p && r[3] == MPI_REQUEST_NULL
          && in[1] == 500 + left && in[2] == 500 + left, "mixed: flag %d in %d %d", flag,
          in[1], in[2]);
    MPI_OK(MPI_Request_free(&p));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    SAY("test: Test, Testany, Waitsome, Testall on plain handles\n");
}

static void part_errors(void)
{
    int         out[4] = { 1, 2, 3, 4 }, in[2], flag = 0, cls;
    MPI_Request r;
    MPI_Status  st;

    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Irecv(in, 2, MPI_INT, left, 12, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Send(out, 4, MPI_INT, right, 12, MPI_COMM_WORLD));
    expect_class(MPI_Wait(&r, &st), MPI_ERR_TRUNCATE, "MPI_Wait of a truncated receive");
    CHECK(r == MPI_REQUEST_NULL, "wait: r %d", (int)r);

    MPI_OK(MPI_Irecv(in, 2, MPI_INT, left, 13, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Send(out, 4, MPI_INT, right, 13, MPI_COMM_WORLD));
    int rc = MPI_SUCCESS;
    while (!flag && rc == MPI_SUCCESS)
        rc = MPI_Test(&r, &flag, &st);
    expect_class(rc, MPI_ERR_TRUNCATE, "MPI_Test of a truncated receive");
    CHECK(r == MPI_REQUEST_NULL, "test: r %d", (int)r);

    MPI_OK(MPI_Irecv(in, 2, MPI_INT, left, 14, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Send(out, 4, MPI_INT, right, 14, MPI_COMM_WORLD));
    expect_class(MPI_Waitall(1, &r, &st), MPI_ERR_IN_STATUS, "MPI_Waitall");
    MPI_Error_class(st.MPI_ERROR, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && r == MPI_REQUEST_NULL, "waitall: status %s r %d",
          t_err_name(st.MPI_ERROR), (int)r);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    SAY("errors: truncated plain receives in Wait, Test, Waitall\n");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    right = (t_rank + 1) % t_size;
    left  = (t_rank + t_size - 1) % t_size;
    part_copies();
    part_stale();
    part_cancel();
    part_free();
    part_test();
    part_errors();
    SAY("req_hid: %d ranks ok\n", t_size);
    MPI_OK(MPI_Finalize());
    return 0;
}
