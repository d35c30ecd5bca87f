/*
 * p2p_mprobe.c -- matched probes, MPI_Comm_idup and the program's own
 * error classes (bindings/mpi/mprobe.c, comm_idup.c, errh.c):
 *  - MPI_Mprobe/MPI_Improbe with every combination of a specific or ANY
 *    source and tag, each taken message received by MPI_Mrecv or
 *    MPI_Imrecv and by nothing else: a receive posted after the probe
 *    (ANY_SOURCE, ANY_TAG) gets the next message, not the probed one;
 *    0 bytes, 1 MiB (rendezvous), a non-contiguous datatype, truncation
 *    (MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN, the full size in the
 *    status), MPI_PROC_NULL (MPI_MESSAGE_NO_PROC), Improbe with nothing
 *    there;
 *  - MPI_Comm_idup: several outstanding on one communicator and on a
 *    duplicate, completed in reverse order, while point-to-point traffic
 *    runs; the copies work (collectives, messages), keep the attributes
 *    the copy callbacks say, are congruent, and free;
 *  - MPI_Add_error_class/_code/_string, MPI_Error_class/_string on them,
 *    MPI_LASTUSEDCODE, a user code through MPI_Comm_call_errhandler.
 * Prints the same lines as Open MPI (tests/mpi/vs_openmpi.sh).
 */
#include "core_test.h"

static int class_of(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

/* ------------------------------------------------------------ matched probes */

/* every rank sends its right neighbour 3 messages: tags 5, 6, 5 with
 * values 100 r + i; the receiver takes them by matched probes in an order
 * chosen by `how` and checks each */
static void mprobe_ring(int how)
{
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int out[3], tags[3] = { 5, 6, 5 };
    MPI_Request sreq[3];

    for (int i = 0; i < 3; i++) {
        out[i] = 100 * t_rank + i;
        MPI_OK(MPI_Isend(&out[i], 1, MPI_INT, right, tags[i], MPI_COMM_WORLD, &sreq[i]));
    }
    /* the probes' sources and tags: specific/ANY source x specific/ANY tag */
    int src = how & 1 ? MPI_ANY_SOURCE : left;
    int first_tag = how & 2 ? MPI_ANY_TAG : 6;
    MPI_Message m1, m2;
    MPI_Status  st;
    int         v = -1, n = -1, flag = 0;

    /* first probe: tag 6 (second message) or ANY (the first) */
    MPI_OK(MPI_Mprobe(src, first_tag, MPI_COMM_WORLD, &m1, &st));
    CHECK(m1 != MPI_MESSAGE_NULL, "no message handle");
    CHECK(st.MPI_SOURCE == left, "source %d", st.MPI_SOURCE);
    int want_tag = first_tag == 6 ? 6 : 5;
    CHECK(st.MPI_TAG == want_tag, "tag %d, want %d", st.MPI_TAG, want_tag);
    CHECK(t_count(&st, MPI_INT) == 1, "count");
    /* an ordinary receive posted now must not get the probed message */
    MPI_Request r;
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    int other = want_tag == 6 ? 100 * left + 0 : 100 * left + 1;
    CHECK(v == other, "the plain receive got %d, want %d", v, other);
    /* the last message by Improbe (loop until it is there) */
    do {
        MPI_OK(MPI_Improbe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m2, &st));
    } while (!flag);
    CHECK(st.MPI_TAG == 5, "tag %d", st.MPI_TAG);
    /* received in reverse order of probing: m2 by Imrecv, then m1 by Mrecv */
    int v2 = -1;
    MPI_OK(MPI_Imrecv(&v2, 1, MPI_INT, &m2, &r));
    CHECK(m2 == MPI_MESSAGE_NULL, "Imrecv left the message handle set");
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(v2 == 100 * left + 2, "m2 gave %d", v2);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5, "m2 status %d %d", st.MPI_SOURCE,
          st.MPI_TAG);
    MPI_OK(MPI_Mrecv(&v, 1, MPI_INT, &m1, &st));
    CHECK(m1 == MPI_MESSAGE_NULL, "Mrecv left the message handle set");
    n = want_tag == 6 ? 1 : 0;
    CHECK(v == 100 * left + n, "m1 gave %d, want %d", v, 100 * left + n);
    CHECK(st.MPI_TAG == want_tag, "m1 tag %d", st.MPI_TAG);
    MPI_OK(MPI_Waitall(3, sreq, MPI_STATUSES_IGNORE));
}

