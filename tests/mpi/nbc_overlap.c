/*
 * nbc_overlap.c -- non-blocking collectives that overlap: several
 * outstanding on one communicator and on two (started in different
 * orders across the communicators, completed in different orders), MPI_Test
 * polling loops, and orders that deadlock unless outstanding collectives
 * move inside other MPI calls (MPI_Recv, MPI_Ssend, MPI_Probe, MPI_Wait
 * on a receive, blocking collectives, MPI_Comm_dup): a rank that owes a
 * later round of its collective waits there for a peer that gets there
 * only once the collective completed.
 */
#include "nbc_util.h"

#define N 2000   /* ints: past the eager limit */

/* the collectives of one batch, and their buffers */
struct batch {
    int         a[N], sum[N], bc[N], *ag, *aa_s, *aa_r, scan[N];
    MPI_Request r[6];
};

static void batch_start(struct batch *b, MPI_Comm c, int salt)
{
    int p, me;

    MPI_Comm_size(c, &p);
    MPI_Comm_rank(c, &me);
    b->ag   = nu_ints((size_t)p * 3);
    b->aa_s = nu_ints((size_t)p * 2);
    b->aa_r = nu_ints((size_t)p * 2);
    for (int i = 0; i < N; i++) {
        b->a[i]  = cu_val(me, i, salt);
        b->bc[i] = me == p - 1 ? cu_val(p - 1, i, salt + 1) : -1;
    }
    for (int i = 0; i < 2 * p; i++)
        b->aa_s[i] = cu_val(me, i, salt + 2);
    CU_OK(MPI_Iallreduce(b->a, b->sum, N, MPI_INT, MPI_SUM, c, &b->r[0]));
    CU_OK(MPI_Ibcast(b->bc, N, MPI_INT, p - 1, c, &b->r[1]));
    CU_OK(MPI_Iallgather(b->a, 3, MPI_INT, b->ag, 3, MPI_INT, c, &b->r[2]));
    CU_OK(MPI_Ibarrier(c, &b->r[3]));
    CU_OK(MPI_Ialltoall(b->aa_s, 2, MPI_INT, b->aa_r, 2, MPI_INT, c, &b->r[4]));
    CU_OK(MPI_Iscan(b->a, b->scan, N, MPI_INT, MPI_SUM, c, &b->r[5]));
}

static void batch_check(struct batch *b, MPI_Comm c, int salt)
{
    int p, me;

    MPI_Comm_size(c, &p);
    MPI_Comm_rank(c, &me);
    for (int i = 0; i < N; i++) {
        int sum = 0, pre = 0;
        for (int q = 0; q < p; q++) {
            sum += cu_val(q, i, salt);
            if (q <= me)
                pre += cu_val(q, i, salt);
        }
        CU_CHECK(b->sum[i] == sum, "allreduce [%d]", i);
        CU_CHECK(b->scan[i] == pre, "scan [%d]", i);
        CU_CHECK(b->bc[i] == cu_val(p - 1, i, salt + 1), "bcast [%d]", i);
    }
    for (int i = 0; i < 3 * p; i++)
        CU_CHECK(b->ag[i] == cu_val(i / 3, i % 3, salt), "allgather [%d]", i);
    for (int i = 0; i < 2 * p; i++)
        CU_CHECK(b->aa_r[i] == cu_val(i / 2, me * 2 + i % 2, salt + 2), "alltoall [%d]", i);
    free(b->ag);
    free(b->aa_s);
    free(b->aa_r);
}

static struct batch b1, b2;

static void test_one_comm(void)
{
    batch_start(&b1, MPI_COMM_WORLD, 1);
    batch_start(&b2, MPI_COMM_WORLD, 2);
    /* completed in different orders on different ranks */
    for (int k = 0; k < 6; k++) {
        int i = cu_rank % 2 ? k : 5 - k;
        CU_OK(MPI_Wait(&b2.r[i], MPI_STATUS_IGNORE));
        CU_OK(MPI_Wait(&b1.r[5 - i], MPI_STATUS_IGNORE));
    }
    batch_check(&b1, MPI_COMM_WORLD, 1);
    batch_check(&b2, MPI_COMM_WORLD, 2);
    cu_section("outstanding on one communicator");
}

static void test_two_comms(void)
{
    MPI_Comm a, b;

    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    /* each communicator sees its collectives in one order; across the
     * two, the ranks start them in different orders */
    if (cu_rank % 2) {
        batch_start(&b1, a, 3);
        batch_start(&b2, b, 4);
    } else {
        batch_start(&b2, b, 4);
        batch_start(&b1, a, 3);
    }
    if (cu_rank % 2) {
        CU_OK(MPI_Waitall(6, b2.r, MPI_STATUSES_IGNORE));
        CU_OK(MPI_Waitall(6, b1.r, MPI_STATUSES_IGNORE));
    } else {
        CU_OK(MPI_Waitall(6, b1.r, MPI_STATUSES_IGNORE));
        CU_OK(MPI_Waitall(6, b2.r, MPI_STATUSES_IGNORE));
    }
    batch_check(&b1, a, 3);
    batch_check(&b2, b, 4);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    cu_section("outstanding on two communicators");
}

