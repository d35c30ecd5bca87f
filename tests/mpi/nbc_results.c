/*
 * nbc_results.c -- every non-blocking collective (and blocking
 * MPI_Alltoallw) on MPI_COMM_WORLD against the expected result: counts
 * 0, small and large (past the eager limit), roots 0 and last, the
 * MPI_IN_PLACE forms, uneven and zero counts in the v-variants, a
 * non-contiguous datatype, a non-commutative user operation on a
 * contiguous and on a padded type, and the errors of bad arguments.
 */
#include "nbc_util.h"

#define BIG 3000   /* ints: 12 000 bytes, past kumi's eager limit */

static const int sizes[] = { 0, 1, 7, BIG };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define ROOTS(root) (root) = 0; (root) < cu_size; (root) += cu_size > 1 ? cu_size - 1 : 1

static MPI_Datatype affine_t, padded_t;   /* nu_affine; the same with 4 bytes of padding */
static MPI_Op       affine_op, padded_op;

typedef struct {
    unsigned a, b, pad;
} padded;

static void padded_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const padded *l = in;
    padded       *r = inout;

    (void)dt;
    for (int i = 0; i < *len; i++) {
        unsigned a = l[i].a * r[i].a, b = r[i].a * l[i].b + r[i].b;
        r[i].a = a;
        r[i].b = b;
    }
}

static void wait1(MPI_Request *r)
{
    CU_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
    CU_CHECK(*r == MPI_REQUEST_NULL, "request not reset");
}

static void test_barrier(void)
{
    MPI_Request r;

    for (int k = 0; k < 5; k++) {
        CU_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
        wait1(&r);
    }
    cu_section("ibarrier");
}

