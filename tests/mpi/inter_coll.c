/*
 * inter_coll.c -- the collectives on intercommunicators (bindings/mpi/
 * coll_inter.c), blocking and non-blocking, over every way of
 * inter_util.h's splits, with the root in either group (MPI_ROOT at the
 * root, MPI_PROC_NULL at the rest of its group): Barrier, Bcast,
 * Gather(v), Scatter(v), Allgather(v), Alltoall(v,w), Reduce, Allreduce
 * (a sum and a non-commutative user op: the order MPI asks),
 * Reduce_scatter(_block). Every value received is checked. 2 or more ranks.
 */
#include "inter_util.h"

#define N 5
#define SENT (-77)

#define RUN(nb, blocking, nonblocking)                                                       \
    do {                                                                                     \
        if (nb) {                                                                            \
            MPI_Request r_;                                                                  \
            CU_OK(nonblocking);                                                              \
            CU_OK(MPI_Wait(&r_, MPI_STATUS_IGNORE));                                         \
        } else {                                                                             \
            CU_OK(blocking);                                                                 \
        }                                                                                    \
    } while (0)

/* 2x2 matrices of unsigned ints: inout = in x inout (associative, not
 * commutative) */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        unsigned c[4] = { a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                          a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3] };
        memcpy(b, c, sizeof(c));
    }
}
static void mat_of(int w, unsigned *m)
{
    m[0] = (unsigned)w + 2;
    m[1] = (unsigned)w * 3 + 1;
    m[2] = 1;
    m[3] = (unsigned)w + 5;
}

struct ic {
    MPI_Comm comm;
    int      color, lrank, lsize, rsize, lw[64], rw[64];
};

static void rooted(const struct ic *c, int g, int nb)
{
    int  me_root = c->color == g, rt = (me_root ? c->lsize : c->rsize) - 1;
    int  root = me_root ? (c->lrank == rt ? MPI_ROOT : MPI_PROC_NULL) : rt;
    int *big = malloc(sizeof(int) * (size_t)N * 64 * 2), buf[64];

    /* bcast */
    for (int i = 0; i < N; i++)
        buf[i] = root == MPI_ROOT ? cu_val(cu_rank, i, 1) : SENT;
    RUN(nb, MPI_Bcast(buf, N, MPI_INT, root, c->comm),
        MPI_Ibcast(buf, N, MPI_INT, root, c->comm, &r_));
    for (int i = 0; i < N; i++)
        CU_CHECK(buf[i] == (root == MPI_ROOT ? cu_val(cu_rank, i, 1)
                            : root == MPI_PROC_NULL ? SENT : cu_val(c->rw[rt], i, 1)),
                 "bcast %d: %d", i, buf[i]);
    /* gather */
    for (int i = 0; i < 64; i++)
        buf[i] = cu_val(cu_rank, i, 2);
    for (int i = 0; i < N * c->rsize; i++)
        big[i] = SENT;
    RUN(nb, MPI_Gather(buf, N, MPI_INT, big, N, MPI_INT, root, c->comm),
        MPI_Igather(buf, N, MPI_INT, big, N, MPI_INT, root, c->comm, &r_));
    for (int r = 0; r < c->rsize; r++)
        for (int i = 0; i < N; i++)
            CU_CHECK(big[r * N + i] == (root == MPI_ROOT ? cu_val(c->rw[r], i, 2) : SENT),
                     "gather %d %d: %d", r, i, big[r * N + i]);
    /* gatherv: remote rank r sends r + 1, placed last to first */
    int counts[64], displs[64], off = 0;
    for (int r = c->rsize - 1; r >= 0; r--) {
        counts[r] = r + 1;
        displs[r] = off;
        off += r + 1;
    }
    for (int i = 0; i < off; i++)
        big[i] = SENT;
    RUN(nb, MPI_Gatherv(buf, c->lrank + 1, MPI_INT, big, counts, displs, MPI_INT, root, c->comm),
        MPI_Igatherv(buf, c->lrank + 1, MPI_INT, big, counts, displs, MPI_INT, root, c->comm,
                     &r_));
    if (root == MPI_ROOT)
        for (int r = 0; r < c->rsize; r++)
            for (int i = 0; i <= r; i++)
                CU_CHECK(big[displs[r] + i] == cu_val(c->rw[r], i, 2), "gatherv %d %d: %d", r,
                         i, big[displs[r] + i]);
    /* scatter */
    for (int r = 0; r < c->rsize; r++)
        for (int i = 0; i < N; i++)
            big[r * N + i] = cu_val(c->rw[r], i, 3);
    for (int i = 0; i < N; i++)
        buf[i] = SENT;
    RUN(nb, MPI_Scatter(big, N, MPI_INT, buf, N, MPI_INT, root, c->comm),
        MPI_Iscatter(big, N, MPI_INT, buf, N, MPI_INT, root, c->comm, &r_));
    for (int i = 0; i < N; i++)
        CU_CHECK(buf[i] == (root >= 0 ? cu_val(cu_rank, i, 3) : SENT), "scatter %d: %d", i,
                 buf[i]);
    /* scatterv, the same layout as gatherv's */
    for (int r = 0; r < c->rsize; r++)
        for (int i = 0; i <= r; i++)
            big[displs[r] + i] = cu_val(c->rw[r], i, 4);
    for (int i = 0; i < 64; i++)
        buf[i] = SENT;
    int mine = root >= 0 ? c->lrank + 1 : 0;
    RUN(nb, MPI_Scatterv(big, counts, displs, MPI_INT, buf, mine, MPI_INT, root, c->comm),
        MPI_Iscatterv(big, counts, displs, MPI_INT, buf, mine, MPI_INT, root, c->comm, &r_));
    for (int i = 0; i < mine; i++)
        CU_CHECK(buf[i] == cu_val(cu_rank, i, 4), "scatterv %d: %d", i, buf[i]);
    /* reduce: a sum */
    for (int i = 0; i < N; i++) {
        buf[i]     = cu_val(cu_rank, i, 5);
        buf[N + i] = SENT;
    }
    RUN(nb, MPI_Reduce(buf, buf + N, N, MPI_INT, MPI_SUM, root, c->comm),
        MPI_Ireduce(buf, buf + N, N, MPI_INT, MPI_SUM, root, c->comm, &r_));
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int r = 0; r < c->rsize; r++)
            want += cu_val(c->rw[r], i, 5);
        CU_CHECK(buf[N + i] == (root == MPI_ROOT ? want : SENT), "reduce %d: %d, not %d", i,
                 buf[N + i], want);
    }
    free(big);
}

