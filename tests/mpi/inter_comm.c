/*
 * inter_comm.c -- intercommunicators (bindings/mpi/intercomm.c): every way
 * of inter_util.h's splits, leaders first or last, peer MPI_COMM_WORLD or
 * a duplicate. Checks the groups (size, rank, remote size and group,
 * MPI_Comm_test_inter), point to point (remote ranks, ANY_SOURCE,
 * statuses, every send mode, probes, Sendrecv, PROC_NULL, cancel),
 * MPI_Intercomm_merge's order with every high choice, MPI_Comm_dup
 * (messages stay apart), _idup, _split, _create, _compare, _free,
 * attributes and names. 2 or more ranks. With the argument "strict" also
 * MPI_Comm_split_type and the errors (MPI_ERR_COMM, _RANK, _ROOT, _BUFFER),
 * where Open MPI 4.1 returns success or crashes.
 */
#include "inter_util.h"

static int key_val;
static int strict;   /* argument "strict": also where Open MPI 4.1 strays */
static int copied;
static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    copied++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* world ranks of the local (remote 0) or remote group of ic */
static void world_of(MPI_Comm ic, int remote, int *out, int n)
{
    MPI_Group g, wg;
    int       r[64];
    if (remote)
        CU_OK(MPI_Comm_remote_group(ic, &g));
    else
        CU_OK(MPI_Comm_group(ic, &g));
    CU_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < n; i++)
        r[i] = i;
    CU_OK(MPI_Group_translate_ranks(g, n, r, wg, out));
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
}

static void check_p2p(MPI_Comm ic, const int *rw, int lrank, int lsize, int rsize)
{
    MPI_Status st;
    int        buf[2], got = 0, expect = 0;

    /* local rank l sends to remote rank l % rsize; I get the remote ranks
     * r with r % lsize == lrank, in any order: ANY_SOURCE */
    MPI_Request sr;
    int         out[2] = { cu_rank, lrank };
    CU_OK(MPI_Isend(out, 2, MPI_INT, lrank % rsize, 11, ic, &sr));
    for (int r = 0; r < rsize; r++)
        expect += r % lsize == lrank;
    for (int i = 0; i < expect; i++) {
        CU_OK(MPI_Recv(buf, 2, MPI_INT, MPI_ANY_SOURCE, 11, ic, &st));
        CU_CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize && st.MPI_SOURCE % lsize == lrank,
                 "source %d", st.MPI_SOURCE);
        CU_CHECK(st.MPI_TAG == 11, "tag %d", st.MPI_TAG);
        if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize)
            CU_CHECK(buf[0] == rw[st.MPI_SOURCE] && buf[1] == st.MPI_SOURCE,
                     "payload %d %d from %d", buf[0], buf[1], st.MPI_SOURCE);
        got++;
    }
    CU_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CU_CHECK(got == expect, "%d of %d", got, expect);

    /* pairs: local rank l < min(lsize, rsize) with remote rank l, every mode */
    int m = lsize < rsize ? lsize : rsize;
    if (lrank < m) {
        int v = cu_rank * 10, in = -1, flag = 0, cnt;
        CU_OK(MPI_Sendrecv(&v, 1, MPI_INT, lrank, 1, &in, 1, MPI_INT, lrank, 1, ic, &st));
        CU_CHECK(in == rw[lrank] * 10 && st.MPI_SOURCE == lrank, "sendrecv %d from %d", in,
                 st.MPI_SOURCE);
        /* ordered by group so the blocking modes cannot deadlock: the group
         * whose leader is world rank 0's... decided by the world ranks */
        int first = cu_rank < rw[lrank];
        for (int mode = 0; mode < 3; mode++) {
            v = cu_rank * 100 + mode;
            if (first) {
                if (mode == 0)
                    CU_OK(MPI_Ssend(&v, 1, MPI_INT, lrank, 2, ic));
                else if (mode == 1)
                    CU_OK(MPI_Send(&v, 1, MPI_INT, lrank, 2, ic));
                else
                    CU_OK(MPI_Rsend(&v, 1, MPI_INT, lrank, 2, ic));
                CU_OK(MPI_Recv(&in, 1, MPI_INT, lrank, 2, ic, &st));
            } else {
                CU_OK(MPI_Probe(MPI_ANY_SOURCE, 2, ic, &st));
                CU_CHECK(st.MPI_SOURCE == lrank, "probe source %d", st.MPI_SOURCE);
                CU_OK(MPI_Get_count(&st, MPI_INT, &cnt));
                CU_CHECK(cnt == 1, "count %d", cnt);
                CU_OK(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 2, ic, &st));
                CU_OK(MPI_Send(&v, 1, MPI_INT, lrank, 2, ic));
            }
            CU_CHECK(in == rw[lrank] * 100 + mode && st.MPI_SOURCE == lrank, "mode %d: %d", mode,
                     in);
        }
        /* matched probe, Issend/Irecv */
        MPI_Request rq[2];
        MPI_Message msg;
        v = cu_rank + 7;
        CU_OK(MPI_Issend(&v, 1, MPI_INT, lrank, 3, ic, &rq[0]));
        CU_OK(MPI_Mprobe(lrank, 3, ic, &msg, &st));
        CU_CHECK(st.MPI_SOURCE == lrank, "mprobe source %d", st.MPI_SOURCE);
        CU_OK(MPI_Mrecv(&in, 1, MPI_INT, &msg, &st));
        CU_CHECK(in == rw[lrank] + 7, "mrecv %d", in);
        CU_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        CU_OK(MPI_Irecv(&in, 1, MPI_INT, lrank, 4, ic, &rq[0]));
        CU_OK(MPI_Isend(&v, 1, MPI_INT, lrank, 4, ic, &rq[1]));
        CU_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        CU_CHECK(in == rw[lrank] + 7, "irecv %d", in);
        CU_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &flag, &st));
        CU_CHECK(!flag, "a message left over from %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    }
    /* PROC_NULL and a cancelled receive */
    CU_OK(MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 0, ic));
    CU_OK(MPI_Recv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, ic, &st));
    CU_CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "proc null source %d", st.MPI_SOURCE);
    MPI_Request cr;
    int         canc = 0;
    CU_OK(MPI_Irecv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 999, ic, &cr));
    CU_OK(MPI_Cancel(&cr));
    CU_OK(MPI_Wait(&cr, &st));
    CU_OK(MPI_Test_cancelled(&st, &canc));
    CU_CHECK(canc, "receive not cancelled");
}

