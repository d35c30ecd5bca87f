/*
 * req_many.c -- requests: many outstanding, every completion call, freeing
 * active requests, Request_get_status, errors in status arrays.
 *
 *   req_many [N]   N requests each way per round (default 512)
 *
 *   many      each rank posts N receives from its left neighbour (tags
 *             i % 7, mixed sizes up to 20000 bytes) and N sends to its right
 *             one, all outstanding; completed by MPI_Waitany (receives) and
 *             MPI_Testsome (sends), then a round by MPI_Waitsome and
 *             MPI_Testany, then one by MPI_Testall and MPI_Waitall
 *   empty     arrays of MPI_REQUEST_NULL: Waitany gives MPI_UNDEFINED, Waitsome
 *             outcount MPI_UNDEFINED, Testall flag 1, Wait the empty status
 *   free      MPI_Request_free of an active send and of an active receive: both
 *             complete in the background (the receive's data are there once a
 *             later message from the same sender has arrived)
 *   status    MPI_Request_get_status says no before the message is sent, yes
 *             after, and leaves the request to MPI_Wait
 *   instatus  MPI_Waitall and MPI_Testall with one receive too short:
 *             MPI_ERR_IN_STATUS, that status MPI_ERR_TRUNCATE, the other
 *             MPI_SUCCESS (MPI_ERRORS_RETURN); Waitsome likewise
 *   reuse     request slots that held every other kind (persistent, packing
 *             and unpacking, freed while active, PROC_NULL) go to plain sends
 *             and receives (the binding's fast path): Waitall's statuses say
 *             source, tag, count and MPI_SUCCESS; Wait's leaves MPI_ERROR
 *             alone; a truncated receive in Wait returns MPI_ERR_TRUNCATE
 * Rank 0 prints one line per part.
 */
#include "core_test.h"

static int nreq = 512;

static size_t len_of(int i)
{
    static const size_t l[] = { 8, 0, 100, 4080, 20000, 1, 5000 };
    return l[i % 7];
}

static void part_many(void)
{
    int            right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    MPI_Request   *rr = malloc(sizeof(MPI_Request) * (size_t)nreq);
    MPI_Request   *sr = malloc(sizeof(MPI_Request) * (size_t)nreq);
    MPI_Status    *st = malloc(sizeof(MPI_Status) * (size_t)nreq);
    int           *idx = malloc(sizeof(int) * (size_t)nreq);
    unsigned char **in = malloc(sizeof(void *) * (size_t)nreq);
    unsigned char **out = malloc(sizeof(void *) * (size_t)nreq);
    CHECK(rr && sr && st && idx && in && out, "malloc");
    for (int i = 0; i < nreq; i++) {
        in[i]  = malloc(20001);
        out[i] = malloc(20000);
        CHECK(in[i] && out[i], "malloc");
    }

    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < nreq; i++) {
            memset(in[i], 0, len_of(i) + 1);
            MPI_OK(MPI_Irecv(in[i], 20000, MPI_BYTE, left, i % 7, MPI_COMM_WORLD, &rr[i]));
        }
        for (int i = 0; i < nreq; i++) {
            t_fill(out[i], len_of(i), t_rank, right, round, i);
            MPI_OK(MPI_Isend(out[i], (int)len_of(i), MPI_BYTE, right, i % 7, MPI_COMM_WORLD,
                             &sr[i]));
        }
        int rdone = 0, sdone = 0, n, k;
        if (round == 0) {
            while (rdone < nreq || sdone < nreq) {
                if (rdone < nreq) {
                    MPI_OK(MPI_Waitany(nreq, rr, &k, &st[0]));
                    CHECK(k >= 0 && k < nreq && rr[k] == MPI_REQUEST_NULL, "waitany gave %d", k);
                    CHECK(t_count(&st[0], MPI_BYTE) == (int)len_of(k), "receive %d: count %d",
                          k, t_count(&st[0], MPI_BYTE));
                    rdone++;
                }
                MPI_OK(MPI_Testsome(nreq, sr, &n, idx, st));
                if (n != MPI_UNDEFINED)
                    sdone += n;
            }
        } else if (round == 1) {
            while (rdone < nreq) {
                MPI_OK(MPI_Waitsome(nreq, rr, &n, idx, st));
                CHECK(n >= 1, "waitsome gave %d", n);
                for (int j = 0; j < n; j++)
                    CHECK(t_count(&st[j], MPI_BYTE) == (int)len_of(idx[j]), "count");
                rdone += n;
            }
            for (int flag = 0; sdone < nreq;) {
                MPI_OK(MPI_Testany(nreq, sr, &k, &flag, MPI_STATUS_IGNORE));
                if (flag && k == MPI_UNDEFINED)
                    break;
                sdone += flag;
            }
        } else {
            for (int flag = 0; !flag;)
                MPI_OK(MPI_Testall(nreq, rr, &flag, st));
            MPI_OK(MPI_Waitall(nreq, sr, MPI_STATUSES_IGNORE));
            for (int i = 0; i < nreq; i++)
                CHECK(st[i].MPI_SOURCE == left && st[i].MPI_TAG == i % 7 && rr[i] ==
                      MPI_REQUEST_NULL, "testall status %d", i);
        }
        for (int i = 0; i < nreq; i++)
            t_verify(in[i], len_of(i), left, t_rank, round, i);
    }
    for (int i = 0; i < nreq; i++) {
        free(in[i]);
        free(out[i]);
    }
    free(in);
    free(out);
    free(rr);
    free(sr);
    free(st);
    free(idx);
    SAY("many: %d requests each way, completed by every Wait and Test call\n", nreq);
}