static void everyone(const struct ic *c, int nb, MPI_Op matop, MPI_Datatype mat)
{
    int R = c->rsize, L = c->lsize, me = c->lrank;
    int *sb = malloc(sizeof(int) * 64 * 64 * 2), *rb = malloc(sizeof(int) * 64 * 64 * 2);
    int  sc[64], sd[64], rc[64], rd[64], off;

    RUN(nb, MPI_Barrier(c->comm), MPI_Ibarrier(c->comm, &r_));
    /* allgather */
    for (int i = 0; i < N; i++)
        sb[i] = cu_val(cu_rank, i, 10);
    RUN(nb, MPI_Allgather(sb, N, MPI_INT, rb, N, MPI_INT, c->comm),
        MPI_Iallgather(sb, N, MPI_INT, rb, N, MPI_INT, c->comm, &r_));
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i++)
            CU_CHECK(rb[r * N + i] == cu_val(c->rw[r], i, 10), "allgather %d %d", r, i);
    /* allgatherv: remote r sends r % 3 + 1 */
    off = 0;
    for (int r = 0; r < R; r++) {
        rc[r] = r % 3 + 1;
        rd[r] = off;
        off += rc[r] + 1;   /* a gap */
    }
    RUN(nb, MPI_Allgatherv(sb, me % 3 + 1, MPI_INT, rb, rc, rd, MPI_INT, c->comm),
        MPI_Iallgatherv(sb, me % 3 + 1, MPI_INT, rb, rc, rd, MPI_INT, c->comm, &r_));
    for (int r = 0; r < R; r++)
        for (int i = 0; i < rc[r]; i++)
            CU_CHECK(rb[rd[r] + i] == cu_val(c->rw[r], i, 10), "allgatherv %d %d", r, i);
    /* alltoall: block r to remote r */
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i++)
            sb[r * N + i] = cu_val(cu_rank, r * N + i, 11);
    RUN(nb, MPI_Alltoall(sb, N, MPI_INT, rb, N, MPI_INT, c->comm),
        MPI_Ialltoall(sb, N, MPI_INT, rb, N, MPI_INT, c->comm, &r_));
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i++)
            CU_CHECK(rb[r * N + i] == cu_val(c->rw[r], me * N + i, 11), "alltoall %d %d", r, i);
    /* alltoallv and w: (me + r) % 3 + 1 elements between local me and remote r */
    int so = 0, ro = 0;
    for (int r = 0; r < R; r++) {
        sc[r] = rc[r] = (me + r) % 3 + 1;
        sd[r] = so;
        rd[r] = ro;
        for (int i = 0; i < sc[r]; i++)
            sb[so + i] = cu_val(cu_rank, r * 100 + i, 12);
        so += sc[r];
        ro += rc[r] + 2;
    }
    for (int w = 0; w < 2; w++) {
        for (int i = 0; i < ro; i++)
            rb[i] = SENT;
        if (!w) {
            RUN(nb, MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c->comm),
                MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c->comm, &r_));
        } else {
            int          sdb[64], rdb[64];
            MPI_Datatype ts[64];
            for (int r = 0; r < R; r++) {
                sdb[r] = sd[r] * (int)sizeof(int);
                rdb[r] = rd[r] * (int)sizeof(int);
                ts[r]  = MPI_INT;
            }
            RUN(nb, MPI_Alltoallw(sb, sc, sdb, ts, rb, rc, rdb, ts, c->comm),
                MPI_Ialltoallw(sb, sc, sdb, ts, rb, rc, rdb, ts, c->comm, &r_));
        }
        for (int r = 0; r < R; r++)
            for (int i = 0; i < rc[r]; i++)
                CU_CHECK(rb[rd[r] + i] == cu_val(c->rw[r], me * 100 + i, 12),
                         "alltoall%c %d %d: %d", w ? 'w' : 'v', r, i, rb[rd[r] + i]);
    }
    /* allreduce: the other group's sum */
    for (int i = 0; i < N; i++)
        sb[i] = cu_val(cu_rank, i, 13);
    RUN(nb, MPI_Allreduce(sb, rb, N, MPI_INT, MPI_SUM, c->comm),
        MPI_Iallreduce(sb, rb, N, MPI_INT, MPI_SUM, c->comm, &r_));
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int r = 0; r < R; r++)
            want += cu_val(c->rw[r], i, 13);
        CU_CHECK(rb[i] == want, "allreduce %d: %d, not %d", i, rb[i], want);
    }
    /* allreduce of a non-commutative op: M(r0) x M(r1) x ... in remote rank order */
    unsigned m[4], want[4] = { 1, 0, 0, 1 }, got[4];
    mat_of(cu_rank, m);
    for (int r = 0; r < R; r++) {
        unsigned x[4];
        int      one = 1;
        mat_of(c->rw[r], x);
        matmul(want, x, &one, NULL);   /* x = want x x */
        memcpy(want, x, sizeof(x));
    }
    RUN(nb, MPI_Allreduce(m, got, 1, mat, matop, c->comm),
        MPI_Iallreduce(m, got, 1, mat, matop, c->comm, &r_));
    CU_CHECK(memcmp(got, want, sizeof(got)) == 0, "matrix product %u %u %u %u", got[0],
             got[1], got[2], got[3]);
    /* reduce_scatter_block: both groups' vectors are L * R * 2 elements */
    int rcb = R * 2, total = L * R * 2;
    for (int j = 0; j < total; j++)
        sb[j] = cu_val(cu_rank, j, 14);
    RUN(nb, MPI_Reduce_scatter_block(sb, rb, rcb, MPI_INT, MPI_SUM, c->comm),
        MPI_Ireduce_scatter_block(sb, rb, rcb, MPI_INT, MPI_SUM, c->comm, &r_));
    for (int i = 0; i < rcb; i++) {
        int wsum = 0;
        for (int r = 0; r < R; r++)
            wsum += cu_val(c->rw[r], me * rcb + i, 14);
        CU_CHECK(rb[i] == wsum, "reduce_scatter_block %d: %d, not %d", i, rb[i], wsum);
    }
    /* reduce_scatter: 1 element each but the last local rank's, L * R in all */
    int cnt[64], first = 0;
    for (int l = 0; l < L; l++) {
        cnt[l] = l < L - 1 ? 1 : L * R - (L - 1);
        if (l < me)
            first += cnt[l];
    }
    RUN(nb, MPI_Reduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, c->comm),
        MPI_Ireduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, c->comm, &r_));
    for (int i = 0; i < cnt[me]; i++) {
        int wsum = 0;
        for (int r = 0; r < R; r++)
            wsum += cu_val(c->rw[r], first + i, 14);
        CU_CHECK(rb[i] == wsum, "reduce_scatter %d: %d, not %d", i, rb[i], wsum);
    }
    free(sb);
    free(rb);
}

