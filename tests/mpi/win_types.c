/*
 * win_types.c -- derived datatypes on the origin and the target side of
 * Put, Get, Accumulate (predefined ops and MPI_REPLACE), Get_accumulate,
 * with a pair type (MPI_DOUBLE_INT under MPI_MINLOC) whose packed form
 * differs from its C layout: values checked against what the test
 * computes.
 */
#include "win_util.h"

#define M 24   /* doubles per row of the target matrix */

int main(int argc, char **argv)
{
    MPI_Win      win;
    double      *mem;
    MPI_Datatype col, every3, e3;
    int          right, left;

    t_init(&argc, &argv);
    right = (t_rank + 1) % t_size;
    left  = (t_rank + t_size - 1) % t_size;
    MPI_OK(MPI_Win_allocate(M * M * (int)sizeof(double), sizeof(double), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < M * M; i++)
        mem[i] = -1;
    /* a column of the M x M matrix; every third double of a vector */
    MPI_Type_vector(M, 1, M, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    MPI_Type_vector(M / 3, 1, 3, MPI_DOUBLE, &e3);   /* extent 22 doubles: resized to 24 */
    MPI_Type_create_resized(e3, 0, (M / 3) * 3 * (MPI_Aint)sizeof(double), &every3);
    MPI_Type_commit(&every3);
    MPI_Type_free(&e3);

    /* put a contiguous vector into column 2 of the right neighbour */
    double v[M], g[M], s[3 * M];
    for (int i = 0; i < M; i++)
        v[i] = t_rank * 100 + i;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(v, M, MPI_DOUBLE, right, 2, 1, col, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < M; i++)
        CHECK(mem[i * M + 2] == left * 100 + i, "column put: [%d][2] = %g", i, mem[i * M + 2]);
    CHECK(mem[3] == -1 && mem[1] == -1, "column put wrote beside the column");
    /* get column 2 of the right neighbour into every third slot of s */
    for (int i = 0; i < 3 * M; i++)
        s[i] = -5;
    MPI_OK(MPI_Get(s, 3, every3, right, 2, 1, col, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < M; i++) {
        CHECK(s[3 * i] == t_rank * 100 + i, "strided get: s[%d] = %g", 3 * i, s[3 * i]);
        CHECK(s[3 * i + 1] == -5, "strided get wrote s[%d]", 3 * i + 1);
    }
    w_section("put and get with vector types on both sides");

    /* accumulate: every rank adds rank+1 to column 5 of rank 0, and
     * replaces column 7 of its right neighbour by its own numbers */
    for (int i = 0; i < M; i++)
        v[i] = t_rank + 1;
    if (t_rank == 0)
        for (int i = 0; i < M; i++)
            mem[i * M + 5] = 0;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Accumulate(v, M, MPI_DOUBLE, 0, 5, 1, col, MPI_SUM, win));
    for (int i = 0; i < M; i++)
        g[i] = t_rank * 1000 + i;
    MPI_OK(MPI_Accumulate(g, M, MPI_DOUBLE, right, 7, 1, col, MPI_REPLACE, win));
    MPI_OK(MPI_Win_fence(0, win));
    double tot = 0;
    for (int r = 0; r < t_size; r++)
        tot += r + 1;
    if (t_rank == 0)
        for (int i = 0; i < M; i++)
            CHECK(mem[i * M + 5] == tot, "column sum: [%d] = %g, expected %g", i,
                  mem[i * M + 5], tot);
    for (int i = 0; i < M; i++)
        CHECK(mem[i * M + 7] == left * 1000 + i, "replace: [%d] = %g", i, mem[i * M + 7]);
    /* the checks read what the next epoch's operations change: a
     * barrier keeps those after the reads (a fence opens the epoch at
     * once, MPI-3.1 11.5.1) */
    MPI_Barrier(MPI_COMM_WORLD);
    /* get_accumulate: fetch column 7 strided, add 1 */
    for (int i = 0; i < 3 * M; i++)
        s[i] = -5;
    for (int i = 0; i < M; i++)
        v[i] = 1;
    MPI_OK(MPI_Get_accumulate(v, M, MPI_DOUBLE, s, 3, every3, right, 7, 1, col, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < M; i++)
        CHECK(s[3 * i] == t_rank * 1000 + i, "get_accumulate fetched s[%d] = %g", 3 * i,
              s[3 * i]);
    for (int i = 0; i < M; i++)
        CHECK(mem[i * M + 7] == left * 1000 + i + 1, "get_accumulate: [%d] = %g", i,
              mem[i * M + 7]);
    w_section("accumulate, replace, get_accumulate along a column");

    /* MPI_MINLOC on MPI_DOUBLE_INT pairs at rank 0: 4 pairs from each
     * rank, values rank-dependent; the minimum's index wins */
    struct { double v; int i; } pv[4], *pm;
    MPI_Win pwin;
    MPI_OK(MPI_Win_allocate(4 * (int)sizeof *pm, (int)sizeof *pm, MPI_INFO_NULL, MPI_COMM_WORLD,
                           &pm, &pwin));
    for (int k = 0; k < 4; k++) {
        pm[k].v = 1e9;
        pm[k].i = -1;
        pv[k].v = (double)((t_rank * 7 + k * 3) % (t_size + 2));
        pv[k].i = t_rank;
    }
    MPI_OK(MPI_Win_fence(0, pwin));
    MPI_OK(MPI_Accumulate(pv, 4, MPI_DOUBLE_INT, 0, 0, 4, MPI_DOUBLE_INT, MPI_MINLOC, pwin));
    MPI_OK(MPI_Win_fence(0, pwin));
    if (t_rank == 0)
        for (int k = 0; k < 4; k++) {
            double best = 1e9;
            int    who  = -1;
            for (int r = 0; r < t_size; r++) {
                double x = (double)((r * 7 + k * 3) % (t_size + 2));
                if (x < best || (x == best && r < who)) {
                    best = x;
                    who  = r;
                }
            }
            CHECK(pm[k].v == best && pm[k].i == who, "minloc[%d] = (%g, %d), expected (%g, %d)",
                  k, pm[k].v, pm[k].i, best, who);
        }
    MPI_OK(MPI_Win_free(&pwin));
    /* a struct type with a gap on the target: int + double, resized */
    struct rec { int a; double b; } recs[3];
    int          bl[2] = { 1, 1 };
    MPI_Aint     dp[2] = { offsetof(struct rec, a), offsetof(struct rec, b) };
    MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE }, st, str;
    MPI_Type_create_struct(2, bl, dp, ty, &st);
    MPI_Type_create_resized(st, 0, sizeof(struct rec), &str);
    MPI_Type_commit(&str);
    MPI_Win rwin;
    struct rec *rm;
    MPI_OK(MPI_Win_allocate(3 * (int)sizeof(struct rec), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &rm,
                           &rwin));
    memset(rm, 0, 3 * sizeof(struct rec));
    MPI_Barrier(MPI_COMM_WORLD);   /* the zeros are in before anybody's put */
    for (int k = 0; k < 3; k++) {
        recs[k].a = t_rank + k;
        recs[k].b = t_rank * 0.5 + k;
    }
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, rwin));
    MPI_OK(MPI_Put(recs, 3, str, right, 0, 3, str, rwin));
    MPI_OK(MPI_Win_unlock(right, rwin));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, rwin));
    for (int k = 0; k < 3; k++)
        CHECK(rm[k].a == left + k && rm[k].b == left * 0.5 + k, "struct put: rec %d = (%d, %g)",
              k, rm[k].a, rm[k].b);
    MPI_OK(MPI_Win_unlock(t_rank, rwin));
    MPI_OK(MPI_Win_free(&rwin));
    MPI_Type_free(&st);
    MPI_Type_free(&str);
    w_section("MINLOC on MPI_DOUBLE_INT, struct types");

    /* the same column put and strided get on MPI_Win_create's memory
     * (on the shm transport: messages for derived types, cross-memory
     * attach for contiguous ones) */
    double *cm = malloc(M * M * sizeof(double));
    MPI_Win cwin;
    for (int i = 0; i < M * M; i++)
        cm[i] = -1;
    MPI_OK(MPI_Win_create(cm, M * M * (MPI_Aint)sizeof(double), sizeof(double), MPI_INFO_NULL,
                         MPI_COMM_WORLD, &cwin));
    for (int i = 0; i < M; i++)
        v[i] = t_rank * 10 + i;
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, cwin));
    MPI_OK(MPI_Put(v, M, MPI_DOUBLE, right, 4, 1, col, cwin));
    MPI_OK(MPI_Accumulate(v, M, MPI_DOUBLE, right, 6, 1, col, MPI_SUM, cwin));
    MPI_OK(MPI_Put(v, 2, MPI_DOUBLE, right, 0, 2, MPI_DOUBLE, cwin));
    MPI_OK(MPI_Win_unlock(right, cwin));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < M; i++)
        CHECK(cm[i * M + 4] == left * 10 + i && cm[i * M + 6] == left * 10 + i - 1,
              "create: columns [%d] = %g, %g", i, cm[i * M + 4], cm[i * M + 6]);
    CHECK(cm[0] == left * 10 && cm[1] == left * 10 + 1 && cm[2] == -1, "create: contiguous put");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 3 * M; i++)
        s[i] = -5;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, cwin));
    MPI_OK(MPI_Get(s, 3, every3, right, 4, 1, col, cwin));
    MPI_OK(MPI_Win_unlock(right, cwin));
    for (int i = 0; i < M; i++)
        CHECK(s[3 * i] == t_rank * 10 + i && s[3 * i + 1] == -5, "create: strided get [%d]", i);
    MPI_OK(MPI_Win_free(&cwin));
    free(cm);
    w_section("MPI_Win_create: derived and contiguous puts, accumulate, strided get");

    MPI_Type_free(&col);
    MPI_Type_free(&every3);
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