static void test_polling(void)
{
    int flag = 0, spins = 0;

    batch_start(&b1, MPI_COMM_WORLD, 5);
    while (!flag) {
        CU_OK(MPI_Testall(6, b1.r, &flag, MPI_STATUSES_IGNORE));
        spins++;
    }
    batch_check(&b1, MPI_COMM_WORLD, 5);
    /* MPI_Test on each in turn, with some "computation" between */
    batch_start(&b2, MPI_COMM_WORLD, 6);
    for (int left = 6; left > 0;) {
        volatile double x = 0;
        for (int k = 0; k < 1000; k++)
            x += k * 0.5;
        left = 0;
        for (int i = 0; i < 6; i++) {
            CU_OK(MPI_Test(&b2.r[i], &flag, MPI_STATUS_IGNORE));
            left += !flag;
        }
    }
    for (int i = 0; i < 6; i++)
        CU_CHECK(b2.r[i] == MPI_REQUEST_NULL, "request %d not reset", i);
    batch_check(&b2, MPI_COMM_WORLD, 6);
    CU_CHECK(spins >= 1, "no test made");
    cu_section("MPI_Test polling");
}

/* A non-commutative reduction to the last rank runs on a tree rooted at
 * rank 0, which then sends the result on: rank 0 owes that last round.
 * how: where rank 0 waits for the last rank's message meanwhile. */
enum { IN_RECV, IN_SSEND, IN_PROBE, IN_WAIT_RECV, IN_BARRIER, IN_ALLREDUCE, IN_COMM_DUP };

/* a blocking collective of kind how on MPI_COMM_WORLD */
static void blocking(int how)
{
    int      x = cu_rank, y = -1;
    MPI_Comm c;

    switch (how) {
    case IN_BARRIER:
        CU_OK(MPI_Barrier(MPI_COMM_WORLD));
        break;
    case IN_ALLREDUCE:
        CU_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        CU_CHECK(y == cu_size - 1, "allreduce %d", y);
        break;
    case IN_COMM_DUP:
        CU_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        CU_OK(MPI_Comm_free(&c));
        break;
    }
}

static void owed_round(int how)
{
    static const char *names[] = { "MPI_Recv",     "MPI_Ssend",     "MPI_Probe",
                                   "MPI_Wait (receive)", "MPI_Barrier", "MPI_Allreduce",
                                   "MPI_Comm_dup" };
    MPI_Request        r, pr;
    nu_affine          x[5], y[5];
    int                last = cu_size - 1, token = 0;

    for (int i = 0; i < 5; i++)
        x[i] = nu_affine_of(cu_rank, i);
    MPI_Datatype t;
    MPI_Op       op;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &t);
    MPI_Type_commit(&t);
    MPI_Op_create(nu_affine_fn, 0, &op);
    CU_OK(MPI_Ireduce(x, y, 5, t, op, last, MPI_COMM_WORLD, &r));
    if (how >= IN_BARRIER) {
        /* rank 0 joins a blocking collective the others join only once
         * the reduction completed */
        if (cu_rank == 0)
            blocking(how);
        CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (cu_rank != 0)
            blocking(how);
    } else if (cu_rank == 0 && last != 0) {
        switch (how) {
        case IN_RECV:
            CU_OK(MPI_Recv(&token, 1, MPI_INT, last, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            break;
        case IN_SSEND:
            CU_OK(MPI_Ssend(&token, 1, MPI_INT, last, 7, MPI_COMM_WORLD));
            break;
        case IN_PROBE:
            CU_OK(MPI_Probe(last, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CU_OK(MPI_Recv(&token, 1, MPI_INT, last, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            break;
        case IN_WAIT_RECV:
            CU_OK(MPI_Irecv(&token, 1, MPI_INT, last, 7, MPI_COMM_WORLD, &pr));
            CU_OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
            break;
        }
        CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else if (cu_rank == last && last != 0) {
        CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (how == IN_SSEND)
            CU_OK(MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        else
            CU_OK(MPI_Send(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
    } else {
        CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    for (int i = 0; cu_rank == last && i < 5; i++) {
        nu_affine want = nu_affine_range(0, last, i);
        CU_CHECK(y[i].a == want.a && y[i].b == want.b, "%s: [%d]", names[how], i);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&t);
}

/* The broadcast tree from rank 0 makes rank 2 an inner node (its child
 * is 3) when there are 4 ranks or more: rank 2 waits in MPI_Recv for
 * rank 3, which sends only once its broadcast completed. */
static void inner_node(void)
{
    MPI_Request r;
    int        *b = nu_ints(N), token = 0;

    for (int i = 0; i < N; i++)
        b[i] = cu_rank == 0 ? cu_val(0, i, 8) : -1;
    CU_OK(MPI_Ibcast(b, N, MPI_INT, 0, MPI_COMM_WORLD, &r));
    if (cu_size >= 4 && cu_rank == 2) {
        CU_OK(MPI_Recv(&token, 1, MPI_INT, 3, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else if (cu_size >= 4 && cu_rank == 3) {
        CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CU_OK(MPI_Send(&token, 1, MPI_INT, 2, 9, MPI_COMM_WORLD));
    } else {
        CU_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < N; i++)
        CU_CHECK(b[i] == cu_val(0, i, 8), "bcast [%d]", i);
    free(b);
}

static void test_progress(void)
{
    for (int how = IN_RECV; how <= IN_COMM_DUP; how++)
        owed_round(how);
    inner_node();
    cu_section("progress inside other MPI calls");
}

int main(int argc, char **argv)
{
    cu_init(&argc, &argv);
    test_one_comm();
    test_two_comms();
    test_polling();
    test_progress();
    MPI_Finalize();
    return 0;
}