static void check_one(int k, MPI_Comm peer, int tag)
{
    int      color, lw[64], rw[64], lsize, lrank, rsize, flag, res;
    MPI_Comm local, ic = iu_make(k, peer, tag, &color, &local);
    int      mine[64], other[64];
    int      nm = iu_members(k, color, cu_size, mine), no = iu_members(k, !color, cu_size, other);

    CU_OK(MPI_Comm_test_inter(ic, &flag));
    CU_CHECK(flag, "not an intercommunicator");
    CU_OK(MPI_Comm_test_inter(local, &flag));
    CU_CHECK(!flag, "local_comm is an intercommunicator");
    CU_OK(MPI_Comm_size(ic, &lsize));
    CU_OK(MPI_Comm_rank(ic, &lrank));
    CU_OK(MPI_Comm_remote_size(ic, &rsize));
    CU_CHECK(lsize == nm && rsize == no, "sizes %d %d, not %d %d", lsize, rsize, nm, no);
    CU_CHECK(lrank >= 0 && lrank < nm && mine[lrank] == cu_rank, "rank %d", lrank);
    world_of(ic, 0, lw, lsize);
    world_of(ic, 1, rw, rsize);
    for (int i = 0; i < nm; i++)
        CU_CHECK(lw[i] == mine[i], "local group %d: %d, not %d", i, lw[i], mine[i]);
    for (int i = 0; i < no; i++)
        CU_CHECK(rw[i] == other[i], "remote group %d: %d, not %d", i, rw[i], other[i]);
    CU_OK(MPI_Comm_compare(ic, ic, &res));
    CU_CHECK(res == MPI_IDENT, "compare self %d", res);
    CU_OK(MPI_Comm_compare(ic, MPI_COMM_WORLD, &res));
    CU_CHECK(res == MPI_UNEQUAL, "compare world %d", res);
    CU_OK(MPI_Comm_compare(ic, local, &res));
    CU_CHECK(res == MPI_UNEQUAL, "compare local %d", res);

    check_p2p(ic, rw, lrank, lsize, rsize);

    /* names, attributes: a dup copies the attribute */
    char name[MPI_MAX_OBJECT_NAME];
    int  len;
    CU_OK(MPI_Comm_set_name(ic, "inter"));
    CU_OK(MPI_Comm_get_name(ic, name, &len));
    CU_CHECK(strcmp(name, "inter") == 0, "name %s", name);
    static int val = 42;
    CU_OK(MPI_Comm_set_attr(ic, key_val, &val));
    copied = 0;

    /* dup: congruent; its messages never match the original's */
    MPI_Comm dup, idup;
    MPI_Request r;
    CU_OK(MPI_Comm_dup(ic, &dup));
    CU_CHECK(copied == 1, "copy callback ran %d times", copied);
    int *ap = NULL;
    CU_OK(MPI_Comm_get_attr(dup, key_val, &ap, &flag));
    CU_CHECK(flag && ap == &val, "attribute not copied");
    CU_OK(MPI_Comm_compare(ic, dup, &res));
    CU_CHECK(res == MPI_CONGRUENT, "compare dup %d", res);
    CU_OK(MPI_Comm_test_inter(dup, &flag));
    CU_CHECK(flag, "dup is not an intercommunicator");
    CU_OK(MPI_Comm_idup(dup, &idup, &r));
    CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CU_OK(MPI_Comm_compare(idup, ic, &res));
    CU_CHECK(res == MPI_CONGRUENT, "compare idup %d", res);
    if (lrank == 0) {
        int a = 1, b = 2, x = 0, y = 0;
        MPI_Request q[4];
        CU_OK(MPI_Isend(&a, 1, MPI_INT, 0, 5, ic, &q[0]));
        CU_OK(MPI_Isend(&b, 1, MPI_INT, 0, 5, dup, &q[1]));
        CU_OK(MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &q[2]));
        CU_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &q[3]));
        CU_OK(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
        CU_CHECK(x == 1 && y == 2, "ic got %d, dup got %d", x, y);
    }

    /* idup does not wait for the others: the low group's rank 0 starts it
     * and then receives what the high group's rank 0 sends synchronously
     * before starting its own */
    if (lrank == 0) {
        MPI_Comm    idup2;
        MPI_Request q;
        int         v = cu_rank, in = -1;
        if (color == 0) {
            CU_OK(MPI_Comm_idup(ic, &idup2, &q));
            CU_OK(MPI_Recv(&in, 1, MPI_INT, 0, 6, ic, MPI_STATUS_IGNORE));
            CU_CHECK(in == rw[0], "idup overlap got %d", in);
        } else {
            CU_OK(MPI_Ssend(&v, 1, MPI_INT, 0, 6, ic));
            CU_OK(MPI_Comm_idup(ic, &idup2, &q));
        }
        CU_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CU_OK(MPI_Comm_free(&idup2));
    } else {
        MPI_Comm    idup2;
        MPI_Request q;
        CU_OK(MPI_Comm_idup(ic, &idup2, &q));
        CU_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CU_OK(MPI_Comm_free(&idup2));
    }

    /* merge: the group that says high = 0 first; both say the same: one
     * whole group, then the other */
    for (int h = 0; h < 3; h++) {
        MPI_Comm m;
        int      high = h == 0 ? color : h == 1 ? !color : 1, mr, ms, order[128];
        CU_OK(MPI_Intercomm_merge(ic, high, &m));
        CU_OK(MPI_Comm_test_inter(m, &flag));
        CU_CHECK(!flag, "merged is an intercommunicator");
        CU_OK(MPI_Comm_size(m, &ms));
        CU_OK(MPI_Comm_rank(m, &mr));
        CU_CHECK(ms == cu_size, "merged size %d", ms);
        CU_OK(MPI_Allgather(&cu_rank, 1, MPI_INT, order, 1, MPI_INT, m));
        if (h < 2)
            CU_CHECK(mr == (high ? rsize + lrank : lrank), "h %d: merged rank %d", h, mr);
        else
            CU_CHECK(mr == lrank || mr == rsize + lrank, "h %d: merged rank %d", h, mr);
        /* members of one group, in local order, then the other's */
        int *first = order[0] == mine[0] ? mine : other, nf = first == mine ? nm : no;
        int *second = first == mine ? other : mine;
        for (int i = 0; i < ms; i++)
            CU_CHECK(order[i] == (i < nf ? first[i] : second[i - nf]), "h %d: merged %d is %d",
                     h, i, order[i]);
        int sum = 0;
        CU_OK(MPI_Allreduce(&mr, &sum, 1, MPI_INT, MPI_SUM, m));
        CU_CHECK(sum == ms * (ms - 1) / 2, "merged sum %d", sum);
        CU_OK(MPI_Comm_free(&m));
    }

    /* split: color by local rank parity, key reversing the order */
    MPI_Comm sp;
    CU_OK(MPI_Comm_split(ic, lrank % 2, -lrank, &sp));
    int l_same = (lsize - lrank % 2 + 1) / 2, r_same = (rsize - lrank % 2 + 1) / 2;
    if (r_same == 0) {
        CU_CHECK(sp == MPI_COMM_NULL, "split: no remote members, yet a communicator");
    } else {
        int s, rs, sr;
        CU_OK(MPI_Comm_size(sp, &s));
        CU_OK(MPI_Comm_remote_size(sp, &rs));
        CU_OK(MPI_Comm_rank(sp, &sr));
        CU_CHECK(s == l_same && rs == r_same, "split sizes %d %d, not %d %d", s, rs, l_same,
                 r_same);
        CU_CHECK(sr == s - 1 - lrank / 2, "split rank %d", sr);
        /* remote rank 0 of sp is the remote one of my parity with the highest rank */
        int v = cu_rank, in = -1, top = rsize - 1;
        while (top % 2 != lrank % 2)
            top--;
        if (sr == 0) {
            CU_OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 0, &in, 1, MPI_INT, 0, 0, sp,
                               MPI_STATUS_IGNORE));
            CU_CHECK(in == rw[top], "split partner %d, not %d", in, rw[top]);
        }
        CU_OK(MPI_Comm_free(&sp));
    }
    /* split with MPI_UNDEFINED everywhere but local rank 0 */
    CU_OK(MPI_Comm_split(ic, lrank == 0 ? 3 : MPI_UNDEFINED, 0, &sp));
    CU_CHECK((lrank == 0) == (sp != MPI_COMM_NULL), "undefined split");
    if (sp != MPI_COMM_NULL) {
        int s, rs;
        CU_OK(MPI_Comm_size(sp, &s));
        CU_OK(MPI_Comm_remote_size(sp, &rs));
        CU_CHECK(s == 1 && rs == 1, "leaders' intercomm %d %d", s, rs);
        CU_OK(MPI_Barrier(sp));
        CU_OK(MPI_Comm_free(&sp));
    }
    /* dup_with_info keeps the hints; split_type (one host: everyone) */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "kumi_test", "yes");
    CU_OK(MPI_Comm_dup_with_info(ic, info, &sp));
    CU_OK(MPI_Comm_compare(ic, sp, &res));
    CU_CHECK(res == MPI_CONGRUENT, "compare dup_with_info %d", res);
    MPI_Info_free(&info);
    CU_OK(MPI_Comm_free(&sp));
    if (strict) {   /* Open MPI 4.1 crashes in MPI_Comm_split_type on an intercommunicator */
        CU_OK(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, lrank, MPI_INFO_NULL, &sp));
        CU_OK(MPI_Comm_compare(ic, sp, &res));
        CU_CHECK(res == MPI_CONGRUENT, "compare split_type %d", res);
        CU_OK(MPI_Comm_free(&sp));
    }
    /* create: the even local ranks */
    MPI_Group lg, eg;
    int       range[1][3] = { { 0, lsize - 1, 2 } };
    CU_OK(MPI_Comm_group(ic, &lg));
    CU_OK(MPI_Group_range_incl(lg, 1, range, &eg));
    CU_OK(MPI_Comm_create(ic, eg, &sp));
    CU_CHECK((lrank % 2 == 0) == (sp != MPI_COMM_NULL), "create");
    if (sp != MPI_COMM_NULL) {
        int s, rs;
        CU_OK(MPI_Comm_size(sp, &s));
        CU_OK(MPI_Comm_remote_size(sp, &rs));
        CU_CHECK(s == (lsize + 1) / 2 && rs == (rsize + 1) / 2, "create sizes %d %d", s, rs);
        CU_OK(MPI_Comm_compare(sp, ic, &res));
        CU_CHECK(res == (s == lsize && rs == rsize ? MPI_CONGRUENT : MPI_UNEQUAL),
                 "compare created %d", res);
        CU_OK(MPI_Comm_free(&sp));
    }
    MPI_Group_free(&lg);
    MPI_Group_free(&eg);

    CU_OK(MPI_Comm_free(&idup));
    CU_OK(MPI_Comm_free(&dup));
    CU_OK(MPI_Comm_free(&ic));
    CU_CHECK(ic == MPI_COMM_NULL, "freed handle");
    CU_OK(MPI_Comm_free(&local));
}

