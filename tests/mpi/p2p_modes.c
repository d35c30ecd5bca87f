/*
 * p2p_modes.c -- the send modes and the combined calls.
 *
 *   ssend     MPI_Issend of 8 bytes and of 0 bytes does not complete (Test
 *             says no for 50 ms) until the receiver posts the matching
 *             receive; MPI_Ssend then returns once received
 *   rsend     MPI_Rsend and MPI_Irsend to a receive posted before a barrier
 *   bsend     MPI_Buffer_attach for three 5000-byte messages: three
 *             MPI_Bsend return before any receive is posted; with kumi
 *             (which sends them by rendezvous from the buffer, so they stay
 *             there until received) a fourth fails with MPI_ERR_BUFFER
 *             (MPI_ERRORS_RETURN; other MPIs may send it without the
 *             buffer: not checked there);
 *             a 100000-byte MPI_Bsend (rendezvous size) returns at once too;
 *             MPI_Ibsend completes at once; MPI_Buffer_detach gives the
 *             buffer back after the messages were received
 *   sendrecv  MPI_Sendrecv and MPI_Sendrecv_replace around the ring (ints)
 *   procnull  every call with MPI_PROC_NULL completes at once: status
 *             source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0
 *   persist   MPI_Send_init/MPI_Recv_init around the ring, three rounds of
 *             MPI_Startall + MPI_Waitall, then MPI_Request_free
 *   dtype     a vector datatype (every other int) around the ring: MPI_Irecv,
 *             then MPI_Type_free before the message arrives (the pending
 *             receive still unpacks); persistent requests on a vector freed
 *             after MPI_*_init (two rounds); MPI_Sendrecv_replace on it
 * Rank 0 prints one line per part. Needs 2 ranks or more (ssend, bsend use
 * ranks 0 and 1; the others run on any count).
 */
#include <time.h>

#include "core_test.h"

static void pause_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

