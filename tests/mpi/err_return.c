/*
 * err_return.c -- errors under MPI_ERRORS_RETURN, and error handlers.
 *
 *   return   with MPI_ERRORS_RETURN on MPI_COMM_WORLD each bad call returns
 *            its class and the program goes on: a rank out of range
 *            (MPI_ERR_RANK), a negative tag (MPI_ERR_TAG), MPI_COMM_NULL
 *            (MPI_ERR_COMM), a negative count (MPI_ERR_COUNT),
 *            MPI_DATATYPE_NULL (MPI_ERR_TYPE), freeing MPI_COMM_WORLD
 *            (MPI_ERR_COMM), a receive too short (MPI_ERR_TRUNCATE: the
 *            buffer filled, the status has the full count and the sender)
 *   strings  MPI_Error_string gives a non-empty string for each class,
 *            MPI_Error_class of a class is itself
 *   handler  a handler made by MPI_Comm_create_errhandler, set on a dup,
 *            is called with the dup and the code (a bad rank, and
 *            MPI_Comm_call_errhandler); MPI_Comm_get_errhandler gives it
 *            back; the world's handler is not involved
 * Rank 0 prints one line per part.
 */
#include "core_test.h"

#define EXPECT(call, cls)                                                               \
    do {                                                                                \
        int rc_ = (call), c_ = rc_;                                                     \
        MPI_Error_class(rc_, &c_);                                                      \
        CHECK(c_ == (cls), "%s returned %s, expected %s", #call, t_err_name(rc_),       \
              t_err_name(cls));                                                         \
    } while (0)

static void part_return(void)
{
    int        v[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, w[4] = { 0 };
    MPI_Comm   world = MPI_COMM_WORLD;
    MPI_Status st;

    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT(MPI_Send(v, 1, MPI_INT, t_size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Recv(v, 1, MPI_INT, t_size + 3, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT(MPI_Send(v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Recv(v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    EXPECT(MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Send(v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Send(v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Comm_free(&world), MPI_ERR_COMM);
    /* truncation: 8 ints into 4 */
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    MPI_Request r;
    MPI_OK(MPI_Isend(v, 8, MPI_INT, right, 3, MPI_COMM_WORLD, &r));
    EXPECT(MPI_Recv(w, 4, MPI_INT, left, 3, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    CHECK(w[0] == 0 && w[3] == 3 && st.MPI_SOURCE == left && st.MPI_TAG == 3,
          "truncated receive: %d %d from %d", w[0], w[3], st.MPI_SOURCE);
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    /* the same through Irecv + Wait */
    MPI_OK(MPI_Isend(v, 8, MPI_INT, right, 4, MPI_COMM_WORLD, &r));
    MPI_Request q;
    MPI_OK(MPI_Irecv(w, 4, MPI_INT, left, 4, MPI_COMM_WORLD, &q));
    EXPECT(MPI_Wait(&q, &st), MPI_ERR_TRUNCATE);
    CHECK(q == MPI_REQUEST_NULL, "a failed request is freed by MPI_Wait");
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    /* everything still works */
    MPI_OK(MPI_Sendrecv(v, 8, MPI_INT, right, 5, v, 8, MPI_INT, left, 5, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    SAY("return: bad rank, tag, comm, count, type, truncation return their classes\n");
}

static void part_strings(void)
{
    static const int classes[] = { MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE,
                                   MPI_ERR_TAG, MPI_ERR_COMM, MPI_ERR_RANK, MPI_ERR_REQUEST,
                                   MPI_ERR_ROOT, MPI_ERR_ARG, MPI_ERR_TRUNCATE, MPI_ERR_OTHER,
                                   MPI_ERR_INTERN, MPI_ERR_IN_STATUS, MPI_ERR_PENDING };
    char s[MPI_MAX_ERROR_STRING];
    int  len, cls;

    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        len = -1;
        MPI_OK(MPI_Error_string(classes[i], s, &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(s) == len,
              "string of class %d: '%s' (%d)", classes[i], s, len);
        MPI_OK(MPI_Error_class(classes[i], &cls));
        CHECK(cls == classes[i], "class of %d is %d", classes[i], cls);
    }
    SAY("strings: every class has a string and is its own class\n");
}

static int      calls, last_code;
static MPI_Comm last_comm;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_code = *code;
    last_comm = *comm;
}

static void part_handler(void)
{
    MPI_Comm       dup;
    MPI_Errhandler h, got;
    int            v = 0, cls;

    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_create_errhandler(my_handler, &h));
    MPI_OK(MPI_Comm_set_errhandler(dup, h));
    MPI_OK(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == h, "get_errhandler gave another handler");
    MPI_OK(MPI_Errhandler_free(&got));
    int rc = MPI_Send(&v, 1, MPI_INT, t_size + 1, 0, dup);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK && calls == 1 && last_comm == dup, "handler: %d calls, rc %s",
          calls, t_err_name(rc));
    MPI_Error_class(last_code, &cls);
    CHECK(cls == MPI_ERR_RANK, "the handler got %s", t_err_name(last_code));
    MPI_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    CHECK(calls == 2 && last_code == MPI_ERR_OTHER, "call_errhandler: %d calls", calls);
    MPI_OK(MPI_Errhandler_free(&h));
    CHECK(h == MPI_ERRHANDLER_NULL, "Errhandler_free left the handle");
    /* still attached to dup after the free */
    MPI_Send(&v, 1, MPI_INT, t_size + 1, 0, dup);
    CHECK(calls == 3, "a freed handler still attached: %d calls", calls);
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == MPI_ERRORS_ARE_FATAL, "the world's handler changed");
    MPI_OK(MPI_Comm_free(&dup));
    SAY("handler: a user handler is called with the communicator and the code\n");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    part_return();
    part_strings();
    part_handler();
    SAY("err_return: %d ranks ok\n", t_size);
    MPI_OK(MPI_Finalize());
    return 0;
}