static void mprobe_sizes(void)
{
    int          right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    const int    big = 1 << 20;
    unsigned char *sb = malloc(big), *rb = malloc(big);
    MPI_Request  sreq[4];
    MPI_Message  m;
    MPI_Status   st;

    t_fill(sb, big, t_rank, right, 9, 0);
    /* 0 bytes, 1 MiB, 12 doubles, 8 ints (truncated into 4) */
    double dv[12], dr[24];
    int    iv[8], ir[8];
    for (int i = 0; i < 12; i++)
        dv[i] = t_rank + i / 4.0;
    for (int i = 0; i < 8; i++)
        iv[i] = 10 * t_rank + i;
    MPI_OK(MPI_Isend(NULL, 0, MPI_BYTE, right, 8, MPI_COMM_WORLD, &sreq[0]));
    MPI_OK(MPI_Isend(sb, big, MPI_BYTE, right, 9, MPI_COMM_WORLD, &sreq[1]));
    MPI_OK(MPI_Isend(dv, 12, MPI_DOUBLE, right, 10, MPI_COMM_WORLD, &sreq[2]));
    MPI_OK(MPI_Isend(iv, 8, MPI_INT, right, 11, MPI_COMM_WORLD, &sreq[3]));

    MPI_OK(MPI_Mprobe(left, 8, MPI_COMM_WORLD, &m, &st));
    CHECK(t_count(&st, MPI_BYTE) == 0, "zero bytes: %d", t_count(&st, MPI_BYTE));
    MPI_OK(MPI_Mrecv(NULL, 0, MPI_BYTE, &m, &st));
    CHECK(t_count(&st, MPI_BYTE) == 0 && st.MPI_TAG == 8, "zero-byte status");

    st.MPI_ERROR = MPI_ERR_DIMS;
    MPI_OK(MPI_Mprobe(left, 9, MPI_COMM_WORLD, &m, &st));
    CHECK(t_count(&st, MPI_BYTE) == big, "1 MiB probe: %d", t_count(&st, MPI_BYTE));
    CHECK(st.MPI_ERROR == MPI_ERR_DIMS, "Mprobe wrote MPI_ERROR");
    MPI_OK(MPI_Mrecv(rb, big, MPI_BYTE, &m, &st));
    CHECK(st.MPI_ERROR == MPI_ERR_DIMS, "Mrecv wrote MPI_ERROR");
    t_verify(rb, big, left, t_rank, 9, 0);

    /* 12 doubles into a vector of every other double */
    MPI_Datatype every_other;
    MPI_OK(MPI_Type_vector(12, 1, 2, MPI_DOUBLE, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    for (int i = 0; i < 24; i++)
        dr[i] = -1;
    MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &m, &st));
    MPI_OK(MPI_Mrecv(dr, 1, every_other, &m, &st));
    for (int i = 0; i < 24; i++)
        CHECK(dr[i] == (i % 2 ? -1 : left + (i / 2) / 4.0), "dr[%d] = %g", i, dr[i]);
    CHECK(t_count(&st, MPI_DOUBLE) == 12, "doubles %d", t_count(&st, MPI_DOUBLE));
    MPI_OK(MPI_Type_free(&every_other));

    /* truncation: 8 ints into 4, under MPI_ERRORS_RETURN */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int i = 0; i < 8; i++)
        ir[i] = -1;
    MPI_OK(MPI_Mprobe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
    CHECK(st.MPI_TAG == 11, "tag %d", st.MPI_TAG);
    int rc = MPI_Mrecv(ir, 4, MPI_INT, &m, &st);
    CHECK(class_of(rc) == MPI_ERR_TRUNCATE, "truncation gave %s", t_err_name(rc));
    for (int i = 0; i < 4; i++)
        CHECK(ir[i] == 10 * left + i, "ir[%d] = %d", i, ir[i]);
    CHECK(ir[4] == -1, "wrote past the buffer");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Waitall(4, sreq, MPI_STATUSES_IGNORE));
    free(sb);
    free(rb);
}

