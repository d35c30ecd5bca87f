/*
 * spmd_sum.c -- plain C SPMD shared-memory code for kumicc's translator:
 * no check macros, no kumi_dsm_read/write. PE 0 allocates a DSM array and
 * broadcasts the pointer; each PE fills its block with ordinary stores;
 * after a barrier every PE sums the whole array with ordinary loads. Then
 * every PE increments the elements i % npes == me (interleaved: lines move
 * between PEs, false sharing), a struct copy and memcpy go through DSM
 * memory, and the sums are checked again. Built translated (the checks make
 * it coherent) and with KUMI_TRANSLATE=0 at 1 PE (same answer). Prints
 * "spmd_sum: PE p: sum 1024 of 1024 = 523776 ok" and exits 0 on success.
 */
#include <kumi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1024

struct pair { long a, b; };

static long sum(const long *v, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

int main(void)
{
    if (kumi_init() != KUMI_OK)
        return 1;
    int   me = kumi_rank(), np = kumi_size(), bad = 0;
    long *a = NULL;
    struct pair *pp = NULL;
    if (me == 0) {
        a  = kumi_dsm_malloc(N * sizeof *a);
        pp = kumi_dsm_malloc(np * sizeof *pp);
        if (a == NULL || pp == NULL) { fprintf(stderr, "spmd_sum: BAD: kumi_dsm_malloc failed\n"); return 1; }
    }
    kumi_broadcast(kumi_team_world(), &a, sizeof a, 0);
    kumi_broadcast(kumi_team_world(), &pp, sizeof pp, 0);

    /* 1. my block, ordinary stores */
    int lo = me * N / np, hi = (me + 1) * N / np;
    for (int i = lo; i < hi; i++)
        a[i] = i;
    kumi_barrier(kumi_team_world());
    long s1 = sum(a, N);
    if (s1 != (long)N * (N - 1) / 2) { fprintf(stderr, "spmd_sum: BAD: PE %d: sum %ld\n", me, s1); bad = 1; }
    kumi_barrier(kumi_team_world());

    /* 2. interleaved increments (lines written by every PE in turn) */
    for (int i = me; i < N; i += np)
        a[i] += 1;
    /* a struct through DSM memory: a struct store and memcpy */
    struct pair mine = {me, 2L * me};
    memcpy(&pp[me], &mine, sizeof mine);
    kumi_barrier(kumi_team_world());
    long s2 = sum(a, N);
    if (s2 != (long)N * (N - 1) / 2 + N) { fprintf(stderr, "spmd_sum: BAD: PE %d: sum2 %ld\n", me, s2); bad = 1; }
    for (int p = 0; p < np; p++) {
        struct pair q;
        memcpy(&q, &pp[p], sizeof q);
        if (q.a != p || q.b != 2L * p || pp[p].b != 2L * p) {
            fprintf(stderr, "spmd_sum: BAD: PE %d: pair %d = {%ld, %ld}\n", me, p, q.a, q.b);
            bad = 1;
        }
    }
    kumi_barrier(kumi_team_world());
    /* 3. undo, so the final sum is the simple one */
    for (int i = me; i < N; i += np)
        a[i] -= 1;
    kumi_barrier(kumi_team_world());
    long s3 = sum(a, N);
    if (s3 != s1) bad = 1;
    printf("spmd_sum: PE %d: sum %d of %d = %ld %s\n", me, N, N, s3, bad ? "BAD" : "ok");
    kumi_barrier(kumi_team_world());
    if (me == 0) { kumi_dsm_free(a); kumi_dsm_free(pp); }
    kumi_finalize();
    return bad;
}