static void part_empty(void)
{
    MPI_Request r[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Status  st[3];
    int         k = 0, n = 0, flag = 0, idx[3];

    MPI_OK(MPI_Waitany(3, r, &k, &st[0]));
    CHECK(k == MPI_UNDEFINED, "waitany on nulls gave %d", k);
    MPI_OK(MPI_Waitsome(3, r, &n, idx, st));
    CHECK(n == MPI_UNDEFINED, "waitsome on nulls gave %d", n);
    MPI_OK(MPI_Testany(3, r, &k, &flag, &st[0]));
    CHECK(flag == 1 && k == MPI_UNDEFINED, "testany on nulls: flag %d index %d", flag, k);
    MPI_OK(MPI_Testall(3, r, &flag, st));
    CHECK(flag == 1, "testall on nulls");
    MPI_OK(MPI_Waitall(3, r, st));
    MPI_OK(MPI_Wait(&r[0], &st[0]));
    CHECK(st[0].MPI_SOURCE == MPI_ANY_SOURCE && st[0].MPI_TAG == MPI_ANY_TAG
          && t_count(&st[0], MPI_BYTE) == 0, "the empty status");
    SAY("empty: null requests complete at once with the empty status\n");
}

static void part_free(void)
{
    int         right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int         out[4] = { t_rank, 1, 2, 3 }, in[4] = { -1, -1, -1, -1 }, token = 0;
    MPI_Request r;

    MPI_OK(MPI_Irecv(in, 4, MPI_INT, left, 60, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL, "Request_free left the handle");
    MPI_OK(MPI_Isend(out, 4, MPI_INT, right, 60, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Request_free(&r));
    /* the freed send and a later one to the same rank arrive in order */
    MPI_OK(MPI_Send(&token, 1, MPI_INT, right, 61, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(&token, 1, MPI_INT, left, 61, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == left && in[3] == 3, "the freed receive has %d %d", in[0], in[3]);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));   /* out may be reused once everyone got it */
    SAY("free: freed active requests complete in the background\n");
}

static void part_status(void)
{
    int         right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int         v = t_rank, w = -1, flag = 1;
    MPI_Request r;
    MPI_Status  st;

    MPI_OK(MPI_Irecv(&w, 1, MPI_INT, left, 70, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(flag == 0, "get_status before anything was sent");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&v, 1, MPI_INT, right, 70, MPI_COMM_WORLD));
    for (flag = 0; !flag;)
        MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(r != MPI_REQUEST_NULL && st.MPI_SOURCE == left && w == left,
          "get_status: source %d value %d", st.MPI_SOURCE, w);
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL && st.MPI_TAG == 70, "wait after get_status");
    SAY("status: MPI_Request_get_status leaves the request to MPI_Wait\n");
}

static void part_instatus(void)
{
    int         right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int         out[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, a[8], b[8], rc, flag = 0, n, idx[2];
    MPI_Request r[2];
    MPI_Status  st[2];

    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int which = 0; which < 3; which++) {
        MPI_OK(MPI_Irecv(a, 4, MPI_INT, left, 80, MPI_COMM_WORLD, &r[0]));   /* too short */
        MPI_OK(MPI_Irecv(b, 8, MPI_INT, left, 81, MPI_COMM_WORLD, &r[1]));
        MPI_OK(MPI_Send(out, 8, MPI_INT, right, 80, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(out, 8, MPI_INT, right, 81, MPI_COMM_WORLD));
        st[0].MPI_ERROR = st[1].MPI_ERROR = -1;
        if (which == 0) {
            rc = MPI_Waitall(2, r, st);
        } else if (which == 1) {
            do
                rc = MPI_Testall(2, r, &flag, st);
            while (rc == MPI_SUCCESS && !flag);
        } else {
            /* both arrive before the call: one Waitsome takes both */
            for (int k = 0; k < 2; k++)
                for (flag = 0; !flag;)
                    MPI_Request_get_status(r[k], &flag, MPI_STATUS_IGNORE);
            rc = MPI_Waitsome(2, r, &n, idx, st);
            if (rc == MPI_ERR_IN_STATUS && n == 1) {   /* one at a time is allowed too */
                MPI_Status s2[2];
                int        rc2 = MPI_Waitsome(2, r, &n, idx + 1, s2);
                CHECK(rc2 == MPI_SUCCESS, "second waitsome: %s", t_err_name(rc2));
                st[1] = s2[0];
                n = 2;
            }
            CHECK(n == 2 && idx[0] == 0 && idx[1] == 1, "waitsome: %d done", n);
        }
        CHECK(rc == MPI_ERR_IN_STATUS, "call %d returned %s", which, t_err_name(rc));
        CHECK(st[0].MPI_ERROR == MPI_ERR_TRUNCATE && st[1].MPI_ERROR == MPI_SUCCESS,
              "call %d: statuses %s, %s", which, t_err_name(st[0].MPI_ERROR),
              t_err_name(st[1].MPI_ERROR));
        CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "requests not freed");
        CHECK(a[3] == 3 && b[7] == 7, "data");
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    SAY("instatus: a failed request in Waitall, Testall, Waitsome: MPI_ERR_IN_STATUS\n");
}

static void part_reuse(void)
{
    int          right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int          out[8], a[8], b[8], vin[8], rc, cls;
    MPI_Request  r[8];
    MPI_Status   st[8], s;
    MPI_Datatype vec;

    for (int i = 0; i < 8; i++)
        out[i] = 100 * t_rank + i;
    MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    for (int round = 0; round < 3; round++) {
        /* every other kind of request, to its end */
        MPI_OK(MPI_Recv_init(a, 2, MPI_INT, left, 90, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Send_init(out, 2, MPI_INT, right, 90, MPI_COMM_WORLD, &r[1]));
        MPI_OK(MPI_Startall(2, r));
        MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        MPI_OK(MPI_Request_free(&r[0]));
        MPI_OK(MPI_Request_free(&r[1]));
        memset(vin, 0, sizeof vin);
        MPI_OK(MPI_Irecv(vin, 1, vec, left, 91, MPI_COMM_WORLD, &r[2]));     /* unpacks */
        MPI_OK(MPI_Isend(out, 1, vec, right, 91, MPI_COMM_WORLD, &r[3]));    /* packs */
        MPI_OK(MPI_Irecv(b, 1, MPI_INT, MPI_PROC_NULL, 92, MPI_COMM_WORLD, &r[4]));
        MPI_OK(MPI_Isend(out, 1, MPI_INT, right, 93, MPI_COMM_WORLD, &r[5]));
        MPI_OK(MPI_Request_free(&r[5]));                                      /* active */
        MPI_OK(MPI_Waitall(3, &r[2], st));
        CHECK(vin[0] == 100 * left && vin[2] == 100 * left + 2 && vin[6] == 100 * left + 6
              && vin[1] == 0, "the unpacked vector: %d %d %d %d", vin[0], vin[1], vin[2], vin[6]);
        CHECK(st[2].MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL status source %d", st[2].MPI_SOURCE);
        MPI_OK(MPI_Recv(b, 1, MPI_INT, left, 93, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        /* plain ones in those slots */
        for (int i = 0; i < 4; i++)
            st[i].MPI_ERROR = -5;
        MPI_OK(MPI_Irecv(a, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Irecv(b, 8, MPI_INT, left, 95, MPI_COMM_WORLD, &r[1]));
        MPI_OK(MPI_Isend(out, 3, MPI_INT, right, 94, MPI_COMM_WORLD, &r[2]));
        MPI_OK(MPI_Isend(out, 8, MPI_INT, right, 95, MPI_COMM_WORLD, &r[3]));
        MPI_OK(MPI_Waitall(4, r, st));
        CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 94 && t_count(&st[0], MPI_INT) == 3
              && st[0].MPI_ERROR == MPI_SUCCESS, "round %d: status 0: %d %d %d %s", round,
              st[0].MPI_SOURCE, st[0].MPI_TAG, t_count(&st[0], MPI_INT),
              t_err_name(st[0].MPI_ERROR));
        CHECK(st[1].MPI_SOURCE == left && st[1].MPI_TAG == 95 && t_count(&st[1], MPI_INT) == 8
              && st[1].MPI_ERROR == MPI_SUCCESS, "round %d: status 1: %d %d %d %s", round,
              st[1].MPI_SOURCE, st[1].MPI_TAG, t_count(&st[1], MPI_INT),
              t_err_name(st[1].MPI_ERROR));
        CHECK(st[2].MPI_ERROR == MPI_SUCCESS && st[3].MPI_ERROR == MPI_SUCCESS,
              "round %d: send statuses %d %d", round, st[2].MPI_ERROR, st[3].MPI_ERROR);
        for (int i = 0; i < 4; i++)
            CHECK(r[i] == MPI_REQUEST_NULL, "round %d: request %d not freed", round, i);
        CHECK(a[2] == 100 * left + 2 && b[7] == 100 * left + 7, "round %d: data", round);
        /* Wait: MPI_ERROR untouched on success; a truncation returned */
        s.MPI_ERROR = -5;
        MPI_OK(MPI_Irecv(a, 2, MPI_INT, left, 96, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Send(out, 2, MPI_INT, right, 96, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&r[0], &s));
        CHECK(s.MPI_ERROR == -5 && s.MPI_SOURCE == left && s.MPI_TAG == 96
              && t_count(&s, MPI_INT) == 2 && r[0] == MPI_REQUEST_NULL,
              "round %d: wait: error %d source %d tag %d count %d", round, s.MPI_ERROR,
              s.MPI_SOURCE, s.MPI_TAG, t_count(&s, MPI_INT));
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        MPI_OK(MPI_Irecv(a, 2, MPI_INT, left, 97, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Send(out, 4, MPI_INT, right, 97, MPI_COMM_WORLD));
        rc = MPI_Wait(&r[0], &s);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE && r[0] == MPI_REQUEST_NULL, "round %d: truncated wait "
              "returned %s", round, t_err_name(rc));
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Type_free(&vec));
    SAY("reuse: plain requests in reused slots complete with the right statuses\n");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (argc > 1)
        nreq = atoi(argv[1]);
    CHECK(nreq > 0, "usage: req_many [N > 0]");
    part_many();
    part_empty();
    part_free();
    part_status();
    part_instatus();
    part_reuse();
    SAY("req_many: %d ranks ok\n", t_size);
    MPI_OK(MPI_Finalize());
    return 0;
}