static void mprobe_special(void)
{
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status  st;
    MPI_Request r;
    int         flag = -1, v = 7;

    /* MPI_PROC_NULL: MPI_MESSAGE_NO_PROC, the empty status; Mrecv at once.
     * MPI_ERROR is the caller's: single completions leave it alone */
    st.MPI_ERROR = MPI_ERR_DIMS;
    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &m, &st));
    CHECK(st.MPI_ERROR == MPI_ERR_DIMS, "Mprobe wrote MPI_ERROR");
    CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) gave no MPI_MESSAGE_NO_PROC");
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "status %d %d",
          st.MPI_SOURCE, st.MPI_TAG);
    st.MPI_ERROR = MPI_ERR_TOPOLOGY;
    MPI_OK(MPI_Mrecv(&v, 1, MPI_INT, &m, &st));
    CHECK(m == MPI_MESSAGE_NULL && v == 7, "Mrecv(NO_PROC)");
    CHECK(st.MPI_ERROR == MPI_ERR_TOPOLOGY, "Mrecv(NO_PROC) wrote MPI_ERROR");
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && t_count(&st, MPI_INT) == 0, "NO_PROC status");
    MPI_OK(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(flag == 1 && m == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL)");
    MPI_OK(MPI_Imrecv(&v, 1, MPI_INT, &m, &r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && v == 7, "Imrecv(NO_PROC)");
    /* nothing with this tag was sent */
    MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(flag == 0, "Improbe found a message that was never sent");
}

/* ------------------------------------------------------------ MPI_Comm_idup */

static int copies, deletes;

static int copy_cb(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static void test_idup(void)
{
    enum { N = 4 };
    MPI_Comm    dups[N], dd;
    MPI_Request reqs[N + 1];
    int         key, flag, sum, cmp;
    static char base[8];
    void       *val;

    MPI_OK(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, NULL));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, base));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dd));
    /* N idups of the world and one of a duplicate, all outstanding, with
     * messages in flight on the world meanwhile */
    for (int i = 0; i < N; i++)
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dups[i], &reqs[i]));
    MPI_Comm d2;
    MPI_OK(MPI_Comm_idup(dd, &d2, &reqs[N]));
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size, got = -1;
    MPI_OK(MPI_Sendrecv(&t_rank, 1, MPI_INT, right, 1, &got, 1, MPI_INT, left, 1, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    CHECK(got == left, "sendrecv during idup");
    for (int i = N; i >= 0; i--)
        MPI_OK(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
    SAY("idup: %d copy callbacks per rank at %d idups\n", copies, N);
    for (int i = 0; i < N; i++) {
        MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, dups[i], &cmp));
        CHECK(cmp == MPI_CONGRUENT, "compare %d", cmp);
        MPI_OK(MPI_Comm_get_attr(dups[i], key, &val, &flag));
        CHECK(flag && val == base + 1, "attribute on the copy");
        MPI_OK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, dups[i]));
        CHECK(sum == t_size * (t_size - 1) / 2, "allreduce on dup %d: %d", i, sum);
        /* messages on one copy never match a receive on another */
        int a = -1, b = -1;
        MPI_Request rr[2];
        MPI_OK(MPI_Irecv(&a, 1, MPI_INT, left, 0, dups[i], &rr[0]));
        MPI_OK(MPI_Irecv(&b, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &rr[1]));
        int x = 1000 + i, y = 2000 + i;
        MPI_OK(MPI_Send(&y, 1, MPI_INT, right, 0, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(&x, 1, MPI_INT, right, 0, dups[i]));
        MPI_OK(MPI_Waitall(2, rr, MPI_STATUSES_IGNORE));
        CHECK(a == 1000 + i && b == 2000 + i, "dup %d: %d %d", i, a, b);
    }
    MPI_OK(MPI_Comm_get_attr(d2, key, &val, &flag));
    CHECK(flag && val == base + 2, "attribute copied twice");
    MPI_OK(MPI_Barrier(d2));
    /* an idup of an idup'ed communicator, waited at once */
    MPI_Comm d3;
    MPI_Request r;
    MPI_OK(MPI_Comm_idup(dups[0], &d3, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Bcast(&sum, 1, MPI_INT, 0, d3));
    MPI_OK(MPI_Comm_free(&d3));
    for (int i = 0; i < N; i++)
        MPI_OK(MPI_Comm_free(&dups[i]));
    MPI_OK(MPI_Comm_free(&d2));
    MPI_OK(MPI_Comm_free(&dd));
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    MPI_OK(MPI_Comm_free_keyval(&key));
    SAY("idup: %d delete callbacks per rank\n", deletes);
    /* many idups in a row, each completed by MPI_Test polling */
    for (int i = 0; i < 12; i++) {
        MPI_Comm c;
        int      done = 0;
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r));
        while (!done)
            MPI_OK(MPI_Test(&r, &done, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Comm_free(&c));
    }
    SAY("idup: 12 idup/free cycles\n");
    /* crossed orders on two communicators of the same members: even ranks
     * start the idups and free A before B, odd ranks B before A (a blocking
     * dup would deadlock; MPI_Comm_free must not wait for the others) */
    MPI_Comm    a, b, a2, b2;
    MPI_Request rq[2];
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    if (t_rank % 2 == 0) {
        MPI_OK(MPI_Comm_idup(a, &a2, &rq[0]));
        MPI_OK(MPI_Comm_idup(b, &b2, &rq[1]));
    } else {
        MPI_OK(MPI_Comm_idup(b, &b2, &rq[1]));
        MPI_OK(MPI_Comm_idup(a, &a2, &rq[0]));
    }
    MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, b2));
    MPI_OK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, a2));
    CHECK(sum == t_size * (t_size - 1) / 2, "allreduce on the crossed idup: %d", sum);
    if (t_rank % 2 == 0) {
        MPI_OK(MPI_Comm_free(&a2));
        MPI_OK(MPI_Comm_free(&b2));
        MPI_OK(MPI_Comm_free(&a));
        MPI_OK(MPI_Comm_free(&b));
    } else {
        MPI_OK(MPI_Comm_free(&b));
        MPI_OK(MPI_Comm_free(&a));
        MPI_OK(MPI_Comm_free(&b2));
        MPI_OK(MPI_Comm_free(&a2));
    }
    SAY("idup: crossed orders of idup and free\n");
}