static void test_bcast(void)
{
    MPI_Request  r;
    MPI_Datatype vec;

    for (int s = 0; s < NSIZES; s++)
        for (int ROOTS(root)) {
            int n = sizes[s], *b = nu_ints((size_t)n);
            for (int i = 0; i < n; i++)
                b[i] = cu_rank == root ? cu_val(root, i, s) : -1;
            CU_OK(MPI_Ibcast(b, n, MPI_INT, root, MPI_COMM_WORLD, &r));
            wait1(&r);
            for (int i = 0; i < n; i++)
                CU_CHECK(b[i] == cu_val(root, i, s), "n %d root %d [%d] = %d", n, root, i, b[i]);
            free(b);
        }
    /* every other int of 2 * BIG: a vector, packed on the way */
    MPI_Type_vector(BIG, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *b = nu_ints(2 * BIG);
    for (int i = 0; i < 2 * BIG; i++)
        b[i] = cu_rank == 0 || i % 2 ? cu_val(0, i, 9) : -1;
    CU_OK(MPI_Ibcast(b, 1, vec, 0, MPI_COMM_WORLD, &r));
    MPI_Type_free(&vec);   /* the pending operation keeps it alive */
    wait1(&r);
    for (int i = 0; i < 2 * BIG; i++)
        CU_CHECK(b[i] == cu_val(0, i, 9), "vector [%d] = %d", i, b[i]);
    free(b);
    cu_section("ibcast");
}

static void test_reduce(void)
{
    MPI_Request r;

    for (int s = 0; s < NSIZES; s++)
        for (int ROOTS(root))
            for (int form = 0; form < 2; form++) {
                /* form 1: IN_PLACE at the root, aliased buffers elsewhere */
                int n = sizes[s], *a = nu_ints((size_t)n), *b = nu_ints((size_t)n);
                for (int i = 0; i < n; i++) {
                    a[i] = cu_val(cu_rank, i, s);
                    b[i] = form == 1 ? a[i] : -1;
                }
                if (form == 0)
                    CU_OK(MPI_Ireduce(a, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &r));
                else
                    CU_OK(MPI_Ireduce(cu_rank == root ? MPI_IN_PLACE : b, b, n, MPI_INT,
                                      MPI_SUM, root, MPI_COMM_WORLD, &r));
                wait1(&r);
                for (int i = 0; cu_rank == root && i < n; i++) {
                    int want = 0;
                    for (int q = 0; q < cu_size; q++)
                        want += cu_val(q, i, s);
                    CU_CHECK(b[i] == want, "form %d n %d root %d [%d] = %d, want %d", form, n,
                             root, i, b[i], want);
                }
                free(a);
                free(b);
            }
    /* non-commutative: rank order, whatever the root */
    for (int ROOTS(root)) {
        nu_affine x[7], y[7];
        padded    px[7], py[7];
        for (int i = 0; i < 7; i++) {
            x[i]  = nu_affine_of(cu_rank, i);
            px[i] = (padded){ x[i].a, x[i].b, 0 };
        }
        CU_OK(MPI_Ireduce(x, y, 7, affine_t, affine_op, root, MPI_COMM_WORLD, &r));
        wait1(&r);
        CU_OK(MPI_Ireduce(px, py, 7, padded_t, padded_op, root, MPI_COMM_WORLD, &r));
        wait1(&r);
        for (int i = 0; cu_rank == root && i < 7; i++) {
            nu_affine want = nu_affine_range(0, cu_size - 1, i);
            CU_CHECK(y[i].a == want.a && y[i].b == want.b, "affine root %d [%d]", root, i);
            CU_CHECK(py[i].a == want.a && py[i].b == want.b, "padded root %d [%d]", root, i);
        }
    }
    cu_section("ireduce");
}

/* ints: 65 644 bytes, past the size where MPI_Iallreduce of a predefined
 * op turns to reduce-scatter + allgather on the caller's buffers
 * (nbc_red.c); odd, so the halves are uneven */
#define LARGE 16411

static void test_allreduce(void)
{
    MPI_Request r;
    static const int asizes[] = { 0, 1, 7, BIG, LARGE };

    for (int s = 0; s < (int)(sizeof asizes / sizeof asizes[0]); s++)
        for (int form = 0; form < 2; form++) {
            int n = asizes[s], *a = nu_ints((size_t)n), *b = nu_ints((size_t)n);
            for (int i = 0; i < n; i++) {
                a[i] = cu_val(cu_rank, i, s);
                b[i] = form == 1 ? a[i] : -1;
            }
            CU_OK(MPI_Iallreduce(form ? MPI_IN_PLACE : a, b, n, MPI_INT, MPI_SUM,
                                 MPI_COMM_WORLD, &r));
            wait1(&r);
            for (int i = 0; i < n; i++) {
                int want = 0;
                for (int q = 0; q < cu_size; q++)
                    want += cu_val(q, i, s);
                CU_CHECK(b[i] == want, "form %d n %d [%d] = %d, want %d", form, n, i, b[i], want);
            }
            free(a);
            free(b);
        }
    double d[5], m[5];
    for (int i = 0; i < 5; i++)
        d[i] = (double)((cu_rank * 7 + i) % 13) - 0.5;
    CU_OK(MPI_Iallreduce(d, m, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &r));
    wait1(&r);
    for (int i = 0; i < 5; i++) {
        double want = -1e9;
        for (int q = 0; q < cu_size; q++)
            if ((double)((q * 7 + i) % 13) - 0.5 > want)
                want = (double)((q * 7 + i) % 13) - 0.5;
        CU_CHECK(m[i] == want, "max [%d] = %g, want %g", i, m[i], want);
    }
    /* large doubles, MAX, in place: every rank's element i differs */
    double *dl = malloc(LARGE * sizeof(double));
    for (int i = 0; dl != NULL && i < LARGE; i++)
        dl[i] = (double)((cu_rank * 7919 + i * 31) % 1009) + 0.25 * cu_rank;
    CU_CHECK(dl != NULL, "no memory");
    CU_OK(MPI_Iallreduce(MPI_IN_PLACE, dl, LARGE, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &r));
    wait1(&r);
    for (int i = 0; dl != NULL && i < LARGE; i++) {
        double want = -1e9;
        for (int q = 0; q < cu_size; q++) {
            double v = (double)((q * 7919 + i * 31) % 1009) + 0.25 * q;
            want = v > want ? v : want;
        }
        CU_CHECK(dl[i] == want, "large max [%d] = %g, want %g", i, dl[i], want);
    }
    free(dl);
    nu_affine x[BIG];
    padded    px[7], py[7];
    for (int i = 0; i < BIG; i++)
        x[i] = nu_affine_of(cu_rank, i);
    for (int i = 0; i < 7; i++)
        px[i] = (padded){ x[i].a, x[i].b, 0 };
    CU_OK(MPI_Iallreduce(MPI_IN_PLACE, x, BIG, affine_t, affine_op, MPI_COMM_WORLD, &r));
    wait1(&r);
    /* the operation and the type freed while the reduction runs */
    MPI_Op       op;
    MPI_Datatype pt;
    MPI_Op_create(padded_fn, 0, &op);
    MPI_Type_dup(padded_t, &pt);
    MPI_Type_commit(&pt);
    CU_OK(MPI_Iallreduce(px, py, 7, pt, op, MPI_COMM_WORLD, &r));
    MPI_Op_free(&op);
    MPI_Type_free(&pt);
    wait1(&r);
    for (int i = 0; i < BIG; i++) {
        nu_affine want = nu_affine_range(0, cu_size - 1, i);
        CU_CHECK(x[i].a == want.a && x[i].b == want.b, "affine [%d]", i);
        CU_CHECK(i >= 7 || (py[i].a == want.a && py[i].b == want.b), "padded [%d]", i);
    }
    cu_section("iallreduce");
}

/* v-counts: uneven, some 0; blocks placed in reverse rank order */
static void vcounts(int n, int *counts, int *displs)
{
    int off = 0;

    for (int q = cu_size - 1; q >= 0; q--) {
        counts[q] = n == 0 ? 0 : (q % 3 == 1 ? 0 : n + q);
        displs[q] = off;
        off += counts[q] + 1;   /* a gap of one */
    }
}

static void test_gather_scatter(void)
{
    MPI_Request r;
    int        *counts = nu_ints((size_t)cu_size), *displs = nu_ints((size_t)cu_size);

    for (int s = 0; s < NSIZES; s++)
        for (int ROOTS(root))
            for (int form = 0; form < 2; form++) {
                int n = sizes[s], tot = n * cu_size;
                int *a = nu_ints((size_t)n), *b = nu_ints((size_t)tot);
                /* gather: form 1 is IN_PLACE at the root */
                for (int i = 0; i < n; i++)
                    a[i] = cu_val(cu_rank, i, s);
                for (int i = 0; i < tot; i++)
                    b[i] = form == 1 && cu_rank == root && i / (n ? n : 1) == root
                               ? cu_val(root, i % n, s) : -1;
                CU_OK(MPI_Igather(form && cu_rank == root ? MPI_IN_PLACE : a, n, MPI_INT, b, n,
                                  MPI_INT, root, MPI_COMM_WORLD, &r));
                wait1(&r);
                for (int i = 0; cu_rank == root && i < tot; i++)
                    CU_CHECK(b[i] == cu_val(i / n, i % n, s), "gather form %d n %d root %d [%d]",
                             form, n, root, i);
                /* scatter back: form 1 is IN_PLACE at the root */
                for (int i = 0; i < n; i++)
                    a[i] = -1;
                for (int i = 0; cu_rank == root && i < tot; i++)
                    b[i] = cu_val(i / n, i % n, s + 1);
                CU_OK(MPI_Iscatter(b, n, MPI_INT, form && cu_rank == root ? MPI_IN_PLACE : a, n,
                                   MPI_INT, root, MPI_COMM_WORLD, &r));
                wait1(&r);
                for (int i = 0; i < n && !(form && cu_rank == root); i++)
                    CU_CHECK(a[i] == cu_val(cu_rank, i, s + 1), "scatter n %d root %d [%d]", n,
                             root, i);
                free(a);
                free(b);
                /* the v forms */
                vcounts(n, counts, displs);
                int mine = counts[cu_rank], span = 0;
                for (int q = 0; q < cu_size; q++)
                    span += counts[q] + 1;
                a = nu_ints((size_t)mine);
                b = nu_ints((size_t)span);
                for (int i = 0; i < mine; i++)
                    a[i] = cu_val(cu_rank, i, s + 2);
                for (int i = 0; i < span; i++)
                    b[i] = -7;
                if (form && cu_rank == root)
                    memcpy(b + displs[root], a, (size_t)mine * sizeof(int));
                CU_OK(MPI_Igatherv(form && cu_rank == root ? MPI_IN_PLACE : a, mine, MPI_INT, b,
                                   counts, displs, MPI_INT, root, MPI_COMM_WORLD, &r));
                wait1(&r);
                for (int q = 0; cu_rank == root && q < cu_size; q++) {
                    for (int i = 0; i < counts[q]; i++)
                        CU_CHECK(b[displs[q] + i] == cu_val(q, i, s + 2),
                                 "gatherv n %d root %d from %d [%d]", n, root, q, i);
                    CU_CHECK(b[displs[q] + counts[q]] == -7, "gatherv gap overwritten");
                }
                for (int i = 0; i < mine; i++)
                    a[i] = -1;
                for (int q = 0; cu_rank == root && q < cu_size; q++)
                    for (int i = 0; i < counts[q]; i++)
                        b[displs[q] + i] = cu_val(q, i, s + 3);
                CU_OK(MPI_Iscatterv(b, counts, displs, MPI_INT,
                                    form && cu_rank == root ? MPI_IN_PLACE : a, mine, MPI_INT,
                                    root, MPI_COMM_WORLD, &r));
                wait1(&r);
                for (int i = 0; i < mine && !(form && cu_rank == root); i++)
                    CU_CHECK(a[i] == cu_val(cu_rank, i, s + 3), "scatterv n %d root %d [%d]", n,
                             root, i);
                free(a);
                free(b);
            }
    free(counts);
    free(displs);
    cu_section("igather, iscatter, igatherv, iscatterv");
}

static void test_allgather(void)
{
    MPI_Request  r;
    MPI_Datatype vec;
    int         *counts = nu_ints((size_t)cu_size), *displs = nu_ints((size_t)cu_size);

    for (int s = 0; s < NSIZES; s++)
        for (int form = 0; form < 2; form++) {
            int n = sizes[s], tot = n * cu_size, *a = nu_ints((size_t)n),
                *b = nu_ints((size_t)tot);
            for (int i = 0; i < n; i++)
                a[i] = cu_val(cu_rank, i, s);
            for (int i = 0; i < tot; i++)
                b[i] = form && i / n == cu_rank ? a[i % n] : -1;
            CU_OK(MPI_Iallgather(form ? MPI_IN_PLACE : a, n, MPI_INT, b, n, MPI_INT,
                                 MPI_COMM_WORLD, &r));
            wait1(&r);
            for (int i = 0; i < tot; i++)
                CU_CHECK(b[i] == cu_val(i / n, i % n, s), "allgather form %d n %d [%d]", form, n,
                         i);
            free(a);
            free(b);
            vcounts(n, counts, displs);
            int mine = counts[cu_rank], span = 0;
            for (int q = 0; q < cu_size; q++)
                span += counts[q] + 1;
            a = nu_ints((size_t)mine);
            b = nu_ints((size_t)span);
            for (int i = 0; i < mine; i++)
                a[i] = cu_val(cu_rank, i, s + 1);
            for (int i = 0; i < span; i++)
                b[i] = -7;
            if (form)
                memcpy(b + displs[cu_rank], a, (size_t)mine * sizeof(int));
            CU_OK(MPI_Iallgatherv(form ? MPI_IN_PLACE : a, mine, MPI_INT, b, counts, displs,
                                  MPI_INT, MPI_COMM_WORLD, &r));
            wait1(&r);
            for (int q = 0; q < cu_size; q++) {
                for (int i = 0; i < counts[q]; i++)
                    CU_CHECK(b[displs[q] + i] == cu_val(q, i, s + 1), "allgatherv n %d q %d [%d]",
                             n, q, i);
                CU_CHECK(b[displs[q] + counts[q]] == -7, "allgatherv gap overwritten");
            }
            free(a);
            free(b);
        }
    /* received into every other int: a non-contiguous recvtype */
    MPI_Type_vector(7, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Datatype rvec;
    MPI_Type_create_resized(vec, 0, 14 * (MPI_Aint)sizeof(int), &rvec);
    MPI_Type_commit(&rvec);
    int a[7], *b = nu_ints(14 * (size_t)cu_size);
    for (int i = 0; i < 7; i++)
        a[i] = cu_val(cu_rank, i, 5);
    for (int i = 0; i < 14 * cu_size; i++)
        b[i] = -1;
    CU_OK(MPI_Iallgather(a, 7, MPI_INT, b, 1, rvec, MPI_COMM_WORLD, &r));
    wait1(&r);
    for (int i = 0; i < 14 * cu_size; i++)
        CU_CHECK(b[i] == (i % 2 ? -1 : cu_val(i / 14, (i % 14) / 2, 5)), "vector [%d] = %d", i,
                 b[i]);
    free(b);
    MPI_Type_free(&rvec);
    MPI_Type_free(&vec);
    free(counts);
    free(displs);
    cu_section("iallgather, iallgatherv");
}

static void test_alltoall(void)
{
    MPI_Request r;
    int         p = cu_size;
    int        *sc = nu_ints((size_t)p), *sd = nu_ints((size_t)p), *rc = nu_ints((size_t)p),
        *rd = nu_ints((size_t)p);
    MPI_Datatype *st = malloc((size_t)p * sizeof(*st)), *rt = malloc((size_t)p * sizeof(*rt));

    for (int s = 0; s < NSIZES; s++)
        for (int form = 0; form < 2; form++) {
            int n = sizes[s], tot = n * p, *a = nu_ints((size_t)tot), *b = nu_ints((size_t)tot);
            /* block j of rank q: cu_val(q, j * n + i) */
            for (int i = 0; i < tot; i++) {
                a[i] = cu_val(cu_rank, i, s);
                b[i] = form ? a[i] : -1;
            }
            CU_OK(MPI_Ialltoall(form ? MPI_IN_PLACE : a, n, MPI_INT, b, n, MPI_INT,
                                MPI_COMM_WORLD, &r));
            wait1(&r);
            for (int i = 0; i < tot; i++)
                CU_CHECK(b[i] == cu_val(i / n, cu_rank * n + i % n, s), "alltoall form %d n %d [%d]",
                         form, n, i);
            free(a);
            free(b);
            /* v: rank q sends n + q + j elements to j (0 when n is 0) */
            int soff = 0, roff = 0;
            for (int j = 0; j < p; j++) {
                sc[j] = n ? n + cu_rank + j : 0;
                rc[j] = n ? n + j + cu_rank : 0;
                sd[j] = soff;
                rd[j] = roff;
                soff += sc[j];
                roff += rc[j] + 1;
            }
            a = nu_ints((size_t)soff);
            b = nu_ints((size_t)roff);
            for (int j = 0; j < p; j++)
                for (int i = 0; i < sc[j]; i++)
                    a[sd[j] + i] = cu_val(cu_rank, j * 100 + i, s);
            for (int i = 0; i < roff; i++)
                b[i] = -7;
            if (form)   /* in place: recv holds what is sent, in recv's layout */
                for (int j = 0; j < p; j++)
                    for (int i = 0; i < rc[j]; i++)
                        b[rd[j] + i] = cu_val(cu_rank, j * 100 + i, s);
            CU_OK(MPI_Ialltoallv(form ? MPI_IN_PLACE : a, sc, sd, MPI_INT, b, rc, rd, MPI_INT,
                                 MPI_COMM_WORLD, &r));
            wait1(&r);
            for (int q = 0; q < p; q++) {
                for (int i = 0; i < rc[q]; i++)
                    CU_CHECK(b[rd[q] + i] == cu_val(q, cu_rank * 100 + i, s),
                             "alltoallv form %d n %d from %d [%d]", form, n, q, i);
                CU_CHECK(b[rd[q] + rc[q]] == -7, "alltoallv gap overwritten");
            }
            /* w: the same with byte displacements, ints sent, received as
             * pairs of ints where the count is even (blocking on form 1) */
            for (int j = 0; j < p; j++) {
                sd[j] *= (int)sizeof(int);
                rd[j] *= (int)sizeof(int);
                st[j] = MPI_INT;
                rt[j] = MPI_INT;
            }
            MPI_Datatype pair;
            MPI_Type_contiguous(2, MPI_INT, &pair);
            MPI_Type_commit(&pair);
            for (int j = 0; j < p; j++)
                if (rc[j] % 2 == 0) {
                    rc[j] /= 2;
                    rt[j] = pair;
                }
            for (int i = 0; i < roff; i++)
                b[i] = -7;
            if (form == 0)
                CU_OK(MPI_Ialltoallw(a, sc, sd, st, b, rc, rd, rt, MPI_COMM_WORLD, &r));
            else
                CU_OK(MPI_Alltoallw(a, sc, sd, st, b, rc, rd, rt, MPI_COMM_WORLD));
            if (form == 0)
                wait1(&r);
            for (int q = 0; q < p; q++) {
                int cnt = rt[q] == pair ? 2 * rc[q] : rc[q];
                for (int i = 0; i < cnt; i++)
                    CU_CHECK(b[rd[q] / (int)sizeof(int) + i] == cu_val(q, cu_rank * 100 + i, s),
                             "alltoallw form %d n %d from %d [%d]", form, n, q, i);
            }
            MPI_Type_free(&pair);
            free(a);
            free(b);
        }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(st);
    free(rt);
    cu_section("ialltoall, ialltoallv, ialltoallw, alltoallw");
}

static void test_reduce_scatter(void)
{
    MPI_Request r;
    int        *counts = nu_ints((size_t)cu_size);

    for (int s = 0; s < NSIZES; s++)
        for (int form = 0; form < 2; form++) {
            int n = sizes[s], tot = 0;
            for (int q = 0; q < cu_size; q++)
                tot += counts[q] = n ? (q % 3 == 1 ? 0 : n + q) : 0;
            int *a = nu_ints((size_t)tot), *b = nu_ints((size_t)tot), off = 0;
            for (int i = 0; i < tot; i++)
                a[i] = b[i] = cu_val(cu_rank, i, s);
            CU_OK(MPI_Ireduce_scatter(form ? MPI_IN_PLACE : a, b, counts, MPI_INT, MPI_SUM,
                                      MPI_COMM_WORLD, &r));
            wait1(&r);
            for (int q = 0; q < cu_rank; q++)
                off += counts[q];
            for (int i = 0; i < counts[cu_rank]; i++) {
                int want = 0;
                for (int q = 0; q < cu_size; q++)
                    want += cu_val(q, off + i, s);
                CU_CHECK(b[i] == want, "reduce_scatter form %d n %d [%d] = %d, want %d", form, n,
                         i, b[i], want);
            }
            free(a);
            free(b);
            /* block: n each */
            a = nu_ints((size_t)n * cu_size);
            b = nu_ints((size_t)n * cu_size);
            for (int i = 0; i < n * cu_size; i++)
                a[i] = b[i] = cu_val(cu_rank, i, s + 1);
            CU_OK(MPI_Ireduce_scatter_block(form ? MPI_IN_PLACE : a, b, n, MPI_INT, MPI_SUM,
                                            MPI_COMM_WORLD, &r));
            wait1(&r);
            for (int i = 0; i < n; i++) {
                int want = 0;
                for (int q = 0; q < cu_size; q++)
                    want += cu_val(q, cu_rank * n + i, s + 1);
                CU_CHECK(b[i] == want, "reduce_scatter_block form %d n %d [%d]", form, n, i);
            }
            free(a);
            free(b);
        }
    /* non-commutative: 3 elements each */
    nu_affine *x = malloc(3 * (size_t)cu_size * sizeof(*x)), y[3];
    for (int i = 0; i < 3 * cu_size; i++)
        x[i] = nu_affine_of(cu_rank, i);
    CU_OK(MPI_Ireduce_scatter_block(x, y, 3, affine_t, affine_op, MPI_COMM_WORLD, &r));
    wait1(&r);
    for (int i = 0; i < 3; i++) {
        nu_affine want = nu_affine_range(0, cu_size - 1, cu_rank * 3 + i);
        CU_CHECK(y[i].a == want.a && y[i].b == want.b, "affine reduce_scatter [%d]", i);
    }
    free(x);
    free(counts);
    cu_section("ireduce_scatter, ireduce_scatter_block");
}

static void test_scan(void)
{
    MPI_Request r;

    for (int s = 0; s < NSIZES; s++)
        for (int form = 0; form < 2; form++) {
            int n = sizes[s], *a = nu_ints((size_t)n), *b = nu_ints((size_t)n),
                *e = nu_ints((size_t)n);
            for (int i = 0; i < n; i++) {
                a[i] = cu_val(cu_rank, i, s);
                b[i] = e[i] = form ? a[i] : -1;
            }
            CU_OK(MPI_Iscan(form ? MPI_IN_PLACE : a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
            wait1(&r);
            CU_OK(MPI_Iexscan(form ? MPI_IN_PLACE : a, e, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                              &r));
            wait1(&r);
            for (int i = 0; i < n; i++) {
                int want = 0;
                for (int q = 0; q < cu_rank; q++)
                    want += cu_val(q, i, s);
                CU_CHECK(cu_rank == 0 || e[i] == want, "exscan form %d n %d [%d]", form, n, i);
                want += cu_val(cu_rank, i, s);
                CU_CHECK(b[i] == want, "scan form %d n %d [%d] = %d, want %d", form, n, i, b[i],
                         want);
            }
            free(a);
            free(b);
            free(e);
        }
    nu_affine x[7], y[7], z[7];
    for (int i = 0; i < 7; i++)
        x[i] = nu_affine_of(cu_rank, i);
    CU_OK(MPI_Iscan(x, y, 7, affine_t, affine_op, MPI_COMM_WORLD, &r));
    wait1(&r);
    CU_OK(MPI_Iexscan(x, z, 7, affine_t, affine_op, MPI_COMM_WORLD, &r));
    wait1(&r);
    for (int i = 0; i < 7; i++) {
        nu_affine want = nu_affine_range(0, cu_rank, i);
        CU_CHECK(y[i].a == want.a && y[i].b == want.b, "affine scan [%d]", i);
        if (cu_rank > 0) {
            want = nu_affine_range(0, cu_rank - 1, i);
            CU_CHECK(z[i].a == want.a && z[i].b == want.b, "affine exscan [%d]", i);
        }
    }
    cu_section("iscan, iexscan");
}

/* bad arguments fail with their class (MPI_ERRORS_RETURN) and start
 * nothing: a correct collective follows */
static void test_errors(void)
{
    MPI_Comm    c;
    MPI_Request r = MPI_REQUEST_NULL;
    int         x = 1, y = 0;

    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    CU_CHECK(cu_class(MPI_Ibcast(&x, 1, MPI_INT, cu_size, c, &r)) == MPI_ERR_ROOT, "root");
    CU_CHECK(cu_class(MPI_Ibcast(&x, -1, MPI_INT, 0, c, &r)) == MPI_ERR_COUNT, "count");
    CU_CHECK(cu_class(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, c, &r)) == MPI_ERR_OP,
             "op");
    CU_CHECK(cu_class(MPI_Iallreduce(&x, &y, -2, MPI_INT, MPI_SUM, c, &r)) == MPI_ERR_COUNT,
             "allreduce count");
    CU_CHECK(r == MPI_REQUEST_NULL, "a failed call made a request");
    CU_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, c, &r));
    wait1(&r);
    CU_CHECK(y == cu_size, "allreduce after errors: %d", y);
    MPI_Comm_free(&c);
    cu_section("errors");
}

int main(int argc, char **argv)
{
    cu_init(&argc, &argv);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &affine_t);
    MPI_Type_commit(&affine_t);
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &two);
    MPI_Type_create_resized(two, 0, sizeof(padded), &padded_t);
    MPI_Type_commit(&padded_t);
    MPI_Type_free(&two);
    MPI_Op_create(nu_affine_fn, 0, &affine_op);
    MPI_Op_create(padded_fn, 0, &padded_op);
    test_barrier();
    test_bcast();
    test_reduce();
    test_allreduce();
    test_gather_scatter();
    test_allgather();
    test_alltoall();
    test_reduce_scatter();
    test_scan();
    test_errors();
    MPI_Op_free(&affine_op);
    MPI_Op_free(&padded_op);
    MPI_Type_free(&affine_t);
    MPI_Type_free(&padded_t);
    MPI_Finalize();
    return 0;
}
