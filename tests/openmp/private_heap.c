/* private_heap.c -- kumi-translate --openmp gives a malloc/calloc whose
 * pointer never leaves the thread libc's heap (no DSM memory, no checks;
 * dsm/translate/README.md, "Private heap"). Each thread's own scratch
 * buffers (malloc'ed, calloc'ed, freed, reallocated, handed to a callee
 * that does not keep them) must work as before; and every way a pointer
 * can reach another thread must keep the allocation shared: published
 * through a shared variable, through a global by a callee, as an integer,
 * returned by a function, shared with a nested parallel region. If one of
 * them were privatized, the other PEs would write their own memory at that
 * address (or fault) and the sums below would be wrong. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static double   *pub;        /* published pointer */
static uintptr_t pub_int;    /* published as an integer */
static long     *kept;       /* stored here by keep() */

__attribute__((noinline)) static void keep(long *p) { kept = p; }

__attribute__((noinline)) static double *make(int n)   /* returned: shared */
{
    double *p = malloc(n * sizeof *p);
    for (int i = 0; i < n; i++)
        p[i] = 0;
    return p;
}

__attribute__((noinline)) static double sum(const double *p, int n)   /* does not keep p */
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += p[i];
    return s;
}

int main(void)
{
    int    fail = 0, nth = 1;
    double priv_total = 0;

#pragma omp parallel reduction(+ : priv_total)
    {
        int t = omp_get_thread_num();
#pragma omp master
        nth = omp_get_num_threads();
        /* private: each thread's own buffers */
        for (int rep = 0; rep < 3; rep++) {
            double *b = malloc(N * sizeof *b);
            long   *z = calloc(N, sizeof *z);
            if (!b || !z) abort();
            for (int i = 0; i < N; i++) {
                b[i] = t + i;
                z[i] += i;
            }
            double s = sum(b, N);
            for (int i = 0; i < N; i++)
                s -= (double)z[i];
            z = realloc(z, 2 * N * sizeof *z);   /* a private pointer to realloc */
            if (!z) abort();
            priv_total += s + (double)z[N - 1];
            free(b);
            free(z);
        }
    }
    double want = 0;
    for (int t = 0; t < nth; t++)
        want += 3.0 * ((double)t * N + (N - 1));
    if (priv_total != want) {
        printf("private: %.1f, want %.1f\n", priv_total, want);
        fail = 1;
    }

    double *shared_local = NULL;
    double  got_pub = 0, got_int = 0, got_kept = 0, got_ret = 0, got_nested = 0;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp single
        {
            double *p = malloc(64 * sizeof *p);   /* published through pub */
            double *q = malloc(64 * sizeof *q);   /* published as an integer */
            long   *k = malloc(64 * sizeof *k);   /* kept by a callee */
            for (int i = 0; i < 64; i++) {
                p[i] = 0;
                q[i] = 0;
                k[i] = 0;
            }
            pub          = p;
            pub_int      = (uintptr_t)q;
            keep(k);
            shared_local = make(64);              /* returned by make */
        }
        pub[t] = t + 1;
        ((double *)pub_int)[t] = 10 * (t + 1);
        kept[t]                = 100 * (t + 1);
        shared_local[t]        = 1000 * (t + 1);
#pragma omp barrier
#pragma omp single
        {
            got_pub  = sum(pub, 64);
            got_int  = sum((double *)pub_int, 64);
            for (int i = 0; i < 64; i++)
                got_kept += (double)kept[i];
            got_ret = sum(shared_local, 64);
        }
    }
    {
        double *n = malloc(64 * sizeof *n);        /* shared with a parallel region */
        for (int i = 0; i < 64; i++)
            n[i] = 0;
#pragma omp parallel
        n[omp_get_thread_num()] = 5 * (omp_get_thread_num() + 1);
        got_nested = sum(n, 64);
        free(n);
    }
    double tri = (double)nth * (nth + 1) / 2;
    if (got_pub != tri || got_int != 10 * tri || got_kept != 100 * tri || got_ret != 1000 * tri ||
        got_nested != 5 * tri) {
        printf("shared: %.1f %.1f %.1f %.1f %.1f, want %.1f x 1 10 100 1000 5\n", got_pub, got_int, got_kept,
               got_ret, got_nested, tri);
        fail = 1;
    }
    free(pub);
    free((double *)pub_int);
    free(kept);
    free(shared_local);
    printf("private_heap: %d threads %s\n", nth, fail ? "FAILED" : "ok");
    return fail;
}