int main(int argc, char **argv)
{
    cu_init(&argc, &argv);
    if (cu_size < 2) {
        if (cu_rank == 0)
            printf("inter_coll: needs 2 ranks or more\n");
        return cu_finish();
    }
    MPI_Op       matop;
    MPI_Datatype mat;
    MPI_Op_create(matmul, 0, &matop);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
    MPI_Type_commit(&mat);
    for (int k = 0; k < IU_NSPLITS; k++) {
        struct ic c;
        MPI_Comm  local;
        int       other[64];
        c.comm = iu_make(k, MPI_COMM_WORLD, 7, &c.color, &local);
        MPI_Comm_rank(c.comm, &c.lrank);
        MPI_Comm_size(c.comm, &c.lsize);
        MPI_Comm_remote_size(c.comm, &c.rsize);
        iu_members(k, !c.color, cu_size, other);
        memcpy(c.rw, other, sizeof(other));
        for (int nb = 0; nb < 2; nb++) {
            for (int g = 0; g < 2; g++)
                rooted(&c, g, nb);
            everyone(&c, nb, matop, mat);
        }
        char name[32];
        snprintf(name, sizeof name, "split way %d", k);
        cu_section(name);
        MPI_Comm_free(&c.comm);
        MPI_Comm_free(&local);
    }
    MPI_Op_free(&matop);
    MPI_Type_free(&mat);
    return cu_finish();
}