/* ------------------------------------------------------------ error classes */

static int handled = -1;

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handled = *code;
}

static void test_error_classes(void)
{
    int  cls, cls2, code, code2, got, len, flag, *last;
    char s[MPI_MAX_ERROR_STRING];

    MPI_OK(MPI_Add_error_class(&cls));
    MPI_OK(MPI_Add_error_code(cls, &code));
    MPI_OK(MPI_Add_error_code(cls, &code2));
    MPI_OK(MPI_Add_error_class(&cls2));
    SAY("errors: new class above MPI_ERR_LASTCODE: %d, codes distinct: %d\n",
        cls > MPI_ERR_LASTCODE, cls != code && code != code2 && cls2 != cls);
    MPI_OK(MPI_Error_class(code, &got));
    CHECK(got == cls, "class of code: %d, want %d", got, cls);
#ifdef KUMI_MPI
    /* a class is a code of itself (MPI-3.1 8.4); Open MPI 4.1 answers
     * MPI_ERR_UNKNOWN for the program's classes */
    MPI_OK(MPI_Error_class(cls2, &got));
    CHECK(got == cls2, "class of class: %d", got);
#endif
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag, "no MPI_LASTUSEDCODE");
    SAY("errors: MPI_LASTUSEDCODE covers them: %d\n",
        *last >= cls && *last >= cls2 && *last >= code && *last >= code2);
    MPI_OK(MPI_Error_string(code, s, &len));
    SAY("errors: string before set: '%s' (%d)\n", s, len);
    MPI_OK(MPI_Add_error_string(code, "the widget broke"));
    MPI_OK(MPI_Add_error_string(cls, "widget trouble"));
    MPI_OK(MPI_Error_string(code, s, &len));
    SAY("errors: code string '%s' (%d)\n", s, len);
    MPI_OK(MPI_Add_error_string(code, "the widget broke again"));
    MPI_OK(MPI_Error_string(code, s, &len));
    SAY("errors: replaced '%s'\n", s);
    MPI_OK(MPI_Error_string(cls, s, &len));
    SAY("errors: class string '%s'\n", s);
    /* a predefined code's string cannot change; a class that does not exist */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Add_error_string(MPI_ERR_TAG, "no");
    SAY("errors: string of a predefined code: %s\n", rc == MPI_SUCCESS ? "accepted" : "refused");
    rc = MPI_Add_error_code(*last + 100, &got);
    SAY("errors: code of no class: %s\n", rc == MPI_SUCCESS ? "accepted" : "refused");
    /* a user code through a user handler */
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_create_errhandler(on_error, &eh));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    MPI_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code2));
    CHECK(handled == code2, "the handler saw %d, want %d", handled, code2);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Errhandler_free(&eh));
    SAY("errors: the handler got the user code\n");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    for (int how = 0; how < 4; how++) {
        mprobe_ring(how);
        SAY("mprobe: %s source, %s tag: ok\n", how & 1 ? "ANY" : "specific",
            how & 2 ? "ANY" : "specific");
    }
    mprobe_sizes();
    SAY("mprobe: 0 bytes, 1 MiB, vector, truncation: ok\n");
    mprobe_special();
    SAY("mprobe: PROC_NULL, nothing there: ok\n");
    test_idup();
    test_error_classes();
    MPI_OK(MPI_Finalize());
    return 0;
}