static void part_ssend(void)
{
    int         v[2] = { 7, 8 }, w[2] = { 0, 0 }, go = 1, flag = 0;
    MPI_Request r;
    MPI_Status  st;

    if (t_size < 2)
        return;
    for (int bytes = 8; bytes >= 0; bytes -= 8) {
        if (t_rank == 0) {
            MPI_OK(MPI_Issend(v, bytes / 4, MPI_INT, 1, 1, MPI_COMM_WORLD, &r));
            for (int i = 0; i < 50 && !flag; i++) {
                MPI_OK(MPI_Test(&r, &flag, &st));
                pause_ms(1);
            }
            CHECK(!flag, "MPI_Issend of %d bytes completed before a receive was posted", bytes);
            MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
            MPI_OK(MPI_Wait(&r, &st));
        } else if (t_rank == 1) {
            MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Recv(w, 2, MPI_INT, 0, 1, MPI_COMM_WORLD, &st));
            CHECK(t_count(&st, MPI_INT) == bytes / 4 && (bytes == 0 || (w[0] == 7 && w[1] == 8)),
                  "got %d %d", w[0], w[1]);
        }
    }
    /* blocking: returns once received, whatever the order */
    if (t_rank == 0)
        MPI_OK(MPI_Ssend(v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
    else if (t_rank == 1)
        MPI_OK(MPI_Recv(w, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    SAY("ssend: a synchronous send completes only once matched (8 and 0 bytes)\n");
}

static void part_rsend(void)
{
    int         right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int         a = t_rank, b = t_rank + 100, x = -1, y = -1;
    MPI_Request r[3];

    MPI_OK(MPI_Irecv(&x, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Irecv(&y, 1, MPI_INT, left, 12, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));   /* every receive is posted: ready mode is correct */
    MPI_OK(MPI_Rsend(&a, 1, MPI_INT, right, 11, MPI_COMM_WORLD));
    MPI_OK(MPI_Irsend(&b, 1, MPI_INT, right, 12, MPI_COMM_WORLD, &r[2]));
    MPI_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    CHECK(x == left && y == left + 100, "got %d and %d", x, y);
    SAY("rsend: ready sends to posted receives\n");
}

static void part_bsend(void)
{
    if (t_size < 2)
        return;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    enum { M = 5000 };
    int    size = 3 * (M + MPI_BSEND_OVERHEAD), got_size = 0;
    char  *buf  = malloc((size_t)size), *back = NULL;
    static char msg[M], in[M];
    int    big = 100000;
    char  *large = malloc((size_t)big), *large_in = malloc((size_t)big);
    CHECK(buf && large && large_in, "malloc");

    if (t_rank == 0) {
        MPI_OK(MPI_Buffer_attach(buf, size));
        for (int k = 0; k < 3; k++) {
            memset(msg, 'a' + k, M);
            MPI_OK(MPI_Bsend(msg, M, MPI_CHAR, 1, 20 + k, MPI_COMM_WORLD));
        }
#ifdef KUMI_MPI
        memset(msg, 'z', sizeof msg);
        int rc = MPI_Bsend(msg, M, MPI_CHAR, 1, 29, MPI_COMM_WORLD);
        CHECK(rc == MPI_ERR_BUFFER, "a Bsend that cannot fit returned %s", t_err_name(rc));
#endif
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));   /* the sends returned before any receive */
    if (t_rank == 1)
        for (int k = 2; k >= 0; k--) {     /* in any order: the data were copied */
            memset(in, 0, M);
            MPI_OK(MPI_Recv(in, M, MPI_CHAR, 0, 20 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(in[0] == 'a' + k && in[M - 1] == 'a' + k, "buffered message %d", k);
        }
    if (t_rank == 0) {
        MPI_OK(MPI_Buffer_detach(&back, &got_size));
        CHECK(back == buf && got_size == size, "detach gave %p (%d bytes), attached %p (%d)",
              (void *)back, got_size, (void *)buf, size);
        /* a long message: Bsend returns before the receiver has posted */
        char *lbuf = malloc((size_t)big + MPI_BSEND_OVERHEAD);
        CHECK(lbuf != NULL, "malloc");
        MPI_OK(MPI_Buffer_attach(lbuf, big + MPI_BSEND_OVERHEAD));
        memset(large, 'L', (size_t)big);
        MPI_OK(MPI_Bsend(large, big, MPI_CHAR, 1, 30, MPI_COMM_WORLD));
        memset(large, 0, (size_t)big);   /* the buffer holds its own copy */
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Buffer_detach(&back, &got_size));   /* waits until received */
        CHECK(back == lbuf, "detach");
        free(lbuf);
        /* Ibsend: complete at once */
        MPI_Request r;
        int         flag = 0;
        char       *ibuf = malloc(64 + MPI_BSEND_OVERHEAD);
        MPI_OK(MPI_Buffer_attach(ibuf, 64 + MPI_BSEND_OVERHEAD));
        MPI_OK(MPI_Ibsend(msg, 64, MPI_CHAR, 1, 31, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        CHECK(flag == 1, "MPI_Ibsend did not complete at once");
        MPI_OK(MPI_Buffer_detach(&back, &got_size));
        free(ibuf);
    } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (t_rank == 1) {
            MPI_OK(MPI_Recv(large_in, big, MPI_CHAR, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(large_in[0] == 'L' && large_in[big - 1] == 'L', "the long buffered message");
            MPI_OK(MPI_Recv(in, 64, MPI_CHAR, 0, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    }
    free(buf);
    free(large);
    free(large_in);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    SAY("bsend: buffered sends return at once, MPI_ERR_BUFFER when the buffer is full\n");
}

static void part_sendrecv(void)
{
    int        right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int        out[100], in[100];
    MPI_Status st;

    for (int i = 0; i < 100; i++)
        out[i] = t_rank * 1000 + i;
    MPI_OK(MPI_Sendrecv(out, 100, MPI_INT, right, 40, in, 100, MPI_INT, left, 40, MPI_COMM_WORLD,
                        &st));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 40 && t_count(&st, MPI_INT) == 100, "status");
    for (int i = 0; i < 100; i++)
        CHECK(in[i] == left * 1000 + i, "in[%d] = %d", i, in[i]);
    /* twice around the ring in place: every value comes from two to the left */
    MPI_OK(MPI_Sendrecv_replace(out, 100, MPI_INT, right, 41, left, 41, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Sendrecv_replace(out, 100, MPI_INT, right, 42, left, MPI_ANY_TAG, MPI_COMM_WORLD,
                                &st));
    int left2 = (t_rank + 2 * t_size - 2) % t_size;
    CHECK(st.MPI_TAG == 42, "tag %d", st.MPI_TAG);
    for (int i = 0; i < 100; i++)
        CHECK(out[i] == left2 * 1000 + i, "out[%d] = %d", i, out[i]);
    SAY("sendrecv: MPI_Sendrecv and MPI_Sendrecv_replace around the ring\n");
}

static void check_null_status(const MPI_Status *st, const char *what)
{
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG
          && t_count(st, MPI_INT) == 0, "%s: source %d tag %d count %d", what, st->MPI_SOURCE,
          st->MPI_TAG, t_count(st, MPI_INT));
}

static void part_procnull(void)
{
    int         v[4] = { 1, 2, 3, 4 }, flag = 0;
    MPI_Request r;
    MPI_Status  st;

    MPI_OK(MPI_Send(v, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Ssend(v, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(v, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st, "MPI_Recv");
    MPI_OK(MPI_Irecv(v, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(flag == 1, "a PROC_NULL receive is not complete at once");
    check_null_status(&st, "MPI_Irecv");
    MPI_OK(MPI_Isend(v, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Sendrecv(v, 4, MPI_INT, MPI_PROC_NULL, 1, v, 4, MPI_INT, MPI_PROC_NULL, 1,
                        MPI_COMM_WORLD, &st));
    check_null_status(&st, "MPI_Sendrecv");
    MPI_OK(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st, "MPI_Probe");
    CHECK(v[0] == 1 && v[3] == 4, "a PROC_NULL receive wrote into the buffer");
    SAY("procnull: MPI_PROC_NULL operations complete at once with the empty status\n");
}

static void part_persist(void)
{
    int         right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int         out = 0, in = -1;
    MPI_Request r[2];
    MPI_Status  st[2];

    MPI_OK(MPI_Recv_init(&in, 1, MPI_INT, left, 50, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Send_init(&out, 1, MPI_INT, right, 50, MPI_COMM_WORLD, &r[1]));
    for (int round = 0; round < 3; round++) {
        out = t_rank * 10 + round;
        MPI_OK(MPI_Startall(2, r));
        MPI_OK(MPI_Waitall(2, r, st));
        CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL,
              "a persistent request was freed by its completion");
        CHECK(in == left * 10 + round && st[0].MPI_SOURCE == left, "round %d: got %d", round,
              in);
    }
    /* an inactive persistent request waits as a null one */
    MPI_OK(MPI_Wait(&r[0], &st[0]));
    CHECK(st[0].MPI_SOURCE == MPI_ANY_SOURCE, "wait on an inactive request");
    MPI_OK(MPI_Start(&r[0]));
    out = -5;
    MPI_OK(MPI_Start(&r[1]));
    MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(in == -5, "single Start: got %d", in);
    MPI_OK(MPI_Request_free(&r[0]));
    MPI_OK(MPI_Request_free(&r[1]));
    CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "Request_free");
    SAY("persist: persistent requests around the ring, three rounds and one\n");
}

static void part_dtype(void)
{
    int          right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int          out[20], in[20];
    MPI_Datatype vec;
    MPI_Request  r[2];
    MPI_Status   st;

    for (int i = 0; i < 20; i++)
        out[i] = t_rank * 100 + i;
    /* 5 ints at stride 2: elements 0, 2, 4, 6, 8 */
    MPI_OK(MPI_Type_vector(5, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    for (int i = 0; i < 20; i++)
        in[i] = -1;
    MPI_OK(MPI_Irecv(in, 2, vec, left, 90, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Type_free(&vec));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));   /* the type is gone before anything is sent */
    MPI_OK(MPI_Send(out, 10, MPI_INT, right, 90, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r[0], &st));
    CHECK(t_count(&st, MPI_INT) == 10, "count %d", t_count(&st, MPI_INT));
    /* two vectors of extent 9 ints: in[0,2,4,6,8] then in[9,11,13,15,17] */
    for (int i = 0; i < 10; i++) {
        int at = i < 5 ? 2 * i : 9 + 2 * (i - 5);
        CHECK(in[at] == left * 100 + i, "in[%d] = %d", at, in[at]);
    }
    CHECK(in[1] == -1 && in[10] == -1, "a gap was written");
    /* persistent, the type freed after the init */
    MPI_OK(MPI_Type_vector(5, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_OK(MPI_Recv_init(in, 1, vec, left, 91, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Send_init(out, 1, vec, right, 91, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Type_free(&vec));
    for (int round = 0; round < 2; round++) {
        out[4] = t_rank * 100 + 50 + round;
        MPI_OK(MPI_Startall(2, r));
        MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(in[0] == left * 100 && in[4] == left * 100 + 50 + round && in[8] == left * 100 + 8,
              "persistent vector round %d: %d %d", round, in[0], in[4]);
    }
    MPI_OK(MPI_Request_free(&r[0]));
    MPI_OK(MPI_Request_free(&r[1]));
    /* in place around the ring, twice: from two to the left */
    MPI_OK(MPI_Type_vector(5, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    for (int i = 0; i < 20; i++)
        in[i] = t_rank * 100 + i;
    MPI_OK(MPI_Sendrecv_replace(in, 2, vec, right, 92, left, 92, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Sendrecv_replace(in, 2, vec, right, 93, left, 93, MPI_COMM_WORLD, &st));
    int left2 = (t_rank + 2 * t_size - 2) % t_size;
    CHECK(in[8] == left2 * 100 + 8 && in[17] == left2 * 100 + 17 && in[1] == t_rank * 100 + 1,
          "sendrecv_replace on a vector: %d %d %d", in[8], in[17], in[1]);
    MPI_OK(MPI_Type_free(&vec));
    SAY("dtype: non-contiguous sends and receives, the type freed while in use\n");
}

int main(int argc, char **argv)
{
    const char *parts = argc > 1 ? argv[1] : "all";

    t_init(&argc, &argv);
#define PART(name) if (strcmp(parts, "all") == 0 || strstr(parts, #name) != NULL) part_##name();
    PART(ssend)
    PART(rsend)
    PART(bsend)
    PART(sendrecv)
    PART(procnull)
    PART(persist)
    PART(dtype)
    SAY("p2p_modes: %d ranks ok\n", t_size);
    MPI_OK(MPI_Finalize());
    return 0;
}