static void check_errors(void)
{
    int      color, x, rc;
    MPI_Comm local, ic = iu_make(0, MPI_COMM_WORLD, 0, &color, &local), bad;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    CU_CHECK(cu_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &x)) == MPI_ERR_COMM, "remote_size");
    MPI_Group g;
    CU_CHECK(cu_class(MPI_Comm_remote_group(local, &g)) == MPI_ERR_COMM, "remote_group");
    CU_CHECK(cu_class(MPI_Intercomm_merge(local, 0, &bad)) == MPI_ERR_COMM, "merge intra");
    CU_CHECK(cu_class(MPI_Scan(&x, &x, 1, MPI_INT, MPI_SUM, ic)) == MPI_ERR_COMM, "scan");
    MPI_Request r;
    CU_CHECK(cu_class(MPI_Iexscan(&x, &x, 1, MPI_INT, MPI_SUM, ic, &r)) == MPI_ERR_COMM,
             "iexscan");
    int dims[1] = { 1 }, per[1] = { 0 };
    CU_CHECK(cu_class(MPI_Cart_create(ic, 1, dims, per, 0, &bad)) == MPI_ERR_COMM, "cart");
    MPI_Win win;
    CU_CHECK(cu_class(MPI_Win_create(&x, sizeof(int), 1, MPI_INFO_NULL, ic, &win))
                 == MPI_ERR_COMM, "win_create");
    int nr;
    CU_CHECK(cu_class(MPI_Cart_map(ic, 1, dims, per, &nr)) == MPI_ERR_COMM, "cart_map");
    int gi[1] = { 0 }, ge[1] = { 0 };
    CU_CHECK(cu_class(MPI_Graph_create(ic, 1, gi, ge, 0, &bad)) == MPI_ERR_COMM, "graph");
    CU_CHECK(cu_class(MPI_Graph_map(ic, 1, gi, ge, &nr)) == MPI_ERR_COMM, "graph_map");
    CU_CHECK(cu_class(MPI_Neighbor_allgather(&x, 1, MPI_INT, &x, 1, MPI_INT, ic))
                 == MPI_ERR_COMM, "neighbor");
    int rsize;
    MPI_Comm_remote_size(ic, &rsize);
    CU_CHECK(cu_class(MPI_Send(&x, 1, MPI_INT, rsize, 0, ic)) == MPI_ERR_RANK, "send rank");
    CU_CHECK(cu_class(MPI_Bcast(&x, 1, MPI_INT, rsize, ic)) == MPI_ERR_ROOT, "bcast root");
    CU_CHECK(cu_class(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, ic))
                 == MPI_ERR_BUFFER, "in place");
    CU_CHECK(cu_class(MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 0, &bad)) == MPI_ERR_COMM,
             "create from intercomm");
    CU_CHECK(cu_class(MPI_Intercomm_create(local, 99, MPI_COMM_WORLD, 0, 0, &bad))
                 == MPI_ERR_RANK, "bad local leader");
    CU_CHECK(cu_class(MPI_Comm_create_group(ic, MPI_GROUP_EMPTY, 0, &bad)) == MPI_ERR_COMM,
             "create_group");
    rc = MPI_Barrier(ic);
    CU_CHECK(rc == MPI_SUCCESS, "barrier after errors %d", rc);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    cu_init(&argc, &argv);
    strict = argc > 1 && strcmp(argv[1], "strict") == 0;
    if (cu_size < 2) {
        if (cu_rank == 0)
            printf("inter_comm: needs 2 ranks or more\n");
        return cu_finish();
    }
    MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key_val, NULL);
    MPI_Comm wdup;
    CU_OK(MPI_Comm_dup(MPI_COMM_WORLD, &wdup));
    for (int k = 0; k < IU_NSPLITS; k++) {
        char name[32];
        check_one(k, k % 2 ? wdup : MPI_COMM_WORLD, 100 + k);
        snprintf(name, sizeof name, "split way %d", k);
        cu_section(name);
    }
    if (strict) {   /* Open MPI returns success for some, crashes in others */
        check_errors();
        cu_section("errors");
    }
    MPI_Comm_free(&wdup);
    MPI_Comm_free_keyval(&key_val);
    return cu_finish();
}
